"""OpenTelemetry GenAI traces: what Langfuse, Logfire, any-agent and OpenLLMetry export.

Follows the GenAI semantic conventions (v1.37): an inference span carries the request it
sent in ``gen_ai.input.messages`` (with ``gen_ai.system_instructions``) and the reply in
``gen_ai.output.messages``, each message ``{role, parts: [{type: text|tool_call|
tool_call_response, ...}]}``, and its usage in ``gen_ai.usage.input_tokens``. OpenLLMetry's
flattened attributes (``gen_ai.prompt.0.role``, ``gen_ai.completion.0.content``) are read too.

One session per trace: its inference spans in start order. Every span's input is the whole
history the agent sent, so the session is the first span's input, then per span what its
input adds to the history so far, then its reply, with that span's recorded usage kept.
An input that does not continue the history (the agent's own framework already cut it) is
read for what it adds after the common part, and a warning says so.

Accepted shapes: an OTLP JSON export (``{"resourceSpans": [...]}``, or one per line), or a
list of spans whose ``attributes`` are OTLP key/value pairs or a plain mapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from playground.engine.session import Session, TranscriptError
from playground.formats.builder import SessionBuilder, arguments_text, kind_of
from playground.formats.given import Given
from policies.base import shown
from policies.messages import ToolCall

FORMAT = "otel-genai"
INPUT, OUTPUT = "gen_ai.input.messages", "gen_ai.output.messages"
SYSTEM_KEYS = ("gen_ai.system_instructions", "gen_ai.system.instructions")
CACHE_READ_KEYS = ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens")
FLAT_PROMPT, FLAT_COMPLETION = "gen_ai.prompt.", "gen_ai.completion."


def looks_like(given: Given) -> bool:
    """Whether parsed JSON is an OTLP export or a list of spans."""
    data = given.data
    if isinstance(data, dict):
        return isinstance(data.get("resourceSpans"), list)
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(d, dict) for d in data)
        and all(isinstance(d.get("resourceSpans"), list) or _is_span(d) for d in data)
    )


def _is_span(item: dict) -> bool:
    return "attributes" in item and any(k in item for k in ("spanId", "span_id", "context", "traceId"))


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    spans = list(_spans(data, file))
    inference = [s for s in spans if _is_inference(s["attributes"])]
    if not inference:
        keys = sorted({k for s in spans for k in s["attributes"] if k.startswith("gen_ai.")})[:8]
        raise TranscriptError(
            file,
            "",
            f"an OpenTelemetry trace of {len(spans):,} span(s), none with {INPUT} or {OUTPUT} "
            f"(gen_ai attributes found: {', '.join(keys) or 'none'}): no prompts were recorded. "
            "Turn on message content capture in the instrumentation "
            "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)",
        )
    traces: dict[str, list[dict]] = {}
    for span in inference:
        traces.setdefault(span["trace"], []).append(span)
    return [
        _read_trace(sorted(group, key=lambda s: s["start"]), file, trace) for trace, group in traces.items()
    ]


def _spans(data: Any, file: str) -> Iterator[dict]:
    """Every span as {trace, start, name, attributes (a plain mapping)}."""
    exports = [data] if isinstance(data, dict) else data
    for n, item in enumerate(exports):
        if isinstance(item.get("resourceSpans"), list):
            for resource in item["resourceSpans"]:
                for scope in _list(resource, "scopeSpans", file) + _list(
                    resource, "instrumentationLibrarySpans", file
                ):
                    for span in _list(scope, "spans", file):
                        yield _span(span, file)
        elif _is_span(item):
            yield _span(item, file)
        else:
            raise TranscriptError(file, f"item {n}", "neither an OTLP export nor a span")


def _list(holder: Any, key: str, file: str) -> list:
    value = holder.get(key) if isinstance(holder, dict) else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranscriptError(file, key, f"expected a list, got {kind_of(value)}")
    return value


def _span(span: Any, file: str) -> dict:
    if not isinstance(span, dict):
        raise TranscriptError(file, "spans", f"expected a span object, got {kind_of(span)}")
    context = span.get("context") if isinstance(span.get("context"), dict) else {}
    trace = span.get("traceId") or span.get("trace_id") or context.get("trace_id") or "trace"
    name = str(span.get("name") or "span")
    start = span.get("startTimeUnixNano") or span.get("start_time") or 0
    return {
        "trace": str(trace),
        "name": name,
        "start": _seconds(start),
        "attributes": _attributes(span.get("attributes"), file, name),
    }


MAX_SECONDS = 1e11  # a start later than this (year 5138) is no time: read as unknown (0)


def _seconds(value: Any) -> float:
    """A span's start as Unix seconds: OTLP's nanoseconds (text or number) or ISO 8601 text."""
    try:
        seconds = int(value) / 1e9
    except (TypeError, ValueError, OverflowError):  # a 400-digit number is no time
        seconds = None
    if seconds is not None:
        return seconds if 0 <= seconds < MAX_SECONDS else 0.0
    if isinstance(value, str):
        from datetime import UTC, datetime

        try:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0.0
        return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()
    return 0.0


def _attributes(raw: Any, file: str, span: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, list):
        raise TranscriptError(
            file, f"span {shown(span)}", f"attributes must be a list or a mapping, got {kind_of(raw)}"
        )
    out = {}
    for pair in raw:
        if isinstance(pair, dict) and isinstance(pair.get("key"), str):
            out[pair["key"]] = _value(pair.get("value"))
    return out


def _value(value: Any) -> Any:
    """An OTLP AnyValue as plain data."""
    if not isinstance(value, dict):
        return value
    for kind in ("stringValue", "boolValue", "doubleValue"):
        if kind in value:
            return value[kind]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values", []) or []]
    if "kvlistValue" in value:
        pairs = (value["kvlistValue"] or {}).get("values", []) or []
        return {p.get("key"): _value(p.get("value")) for p in pairs if isinstance(p, dict)}
    return None


def _is_inference(attributes: dict) -> bool:
    return INPUT in attributes or OUTPUT in attributes or any(k.startswith(FLAT_PROMPT) for k in attributes)


def _read_trace(spans: list[dict], file: str, trace: str) -> Session:
    builder = SessionBuilder(file, FORMAT)
    history: list[tuple] = []  # what each raw message is, to see what a span's input adds
    model = ""
    for n, span in enumerate(spans):
        attributes = span["attributes"]
        builder.where = f"trace {trace[:16]} span {n} ({span['name'][:60]})"
        model = model or str(
            attributes.get("gen_ai.request.model") or attributes.get("gen_ai.response.model") or ""
        )
        request = _system(attributes, builder) + _messages(attributes, INPUT, FLAT_PROMPT, builder)
        common = 0
        while common < min(len(history), len(request)) and history[common] == request[common]:
            common += 1
        if common < len(history):
            builder.warn(
                builder.where,
                f"its input does not continue the history: it repeats {common} of the {len(history)} "
                "messages so far (the agent's framework cut its context); the messages after them are added",
            )
        for message in request[common:]:
            _add(message, builder)
            history.append(message)
        replies = _messages(attributes, OUTPUT, FLAT_COMPLETION, builder)
        usage = {
            "prompt_tokens": builder.token_count(attributes.get("gen_ai.usage.input_tokens"), "input_tokens"),
            "cache_read": next(
                (builder.token_count(attributes[k], k) for k in CACHE_READ_KEYS if k in attributes), None
            ),
            "time": span["start"] or None,
        }
        for i, message in enumerate(replies):
            _add(message, builder, **(usage if i == 0 else {}))
            history.append(message)
    name = f"{model} trace {trace[:12]}" if model else f"trace {trace[:12]}"
    return builder.build(name.strip())


# a message as read: (role, text, tool calls, tool call ids); equal tuples are the same message
def _messages(attributes: dict, key: str, flat: str, builder: SessionBuilder) -> list[tuple]:
    raw = attributes.get(key)
    if raw is None:
        return _flat(attributes, flat, builder)
    if isinstance(raw, str):
        try:
            raw = builder.inner_json(raw, key)
        except json.JSONDecodeError:
            builder.warn(builder.where, f"{key} is not JSON: read as one text")
            role = "assistant" if key == OUTPUT else "user"
            return [(role, raw, (), ())]
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise builder.error(builder.where, f"{key} must be a list of messages, got {kind_of(raw)}")
    out: list[tuple] = []
    for i, message in enumerate(raw):
        if not isinstance(message, dict):
            raise builder.error(builder.where, f"{key}[{i}] must be a message object, got {kind_of(message)}")
        out += _message(message, f"{key}[{i}]", builder)
    return out


def _message(message: dict, where: str, builder: SessionBuilder) -> list[tuple]:
    role = message.get("role")
    if not isinstance(role, str):
        raise builder.error(builder.where, f"{where} has no role")
    if role not in ("system", "user", "assistant", "tool"):
        builder.warn(builder.where, f"{where}: unknown role {role!r}: left out of the replay")
        return []
    parts = message.get("parts")
    if parts is None:  # the older shape: {role, content, tool_calls, tool_call_id}
        return [_chat_message(role, message, where, builder)]
    if not isinstance(parts, list):
        raise builder.error(builder.where, f"{where}.parts must be a list, got {kind_of(parts)}")
    texts, calls, results = [], [], []
    for j, part in enumerate(parts):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("text", "reasoning"):
            text = part.get("content", part.get("text"))
            if not isinstance(text, str):
                raise builder.error(
                    builder.where, f"{where}.parts[{j}] text must be text, got {kind_of(text)}"
                )
            if kind == "text":
                texts.append(text)
        elif kind == "tool_call":
            calls.append(
                ToolCall(
                    str(part.get("id") or f"call-{j}"),
                    str(part.get("name") or "tool"),
                    arguments_text(part.get("arguments")),
                )
            )
        elif kind == "tool_call_response":
            response = part.get("response", part.get("result"))
            text = response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)
            results.append(("tool", text, (), (str(part.get("id") or ""),)))
        else:
            builder.warn(builder.where, f"{where}.parts[{j}]: a {shown(kind)} part is not text: left out")
    if results:  # tool results travel in their own messages, as every reader keeps them
        return results + ([(role, "\n".join(texts), (), ())] if texts else [])
    return [(role, "\n".join(texts), tuple(calls), ())]


def _chat_message(role: str, message: dict, where: str, builder: SessionBuilder) -> tuple:
    content = message.get("content")
    if not isinstance(content, str | None):
        content = json.dumps(content, ensure_ascii=False)
    calls = []
    for j, call in enumerate(message.get("tool_calls") or []):
        if isinstance(call, dict):
            function = call.get("function") if isinstance(call.get("function"), dict) else call
            calls.append(
                ToolCall(
                    str(call.get("id") or f"call-{j}"),
                    str(function.get("name") or "tool"),
                    arguments_text(function.get("arguments")),
                )
            )
    ids = (str(message["tool_call_id"]),) if role == "tool" and message.get("tool_call_id") else ()
    return (role, content or "", tuple(calls), ids)


def _flat(attributes: dict, prefix: str, builder: SessionBuilder) -> list[tuple]:
    """OpenLLMetry's flattened messages: ``gen_ai.prompt.0.role``, ``....0.content``, ..."""
    out = []
    n = 0
    while f"{prefix}{n}.role" in attributes or f"{prefix}{n}.content" in attributes:
        at = f"{prefix}{n}."
        role = str(attributes.get(f"{at}role") or ("assistant" if prefix == FLAT_COMPLETION else "user"))
        message: dict[str, Any] = {"role": role, "content": attributes.get(f"{at}content")}
        if attributes.get(f"{at}tool_call_id"):
            message["tool_call_id"] = attributes[f"{at}tool_call_id"]
        calls, k = [], 0
        while f"{at}tool_calls.{k}.name" in attributes:
            calls.append(
                {
                    "id": attributes.get(f"{at}tool_calls.{k}.id"),
                    "name": attributes[f"{at}tool_calls.{k}.name"],
                    "arguments": attributes.get(f"{at}tool_calls.{k}.arguments"),
                }
            )
            k += 1
        message["tool_calls"] = calls
        out += _message(message, f"{prefix}{n}", builder)
        n += 1
    return out


def _system(attributes: dict, builder: SessionBuilder) -> list[tuple]:
    raw = next((attributes[k] for k in SYSTEM_KEYS if k in attributes), None)
    if raw is None:
        return []
    if isinstance(raw, str):
        try:
            raw = builder.inner_json(raw, "system instructions")
        except json.JSONDecodeError:
            return [("system", raw, (), ())]
    parts = raw if isinstance(raw, list) else [raw]
    texts = [p.get("content", p.get("text")) for p in parts if isinstance(p, dict)]
    return [("system", "\n".join(t for t in texts if isinstance(t, str)), (), ())]


def _add(message: tuple, builder: SessionBuilder, **recorded: Any) -> None:
    role, text, calls, ids = message
    builder.add(role, text, tool_calls=calls, tool_call_ids=ids, **recorded)
