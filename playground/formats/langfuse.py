"""Langfuse trace exports (``GET /api/public/traces/{id}``: the trace and its ``observations``).

Where content sits depends on the instrumentation. Where the GENERATION observations carry
their request (``input``, a list of chat messages) and reply (``output``), the raw history
grows by what each request adds, then the reply. Where they carry none (opencode's exporter),
the messages are rebuilt from the spans: ``text-content`` spans hold each part's text (the
longest update kept), ``tool-*`` spans a call with its input and result, ``user-message``
spans mark user messages, all tied by ``metadata.messageId``. Usage is the generation's
``usageDetails``, with cache figures from its ``metadata`` (cacheRead, cacheWrite) where
the exporter put them there; a generation repeated for one message counts once.
"""

from __future__ import annotations

from typing import Any

from playground.engine.session import Session, TranscriptError
from playground.formats.builder import SessionBuilder, arguments_text, digest, uncached_plus_cache
from playground.formats.given import Given
from policies.messages import ToolCall


def looks_like(given: Given) -> bool:
    data = given.data
    return (
        isinstance(data, dict)
        and isinstance(data.get("observations"), list)
        and any(
            isinstance(o, dict) and o.get("type") in ("GENERATION", "SPAN")
            for o in data["observations"][:200]
        )
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    observations = sorted(
        (o for o in data["observations"] if isinstance(o, dict)), key=lambda o: str(o.get("startTime") or "")
    )
    generations = [o for o in observations if o.get("type") == "GENERATION"]
    if not generations:
        raise TranscriptError(
            file, "observations", "a Langfuse trace with no GENERATION observation: no model call"
        )
    builder = SessionBuilder(file, "Langfuse trace")
    if any(isinstance(g.get("input"), list) for g in generations):
        _from_generations(builder, generations)
    else:
        _from_spans(builder, observations, generations)
    name = (
        data.get("name")
        if isinstance(data.get("name"), str) and data.get("name")
        else f"trace {str(data.get('id'))[:12]}"
    )
    return [builder.build(name[:200])]


def _usage(builder: SessionBuilder, generation: dict) -> dict[str, Any]:
    details = generation.get("usageDetails") if isinstance(generation.get("usageDetails"), dict) else {}
    meta = generation.get("metadata") if isinstance(generation.get("metadata"), dict) else {}
    uncached = builder.token_count(details.get("input"), "input")
    read_ = builder.token_count(details.get("cache_read_input_tokens", meta.get("cacheRead")), "cacheRead")
    written = builder.token_count(
        details.get("cache_creation_input_tokens", meta.get("cacheWrite")), "cacheWrite"
    )
    prompt = uncached_plus_cache(uncached, read_, written)
    time = builder.reply_time(generation.get("startTime"))
    return {
        "prompt_tokens": prompt,
        "cache_read": read_,
        "cache_write": written,
        "output": builder.token_count(details.get("output"), "output"),
        "model": generation.get("model") if isinstance(generation.get("model"), str) else None,
        "time": time,
    }


def _from_generations(builder: SessionBuilder, generations: list[dict]) -> None:
    seen: set[str] = set()
    for n, generation in enumerate(generations):
        builder.where = f"generation {n}"
        for message in generation.get("input") if isinstance(generation.get("input"), list) else []:
            key = digest(message)
            if key in seen or not isinstance(message, dict):
                continue
            seen.add(key)
            role = message.get("role")
            if role in ("system", "user", "developer"):
                builder.add(role, _text(message.get("content")))
            elif role == "tool" and isinstance(message.get("tool_call_id"), str):
                builder.add("tool", _text(message.get("content")), tool_call_ids=(message["tool_call_id"],))
            elif role == "assistant":
                builder.add("assistant", _text(message.get("content")), tool_calls=_calls(message))
        output = generation.get("output")
        reply = output if isinstance(output, dict) else {"content": output}
        seen.add(digest({"role": "assistant", **reply}))
        builder.add(
            "assistant", _text(reply.get("content")), tool_calls=_calls(reply), **_usage(builder, generation)
        )


def _from_spans(builder: SessionBuilder, observations: list[dict], generations: list[dict]) -> None:
    order: list[str] = []  # message ids, as they first appear in time
    role_of: dict[str, str] = {}
    parts: dict[str, dict[str, str]] = {}  # message id -> part id -> its longest text
    calls: dict[str, dict[str, Any]] = {}  # call id -> message id, tool, input, result
    for o in observations:
        meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
        message = meta.get("messageId")
        name = str(o.get("name") or "")
        if (
            isinstance(message, str)
            and message not in role_of
            and (o.get("type") == "GENERATION" or name == "user-message")
        ):
            role_of[message] = "assistant" if o.get("type") == "GENERATION" else "user"
            order.append(message)
        if name == "text-content" and isinstance(message, str):
            text = o["input"].get("text") if isinstance(o.get("input"), dict) else None
            part = str(meta.get("partId"))
            if isinstance(text, str) and len(text) >= len(parts.setdefault(message, {}).get(part, "")):
                parts[message][part] = text
        elif name.startswith("tool-") and isinstance(meta.get("callId"), str):
            call = calls.setdefault(meta["callId"], {"message": None, "tool": meta.get("tool") or name[5:]})
            call["message"] = call["message"] or meta.get("messageId")
            if o.get("input") is not None:
                call.setdefault("input", o["input"])
            result = o["output"].get("result") if isinstance(o.get("output"), dict) else o.get("output")
            if result is not None:
                call["result"] = result if isinstance(result, str) else arguments_text(result)
    best: dict[str, dict] = {}
    for g in generations:
        meta = g.get("metadata") if isinstance(g.get("metadata"), dict) else {}
        details = g.get("usageDetails") if isinstance(g.get("usageDetails"), dict) else {}
        message = meta.get("messageId")
        if isinstance(message, str) and (
            message not in best or _total(details) > _total(best[message].get("usageDetails"))
        ):
            best[message] = g
    calls_of: dict[str, list[tuple[str, dict[str, Any]]]] = {}  # message id -> its calls, in order
    for cid, c in calls.items():
        calls_of.setdefault(c["message"], []).append((cid, c))
    for message in order:
        text = "\n".join(parts.get(message, {})[p] for p in sorted(parts.get(message, {})))
        builder.where = f"message {message[:40]}"
        if role_of[message] == "user":
            builder.add("user", text)
            continue
        own = calls_of.get(message, [])
        tool_calls = tuple(ToolCall(cid, str(c["tool"]), arguments_text(c.get("input"))) for cid, c in own)
        builder.add(
            "assistant",
            text,
            tool_calls=tool_calls,
            **_usage(builder, best[message]) if message in best else {},
        )
        for cid, c in own:
            builder.add("tool", c.get("result", ""), tool_call_ids=(cid,))


def _total(details: Any) -> int:
    return (
        details.get("total") or 0
        if isinstance(details, dict) and isinstance(details.get("total"), int)
        else 0
    )


def _calls(message: dict) -> tuple[ToolCall, ...]:
    found = []
    for call in message.get("tool_calls") or [] if isinstance(message.get("tool_calls"), list) else []:
        function = (
            call.get("function") if isinstance(call, dict) and isinstance(call.get("function"), dict) else {}
        )
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            found.append(
                ToolCall(
                    call["id"], str(function.get("name") or ""), arguments_text(function.get("arguments"))
                )
            )
    return tuple(found)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "" if content is None else arguments_text(content)
