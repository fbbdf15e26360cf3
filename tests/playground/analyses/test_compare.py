"""Comparing candidates: the best of each row, deltas against a baseline, the config's
candidates list, and the `compare` and `sweep` commands."""

import json

import pandas as pd
import pytest

from playground.analyses.compare import FIGURES, best_of, compare, unique_name
from playground.cli.main import main
from playground.stacks.config import ConfigError, parse_config
from policies.registry import PolicySpec


def figures(**values):
    return {f.key: values.get(f.key, 0) for f in FIGURES}


def test_best_is_marked_by_each_figures_direction_and_deltas_are_against_the_baseline():
    table = compare(
        {
            "raw": figures(cost_usd=1.5, cache_hit_pct=98.0, distinct_facts_lost=0),
            "evict": figures(cost_usd=1.1, cache_hit_pct=75.0, distinct_facts_lost=1),
            "batched": figures(cost_usd=1.1, cache_hit_pct=95.0, distinct_facts_lost=1),
        },
        baseline="evict",
    )
    assert table.best["cost_usd"] == ("evict", "batched")  # a tie marks both
    assert table.best["cache_hit_pct"] == ("raw",)  # higher is better
    assert table.best["distinct_facts_lost"] == ("raw",)
    assert table.best["stubs_created"] == ()  # neither direction is better
    assert table.deltas["cost_usd"] == {"raw": 0.4, "evict": 0.0, "batched": 0.0}
    assert table.deltas["cache_hit_pct"]["batched"] == 20.0
    rows = table.rows()
    assert [r["candidate"] for r in rows] == ["raw", "evict", "batched"]
    assert [r["baseline"] for r in rows] == [False, True, False]
    assert "cost_usd" in rows[2]["best_in"] and "cache_hit_pct" in rows[0]["best_in"]


def test_nothing_is_best_when_all_are_equal_and_unknown_values_are_skipped():
    assert best_of({"a": 3, "b": 3}, "lower") == ()
    assert best_of({"a": None, "b": 2, "c": 5}, "lower") == ("b",)
    table = compare({"a": figures(cost_usd=None), "b": figures(cost_usd=2.0)})
    assert table.baseline == "a" and table.deltas["cost_usd"]["b"] is None


def test_the_baseline_must_be_a_candidate():
    with pytest.raises(ValueError, match="'c' is not a candidate"):
        compare({"a": figures(), "b": figures()}, "c")


def test_names_are_made_unique():
    assert unique_name("evict", []) == "evict"
    assert unique_name("evict", ["evict", "evict (2)"]) == "evict (3)"


CANDIDATES = """\
version: 1
model: gpt-4o
stack: [SlidingWindowPolicy]
candidates:
  - name: batched
    stack:
      - ToolOutputClipPolicy: {max_chars: 8000}
      - ToolEvictionPolicy: {keep_last_n: 5, min_freed_tokens: 5000}
  - name: raw
    stack: []
"""


def test_candidates_round_trip_and_a_file_with_one_stack_stays_valid():
    config = parse_config(CANDIDATES)
    assert [c.name for c in config.candidates] == ["batched", "raw"]
    assert config.candidates[0].stack[1] == PolicySpec(
        "ToolEvictionPolicy", {"keep_last_n": 5, "min_freed_tokens": 5000}
    )
    assert parse_config(config.to_yaml()).candidates == config.candidates
    assert parse_config(config.to_json()).candidates == config.candidates
    assert parse_config(config.to_yaml()).stack == config.stack
    single = parse_config("version: 1\nstack: [SlidingWindowPolicy]\n")
    assert single.candidates == () and "candidates" not in single.to_data()


@pytest.mark.parametrize(
    ("candidates", "message"),
    [
        ("[batched]", "candidates entry 1: expected \\{name: text, stack"),
        ("[{stack: []}]", "candidates entry 1: expected"),
        ("[{name: '', stack: []}]", "name must be a text of 1 to 80"),
        ("[{name: a, stack: []}, {name: a, stack: []}]", "candidates entry 2: the name 'a' is given twice"),
        ("[{name: a, stack: {x: 1}}]", "candidates entry 1 \\(a\\): stack must be a list"),
        ("[{name: a, stack: [NoSuchPolicy]}]", "candidates entry 1 \\(a\\): stack entry 1: unknown policy"),
        ("[{name: a, stack: [{SlidingWindowPolicy: {max_messages: -1}}]}]", "max_messages must be at least"),
        ("[{name: a, colour: red, stack: []}]", "candidates entry 1: expected"),
        ("[{name: sk-abcdefghijklmnopqrstuvwxyz012345, stack: []}]", "looks like a secret"),
        ("[" + ", ".join(f"{{name: c{n}}}" for n in range(7)) + "]", "limit is 6"),
    ],
)
def test_bad_candidates_are_refused_naming_the_entry(candidates, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(f"version: 1\ncandidates: {candidates}\n", "stacks.yaml")


@pytest.fixture
def two_configs(tmp_path):
    evict = tmp_path / "evict.yaml"
    evict.write_text("version: 1\nstack: [{ToolEvictionPolicy: {keep_last_n: 2}}]\n")
    both = tmp_path / "both.yaml"
    both.write_text(CANDIDATES)
    return evict, both


def test_compare_prints_every_candidate_against_the_baseline(real_session_path, two_configs, capsys):
    evict, both = two_configs
    preset = "No policies (raw history)"
    assert main(["compare", str(real_session_path), str(evict), str(both), preset, "--baseline", "raw"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "(baseline)" in line)
    for name in ("evict", "batched", "raw (baseline)", "No policies (raw history)"):
        assert name in header
    assert "session cost ($), summaries included" in out and "* the best value of the row" in out


def test_compare_csv_and_json_carry_every_figure_and_delta(real_session_path, two_configs, tmp_path):
    evict, both = two_configs
    csv, js = tmp_path / "c.csv", tmp_path / "c.json"
    # priced as gpt-4o (the session's own DeepSeek cache keeps nearly every read whatever the stack)
    args = ["compare", str(real_session_path), str(evict), str(both), "--model", "gpt-4o"]
    assert main([*args, "--csv", str(csv)]) == 0
    frame = pd.read_csv(csv)
    assert list(frame["candidate"]) == ["evict", "batched", "raw"]
    assert {"cost_usd", "delta_cost_usd", "best_in", "distinct_facts_lost"} <= set(frame.columns)
    raw = frame.set_index("candidate").loc["raw"]
    assert raw["saved_cost_pct"] == 0 and raw["delta_cost_usd"] > 0  # raw costs more than evicting
    assert main(["compare", str(real_session_path), str(evict), str(both), "--json", str(js)]) == 0
    data = json.loads(js.read_text())
    assert data["baseline"] == "evict" and len(data["candidates"]) == 3


def test_compare_refuses_what_is_not_there(real_session_path, two_configs, capsys):
    evict, _ = two_configs
    assert main(["compare", str(real_session_path), str(evict), "nothing.yaml"]) == 2
    assert "nothing.yaml: no such config file or preset" in capsys.readouterr().err
    assert main(["compare", str(real_session_path), str(evict), "--baseline", "other"]) == 2
    assert "--baseline 'other': not a candidate (candidates: evict)" in capsys.readouterr().err


def test_sweep_prints_every_point_and_the_front(real_session_path, tmp_path, capsys):
    out = tmp_path / "s.json"
    args = ["sweep", str(real_session_path), "--param", "2.keep_last_n=0:3", "--workers", "1"]
    assert main([*args, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "front (lowest session cost ($) for its facts lost): 2.keep_last_n=0" in printed
    data = json.loads(out.read_text())
    assert [p["2.keep_last_n"] for p in data["points"]] == [0, 1, 2, 3]
    assert data["cost"] == "cost_usd" and data["loss"] == "distinct_facts_lost"
    costs = [p["cost_usd"] for p in data["points"]]
    assert costs == sorted(costs)  # keeping more results costs more on this session
    assert data["points"][0]["on_front"]


def test_sweep_refuses_a_bad_parameter_in_one_line(real_session_path, capsys):
    assert main(["sweep", str(real_session_path), "--param", "2.keep_last_n=9:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ends (1) before it starts (9)" in err
    assert main(["sweep", str(real_session_path), "--param", "2.keep_last_n=1", "--workers", "0"]) == 2
    assert "--workers must be from 1 to 8" in capsys.readouterr().err
