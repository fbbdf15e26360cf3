"""Letta agent files (``.af``): one agent (the older schema: ``messages``,
``in_context_message_indices``, ``llm_config``) or several (``agents[]``, each the same shape;
groups and blocks beside them). Each agent is a session.

Messages are OpenAI-style (``role``, ``content`` parts, ``tool_calls``, ``tool_call_id``). Letta
re-renders its system prompt after every memory edit and puts the new one in place of the first:
the file keeps each render as a message where it was made, between a call and its result. Here
the first render stays at the head and the later ones are left out (said): a replay sends the
conversation, and the memory edits are in the tool calls that made them. The model and its
window come from ``llm_config``; the messages Letta held in context at export are said.
"""

from __future__ import annotations

from dataclasses import replace

from playground.engine.session import ReadWarning, Session, TranscriptError
from playground.formats import openai_chat
from playground.formats.builder import as_dict, as_list
from playground.formats.given import Given
from policies.base import counted

FORMAT = "Letta agent file"


def looks_like(given: Given) -> bool:
    data = given.data
    if not isinstance(data, dict):
        return False
    agents = data.get("agents")
    if isinstance(agents, list) and agents:
        return all(_is_agent(a) for a in agents if isinstance(a, dict))
    return _is_agent(data)


def _is_agent(data: dict) -> bool:
    return isinstance(data.get("messages"), list) and (
        isinstance(data.get("in_context_message_indices"), list) or isinstance(data.get("llm_config"), dict)
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    agents = data["agents"] if isinstance(data.get("agents"), list) else [data]
    sessions = [_agent(agent, file, n) for n, agent in enumerate(agents) if isinstance(agent, dict)]
    if not sessions:
        raise TranscriptError(file, "agents", f"no agent object among its {len(agents):,} entries")
    return sessions


def _agent(agent: dict, file: str, n: int) -> Session:
    config = as_dict(agent.get("llm_config"))
    model = config.get("model") if isinstance(config.get("model"), str) else None
    kept, renders, has_system = [], 0, False
    for message in as_list(agent.get("messages")):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "system" and has_system:
            renders += 1
            continue
        has_system = has_system or message.get("role") == "system"
        kept.append(
            {
                key: message[key]
                for key in ("role", "content", "tool_calls", "tool_call_id", "name")
                if message.get(key) is not None
            }
            | ({"model": model} if model and message.get("role") == "assistant" else {})
            | (
                {"extra": {"timestamp": message["created_at"]}}
                if isinstance(message.get("created_at"), str)
                else {}
            )
        )
    name = agent.get("name") if isinstance(agent.get("name"), str) else f"agent {n}"
    session = openai_chat.session_of(kept, file, name[:200])
    notes = []
    if renders:
        notes.append(
            ReadWarning(
                "messages",
                f"{counted(renders, 're-render')} of the system prompt after memory edits left out: Letta puts each in "
                "place of the first, which stays at the head here",
            )
        )
    held = agent.get("in_context_message_indices")
    if isinstance(held, list):
        notes.append(
            ReadWarning(
                "in_context_message_indices",
                f"Letta held {len(held)} of the {len(as_list(agent.get('messages')))} messages in context at "
                "export (its own eviction): the replay starts from the whole history",
            )
        )
    return replace(session, format=FORMAT, warnings=(*session.warnings, *notes))
