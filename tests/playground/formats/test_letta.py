"""Letta agent files: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, replays_clean

LETTA = FORMATS / "letta" / "memgpt_agent_with_convo_v0.af"


def test_a_letta_agent_file_keeps_its_calls_paired_and_its_model():
    raw = json.loads(LETTA.read_text())
    (session,) = read_path(LETTA)
    assert session.format == "Letta agent file"
    assert session.turns == sum(m["role"] == "assistant" for m in raw["messages"]) == 28
    renders = sum(m["role"] == "system" for m in raw["messages"]) - 1
    assert sum(m.role == "system" for m in session.messages) == 1 and renders == 5
    assert any(f"{renders} re-renders of the system prompt" in str(w) for w in session.warnings)
    assert set(session.models.values()) == {raw["llm_config"]["model"]}
    assert not [w for w in session.warnings if "has no result" in str(w) or "no assistant call" in str(w)]
    replays_clean(session)


def test_letta_s_newer_schema_is_a_session_per_agent():
    agent = json.loads(LETTA.read_text())
    second = {**agent, "name": "helper"}
    data = json.dumps({"agents": [agent, second], "groups": [], "blocks": []}).encode()
    sessions = read_bytes(data, "team.af")
    assert [s.name for s in sessions] == [agent["name"], "helper"]
    assert all(s.turns == 28 for s in sessions)
