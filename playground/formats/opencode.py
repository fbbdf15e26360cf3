"""opencode's ``opencode export <session>`` JSON: ``{info, messages: [{info, parts}]}``.

A user message's ``text`` parts are its text. An assistant message holds one or more model
steps: ``step-start`` … ``step-finish`` (whose ``tokens`` carry input, output, reasoning and
cache read and write); between them ``text``, ``reasoning`` and ``tool`` parts (a tool part
is the call and, in its ``state``, the result). Each finished step is one turn; a message aborted
before its first step finished is history opencode sends on, not a call. A ``compaction``
part, and the summary message after it, are opencode's own compaction.
"""

from __future__ import annotations

from collections import Counter

from playground.engine.session import RecordedCompaction, Session
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    as_dict,
    as_list,
    label_of,
    uncached_plus_cache,
)
from playground.formats.given import Given
from policies.messages import ToolCall


def looks_like(given: Given) -> bool:
    data = given.data
    messages = data.get("messages") if isinstance(data, dict) else None
    return (
        (
            isinstance(data.get("info"), dict)
            and isinstance(messages, list)
            and any(
                isinstance(m, dict) and isinstance(m.get("info"), dict) and isinstance(m.get("parts"), list)
                for m in messages
            )
        )
        if isinstance(data, dict)
        else False
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    builder = SessionBuilder(file, "opencode export")
    passed: Counter[str] = Counter()
    for n, message in enumerate(data["messages"]):
        builder.where = f"message {n}"
        if not isinstance(message, dict) or not isinstance(message.get("info"), dict):
            passed["not a message"] += 1
            continue
        info, parts = message["info"], [p for p in as_list(message.get("parts")) if isinstance(p, dict)]
        if info.get("role") == "user":
            if any(p.get("type") == "compaction" for p in parts):
                builder.compactions.append(
                    RecordedCompaction(
                        len(builder.messages), "auto" if any(p.get("auto") for p in parts) else ""
                    )
                )
            text = "\n".join(
                p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)
            )
            if text:
                builder.add("user", text)
        elif info.get("role") == "assistant":
            if info.get("summary") and builder.compactions and not builder.compactions[-1].summary:
                last = builder.compactions[-1]
                text = "\n".join(
                    p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)
                )
                builder.compactions[-1] = RecordedCompaction(last.at, last.trigger, last.pre_tokens, text)
                continue
            _steps(builder, info, parts, passed)
        else:
            passed[f"role {label_of(info.get('role'))}"] += 1
    builder.warn_counts("parts passed over", dict(passed))
    info = data["info"]
    name = (
        info.get("title")
        if isinstance(info.get("title"), str) and info.get("title")
        else str(info.get("id") or "opencode session")
    )
    return [builder.build(name[:200])]


def _steps(builder: SessionBuilder, info: dict, parts: list[dict], passed: Counter) -> None:
    model = info.get("modelID") if isinstance(info.get("modelID"), str) else None
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[tuple[ToolCall, str]] = []
    replies: list[int] = []  # the raw index of each step's reply, in this message

    def emit(tokens: dict | None) -> None:
        if not (texts or thoughts or calls):
            return
        tokens = tokens or {}
        cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
        uncached = builder.token_count(tokens.get("input"), "tokens.input")
        read_ = builder.token_count(cache.get("read"), "tokens.cache.read")
        written = builder.token_count(cache.get("write"), "tokens.cache.write")
        output = builder.token_count(tokens.get("output"), "tokens.output")
        reasoning = builder.token_count(tokens.get("reasoning"), "tokens.reasoning")
        builder.add(
            "assistant",
            "\n".join(texts),
            tool_calls=tuple(c for c, _ in calls),
            thinking="\n".join(thoughts),
            prompt_tokens=uncached_plus_cache(uncached, read_, written),
            cache_read=read_,
            cache_write=written,
            output=None if output is None else output + (reasoning or 0),
            model=model,
            # the message's time goes with its first step
            time=builder.reply_time_ms(as_dict(info.get("time")).get("created")) if not replies else None,
        )
        replies.append(len(builder.messages) - 1)
        for call, result in calls:
            builder.add("tool", result, tool_call_ids=(call.id,))
        texts.clear(), thoughts.clear(), calls.clear()

    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            thoughts.append(part["text"])
        elif kind == "tool" and isinstance(part.get("callID"), str):
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            result = state.get("output") if state.get("output") is not None else state.get("error")
            call = ToolCall(part["callID"], str(part.get("tool") or ""), arguments_text(state.get("input")))
            calls.append((call, result if isinstance(result, str) else arguments_text(result)))
        elif kind == "step-finish":
            emit(part.get("tokens") if isinstance(part.get("tokens"), dict) else None)
        elif kind != "step-start":
            passed[label_of(kind)] += 1
    if texts or thoughts or calls:  # a step with no step-finish (aborted, or the file ends mid-step)
        if replies:
            # no call opencode counts: what it holds goes on with the message's last finished step
            builder.warn(builder.where, "a step with no step-finish: joined to the step before it, no call")
            builder.join_last(
                "\n".join(texts), tuple(c for c, _ in calls), "\n".join(thoughts), index=replies[-1]
            )
            for call, result in calls:
                builder.add("tool", result, tool_call_ids=(call.id,))
        else:  # aborted before its first step finished: opencode sends what it holds, records no call
            builder.warn(builder.where, "a step with no step-finish (aborted): in the history, not a call")
            emit(None)
            builder.held_replies.add(replies[-1])
