"""The per-turn table: the rows the command line reports are the figures the app charts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from playground.cli.text_table import text_table, write_csv
from playground.engine.replay import replay
from playground.formats import read_path
from playground.measures.metrics import event_rows, events_frame, records, totals, turn_table
from playground.measures.must_keep import parse
from policies.registry import PolicySpec
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = sorted(SYNTHETIC.glob("*.json"))
STACKS = {
    "none": [],
    "summaries": [
        PolicySpec("ToolOutputClipPolicy", {"max_chars": 2000}),
        PolicySpec("CompactionPolicy", {"max_input_tokens": 6000, "keep_recent": 4}),
    ],
}


def _same(left, right) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12)
    return left == right


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("stack", sorted(STACKS))
def test_a_turn_table_and_its_frame_give_the_same_turns_events_and_totals(path, stack):
    session = read_path(path)[0]
    result = replay(session, STACKS[stack])
    table = turn_table(result, must_keep=parse(["approved", "/INV-\\d+/"]))
    frame = table.frame()
    assert frame.attrs == table.attrs and list(frame.columns) == list(table.rows[0])
    for row, back in zip(table.rows, records(frame), strict=True):
        assert row.keys() == back.keys() and all(_same(row[k], back[k]) for k in row), row["turn"]
    assert event_rows(result, table) == event_rows(result, frame)
    assert events_frame(result, table).to_dict(orient="records") == event_rows(result, table)
    figures, again = totals(table), totals(frame)
    assert figures == again
    assert figures["turns"] == len(result.turns) and figures["billed_raw_tokens"] == frame["raw_tokens"].sum()


def test_a_text_table_aligns_numbers_right_text_left_and_shows_missing_figures_as_a_dash():
    rows = [
        {"turn": 1, "policy": "clip", "cost_usd": 0.003747, "threshold": 0.5, "cache_break_at": None},
        {"turn": 12, "policy": "ToolEviction", "cost_usd": 0.1, "threshold": 0.75, "cache_break_at": 40},
    ]
    assert text_table(rows).splitlines() == [
        "turn  policy        cost_usd  threshold  cache_break_at",
        "   1  clip          0.003747       0.50               -",
        "  12  ToolEviction  0.100000       0.75              40",
    ]
    assert text_table(rows, ["policy", "turn"]).splitlines()[1] == "clip             1"
    assert text_table([], ["turn"]) == "turn"


def test_csv_leaves_a_missing_figure_empty(tmp_path):
    out = tmp_path / "t.csv"
    with out.open("w") as file:
        write_csv([{"turn": 1, "cost_usd": None, "note": 'a "quoted", text'}], file)
    assert out.read_text() == 'turn,cost_usd,note\n1,,"a ""quoted"", text"\n'


def test_the_reason_adds_up_to_the_difference_the_headline_states():
    """Issues 33, 4 and 44, 11: the difference from the raw history in parts (cache reads,
    writes, uncached input, output tier, summaries), each with its dollars, that sum to the
    stack's cost minus the raw history's (the real astropy session at claude-sonnet-4-5)."""
    from dataclasses import replace as changed

    from playground.engine.replay import replay
    from playground.formats import read_path
    from playground.stacks.config import Config
    from playground.stacks.presets import PRESETS

    [session] = read_path(Path(__file__).parents[2] / "fixtures" / "msa_astropy12907.traj.json")
    settings = changed(Config().settings, model="claude-sonnet-4-5", context_window=200_000)
    figures = totals(turn_table(replay(session, PRESETS["pyagentic recommended"], settings)))
    assert figures["saved_usd"] < 0 and figures["cache_breaks"] > 10
    parts = sum(figures[f"difference_{p}_usd"] for p in ("read", "write", "uncached", "output"))
    assert abs(parts + figures["summary_cost_usd"] - (figures["cost_usd"] - figures["raw_cost_usd"])) < 1e-5
    # the breaks write the cache again: far more than the tokens re-paid at the breaks alone
    assert figures["difference_write_tokens"] > 3 * figures["cache_break_repaid_tokens"]
    assert figures["difference_write_usd"] > 0 and figures["difference_read_usd"] < 0
