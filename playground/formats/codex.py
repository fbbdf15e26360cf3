"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Lines ``{timestamp, type, payload}``. The conversation is the ``response_item`` lines
(Responses-API items); ``event_msg`` lines repeat it for the UI and are not messages, except
``token_count``, whose ``last_token_usage`` is the usage of one call (a repeat of the previous
total, or ``info: null``, is no call): written after the call's items up to 0.57, and from 0.58
before them (and repeated after), so a new total belongs to the reply that has none yet, else
to the next reply. ``turn_context`` names the model;
``compacted`` is the agent's own compaction, with the history it sent after it. A
``session_meta`` line with a new id starts a session (a forked rollout holds several); one
repeating the id resumes the same thread.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from playground.engine.session import ReadWarning, RecordedCompaction, Session, TranscriptError
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    block_text,
    check_sessions,
    label_of,
    version_of,
)
from playground.formats.given import Given
from policies.messages import Message, ToolCall

LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
ASSISTANT_ITEMS = ("reasoning", "function_call", "custom_tool_call", "local_shell_call")
MIN_WINDOW, MAX_WINDOW = 1_000, 100_000_000  # a recorded window outside these is not one
OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def looks_like(given: Given) -> bool:
    items = given.items
    return any(
        isinstance(i, dict)
        and i.get("type") in LINE_TYPES
        and isinstance(i.get("payload"), dict | None)
        and "payload" in i
        for i in items[:20]
    ) and any(isinstance(i, dict) and i.get("type") in ("session_meta", "response_item") for i in items)


def read(given: Given) -> list[Session]:
    items, file = given.items, given.file
    parts: list[list[tuple[int, dict]]] = [[]]
    current, conversing = None, False  # the part's session id; whether it holds a response item yet
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "session_meta":
            payload = item.get("payload") if isinstance(item.get("payload"), dict) else {}
            same = isinstance(payload.get("id"), str) and payload.get("id") == current
            if conversing and not same:  # another session; the same id is a resumed thread: one session
                parts.append([])
                conversing = False
            current = payload.get("id") if isinstance(payload.get("id"), str) else current
        conversing = conversing or item.get("type") == "response_item"
        parts[-1].append((number, item))
    check_sessions(len(parts), file)  # before any is built
    sessions, empty = [], []
    for part in parts:
        session = _read_session(part, file)
        if session is None:
            empty.append(f"line {part[0][0]}")
        else:
            sessions.append(session)
    if not sessions:
        raise TranscriptError(file, "", "a Codex rollout with no conversation (no message or tool call)")
    if empty:
        first = sessions[0]
        note = ReadWarning(
            "", f"{len(empty)} session_meta part(s) with no message passed over: {', '.join(empty[:5])}"
        )
        sessions[0] = replace(first, warnings=(*first.warnings, note))
    return sessions


def _read_session(lines: list[tuple[int, dict]], file: str) -> Session | None:
    builder = SessionBuilder(file, "Codex CLI rollout")
    passed: Counter[str] = Counter()
    model, name, open_call, last_total = None, "", False, None
    last_reply = -1  # the raw index of the reply of the call under way
    pending: dict | None = None  # a call's usage written before its reply
    windows: Counter[int] = Counter()  # model_context_window, as each call's token_count records it
    for number, line in lines:
        builder.where = f"line {number}"
        kind, payload = line.get("type"), line.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        if kind == "session_meta":
            name = name or str(payload.get("id") or "")[:80]
            builder.agent_version = version_of(payload.get("cli_version")) or builder.agent_version
        elif kind == "turn_context":
            model = payload.get("model") if isinstance(payload.get("model"), str) else model
        elif kind == "compacted":
            summary = payload.get("message") if isinstance(payload.get("message"), str) else ""
            kept = tuple(_kept(payload.get("replacement_history")))
            builder.compactions.append(RecordedCompaction(len(builder.messages), "", None, summary, kept))
            open_call = False
        elif kind == "event_msg":
            if payload.get("type") != "token_count":
                passed[f"event_msg/{label_of(payload.get('type'))}"] += 1
                continue
            info = payload.get("info")
            if not isinstance(info, dict) or not isinstance(info.get("last_token_usage"), dict):
                passed["token_count without usage"] += 1
                continue
            total = info.get("total_token_usage")
            if total == last_total:
                passed["token_count repeating the previous total"] += 1
                continue
            last_total = total
            window = info.get("model_context_window")
            if type(window) is int and MIN_WINDOW <= window <= MAX_WINDOW:
                windows[window] += 1
            if last_reply >= 0 and last_reply not in builder.usage:
                _usage(builder, last_reply, info["last_token_usage"])  # written after its call (<0.58)
            else:
                pending = info["last_token_usage"]  # written before its call's items (0.58+)
            open_call = False
        elif kind == "response_item":
            before = len(builder.messages)
            _item(builder, payload, model, open_call, passed, line.get("timestamp"))
            open_call = builder.last_is_open_assistant()
            if open_call and len(builder.messages) > before:  # a new reply: a new call
                last_reply = before
                if pending is not None:
                    _usage(builder, last_reply, pending)
                    pending = None
        else:
            passed[label_of(kind)] += 1
    if not builder.messages:
        return None
    if pending is not None:
        builder.warn("", "the last token_count has no reply after it: not attached")
    if windows:
        builder.recorded_window = windows.most_common(1)[0][0]  # the window most calls had
    builder.warn_counts("lines passed over, not messages the model was sent", dict(passed))
    return builder.build(name or "Codex session")


def _usage(builder: SessionBuilder, index: int, usage: dict) -> None:
    prompt = builder.token_count(usage.get("input_tokens"), "input_tokens")  # cached included
    for target, key in (
        (builder.usage, prompt),
        (builder.cache_reads, builder.token_count(usage.get("cached_input_tokens"), "cached_input_tokens")),
        (
            builder.cache_writes,
            builder.token_count(usage.get("cache_write_input_tokens"), "cache_write_input_tokens"),
        ),
        (builder.outputs, builder.token_count(usage.get("output_tokens"), "output_tokens")),
    ):
        if key is not None:
            target[index] = key


def _item(
    builder: SessionBuilder, item: dict, model: str | None, open_call: bool, passed: Counter, stamp: Any
) -> None:
    kind = item.get("type")
    if kind == "message":
        role, text = item.get("role"), block_text(item.get("content"))
        if role == "assistant":
            _assistant(builder, open_call, model, stamp, text=text)
        elif role in ("user", "developer", "system"):
            builder.add(role, text)
        else:
            passed[f"message/{label_of(role)}"] += 1
    elif kind == "reasoning":
        summary = item.get("summary") if isinstance(item.get("summary"), list) else []
        thought = "\n".join(
            s["text"] for s in summary if isinstance(s, dict) and isinstance(s.get("text"), str)
        )
        _assistant(builder, open_call, model, stamp, thinking=thought)
    elif kind in ASSISTANT_ITEMS:
        call_id = item.get("call_id") or item.get("id")
        name = item.get("name") if isinstance(item.get("name"), str) else kind
        if not isinstance(call_id, str):
            passed[f"{kind} without a call_id"] += 1
            return
        arguments = item.get("arguments", item.get("input", item.get("action")))
        _assistant(builder, open_call, model, stamp, call=ToolCall(call_id, name, arguments_text(arguments)))
    elif kind in OUTPUT_ITEMS:
        call_id = item.get("call_id")
        if not isinstance(call_id, str):
            passed[f"{kind} without a call_id"] += 1
            return
        output = item.get("output")
        builder.add(
            "tool", output if isinstance(output, str) else arguments_text(output), tool_call_ids=(call_id,)
        )
    else:
        passed[f"response_item/{label_of(kind)}"] += 1


def _assistant(
    builder: SessionBuilder,
    open_call: bool,
    model: str | None,
    stamp: Any,
    *,
    text: str = "",
    thinking: str = "",
    call: ToolCall | None = None,
) -> None:
    calls = (call,) if call else ()
    if open_call and builder.last_is_open_assistant():
        builder.join_last(text, calls, thinking)
        return
    time = builder.reply_time(stamp)
    builder.add("assistant", text, tool_calls=calls, thinking=thinking, model=model, time=time)


def _kept(history: Any) -> list[Message]:
    """The messages a compaction kept, as the agent sent them after it (its text only)."""
    kept = []
    for item in history if isinstance(history, list) else []:
        if (
            isinstance(item, dict)
            and item.get("type") == "message"
            and item.get("role") in ("user", "assistant", "developer", "system")
        ):
            kept.append(Message(role=item["role"], content=block_text(item.get("content"))))
    return kept
