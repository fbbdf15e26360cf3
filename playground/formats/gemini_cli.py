"""Gemini CLI: chat recordings (``~/.gemini/tmp/<project>/chats/session-*.jsonl``, before
0.39 ``session-*.json``) and ``--output-format stream-json`` logs.

A chat recording is ``{sessionId, messages}``; a ``gemini`` message is one API call: its
``content``, ``thoughts``, ``toolCalls`` (each call with its ``result`` in the same record)
and ``tokens`` (``input`` with the cached part included, ``cached``, ``output``,
``thoughts``). The JSONL recording is the same conversation as an append-only log, read as
Gemini CLI's own ``loadConversationRecord`` reads it: a metadata line (``sessionId``,
``projectHash``), message records (a later record with the same ``id`` updates it in place),
``{"$set": {...}}`` metadata updates (a ``messages`` list in one is a checkpoint that replaces
them all) and ``{"$rewindTo": id}``, which drops that message and every one after it.

A stream-json log is events: ``init`` starts a run (several runs, several sessions),
assistant ``message`` text arrives in ``delta`` chunks, ``tool_use`` and ``tool_result`` pair
by ``tool_id``, and ``result`` gives the run's totals only.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from playground.engine.session import ReadWarning, Session
from playground.formats.builder import SessionBuilder, arguments_text, as_list, block_text, label_of
from playground.formats.given import Given
from policies.base import shown
from policies.messages import ToolCall

STREAM_EVENTS = ("init", "message", "tool_use", "tool_result", "result")
MESSAGE_TYPES = ("user", "gemini", "info", "error", "warning")  # a chat recording's records


def looks_like_recording(given: Given) -> bool:
    data = given.data
    messages = data.get("messages") if isinstance(data, dict) else None
    return (
        isinstance(messages, list)
        and "sessionId" in data
        and any(isinstance(m, dict) and m.get("type") in ("user", "gemini") for m in messages)
    )


def looks_like_stream(given: Given) -> bool:
    items = given.items
    kinds = {i.get("type") for i in items if isinstance(i, dict) and isinstance(i.get("type"), str | None)}
    return "init" in kinds and bool(kinds & {"message", "tool_use"}) and kinds <= {*STREAM_EVENTS, None}


def looks_like_log(given: Given) -> bool:
    """A JSONL chat recording: its metadata line, and message or update records after it."""
    items = given.items
    return any(_is_metadata(item) for item in items[:5]) and any(
        isinstance(item, dict)
        and (item.get("type") in MESSAGE_TYPES or "$set" in item or "$rewindTo" in item)
        for item in items[:50]
    )


def _is_metadata(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("sessionId"), str)
        and isinstance(item.get("projectHash"), str)
    )


def read_recording(given: Given) -> list[Session]:
    data, file = given.data, given.file
    records = [(f"message {n}", message) for n, message in enumerate(data["messages"])]
    return [_conversation(records, data, file, [])]


def read_log(given: Given) -> list[Session]:
    """The conversation a JSONL recording holds once its updates, checkpoints and rewinds are
    applied, its records named by their line."""
    items, file = given.items, given.file
    metadata: dict = {}
    log = _Messages()
    rewinds: list[ReadWarning] = []
    passed = 0
    for number, item in enumerate(items, start=1):
        where = f"line {number}"
        if not isinstance(item, dict):
            passed += 1
        elif isinstance(item.get("$rewindTo"), str):
            dropped = log.rewind(item["$rewindTo"])
            said = f"rewound to {shown(item['$rewindTo'])}: {dropped} message(s) dropped from it on, as Gemini CLI does"
            rewinds.append(ReadWarning(where, said))
        elif _is_message(item):
            log.put(where, item)
        elif isinstance(item.get("$set"), dict):
            update = item["$set"]
            if isinstance(update.get("messages"), list):  # a checkpoint: the messages are these
                log = _Messages()
                for message in filter(_is_message, update["messages"]):
                    log.put(where, message)
            metadata.update(update)
        elif _is_metadata(item):
            metadata.update(item)
            for message in filter(_is_message, as_list(item.get("messages"))):  # a whole recording on a line
                log.put(where, message)
        else:
            passed += 1
    notes = rewinds[:20]
    if len(rewinds) > 20:
        notes.append(ReadWarning("", f"{len(rewinds) - 20:,} more rewinds"))
    if passed:
        notes.append(
            ReadWarning(
                "", f"{passed:,} line(s) neither a message, a metadata line nor an update: passed over"
            )
        )
    return [_conversation(log.records(), metadata, file, notes)]


class _Messages:
    """A recording's messages as Gemini CLI keeps them while it reads its log: a record with an
    id already seen replaces it where it stands; a rewind drops its target and all after it
    (all of them when the target is unknown). Each step costs what it changes."""

    def __init__(self) -> None:
        self._order: list[str] = []  # ids, where each first stood
        self._at: dict[str, tuple[int, str, dict]] = {}  # id -> (place, line first seen, latest record)

    def put(self, where: str, record: dict) -> None:
        known = self._at.get(record["id"])
        if known is None:
            self._at[record["id"]] = (len(self._order), where, record)
            self._order.append(record["id"])
        else:
            self._at[record["id"]] = (known[0], known[1], record)

    def rewind(self, target: str) -> int:
        """Drops ``target`` and every message after it; returns how many were dropped."""
        place = self._at[target][0] if target in self._at else 0
        dropped = self._order[place:]
        del self._order[place:]
        for message_id in dropped:
            del self._at[message_id]
        return len(dropped)

    def records(self) -> list[tuple[str, dict]]:
        return [self._at[message_id][1:] for message_id in self._order]


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), str)


def _conversation(
    records: list[tuple[str, Any]], metadata: dict, file: str, notes: list[ReadWarning]
) -> Session:
    builder = SessionBuilder(file, "Gemini CLI chat recording")
    builder.warnings.extend(notes)
    passed: Counter[str] = Counter()
    kind = None
    for where, message in records:
        builder.where = where
        if not isinstance(message, dict):
            passed["not an object"] += 1
            kind = None
            continue
        before, kind = kind, message.get("type")  # the kind of the record before, and this one's
        if kind == "user":
            builder.add("user", block_text(message.get("content")))
        elif kind == "gemini" and before == "info" and _unbilled(message):
            passed["gemini record of all-zero tokens after an info record (no API call)"] += 1
        elif kind == "gemini":
            _reply(builder, message)
        else:
            passed[label_of(kind)] += 1
    builder.warn_counts("messages passed over, not sent to the model (notices, errors)", dict(passed))
    session_id = metadata.get("sessionId")
    name = session_id[:80] if isinstance(session_id, str) and session_id else "Gemini CLI session"
    if metadata.get("kind") == "subagent":
        name = f"subagent {name}"
    return builder.build(name)


def _unbilled(message: dict) -> bool:
    """A record whose tokens are all zero: no call was billed for it (Gemini CLI writes one after
    an info record, when a request did not go out)."""
    tokens = message.get("tokens")
    return (
        isinstance(tokens, dict)
        and bool(tokens)
        and not any(isinstance(v, int | float) and v for v in tokens.values())
    )


def _reply(builder: SessionBuilder, message: dict) -> None:
    tokens = message.get("tokens") if isinstance(message.get("tokens"), dict) else {}
    thoughts = message.get("thoughts") if isinstance(message.get("thoughts"), list) else []
    thinking = "\n".join(
        " ".join(str(t.get(k)) for k in ("subject", "description") if isinstance(t.get(k), str))
        for t in thoughts
        if isinstance(t, dict)
    )
    calls, results = [], []
    for call in as_list(message.get("toolCalls")):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            continue
        calls.append(ToolCall(call["id"], str(call.get("name") or ""), arguments_text(call.get("args"))))
        results.append((call["id"], _result(call)))
    output = builder.token_count(tokens.get("output"), "output")
    thought_tokens = builder.token_count(tokens.get("thoughts"), "thoughts")
    time = builder.reply_time(message.get("timestamp"))
    builder.add(
        "assistant",
        block_text(message.get("content")),
        tool_calls=tuple(calls),
        thinking=thinking,
        prompt_tokens=builder.token_count(tokens.get("input"), "input"),  # the cached part included
        cache_read=builder.token_count(tokens.get("cached"), "cached"),
        output=None if output is None else output + (thought_tokens or 0),  # thoughts bill as output
        model=message.get("model") if isinstance(message.get("model"), str) else None,
        time=time,
    )
    for call_id, result in results:
        builder.add("tool", result, tool_call_ids=(call_id,))


def _result(call: dict) -> str:
    """What the call returned to the model: its functionResponse, else what the UI showed."""
    result = call.get("result")
    if isinstance(result, str):  # a PartListUnion may be a plain string
        return result
    for part in [result] if isinstance(result, dict) else as_list(result):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            inner = response.get("response")
            if isinstance(inner, dict) and isinstance(inner.get("output"), str):
                return inner["output"]
            return arguments_text(inner)
    display = call.get("resultDisplay")
    return display if isinstance(display, str) else arguments_text(display)


def read_stream(given: Given) -> list[Session]:
    items, file = given.items, given.file
    runs: list[list[tuple[int, dict]]] = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, dict) and item.get("type") == "init":
            runs.append([])
        if runs and isinstance(item, dict):
            runs[-1].append((number, item))
    return [_stream_run(run, file) for run in runs if any(i.get("type") == "message" for _, i in run)]


def _stream_run(events: list[tuple[int, dict]], file: str) -> Session:
    builder = SessionBuilder(file, "Gemini CLI stream-json")
    model, name, open_reply, totals = None, "", False, None
    for number, event in events:
        builder.where = f"line {number}"
        kind = event.get("type")
        if kind == "init":
            model = event.get("model") if isinstance(event.get("model"), str) else None
            name = str(event.get("session_id") or "")[:80]
        elif kind == "message":
            text = event.get("content") if isinstance(event.get("content"), str) else ""
            if event.get("role") == "user":
                builder.add("user", text)
                open_reply = False
            elif open_reply and builder.last_is_open_assistant():
                builder.join_last(text, separator="")  # a delta chunk: joined without a separator
            else:
                builder.add("assistant", text, model=model)
                open_reply = True
        elif kind == "tool_use" and isinstance(event.get("tool_id"), str):
            call = ToolCall(
                event["tool_id"], str(event.get("tool_name") or ""), arguments_text(event.get("parameters"))
            )
            if open_reply and builder.last_is_open_assistant():
                builder.join_last("", (call,))
            else:
                builder.add("assistant", "", tool_calls=(call,), model=model)
                open_reply = True
        elif kind == "tool_result" and isinstance(event.get("tool_id"), str):
            output = event.get("output") if event.get("output") is not None else event.get("error")
            builder.add(
                "tool",
                output if isinstance(output, str) else arguments_text(output),
                tool_call_ids=(event["tool_id"],),
            )
            open_reply = False
        elif kind == "result":
            totals = event.get("stats") if isinstance(event.get("stats"), dict) else None
    if totals:
        figures = ", ".join(f"{k} {v:,}" for k, v in totals.items() if type(v) is int)
        builder.warnings.append(
            ReadWarning("", f"usage recorded as the run's totals only ({figures}), not per call")
        )
    return builder.build(name or "Gemini CLI run")
