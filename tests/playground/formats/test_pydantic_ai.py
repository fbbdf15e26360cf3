"""pydantic-ai messages: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import pytest

from playground.formats import read_bytes


def test_a_pydantic_ai_history_written_by_pydantic_ai_reads():
    messages = pytest.importorskip("pydantic_ai.messages")
    from pydantic_ai.usage import RequestUsage

    history = [
        messages.ModelRequest(
            parts=[messages.SystemPromptPart("be brief"), messages.UserPromptPart("weather?")]
        ),
        messages.ModelResponse(
            parts=[messages.ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="w1")],
            usage=RequestUsage(input_tokens=120, cache_read_tokens=100, output_tokens=8),
            model_name="gpt-5",
        ),
        messages.ModelRequest(parts=[messages.ToolReturnPart("get_weather", "sunny", tool_call_id="w1")]),
        messages.ModelResponse(
            parts=[messages.TextPart("Sunny.")],
            usage=RequestUsage(input_tokens=140, output_tokens=3),
            model_name="gpt-5",
        ),
    ]
    data = messages.ModelMessagesTypeAdapter.dump_json(history)
    (session,) = read_bytes(data, "history.json")
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert session.messages[2].tool_calls[0].name == "get_weather" and session.messages[3].content == "sunny"
    assert (
        session.usage == {2: 120, 4: 140}
        and session.cache_reads == {2: 100, 4: 0}
        and session.recorded_model == "gpt-5"
    )
