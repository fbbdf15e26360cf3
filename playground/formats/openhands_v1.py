"""OpenHands V1 conversations (software-agent-sdk): a conversation folder (``base_state.json``
and ``events/event-*.json``, one event a file) or its events as JSONL.

Each event has a ``kind`` (the SDK's ``openhands/sdk/event`` classes): ``SystemPromptEvent``
(the system prompt), ``MessageEvent`` (``llm_message``: a user's turn, or an agent's reply with
its ``llm_response_id``), ``ActionEvent`` (a tool call; the actions of one response share its
``llm_response_id``: one call), ``ObservationEvent`` / ``UserRejectObservation`` /
``AgentErrorEvent`` (a call's result, by ``tool_call_id``), ``Condensation`` (the agent's own
compaction: the events it forgot and its summary) and ``ConversationStateUpdateEvent``, whose
``stats`` carry the usage accumulated so far: each one's growth is the usage of one call, the
SDK writing it as the response comes, before the call's events (put on the next reply; on the
last one where replies came before it unbilled). The model is the stats' or ``base_state.json``'s.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections import Counter
from typing import Any

from playground.engine.session import RecordedCompaction, Session
from playground.formats.builder import (
    MAX_RECORDED_TOKENS,
    SessionBuilder,
    arguments_text,
    as_dict,
    as_list,
    label_of,
)
from playground.formats.given import Given
from playground.formats.json_text import MemberBudget, json_file, json_files
from playground.limits import LIMITS
from policies.messages import ToolCall

FORMAT = "OpenHands conversation"
KINDS = (
    "SystemPromptEvent",
    "MessageEvent",
    "ActionEvent",
    "ObservationEvent",
    "ConversationStateUpdateEvent",
)
RESULTS = ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent")
USAGE = ("prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens")


def looks_like(given: Given) -> bool:
    items = given.items
    return any(isinstance(i, dict) and i.get("kind") in KINDS and "source" in i for i in items[:50])


def read(given: Given) -> list[Session]:
    items, file, base_state = given.items, given.file, given.container
    builder = SessionBuilder(file, FORMAT)
    passed: Counter[str] = Counter()
    responses: dict[str, int] = {}  # llm_response_id -> the raw index of its reply
    state_model = as_dict(as_dict(as_dict(base_state).get("agent")).get("llm")).get("model")
    model = state_model if isinstance(state_model, str) else None
    totals = dict.fromkeys(USAGE, 0)  # the usage accumulated at the last stats event
    unbilled: list[int] = []  # replies made since the last stats event
    pending: list[dict[str, int]] = []  # a call's usage written before its reply
    first_request = ""
    for number, event in enumerate(items, start=1):
        builder.where = f"event {number}"
        if not isinstance(event, dict):
            passed["not an event"] += 1
            continue
        kind = event.get("kind")
        if kind == "SystemPromptEvent":
            builder.add("system", _text(as_dict(event.get("system_prompt")).get("text")))
        elif kind == "MessageEvent":
            message = as_dict(event.get("llm_message"))
            role = message.get("role")
            text = _content(message.get("content"))
            if role == "user":
                builder.add("user", text)
                first_request = first_request or text
            elif role == "assistant":
                _reply(builder, event, text, (), responses, unbilled, model, pending)
            else:
                passed[f"MessageEvent/{label_of(role)}"] += 1
        elif kind == "ActionEvent":
            call = as_dict(event.get("tool_call"))
            if not isinstance(call.get("id"), str):
                passed["ActionEvent without a tool call id"] += 1
                continue
            thought = _content(event.get("thought"))
            calls = (
                ToolCall(
                    call["id"],
                    str(call.get("name") or event.get("tool_name") or ""),
                    arguments_text(call.get("arguments")),
                ),
            )
            _reply(builder, event, thought, calls, responses, unbilled, model, pending)
        elif kind in RESULTS:
            call_id = event.get("tool_call_id")
            if not isinstance(call_id, str):
                passed[f"{kind} without a tool_call_id"] += 1
                continue
            builder.add("tool", _result(event), tool_call_ids=(call_id,))
        elif kind == "Condensation":
            summary = event.get("summary") if isinstance(event.get("summary"), str) else ""
            forgot = len(as_list(event.get("forgotten_event_ids")))
            builder.compactions.append(
                RecordedCompaction(len(builder.messages), f"forgot {forgot} events", None, summary)
            )
        elif kind == "ConversationStateUpdateEvent" and event.get("key") == "stats":
            usage = _accumulated(event.get("value"))
            if usage is None:
                continue
            model = usage.pop("model", None) or model
            growth = {k: usage[k] - totals[k] for k in USAGE}
            if any(v > MAX_RECORDED_TOKENS for v in growth.values()):  # 2e39 tokens is no call's
                builder.warn(
                    builder.where,
                    f"stats growing by more than {MAX_RECORDED_TOKENS:,} tokens: no call's usage",
                )
                continue
            totals = {k: usage[k] for k in USAGE}
            if not (all(v >= 0 for v in growth.values()) and any(growth.values())):
                continue
            if unbilled:  # written after the calls it counts
                _bill(builder, unbilled[-1], growth)
                if len(unbilled) > 1:
                    builder.warn(
                        builder.where, f"{len(unbilled)} calls between two stats: their usage is on the last"
                    )
                unbilled.clear()
            else:  # written before the call's events, as the SDK does: the next reply's
                pending[:] = [growth]
        else:
            passed[
                label_of(kind)
                + (f"/{label_of(event.get('key'))}" if kind == "ConversationStateUpdateEvent" else "")
            ] += 1
    builder.warn_counts("events passed over, not messages the model was sent", dict(passed))
    line = first_request.strip().splitlines()[0][:80] if first_request.strip() else ""
    return [builder.build(line or "OpenHands conversation")]


def _reply(
    builder: SessionBuilder,
    event: dict,
    text: str,
    calls: tuple[ToolCall, ...],
    responses: dict[str, int],
    unbilled: list[int],
    model: str | None,
    pending: list[dict[str, int]],
) -> None:
    """An event of a reply: a new call, or more of the one whose ``llm_response_id`` it shares."""
    response = event.get("llm_response_id") if isinstance(event.get("llm_response_id"), str) else None
    if response is not None and response in responses:
        index = responses[response]
        builder.join_last(text, calls, index=index, once=True)
        return
    builder.add(
        "assistant", text, tool_calls=calls, model=model, time=builder.reply_time(event.get("timestamp"))
    )
    index = len(builder.messages) - 1
    if pending:
        _bill(builder, index, pending.pop())
    else:
        unbilled.append(index)
    if response is not None:
        responses[response] = index


def _bill(builder: SessionBuilder, index: int, growth: dict[str, int]) -> None:
    builder.usage[index] = growth["prompt_tokens"]  # LiteLLM's prompt tokens hold the cached ones
    builder.cache_reads[index] = growth["cache_read_tokens"]
    builder.cache_writes[index] = growth["cache_write_tokens"]
    builder.outputs[index] = growth["completion_tokens"]


def _accumulated(value: Any) -> dict[str, Any] | None:
    """The main agent's usage so far (``usage_to_metrics.default``), or None."""
    usage = as_dict(
        as_dict(as_dict(as_dict(value).get("usage_to_metrics")).get("default")).get("accumulated_token_usage")
    )
    counts = {k: usage.get(k) for k in USAGE}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()):
        return None
    model = usage.get("model")
    return {**counts, "model": model if isinstance(model, str) and model else None}


def _content(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    return "\n".join(
        p["text"] for p in as_list(parts) if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _result(event: dict) -> str:
    if event.get("kind") == "UserRejectObservation":
        return _text(event.get("rejection_reason"))
    if event.get("kind") == "AgentErrorEvent":
        return _text(event.get("error"))
    return _content(as_dict(event.get("observation")).get("content"))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def looks_like_zip(given: Given) -> bool:
    """A zip whose members are a conversation folder: ``base_state.json`` or ``events/``."""
    try:
        with zipfile.ZipFile(io.BytesIO(given.data)) as archive:
            names = archive.namelist()
    except zipfile.BadZipFile:
        return False
    return any(n.rsplit("/", 1)[-1] == "base_state.json" or _is_event_file(n) for n in names)


def _is_event_file(name: str) -> bool:
    folder, _, base = name.rpartition("/")
    return (folder == "events" or folder.endswith("/events")) and base.endswith(".json")


def read_zip(given: Given) -> list[Session]:
    """A zip of one conversation folder, its event files read under the archive's bounds."""
    data, file = given.data, given.file
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        events = sorted(n for n in names if _is_event_file(n))[: LIMITS.max_messages]
        # the folder is one transcript: its files together under one file's bounds, member by member
        budget = MemberBudget(file)
        state = next((n for n in names if n.rsplit("/", 1)[-1] == "base_state.json"), None)
        base = budget.read(archive, state) if state else None
        items = [budget.read(archive, n) for n in events]
    return read(Given(items, file, container=base if isinstance(base, dict) else None))


def looks_like_folder(given: Given) -> bool:
    """A conversation folder: ``base_state.json`` beside an ``events/`` folder, a file an event."""
    return os.path.isdir(os.path.join(given.data, "events"))


def read_folder(given: Given) -> list[Session]:
    folder = given.data
    state = os.path.join(folder, "base_state.json")
    base = json_file(state) if os.path.isfile(state) else None
    items = [data for _, data in json_files(os.path.join(folder, "events"))]
    return read(Given(items, folder, container=base if isinstance(base, dict) else None))
