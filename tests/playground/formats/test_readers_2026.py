"""Issue 57: what the agents wrote in 2026, read one turn and one recorded call per model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.formats import read_bytes


def test_a_bare_aider_input_line_is_a_blank_line_of_the_same_input_not_a_reply():
    """Aider writes a blank line inside a multi-line or pasted input as ``####`` alone: part of
    the user's input. One turn per model call, as the ``> Tokens:`` lines count them."""
    log = "\n".join(
        [
            "# aider chat started at 2026-03-01 10:00:00",
            "",
            "> Main model: claude-sonnet-4-5",
            "",
            "#### Fix the parser:",
            "####  ",
            "#### def parse(x):",
            "####",
            "####     return int(x)",
            "",
            "The parser now handles spaces.",
            "",
            "> Tokens: 2.4k sent, 104 received. Cost: $0.0088 message, $0.0088 session.",
            "",
            "#### thanks",
            "",
            "You're welcome.",
            "",
            "> Tokens: 2.6k sent, 10 received. Cost: $0.0080 message, $0.0168 session.",
        ]
    )
    (session,) = read_bytes(log.encode(), ".aider.chat.history.md")
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert session.messages[0].content == "Fix the parser:\n\ndef parse(x):\n\n    return int(x)"
    assert session.turns == len(session.usage) == 2  # one per Tokens line
    assert session.usage[1] == 2_400 and session.messages[1].content == "The parser now handles spaces."


def test_a_claude_code_call_whose_usage_is_in_its_iterations_is_a_recorded_call():
    """2.1.226: an Agent tool call's top-level usage is all zero, ``usage.iterations`` holds the
    real figures: summed, the call is billed (it was dropped)."""
    zero = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 0,
    }
    iterations = [
        {
            "input_tokens": 3,
            "cache_creation_input_tokens": 1_200,
            "cache_read_input_tokens": 40_000,
            "output_tokens": 90,
        },
        {
            "input_tokens": 2,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 41_200,
            "output_tokens": 60,
        },
    ]
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "version": "2.1.226",
         "message": {"role": "user", "content": "look into it"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "version": "2.1.226",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-6",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {**zero, "iterations": iterations}}},
    ]  # fmt: skip
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "s.jsonl")
    assert session.usage == {
        1: sum(
            i["input_tokens"] + i["cache_creation_input_tokens"] + i["cache_read_input_tokens"]
            for i in iterations
        )
    }
    assert session.cache_reads[1] == 81_200 and session.outputs[1] == 150
    assert session.agent_version == "2.1.226"


def test_an_old_swe_agent_trajectory_with_observations_of_no_call_is_read_again():
    """A regression: a ``.traj`` whose observations have role ``tool`` but no ``tool_call_id``
    (SWE-agent's text-only history) was refused; they are what the model read, as text."""
    history = [
        {"role": "system", "content": "You are an agent.", "agent": "primary"},
        {"role": "user", "content": "Fix the bug.", "agent": "primary"},
        {"role": "assistant", "content": "ls", "agent": "primary", "thought": "look", "action": "ls"},
        {"role": "tool", "content": "a.py b.py", "agent": "primary", "message_type": "observation"},
        {"role": "assistant", "content": "submit", "agent": "primary", "thought": "done", "action": "submit"},
    ]
    traj = {
        "history": history,
        "trajectory": [],
        "info": {"model_stats": {"api_calls": 2, "tokens_sent": 100, "tokens_received": 10}},
    }
    (session,) = read_bytes(json.dumps(traj).encode(), "run.traj")
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert session.turns == 2
    assert any("answer no tool call" in str(w) for w in session.warnings)


def test_a_gemini_content_history_is_read_one_call_per_run_of_model_entries():
    """Issue 57, 2: what ``/chat share`` and ``getHistory()`` write was read as OpenAI chat with
    0 turns and a warning per "unknown role 'model'"."""
    history = [
        {"role": "user", "parts": [{"text": "What is in README?"}]},
        {"role": "model", "parts": [{"thought": True, "text": "I should read it."},
                                    {"functionCall": {"name": "read_file", "args": {"path": "README.md"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "# Title"}}}]},
        {"role": "model", "parts": [{"text": "It has a title."}, {"thoughtSignature": "abc"}]},
        {"role": "model", "parts": [{"text": " And nothing else."}]},
    ]  # fmt: skip
    (session,) = read_bytes(json.dumps(history).encode(), "chat.json")
    assert session.format == "Gemini Content[] history" and session.turns == 2
    call, result = session.messages[1], session.messages[2]
    assert call.thinking == "I should read it." and call.content == ""  # the thought kept apart
    assert result.tool_call_id == call.tool_calls[0].id and result.name == "read_file"
    assert session.messages[3].content == "It has a title.\n And nothing else."


def test_a_chat_whose_messages_are_mostly_of_roles_no_format_knows_is_refused_with_them():
    """Issue 57, 2: never accepted as an empty session (0 turns and a warning per message)."""
    import pytest

    from playground.engine.session import TranscriptError

    chat = [{"role": "user", "content": "hi"}] + [{"role": "robot", "content": f"beep {i}"} for i in range(5)]
    with pytest.raises(
        TranscriptError, match=r"5 of 6 messages have a role no chat format knows \('robot' \(5\)\)"
    ):
        read_bytes(json.dumps(chat).encode(), "chat.json")


def test_gemini_cli_recorded_responses_are_read_a_call_a_line_with_its_usage():
    """Issue 57, 3: what ``gemini --record-responses FILE`` writes (Gemini CLI's
    RecordingContentGenerator: ``{method, request?, response}`` a line) was refused."""
    usage = {
        "promptTokenCount": 12_000,
        "cachedContentTokenCount": 8_000,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 30,
    }
    lines = [
        {"method": "generateContentStream", "request": "List the files.", "response": [
            {"candidates": [{"content": {"role": "model", "parts": [{"thought": True, "text": "Use ls."}]}}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "list_directory", "args": {"path": "."}}}]}}],
             "usageMetadata": usage},
        ]},
        {"method": "countTokens", "response": {"totalTokens": 10}},
        {"method": "generateContent", "response": {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Two files."}]}}],
            "usageMetadata": {"promptTokenCount": 12_400, "cachedContentTokenCount": 12_000, "candidatesTokenCount": 5}}},
    ]  # fmt: skip
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "responses.jsonl")
    assert session.format == "Gemini CLI recorded responses"
    assert session.turns == len(session.usage) == 2  # one per model call; countTokens is none
    assert sorted(session.usage.values()) == [12_000, 12_400]  # the file's own promptTokenCount
    assert sorted(session.cache_reads.values()) == [8_000, 12_000]
    assert sorted(session.outputs.values()) == [5, 50]  # candidates and thoughts
    call = next(m for m in session.messages if m.tool_calls)
    assert call.thinking == "Use ls." and call.tool_calls[0].name == "list_directory"
    assert any("not in the file" in str(w) for w in session.warnings)


def test_a_pi_session_is_read_on_its_last_branch_with_the_agent_s_usage_and_cost():
    """Issue 57, 4: Pi coding agent sessions (badlogic/pi-mono: a header, then entries linked by
    id/parentId; assistant usage {input, output, cacheRead, cacheWrite, cost}) were refused."""

    def usage(uncached, read, write, out, cost):
        return {
            "input": uncached,
            "output": out,
            "cacheRead": read,
            "cacheWrite": write,
            "totalTokens": uncached + read + write + out,
            "cost": {"total": cost},
        }

    entries = [
        {"type": "session", "version": 3, "id": "ses1", "timestamp": "2026-05-01T10:00:00Z", "cwd": "/w"},
        {"type": "model_change", "id": "e1", "parentId": None, "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
        {"type": "message", "id": "e2", "parentId": "e1", "message": {"role": "user", "content": "fix the test", "timestamp": 1}},
        {"type": "message", "id": "e3", "parentId": "e2", "message": {
            "role": "assistant", "model": "claude-sonnet-4-5", "provider": "anthropic", "stopReason": "toolUse",
            "content": [{"type": "thinking", "thinking": "run it"},
                        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest"}}],
            "usage": usage(10, 0, 4_000, 30, 0.0152), "timestamp": 1_746_093_601_000}},
        {"type": "message", "id": "e4", "parentId": "e3", "message": {
            "role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "1 failed"}],
            "isError": False, "timestamp": 2}},
        {"type": "message", "id": "x5", "parentId": "e4", "message": {  # an abandoned branch
            "role": "assistant", "content": [{"type": "text", "text": "gave up"}], "usage": usage(5, 4_000, 0, 3, 0.0013)}},
        {"type": "message", "id": "e5", "parentId": "e4", "message": {
            "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Fixed."}],
            "usage": usage(20, 4_000, 60, 8, 0.0016), "timestamp": 1_746_093_603_000}},
        {"type": "session_info", "id": "e6", "parentId": "e5", "name": "fix"},
    ]  # fmt: skip
    (session,) = read_bytes("\n".join(json.dumps(e) for e in entries).encode(), "pi.jsonl")
    assert session.format == "Pi session" and session.turns == 2  # the abandoned branch left out
    assert sorted(session.usage.values()) == [4_010, 4_080]  # uncached + cache reads + writes, per call
    assert sorted(session.cache_reads.values()) == [0, 4_000] and set(session.models.values()) == {
        "claude-sonnet-4-5"
    }
    assert session.reported_cost_usd == pytest.approx(0.0152 + 0.0016)  # the agent's own bill
    call = next(m for m in session.messages if m.tool_calls)
    assert call.thinking == "run it" and session.messages[2].tool_call_id == "c1"
    assert any("other branches" in str(w) for w in session.warnings)


RESOLVER = Path(__file__).parents[2] / "fixtures" / "formats" / "openhands" / "resolver_output.jsonl"


def test_an_openhands_resolver_output_is_read_a_call_per_agent_action_with_its_own_bill():
    """The resolver's ``output.jsonl`` (OpenHands' own mock output, bare events with no source or
    ids): one session per issue, one call per action of the agent (``metrics.costs`` holds a cost
    per call), each observation the result of the action before it. It was refused."""
    lines = [json.loads(line) for line in RESOLVER.read_text().splitlines()]
    sessions = read_bytes(RESOLVER.read_bytes(), "output.jsonl")
    assert len(sessions) == len(lines) == 2
    for session, line in zip(sessions, lines, strict=True):
        agent_actions = [e for e in line["history"] if e.get("action") not in (None, "message")]
        observations = [e for e in line["history"] if "observation" in e]
        assert session.turns == len(agent_actions) == len(line["metrics"]["costs"])
        assert session.reported_cost_usd == pytest.approx(line["metrics"]["accumulated_cost"])
        results = [m for m in session.messages if m.role == "tool"]
        assert len(results) == len(observations)
        calls = {c.id: c.name for m in session.messages for c in m.tool_calls}
        assert all(calls[r.tool_call_ids[0]] in ("run", "run_ipython") for r in results)
        assert session.messages[0].role == "user" and "Problem Statement" in session.messages[0].content
        assert not session.warnings
    assert sessions[0].name.startswith("issue neubig/pr-viewer#5")
