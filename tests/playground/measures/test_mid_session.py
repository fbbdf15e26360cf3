"""A file that starts mid-session (the tail of a real Claude Code session, as a resumed session's
copy or a file cut at the front holds it): said, its missing history one block of earlier
conversation opening the history, which a compaction folds in like any old message, never a
"system prompt" that no policy can touch and that makes the default stack several times dearer
than what the agent paid (compacting every turn, each compaction writing it again)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from playground.engine.replay import replay
from playground.formats import read_bytes
from playground.measures.metrics import totals, turn_table
from playground.stacks.config import Config
from playground.stacks.presets import PRESETS

SNIFFLY = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code" / "sniffly_d3ad4cdc.jsonl"


@pytest.fixture(scope="module")
def tail() -> tuple[list[dict], bytes]:
    """The real session from its first user line past the middle on."""
    lines = SNIFFLY.read_text().splitlines()
    cut = next(i for i in range(len(lines) // 2, len(lines)) if json.loads(lines[i])["type"] == "user")
    kept = lines[cut:]
    return [json.loads(line) for line in kept], "\n".join(kept).encode()


def test_the_tail_of_a_session_is_said_to_start_mid_session(tail):
    raw, data = tail
    (session,) = read_bytes(data, "tail.jsonl")
    assert raw[0]["parentUuid"] not in {line.get("uuid") for line in raw}  # as the raw lines say
    assert session.starts_mid_session
    assert any("the file starts mid-session" in str(w) for w in session.warnings)
    (whole,) = read_bytes(SNIFFLY.read_bytes(), SNIFFLY.name)
    assert not whole.starts_mid_session


def test_its_missing_history_is_a_block_no_larger_than_the_first_request(tail):
    raw, data = tail
    (session,) = read_bytes(data, "tail.jsonl")
    result = replay(session, [], Config().settings_for(session))
    calibration = result.calibration
    first = next(line["message"]["usage"] for line in raw if line["type"] == "assistant")
    first_input = (
        first["input_tokens"] + first["cache_read_input_tokens"] + first["cache_creation_input_tokens"]
    )
    assert calibration is not None and calibration.applied and calibration.mid_session
    # the agent's head (its usual size: no compaction in the file shows it) and the block
    assert calibration.prefix == 20_000 < calibration.prefix + calibration.earlier <= first_input
    assert "the file starts mid-session" in calibration.note and "a policy can compact" in calibration.note
    block = result.turns[0].request[0]
    assert block.role == "user" and block.content.startswith(
        "[the conversation before this file's first line"
    )
    # the raw history, calibrated, is what the agent sent: within a few per cent per call
    rows = turn_table(result).rows
    misses = [
        abs(
            r["cache_read_tokens"]
            + r["cache_write_tokens"]
            + r["uncached_tokens"]
            - r["recorded_prompt_tokens"]
        )
        / r["recorded_prompt_tokens"]
        for r in rows
    ]
    assert sorted(misses)[len(misses) // 2] < 0.02


def test_the_default_stack_folds_the_block_into_one_compaction_and_is_not_made_dearer_by_it(tail):
    _, data = tail
    (session,) = read_bytes(data, "tail.jsonl")
    stack, settings = PRESETS["pyagentic recommended"], Config().settings_for(session)
    result = replay(session, stack, settings)
    figures = totals(turn_table(result))
    assert figures["compactions"] == 1 and figures["thrash_events"] == 0
    assert not result.turns[-1].request[0].content.startswith("[the conversation before")
    # the same file read as if it held the whole session: a phantom system prompt of the block's
    # size, written again at every cache break
    phantom = totals(turn_table(replay(replace(session, starts_mid_session=False), stack, settings)))
    assert phantom["cost_usd"] > 2 * figures["cost_usd"]
    batched = totals(turn_table(replay(session, PRESETS["Cache-friendly (batched eviction)"], settings)))
    assert batched["cost_usd"] < figures["recorded_cost_counted_output_usd"]
