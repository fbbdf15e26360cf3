"""Cline task histories: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

import pytest

from playground.engine.replay import replay
from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from playground.measures.metrics import totals, turn_table
from playground.money.pricing import find_price
from playground.stacks.config import Config
from tests.timing import best_cpu_time


def test_cline_text_results_are_tool_results_and_ui_messages_give_the_usage(tmp_path):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>fix it</task>"}], "ts": 1},
        {
            "role": "assistant",
            "ts": 2,
            "metrics": {"tokens": {"prompt": 100, "completion": 5, "cached": 0}},
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
            ],
        },
        {
            "role": "user",
            "ts": 3,
            "content": [
                {"type": "text", "text": "[read_file for 'a.py'] Result:\nprint(1)"},
                {"type": "text", "text": "<environment_details>x</environment_details>"},
            ],
        },
        {
            "role": "assistant",
            "ts": 4,
            "metrics": {"tokens": {"prompt": 160, "completion": 3, "cached": 90}},
            "content": [{"type": "text", "text": "Done."}],
        },
        {"role": "user", "ts": 5, "content": [{"type": "text", "text": "[TASK RESUMPTION] go on"}]},
        {"role": "assistant", "ts": 6, "content": [{"type": "text", "text": "OK."}]},
    ]
    task = tmp_path / "tasks" / "171"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    (session,) = read_path(task / "api_conversation_history.json")
    assert [m.role for m in session.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert (
        session.messages[2].tool_call_ids == ("toolu_1",)
        and "[TASK RESUMPTION]" in session.messages[5].content
    )
    assert session.usage == {1: 100, 4: 160} and session.cache_reads == {1: 0, 4: 90}
    ui = [
        {
            "ts": 2,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps(
                {"tokensIn": 7, "tokensOut": 5, "cacheWrites": 93, "cacheReads": 0, "cost": 0.01}
            ),
        },
        {"ts": 3, "type": "say", "say": "text", "text": "Reading."},
        {
            "ts": 4,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 4, "tokensOut": 3, "cacheWrites": 66, "cacheReads": 93}),
        },
        {
            "ts": 6,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 5, "tokensOut": 2, "cacheWrites": 10, "cacheReads": 159}),
        },
    ]
    (task / "ui_messages.json").write_text(json.dumps(ui))
    (session,) = read_path(task / "api_conversation_history.json")
    assert session.usage == {1: 100, 4: 163, 6: 174} and session.cache_writes == {1: 93, 4: 66, 6: 10}
    with pytest.raises(TranscriptError, match=r"add api_conversation_history\.json"):
        read_path(task / "ui_messages.json")


def test_cline_s_model_ids_name_the_model_genai_prices_knows():
    assert find_price("claude_4_5_opus").model == find_price("claude-opus-4-5").model
    assert (
        find_price("litellm_proxy/anthropic/claude-sonnet-4-5").model == find_price("claude-sonnet-4-5").model
    )
    assert find_price("claude-sonnet-4-6[1m]") is find_price("claude-sonnet-4-6")


def test_a_cline_call_answered_by_a_task_resumption_is_sent_as_result_missing_as_cline_sends_it():
    """Cline's ContextManager (v3.38.0, ensureToolResultsFollowToolUse) gives every call of a
    reply a result in the next user message, "result missing" where there is none: the raw
    history is as valid as what Cline sent, not invalid from that call on."""
    history = [
        {"role": "user", "ts": 1, "content": [{"type": "text", "text": "<task>fix it</task>"}]},
        {
            "role": "assistant",
            "ts": 2,
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "execute_command", "input": {"command": "ls"}}
            ],
        },
        {"role": "user", "ts": 3, "content": [{"type": "text", "text": "[TASK RESUMPTION] go on"}]},
        {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "Resuming."}]},
        {"role": "user", "ts": 5, "content": [{"type": "text", "text": "thanks"}]},
        {"role": "assistant", "ts": 6, "content": [{"type": "text", "text": "Done."}]},
    ]
    (session,) = read_bytes(json.dumps(history).encode(), "api_conversation_history.json")
    assert [m.role for m in session.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert session.messages[2].content == "result missing" and session.messages[2].tool_call_ids == (
        "toolu_1",
    )
    assert any(str(w).startswith("1 call answered by no result") for w in session.warnings)
    assert any('sent with the result "result missing"' in str(w) for w in session.warnings)
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["turns_with_violations"] == figures["raw_turns_with_violations"] == 0


def test_a_cline_reply_of_many_calls_reads_in_linear_time():
    """Issue 49, 1: each tool_result filtered the whole list of calls still waiting."""

    def history(calls: int) -> bytes:
        uses = [{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {}} for i in range(calls)]
        results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x"} for i in range(calls)]
        return json.dumps(
            [
                {"role": "user", "ts": 1, "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "ts": 2, "content": uses},
                {"role": "user", "ts": 3, "content": results},
                {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "done"}]},
            ]
        ).encode()

    for calls in (4_000, 8_000):
        (session,) = read_bytes(history(calls), "api_conversation_history.json")
        assert session.tool_calls == calls
    timings = [
        best_cpu_time(read_bytes, history(calls), "api_conversation_history.json") for calls in (4_000, 8_000)
    ]
    assert timings[1] < 3 * timings[0] + 0.3
