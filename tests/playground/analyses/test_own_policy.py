"""Issue 55: your agent's own policy, replayed to its bill. On every real session under the
shared folder whose agent compacted (Claude Code and Codex), the agent's own policy replayed
costs within 3 % of what the agent paid, compacts as many times as it did, each within two calls
of where it did, at the window its file records.

The expected figures come from the raw lines, never through the readers: Claude Code's calls
are the distinct ``message.id`` of main-chain assistant lines (model not ``<synthetic>``), the
last line's usage; Codex's are the ``token_count`` events whose total changed. The agent's input
bill (uncached input, cache reads, cache writes at their recorded tier) is computed at
Anthropic's and OpenAI's list prices; output is compared apart, since every replay bills each
reply's output as counted from its text (Claude Code logs a mid-stream snapshot).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from playground.analyses.own_policy import own_policy
from playground.formats import read_path
from playground.measures.evaluate import Scenario
from playground.measures.metrics import turn_table
from playground.money.pricing import find_price

SHARED = Path(__file__).parents[4] / "shared" / "real_sessions"
SAMPLES = Path(__file__).parents[3] / "sample_sessions"
# the shared folder's compacting sessions where it is beside the checkout; else the two of them the
# app ships as samples (byte copies of entirecli_43 and mise_94), so a clean clone checks them too
CLAUDE_CODE = sorted((SHARED / "compacted" / "claude-code").glob("*.jsonl")) or [
    SAMPLES / "claude_code_compacted.jsonl"
]
CODEX = sorted((SHARED / "compacted" / "codex-cli").glob("*.jsonl")) or [SAMPLES / "codex_compacted.jsonl"]


def _compacting_corpus() -> list[Path]:
    """The corpus sessions with a compaction of the agent's own, as their lines say."""
    return [
        p
        for p in sorted((SHARED / "claude-code-corpus").glob("*.jsonl"))
        if '"subtype":"compact_boundary"' in p.read_text().replace(" ", "")
    ]


COMPACTING = [*CLAUDE_CODE, *_compacting_corpus(), *CODEX]


def _claude_code_lines(path: Path) -> tuple[list[dict], list[int]]:
    """The main chain's calls (last line's usage, model) in order, and the 1-based call before
    which each compact_boundary stands."""
    calls: dict[str, dict] = {}
    order: list[str] = []
    boundaries: list[int] = []
    for line in path.read_text().splitlines():
        item = json.loads(line)
        if item.get("type") == "system" and item.get("subtype") == "compact_boundary":
            boundaries.append(len(order) + 1)
        message = item.get("message") or {}
        if (
            item.get("type") != "assistant"
            or item.get("isSidechain")
            or message.get("model") == "<synthetic>"
        ):
            continue
        if message["id"] not in calls:
            order.append(message["id"])
        calls[message["id"]] = {"model": message["model"], **message["usage"]}
    return [calls[i] for i in order], boundaries


def _codex_lines(path: Path) -> tuple[list[dict], list[int], int]:
    """Codex's calls (``last_token_usage`` of each new total, with the model of the turn), the
    1-based call before which each ``compacted`` item stands, and the window most calls record."""
    calls, boundaries, windows = [], [], Counter()
    last, model = None, ""
    for line in path.read_text().splitlines():
        item = json.loads(line)
        payload = item.get("payload") or {}
        if item.get("type") == "turn_context":
            model = payload.get("model") or model
        if item.get("type") == "compacted":
            boundaries.append(len(calls) + 1)
        if item.get("type") == "event_msg" and payload.get("type") == "token_count" and payload.get("info"):
            total = payload["info"]["total_token_usage"]
            if total == last:
                continue
            last = total
            windows[payload["info"]["model_context_window"]] += 1
            calls.append({"model": model, **payload["info"]["last_token_usage"]})
    return calls, boundaries, windows.most_common(1)[0][0]


def _input_bill(calls: list[dict], codex: bool) -> float:
    """The agent's bill for its input: uncached, cache reads, cache writes at their tier."""
    total = 0.0
    for call in calls:
        price = find_price(call["model"])
        assert price is not None, call["model"]
        if codex:
            size, read, write, hour = call["input_tokens"], call["cached_input_tokens"], 0, 0
        else:
            read, write = call["cache_read_input_tokens"], call["cache_creation_input_tokens"]
            size = call["input_tokens"] + read + write
            hour = (call.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)
        total += price.cost(size, read, write, 0, hour)
    return total


def _replayed(path: Path):
    (session, *_) = read_path(path)
    own = own_policy(session, Scenario().for_session(session, False))
    assert own is not None
    return session, own


@pytest.mark.parametrize("path", COMPACTING, ids=lambda p: p.name[:12])
def test_the_agent_s_own_policy_replays_to_its_bill_and_compacts_where_it_did(path):
    codex = path in CODEX
    if codex:
        calls, boundaries, window = _codex_lines(path)
    else:
        calls, boundaries = _claude_code_lines(path)
    _, own = _replayed(path)
    rows = turn_table(own.result).rows
    assert len(rows) == len(calls)
    # the input side of the bill, against the raw lines' own figures
    replayed = sum(r["cost_read_usd"] + r["cost_write_usd"] + r["cost_uncached_usd"] for r in rows)
    expected = _input_bill(calls, codex)
    assert replayed == pytest.approx(expected, rel=0.03)
    # the output side: each reply's output as every replay bills it, the agent's calls alike
    assert own.figures["cost_usd"] == pytest.approx(own.paid_usd, rel=0.03)
    # as many compactions as the agent made, each within two calls of where it made it
    compacted = [e.turn for e in own.result.events if e.action == "compact"]
    assert len(compacted) == len(boundaries)
    assert all(abs(turn - call) <= 2 for turn, call in zip(compacted, boundaries, strict=True))
    if codex:  # at the window the rollout records, not the price list's million
        assert own.window == window == 258_400
        assert own.figures["turns_over_window"] == 0


def test_the_raw_history_of_a_compacting_session_is_never_sendable():
    """The 2.1.36 session: the raw history outgrows the 200,000 window (as its calls' growth
    shows) and the lead says so; the agent's own policy never does."""
    _, own = _replayed(CLAUDE_CODE[0])
    assert own.raw_turns_over_window > 0 and own.figures["turns_over_window"] == 0
    assert own.raw_words().startswith("The raw history is never sendable: over the 200,000-token window on ")
    assert "no residual" in own.words() and "2 compactions where the agent made 2" in own.words()


@pytest.mark.parametrize("path", [p for p in COMPACTING if p not in CODEX], ids=lambda p: p.name[:12])
def test_claude_code_s_trigger_follows_its_release(path):
    """Up to 2.1.19 the last call's usage at 155,000; from 2.1.29 with an estimate of what arrived
    since, at 167,000. On the recorded figures, each automatic compaction lands within two calls
    of where the release's rule puts it, wherever the agent's own count (``preTokens``) is what
    the file holds: the last call's prompt and output, and at most 2,000 tokens more."""
    from playground.engine.tokens import TokenCounter
    from playground.measures.compactions import compaction_report

    calls, boundaries = _claude_code_lines(path)
    metas = [
        json.loads(line)["compactMetadata"]
        for line in path.read_text().splitlines()
        if '"compact_boundary"' in line and json.loads(line).get("subtype") == "compact_boundary"
    ]
    (session, *_) = read_path(path)
    rows = compaction_report(session, TokenCounter(session.recorded_model), 200_000)
    assert [r.call for r in rows] == boundaries
    assert [r.counted_tokens for r in rows] == [m["preTokens"] for m in metas]
    version = session.agent_version
    newer = tuple(int(p) for p in version.split(".")) >= (2, 1, 29)
    for row, meta, call in zip(rows, metas, boundaries, strict=True):
        last = calls[call - 2]
        held = last["input_tokens"] + last["cache_read_input_tokens"] + last["cache_creation_input_tokens"]
        assert row.before_tokens == held
        assert ("estimate" in row.rule) == newer and ("167,000" if newer else "155,000") in row.rule
        if meta["trigger"] == "auto" and meta["preTokens"] - held - last["output_tokens"] < 2_000:
            assert row.rule_call is not None and abs(row.rule_call - call) <= 2, (row, call)


def test_a_compaction_report_s_figures_are_the_file_s_own():
    """Tokens before and after, what was written to the cache again and its price at the
    recorded tier, from the raw lines of the 2.1.36 session."""
    from playground.engine.tokens import TokenCounter
    from playground.measures.compactions import compaction_report

    calls, boundaries = _claude_code_lines(CLAUDE_CODE[0])
    (session, *_) = read_path(CLAUDE_CODE[0])
    rows = compaction_report(session, TokenCounter(session.recorded_model), 200_000)
    for row, call in zip(rows, boundaries, strict=True):
        after = calls[call - 1]
        prompt = (
            after["input_tokens"] + after["cache_read_input_tokens"] + after["cache_creation_input_tokens"]
        )
        assert row.after_tokens == prompt < row.before_tokens / 2
        written = after["cache_creation_input_tokens"]
        hour = (after.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)
        assert row.rewritten_tokens == written
        assert row.rewrite_usd == pytest.approx((written - hour) * 6.25e-6 + hour * 10e-6)
        assert row.summary_call_usd is not None and row.summary_tokens and row.summary_tokens > 1_000
        assert row.cost_usd == pytest.approx(row.rewrite_usd + row.summary_call_usd)


def test_the_rule_named_in_a_config_is_used_over_the_release():
    from policies.claude_code import LAST_CALL, ClaudeCodeAutoCompactPolicy, autocompact_threshold

    assert autocompact_threshold(200_000) == 167_000
    assert autocompact_threshold(200_000, rule=LAST_CALL) == 155_000
    assert autocompact_threshold(200_000, 50, LAST_CALL) == 84_000  # the override only lowers it
    with pytest.raises(ValueError):
        ClaudeCodeAutoCompactPolicy(rule="sometimes")


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared real sessions are not beside the checkout")
def test_a_mid_session_tail_that_the_agent_trimmed_replays_to_its_bill(tmp_path):
    """The tail of a real 2.0.67 session (cut where a call first passes 100,000 tokens, as Entire
    keeps slices): no phantom system prompt, and the agent's trim, which cleared results from
    before the file's first line, is taken from the block of earlier conversation too."""
    source = SHARED / "claude-code-corpus" / "06ed3af5-93f7-4310-876d-8b8c19703617.jsonl"
    lines = source.read_text().splitlines()
    first = next(
        n
        for n, line in enumerate(lines)
        if (item := json.loads(line)).get("type") == "assistant"
        and sum(v for k, v in item["message"]["usage"].items() if k.endswith("input_tokens")) > 100_000
    )
    cut = next(n for n in range(first + 1, len(lines)) if json.loads(lines[n]).get("type") == "user")
    tail = tmp_path / "tail.jsonl"
    tail.write_text("\n".join(lines[cut:]) + "\n")
    calls, boundaries = _claude_code_lines(tail)
    _, own = _replayed(tail)
    assert own.result.session.starts_mid_session and own.result.calibration.earlier > 50_000
    rows = turn_table(own.result).rows
    replayed = sum(r["cost_read_usd"] + r["cost_write_usd"] + r["cost_uncached_usd"] for r in rows)
    assert replayed == pytest.approx(_input_bill(calls, codex=False), rel=0.03)
    assert [e.turn for e in own.result.events if e.action == "compact"] == boundaries
