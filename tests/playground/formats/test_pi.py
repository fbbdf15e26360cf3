"""Pi sessions: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

import pytest

from playground.formats import read_bytes


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
