"""Codex CLI rollouts: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

import pytest

from playground.engine.replay import Settings, replay
from playground.formats import read_bytes, read_path
from playground.measures.metrics import totals, turn_table
from playground.money.pricing import find_price
from tests.playground.formats.reading import FORMATS, lines_of


def test_codex_rollout_sessions_usage_and_compactions():
    path = FORMATS / "codex-cli" / "curated_agent-sessions_codex_small.jsonl"
    sessions = read_path(path)
    assert len(sessions) >= 2 and sessions[0].recorded_model
    compacted = [line for line in lines_of(path) if line["type"] == "compacted"]
    kept = [c for s in sessions for c in s.compactions]
    assert kept and len(kept) <= len(compacted)
    assert any(c.kept for c in kept)  # the replacement history as the agent sent it
    assert any("passed over" in str(w) for w in sessions[0].warnings)


def test_a_codex_rollout_uses_last_token_usage_once_per_call():
    last = {"input_tokens": 900, "cached_input_tokens": 512, "output_tokens": 40}
    usage = {"total_token_usage": {"input_tokens": 900}, "last_token_usage": last}
    first_call = {"type": "event_msg", "payload": {"type": "token_count", "info": usage}}
    lines = [
        {"type": "session_meta", "payload": {"id": "s1"}},
        {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look"}]},
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"cmd": "ls"}',
                "call_id": "c1",
            },
        },
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        first_call,
        first_call,  # Codex 0.58 writes a call's token_count twice: the repeat is no call
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            },
        },
        {
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {"input_tokens": 1900},
                    "last_token_usage": {
                        "input_tokens": 1000,
                        "cached_input_tokens": 896,
                        "output_tokens": 5,
                    },
                },
            },
        },
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "done"}},
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "rollout.jsonl")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1].thinking == "look" and session.messages[1].tool_calls[0].name == "shell"
    assert session.usage == {1: 900, 3: 1000} and session.cache_reads == {1: 512, 3: 896}
    assert session.outputs == {1: 40, 3: 5} and session.recorded_model == "gpt-5-codex"


def _token_count(total: int, last: dict) -> dict:
    info = {"total_token_usage": {"total_tokens": total}, "last_token_usage": last}
    return {"type": "event_msg", "payload": {"type": "token_count", "info": info}}


def _item(payload: dict) -> dict:
    return {"type": "response_item", "payload": payload}


def test_codex_0_58_writes_a_call_s_usage_before_its_items_and_each_call_keeps_its_own():
    """The shape of a real 0.58 rollout (codex-session-view's sample): a call's token_count,
    then its items, then the same token_count again; the next call's comes before its own."""
    first = {"input_tokens": 10_128, "cached_input_tokens": 0, "output_tokens": 37}
    second = {"input_tokens": 10_334, "cached_input_tokens": 9_984, "output_tokens": 43}
    lines = [
        {"type": "session_meta", "payload": {"id": "t1", "cli_version": "0.58.0"}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        {"type": "turn_context", "payload": {"model": "gpt-5.1-codex"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        _token_count(10_165, first),
        _item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]}),
        _item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        _item({"type": "function_call_output", "call_id": "c1", "output": "README.md"}),
        {"type": "turn_context", "payload": {"model": "gpt-5.1-codex"}},
        _token_count(10_165, first),  # the repeat after the items
        _token_count(20_542, second),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        _token_count(20_542, second),
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "rollout.jsonl")
    replies = [i for i, m in enumerate(session.messages) if m.role == "assistant"]
    assert session.usage == {replies[0]: 10_128, replies[1]: 10_334}
    assert session.cache_reads == {replies[0]: 0, replies[1]: 9_984}
    assert session.outputs == {replies[0]: 37, replies[1]: 43}
    figures = totals(turn_table(replay(session, [], Settings(model="gpt-5.1-codex"))))
    price = find_price("gpt-5.1-codex")
    expected = price.cost(10_128, 0, 0, 37) + price.cost(10_334, 9_984, 0, 43)
    assert figures["recorded_calls"] == 2 and figures["recorded_cost_usd"] == pytest.approx(
        expected, abs=1e-6
    )


def test_a_resumed_codex_thread_repeats_its_session_meta_and_stays_one_session():
    def call(n: int) -> list[dict]:
        usage = {"input_tokens": 100 * n, "cached_input_tokens": 0, "output_tokens": n}
        return [
            _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"q{n}"}]}),
            _item(
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]}
            ),
            _token_count(1000 * n, usage),
        ]

    meta = {"type": "session_meta", "payload": {"id": "thread-1"}}
    other = {"type": "session_meta", "payload": {"id": "thread-2"}}
    lines = [meta, *call(1), *call(2), meta, *call(3), other, *call(4)]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    sessions = read_bytes(data, "rollout.jsonl")
    assert [s.turns for s in sessions] == [3, 1]
    assert sorted(sessions[0].usage.values()) == [100, 200, 300]
