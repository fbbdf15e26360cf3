"""Why a stack costs what it does: the difference from the raw history in parts that each
carry their dollars and add up to it, on real Codex CLI and Claude Code recordings."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.engine.replay import replay
from playground.formats import read_path
from playground.measures.figures import Totals
from playground.measures.metrics import totals, turn_table
from playground.measures.reasons import difference_words
from playground.stacks.config import Config
from playground.stacks.presets import PRESETS

FORMATS = Path(__file__).parents[2] / "fixtures" / "formats"
SESSIONS = [
    FORMATS / "codex-cli" / "codemie_rollout_019e1625.jsonl",  # the default stack saves here
    FORMATS / "claude-code-erk" / "d9cb4436-f9e7-4a74-b3eb-cd20580ce667.jsonl",  # and loses here
]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name)
def test_the_parts_of_the_difference_add_up_to_it(path):
    session = read_path(path)[0]
    stack = PRESETS["pyagentic recommended"]
    table = turn_table(replay(session, stack, Config().settings_for(session)))
    figures = totals(table)
    parts = ("read", "write", "uncached", "output")
    total = sum(figures[f"difference_{p}_usd"] for p in parts) + figures["summary_cost_usd"]
    assert total == pytest.approx(figures["cost_usd"] - figures["raw_cost_usd"], abs=1e-5)
    for part, column in (("read", "cache_read_tokens"), ("write", "cache_write_tokens")):
        assert figures[f"difference_{part}_tokens"] == sum(r[column] - r[f"raw_{column}"] for r in table.rows)
    words = difference_words(figures)
    verdict = "more than the raw history" if figures["saved_usd"] < 0 else "against the raw history"
    assert words.startswith("This stack ") and verdict in words and "cache reads" in words


def test_no_price_no_reason_in_dollars():
    assert difference_words(Totals(turns=3, cost_usd=None)) == ""
