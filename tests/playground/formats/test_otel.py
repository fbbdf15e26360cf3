"""OpenTelemetry GenAI traces and any-agent: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

import pytest

from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, replays_clean


def test_an_otel_trace_with_128_bit_integer_ids_reads():
    trace_id = 2**127 + 12345  # 39 digits, as a real any-agent trace writes its ids
    spans = [
        {
            "name": "call_llm",
            "context": {"trace_id": trace_id, "span_id": 2**63 + 1},
            "start_time": "2025-01-01T00:00:00Z",
            "attributes": {
                "gen_ai.input.messages": json.dumps([{"role": "user", "content": "hi"}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": "hello"}]),
                "gen_ai.usage.input_tokens": 12,
            },
        }
    ]
    text = json.dumps(spans)
    assert str(trace_id) in text and len(str(trace_id)) == 39
    (session,) = read_bytes(text.encode(), "any_agent_trace.json")
    assert [m.role for m in session.messages] == ["user", "assistant"] and session.usage == {1: 12}
    with pytest.raises(TranscriptError, match="usage"):
        read_bytes(
            text.replace(
                '"gen_ai.usage.input_tokens": 12', '"gen_ai.usage.input_tokens": ' + "9" * 39
            ).encode(),
            "t.json",
        )


ANY_AGENT = FORMATS / "otel-any-agent" / "SMOLAGENTS_trace.json"


def test_an_any_agent_trace_reads_its_llm_calls_with_usage_and_its_own_cost():
    spans = json.loads(ANY_AGENT.read_text())["spans"]
    llm = [s["attributes"] for s in spans if s["attributes"]["gen_ai.operation.name"] == "call_llm"]
    tools = [s for s in spans if s["attributes"]["gen_ai.operation.name"] == "execute_tool"]
    (session,) = read_path(ANY_AGENT)
    assert session.format == "any-agent trace" and session.turns == len(llm) == 3
    assert sorted(session.usage.values()) == sorted(a["gen_ai.usage.input_tokens"] for a in llm)
    assert sorted(session.outputs.values()) == sorted(a["gen_ai.usage.output_tokens"] for a in llm)
    assert sum(m.role == "tool" for m in session.messages) == len(tools)
    assert session.recorded_model == "mistral/mistral-small-latest"
    own = sum(a["gen_ai.usage.input_cost"] + a["gen_ai.usage.output_cost"] for a in llm)
    assert session.reported_cost_usd == pytest.approx(own)
    replays_clean(session)
