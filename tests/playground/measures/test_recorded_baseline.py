"""The recorded baseline: what the agent actually sent and paid, per call and in all, beside
the stack and the raw history; the recorded model by default; the agent's own compactions."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from playground.analyses.corpus import Job, session_figures, summary
from playground.cli.main import main
from playground.engine.replay import Settings, replay
from playground.engine.tokens import TokenCounter
from playground.formats import read_path
from playground.measures.baseline import recorded_words
from playground.measures.evaluate import Scenario
from playground.measures.metrics import RECORDED_COMPACTION, event_rows, totals, turn_table
from playground.money.pricing import find_price
from playground.stacks.candidates import Candidate
from playground.stacks.config import Config, parse_config
from playground.stacks.presets import PRESETS

FORMATS = Path(__file__).parents[2] / "fixtures" / "formats"
SNIFFLY = FORMATS / "claude-code" / "sniffly_d3ad4cdc.jsonl"
CURATED = FORMATS / "claude-code" / "curated_agent-sessions_claude_small.jsonl"


@pytest.fixture(scope="module")
def sniffly():
    (session,) = read_path(SNIFFLY)
    return session


def _calls_from_raw_lines(path: Path) -> dict[str, dict]:
    """Each API call of a Claude Code file's main chain, from its raw lines as ccusage reads
    them: one per message id (Claude Code's own ``<synthetic>`` replies are none), the usage of
    its last line."""
    calls: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        item = json.loads(line)
        message = item.get("message") or {}
        if (
            item.get("type") == "assistant"
            and not item.get("isSidechain")
            and message.get("model") != "<synthetic>"
        ):
            calls[message["id"]] = {"model": message["model"], **message["usage"]}
    return calls


def test_each_call_is_billed_as_recorded_at_the_model_that_answered_it(sniffly):
    """As recorded is the file's own usage, output included (ccusage's figure); the estimate
    with each reply's output counted (Claude Code logs a mid-stream snapshot of output_tokens)
    is a figure of its own, and the one the stack is set against."""
    result = replay(sniffly, PRESETS["pyagentic recommended"], Config().settings_for(sniffly))
    table = turn_table(result)
    calls = _calls_from_raw_lines(SNIFFLY)
    expected = sum(
        find_price(c["model"]).cost(
            c["input_tokens"] + c["cache_read_input_tokens"] + c["cache_creation_input_tokens"],
            c["cache_read_input_tokens"],
            c["cache_creation_input_tokens"],
            c["output_tokens"],
        )
        for c in calls.values()
    )
    figures = totals(table)
    assert figures["recorded_calls"] == len(table.rows) == len(calls) == 62
    assert figures["recorded_cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert figures["recorded_input_tokens"] == 3_928_738
    counted = sum(row["recorded_counted_output_usd"] for row in table.rows)
    assert figures["recorded_cost_counted_output_usd"] == pytest.approx(counted, abs=1e-6)
    assert counted > expected  # the replies hold more output than the snapshots say
    stack = figures["cost_usd"]
    assert figures["saved_vs_recorded_usd"] == pytest.approx(counted - stack, abs=1e-5)
    assert all(row["recorded_cost_usd"] > 0 for row in table.rows)
    # the record is a snapshot: 16,769 output tokens in all where the replies hold about 50,000
    assert sum(c["output_tokens"] for c in calls.values()) == 16_769
    assert sum(row["output_tokens"] for row in table.rows) > 2.9 * 16_769


def test_a_session_recording_some_calls_sums_those_and_says_how_many(sniffly):
    some = replace(sniffly, usage=dict(list(sniffly.usage.items())[:10]))
    table = turn_table(replay(some, [], Settings(model="claude-sonnet-4-20250514")))
    figures = totals(table)
    recorded = [row for row in table.rows if row["recorded_prompt_tokens"] is not None]
    assert figures["recorded_calls"] == len(recorded) == 10
    assert figures["recorded_input_tokens"] == sum(some.usage.values())
    assert figures["recorded_cost_usd"] == pytest.approx(
        sum(r["recorded_cost_usd"] for r in recorded), abs=1e-6
    )
    on_those = sum(r["cost_usd"] for r in recorded)  # the stack, on the calls recorded alone
    assert figures["saved_vs_recorded_usd"] == pytest.approx(
        figures["recorded_cost_counted_output_usd"] - on_those, abs=1e-5
    )
    assert "on 10 of 62 calls" in recorded_words(figures)
    tokens_only = replace(sniffly, cache_reads={}, cache_writes={})  # no cache split: no bill invented
    figures = totals(turn_table(replay(tokens_only, [], Settings(model="claude-sonnet-4-20250514"))))
    assert figures["recorded_calls"] == 62 and figures["recorded_input_tokens"] == 3_928_738
    assert figures["recorded_cost_usd"] is None and figures["recorded_cache_hit_pct"] is None
    assert "what the agent paid is unknown" in recorded_words(figures)
    none = replace(sniffly, usage={}, cache_reads={}, cache_writes={})
    figures = totals(turn_table(replay(none, [], Settings(model="claude-sonnet-4-20250514"))))
    assert figures["recorded_calls"] == 0 and figures["saved_vs_recorded_usd"] is None
    assert "records no usage" in recorded_words(figures)


def test_the_cli_replays_as_the_recorded_model_unless_one_is_named(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["replay", str(SNIFFLY), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["settings"]["model"] == "claude-sonnet-4-20250514"
    assert data["settings"]["context_window"] == 200_000
    assert data["settings"]["calibration"]["prefix"] > 10_000
    assert data["summary"]["recorded_cost_usd"] > 0 and data["turns"][0]["recorded_cost_usd"] > 0
    assert main(["replay", str(SNIFFLY), "--model", "gpt-4o", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["settings"]["model"] == "gpt-4o"
    config = tmp_path / "c.yaml"
    config.write_text("version: 1\nmodel: gpt-4.1\ncalibrate: false\nstack: []\n")
    assert main(["replay", str(SNIFFLY), "--config", str(config), "--json", str(out)]) == 0
    settings = json.loads(out.read_text())["settings"]
    assert settings["model"] == "gpt-4.1" and settings["calibration"] is None
    assert "claude-sonnet-4-20250514" in capsys.readouterr().out.splitlines()[1]


def test_calibrate_false_round_trips_through_a_config():
    config = parse_config("version: 1\ncalibrate: false\nstack: []\n", "c.yaml")
    assert config.settings.calibrate is False and not config.model_given
    assert "calibrate: false" in config.to_yaml()
    assert parse_config(config.to_yaml(), "again.yaml").settings.calibrate is False
    assert "calibrate" not in Config().to_yaml()


def test_the_agent_s_own_compactions_are_in_the_event_log_at_the_turn_after_them():
    session = next(s for s in read_path(CURATED) if s.compactions)
    result = replay(session, [], Settings(model=session.recorded_model))
    rows = [r for r in event_rows(result) if r["action"] == RECORDED_COMPACTION]
    replies = [i for i, m in enumerate(session.messages) if m.role == "assistant"]
    assert [c.at for c in session.compactions] == [0, 4] and replies[:3] == [0, 3, 4]
    assert [r["turn"] for r in rows] == [1, 3]  # the first replies at or after each
    assert rows[0]["tokens_before"] == 120_000 and "auto compaction in the log" in rows[0]["detail"]


def test_the_corpus_summary_says_what_each_stack_saves_against_what_was_recorded(sniffly):
    window = Candidate("window", tuple(PRESETS["Sliding window of 50"]))
    job = Job((window,), Scenario(Config().settings_for(sniffly)))
    ((row, _),) = session_figures(sniffly, job, TokenCounter(job.model))
    assert row["recorded_cost_usd"] > 0
    import pandas as pd

    table = summary(pd.DataFrame([{"session": "s"} | row]), ["window"])
    assert table["sessions recorded"][0] == 1
    assert table["$ saved vs recorded (total)"][0] == pytest.approx(row["saved_vs_recorded_usd"], abs=1e-4)
