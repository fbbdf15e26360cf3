"""GitHub Copilot CLI session events (``~/.copilot/session-state/<session>/events.jsonl``).

One event a line: ``{type, data, id, timestamp, parentId}``. ``system.message`` is the system
prompt, ``user.message`` the user's turn (``transformedContent``: what the model was sent),
``assistant.message`` a reply with its ``toolRequests``; the events of one API call share an
``apiCallId`` (one call, several events), and ``tool.execution_complete`` carries a call's
``result``. Copilot records each call's ``outputTokens`` only: its input is counted, not
recorded (said). Hooks, permissions, turn markers and checkpoints are passed over, counted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from playground.engine.session import Session
from playground.formats.builder import (
    MAX_RECORDED_TOKENS,
    SessionBuilder,
    arguments_text,
    as_dict,
    as_list,
    label_of,
)
from playground.formats.given import Given
from policies.base import counted
from policies.messages import ToolCall

FORMAT = "GitHub Copilot CLI session"
EVENTS = ("session.start", "user.message", "assistant.message", "assistant.turn_start", "system.message")


def looks_like(given: Given) -> bool:
    """Copilot's events: ``type`` names like ``session.start`` with a ``data`` object."""
    items = given.items
    head = [i for i in items[:50] if isinstance(i, dict) and isinstance(i.get("data"), dict)]
    return any(i.get("type") in EVENTS for i in head) and any(i.get("type") == "session.start" for i in head)


def read(given: Given) -> list[Session]:
    items, file = given.items, given.file
    builder = SessionBuilder(file, FORMAT)
    passed: Counter[str] = Counter()
    calls: dict[str, int] = {}  # apiCallId -> raw index of its reply
    reasoning = 0  # replies carrying encrypted reasoning (fed back, not readable)
    first_request, model = "", None
    last_system = None  # the last system text read: each event compared with it, not with all read
    for number, event in enumerate(items, start=1):
        builder.where = f"line {number}"
        if not isinstance(event, dict):
            passed["not an event"] += 1
            continue
        kind, data = event.get("type"), as_dict(event.get("data"))
        if kind == "system.message":
            text = data.get("content") if isinstance(data.get("content"), str) else ""
            if last_system is not None and last_system == text:
                passed["system.message repeating the last"] += 1
            elif text:
                builder.add("system", text)
                last_system = text
        elif kind == "user.message":
            sent = data.get("transformedContent")
            text = sent if isinstance(sent, str) and sent else data.get("content")
            if isinstance(text, str) and text:
                builder.add("user", text)
                first_request = first_request or (
                    data.get("content") if isinstance(data.get("content"), str) else text
                )
        elif kind == "session.model_change":
            model = data.get("newModel") if isinstance(data.get("newModel"), str) else model
        elif kind == "assistant.message":
            reasoning += bool(data.get("encryptedContent") or data.get("reasoningOpaque"))
            model = data.get("model") if isinstance(data.get("model"), str) else model
            _reply(builder, data, calls, model, event.get("timestamp"))
        elif kind == "tool.execution_complete":
            call_id = data.get("toolCallId")
            if not isinstance(call_id, str):
                passed["tool.execution_complete without a toolCallId"] += 1
                continue
            builder.add("tool", _result(data), tool_call_ids=(call_id,))
        else:
            passed[label_of(kind)] += 1
    if calls:
        builder.warn(
            "",
            "Copilot CLI records each call's output tokens only, not its input: the input is our count "
            "(no recorded bill)",
        )
    if reasoning:
        builder.warn(
            "",
            f"encrypted reasoning in {counted(reasoning, 'assistant message')}: sent back, not readable, not counted",
        )
    builder.warn_counts("events passed over, not messages the model was sent", dict(passed))
    line = first_request.strip().splitlines()[0] if first_request.strip() else ""
    return [builder.build(line[:80] or "Copilot CLI session")]


def _reply(builder: SessionBuilder, data: dict, calls: dict[str, int], model: str | None, stamp: Any) -> None:
    """One event of a reply: a new API call, or more of the call it shares an ``apiCallId`` with."""
    text = data.get("content") if isinstance(data.get("content"), str) else ""
    requests = tuple(
        ToolCall(r["toolCallId"], str(r.get("name") or ""), arguments_text(r.get("arguments")))
        for r in as_list(data.get("toolRequests"))
        if isinstance(r, dict) and isinstance(r.get("toolCallId"), str)
    )
    output = builder.token_count(data.get("outputTokens"), "outputTokens")
    call = data.get("apiCallId") if isinstance(data.get("apiCallId"), str) else None
    if call is not None and call in calls:
        index = calls[call]
        builder.join_last(text, requests, index=index)
        if output is not None:
            total = builder.outputs.get(index, 0) + output
            if total > MAX_RECORDED_TOKENS:  # each part within bounds, their sum past any reply
                builder.warn(
                    builder.where, f"outputTokens of one call add up past {MAX_RECORDED_TOKENS:,}: not added"
                )
            else:
                builder.outputs[index] = total
        return
    builder.add(
        "assistant", text, tool_calls=requests, output=output, model=model, time=builder.reply_time(stamp)
    )
    if call is not None:
        calls[call] = len(builder.messages) - 1


def _result(data: dict) -> str:
    """What a tool returned to the model: its result's content, or the error."""
    result = data.get("result")
    if isinstance(result, dict):
        for key in ("content", "detailedContent"):
            if isinstance(result.get(key), str):
                return result[key]
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    return arguments_text(result if result is not None else error)
