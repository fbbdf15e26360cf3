"""The recorded bill of real Claude Code sessions, checked against two independent sources:
a computation from the raw lines at Anthropic's list prices, and ccusage (20.0.24, offline
prices), the tool Claude Code users already trust for their bill.

The expected figures never go through the readers: each file's calls are found in its lines
as ccusage finds them (one call per ``message.id``, the last line's usage, Claude Code's own
``<synthetic>`` replies left out), each cache write billed at its own tier.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.engine.replay import Settings, replay
from playground.formats import read_path
from playground.measures.baseline import file_figures, which_session
from playground.measures.metrics import totals, turn_table
from playground.money.cost import Pricing, recorded_bill

FIXTURES = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code-erk"
CORPUS = Path(__file__).parents[4] / "shared" / "real_sessions" / "claude-code-corpus"

# Anthropic's list prices, dollars per million tokens: input, output, cache read, 5-minute
# write (1.25x input), 1-hour write (2x input)
LIST_PRICES = {
    "claude-opus-4-6": (5.0, 25.0, 0.5, 6.25, 10.0),
    "claude-sonnet-4-6": (3.0, 15.0, 0.3, 3.75, 6.0),
    "claude-haiku-4-5-20251001": (1.0, 5.0, 0.1, 1.25, 2.0),
}
# `ccusage session --offline --json` (ccusage 20.0.24) on each file alone: totalCost
CCUSAGE = {
    "06ed3af5": 11.578604,
    "1505dcfa": 1.555064,
    "176c738e": 3.26558,
    "186bee4d": 2.670941,
    "1b2fa935": 5.292461,
    "26efdcc5": 0.301256,
    "327598da": 1.871093,
    "34748be3": 2.937308,
    "393e5f27": 7.509025,
    "41140470": 13.128304,
    "44be6287": 11.990736,
    "4780b26d": 0.236801,
    "52bc43f3": 1.266035,
    "5cefbbde": 1.601059,
    "7f424454": 3.572092,
    "8128346d": 0.537342,
    "9b9018ad": 0.681779,
    "a5c478e1": 5.389721,
    "a89da32b": 4.96118,
    "b2c8258b": 0.385883,
    "bc189aff": 0.470681,
    "d9cb4436": 0.114807,
    "e1abe4b6": 3.066675,
    "f2ece582": 5.987432,
}


def _files() -> list[Path]:
    """The fixtures always; the whole shared corpus where it lies beside the checkout (CI)."""
    found = {p.name: p for p in FIXTURES.glob("*.jsonl")}
    found.update({p.name: p for p in CORPUS.glob("*.jsonl")} if CORPUS.is_dir() else {})
    return [found[name] for name in sorted(found)]


def _calls(lines: list[dict]) -> dict[str, dict]:
    calls: dict[str, dict] = {}
    for item in lines:
        message = item.get("message") or {}
        if (
            item.get("type") != "assistant"
            or item.get("isSidechain")
            or message.get("model") == "<synthetic>"
        ):
            continue
        calls[message["id"]] = {"model": message["model"], **message["usage"]}  # the last line's usage
    return calls


def _bill(calls: dict[str, dict]) -> float:
    total = 0.0
    for call in calls.values():
        uncached, output, read, five, hour = LIST_PRICES[call["model"]]
        one_hour = (call.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)
        written = call["cache_creation_input_tokens"]
        total += (
            call["input_tokens"] * uncached
            + call["output_tokens"] * output
            + call["cache_read_input_tokens"] * read
            + (written - one_hour) * five
            + one_hour * hour
        ) / 1e6
    return total


def _raw(path: Path) -> tuple[dict[str, dict], dict[str, dict]]:
    """The main chain's calls and the subagents' calls nested in ``agent_progress`` lines."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    nested = [
        item["data"]["message"]
        for item in lines
        if item.get("type") == "progress" and (item.get("data") or {}).get("type") == "agent_progress"
    ]
    return _calls(lines), _calls(nested)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name[:8])
def test_the_recorded_bill_is_the_file_s_own_and_ccusage_s(path):
    main_calls, subagent_calls = _raw(path)
    sessions = read_path(path)
    main = sessions[0]
    bill = recorded_bill([main])
    assert bill.calls == len(main_calls) and bill.priced == bill.calls
    assert main.turns == len(main_calls)  # one turn per API call, none per streamed line
    assert sum(main.usage.values()) == sum(
        c["input_tokens"] + c["cache_read_input_tokens"] + c["cache_creation_input_tokens"]
        for c in main_calls.values()
    )
    assert bill.cost == pytest.approx(_bill(main_calls), abs=1e-6)
    assert bill.cost == pytest.approx(CCUSAGE[path.name[:8]], rel=0.01)
    # the whole file: the subagents' calls too, which Claude Code 2.x nests in progress lines
    whole = recorded_bill(sessions)
    assert whole.calls == len(main_calls) + len(subagent_calls)
    assert whole.cost == pytest.approx(_bill(main_calls) + _bill(subagent_calls), abs=1e-6)
    figures = file_figures(sessions, main)
    assert figures["file_recorded_cost_usd"] == whole.cost and figures["file_sessions"] == len(sessions)


def test_a_replay_s_recorded_bill_bills_each_write_at_its_tier_and_the_stack_at_the_agent_s_cache():
    """A 2.1 session wrote its cache for an hour: the recorded bill pays 2x for those writes
    (not 1.25x), and the replays are priced under the one-hour cache the agent used."""
    path = FIXTURES / "d9cb4436-f9e7-4a74-b3eb-cd20580ce667.jsonl"
    main_calls, _ = _raw(path)
    session = read_path(path)[0]
    assert (
        sum(session.cache_writes_1h.values())
        == sum(c["cache_creation"]["ephemeral_1h_input_tokens"] for c in main_calls.values())
        > 0
    )
    table = turn_table(replay(session, [], Settings(model=session.recorded_model, context_window=200_000)))
    figures = totals(table)
    assert figures["recorded_cost_usd"] == pytest.approx(_bill(main_calls), abs=1e-6)
    assert table.attrs["cache_rule"] == "Anthropic, 1-hour cache"
    five_minute = turn_table(
        replay(session, [], Settings(model=session.recorded_model, context_window=200_000)),
        Pricing(cache="anthropic"),
    )
    assert totals(five_minute)["raw_cost_usd"] < figures["raw_cost_usd"]


def test_a_file_with_subagents_says_which_session_is_shown_and_the_whole_file_s_bill():
    path = FIXTURES / "d9cb4436-f9e7-4a74-b3eb-cd20580ce667.jsonl"
    sessions = read_path(path)
    assert len(sessions) == 3 and all(s.parent == sessions[0].name for s in sessions[1:])
    assert {s.recorded_model for s in sessions[1:]} == {"claude-haiku-4-5-20251001"}
    words = which_session(sessions[1], sessions)
    assert words.startswith("Session 2 of 3 in this file (1 main, 2 subagent).")
    main_calls, subagent_calls = _raw(path)
    assert f"for {len(main_calls) + len(subagent_calls)} calls in 3 sessions" in words
    assert which_session(sessions[0], sessions[:1]) == ""


def test_claude_4_6_runs_in_a_200k_window_unless_the_name_asks_for_1m_or_a_call_went_over():
    from playground.models.catalogue import window_of

    assert window_of("claude-opus-4-6", 128_000) == window_of("claude-sonnet-4-6", 128_000) == 200_000
    assert window_of("claude-sonnet-4-6[1m]", 128_000) == 1_000_000
    assert window_of("claude-sonnet-4-6", 128_000, seen=250_000) == 1_000_000  # the agent had asked
    assert window_of("gpt-4.1", 128_000) >= 1_000_000  # another provider's window as it is


def test_a_session_that_compacted_itself_at_188k_has_raw_requests_over_its_200k_window():
    path = FIXTURES / "34748be3-5a05-4aa0-a05b-2b3b99a4674c.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    boundaries = [line for line in lines if line.get("subtype") == "compact_boundary"]
    assert [b["compactMetadata"]["preTokens"] for b in boundaries] == [188_424]
    session = read_path(path)[0]
    from playground.stacks.config import Config

    settings = Config().settings_for(session)
    assert settings.context_window == 200_000
    table = turn_table(replay(session, [], settings))
    figures = totals(table)
    over = [row["turn"] for row in table.rows if row["raw_tokens"] > 200_000]
    assert figures["raw_turns_over_window"] == len(over) > 0
    # every call the agent sent fit: it compacted itself before its window ran out
    assert max(session.usage.values()) < 200_000
