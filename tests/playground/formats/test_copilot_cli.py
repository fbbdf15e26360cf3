"""GitHub Copilot CLI events: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

from playground.formats import read_path
from tests.playground.formats.reading import FORMATS, replays_clean

COPILOT = FORMATS / "copilot-cli" / "azure-dev_45f1a36c_full.jsonl"


def test_copilot_cli_events_read_one_turn_per_api_call_with_its_output_tokens():
    events = [json.loads(line) for line in COPILOT.read_text().splitlines()]
    replies = [e["data"] for e in events if e["type"] == "assistant.message"]
    calls = {r["apiCallId"] for r in replies}
    (session,) = read_path(COPILOT)
    assert session.format == "GitHub Copilot CLI session"
    assert session.turns == len(calls) == 29
    assert session.tool_calls == sum(len(r.get("toolRequests") or []) for r in replies) == 108
    results = [e for e in events if e["type"] == "tool.execution_complete"]
    assert sum(m.role == "tool" for m in session.messages) == len(results)
    assert sum(session.outputs.values()) == sum(r.get("outputTokens") or 0 for r in replies)
    assert set(session.models.values()) == {r["model"] for r in replies} == {"gpt-5.6-sol"}
    assert not session.usage  # Copilot records no input: said, not invented
    assert any("output tokens only" in str(w) for w in session.warnings)
    (counted,) = [str(w) for w in session.warnings if str(w).startswith("events passed over")]
    assert "session.start 1" in counted  # said without a location it has not got
    encrypted = sum(bool(r.get("encryptedContent") or r.get("reasoningOpaque")) for r in replies)
    assert f"encrypted reasoning in {encrypted} assistant messages" in " ".join(map(str, session.warnings))
    system = [e["data"]["content"] for e in events if e["type"] == "system.message"]
    assert [m.content for m in session.messages if m.role == "system"] == list(dict.fromkeys(system))
    assert len(session.times) == session.turns
    replays_clean(session)
