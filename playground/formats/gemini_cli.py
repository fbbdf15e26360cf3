"""Gemini CLI: chat recordings (``~/.gemini/tmp/<project>/chats/session-*.json``) and
``--output-format stream-json`` logs.

A chat recording is ``{sessionId, messages}``; a ``gemini`` message is one API call: its
``content``, ``thoughts``, ``toolCalls`` (each call with its ``result`` in the same record)
and ``tokens`` (``input`` with the cached part included, ``cached``, ``output``,
``thoughts``). A stream-json log is events: ``init`` starts a run (several runs, several
sessions), assistant ``message`` text arrives in ``delta`` chunks, ``tool_use`` and
``tool_result`` pair by ``tool_id``, and ``result`` gives the run's totals only.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from playground.engine.session import ReadWarning, Session
from playground.formats.builder import SessionBuilder, arguments_text, as_list, block_text
from policies.messages import ToolCall

STREAM_EVENTS = ("init", "message", "tool_use", "tool_result", "result")


def looks_like_recording(data: Any) -> bool:
    messages = data.get("messages") if isinstance(data, dict) else None
    return (
        isinstance(messages, list)
        and "sessionId" in data
        and any(isinstance(m, dict) and m.get("type") in ("user", "gemini") for m in messages)
    )


def looks_like_stream(items: list) -> bool:
    kinds = {i.get("type") for i in items if isinstance(i, dict) and isinstance(i.get("type"), str | None)}
    return "init" in kinds and bool(kinds & {"message", "tool_use"}) and kinds <= {*STREAM_EVENTS, None}


def read_recording(data: dict, file: str) -> list[Session]:
    builder = SessionBuilder(file, "Gemini CLI chat recording")
    passed: Counter[str] = Counter()
    for n, message in enumerate(data["messages"]):
        builder.where = f"message {n}"
        if not isinstance(message, dict):
            passed["not an object"] += 1
            continue
        kind = message.get("type")
        if kind == "user":
            builder.add("user", block_text(message.get("content")))
        elif kind == "gemini":
            _reply(builder, message)
        else:
            passed[str(kind)] += 1
    builder.warn_counts("messages passed over, not sent to the model (notices, errors)", dict(passed))
    name = str(data.get("sessionId") or "Gemini CLI session")[:80]
    return [builder.build(name)]


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
    for part in call.get("result") or [] if isinstance(call.get("result"), list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            inner = response.get("response")
            if isinstance(inner, dict) and isinstance(inner.get("output"), str):
                return inner["output"]
            return arguments_text(inner)
    display = call.get("resultDisplay")
    return display if isinstance(display, str) else arguments_text(display)


def read_stream(items: list, file: str) -> list[Session]:
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
                last = builder.messages[-1]  # a delta chunk: joined without a separator
                builder.messages[-1] = last.replace(content=last.content + text)
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
