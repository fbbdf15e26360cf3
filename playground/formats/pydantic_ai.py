"""pydantic-ai message histories (``ModelMessagesTypeAdapter`` JSON): ``[{kind, parts, …}]``.

A ``request`` holds ``system-prompt``, ``user-prompt``, ``tool-return`` and ``retry-prompt``
parts; a ``response`` (one model call) holds ``text``, ``thinking`` and ``tool-call`` parts,
its ``usage`` (``input_tokens``, ``cache_read_tokens``, ``cache_write_tokens``,
``output_tokens``; ``request_tokens`` and ``response_tokens`` before 1.0) and ``model_name``.
"""

from __future__ import annotations

from typing import Any

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, as_list
from playground.formats.given import Given
from policies.messages import ToolCall


def looks_like(given: Given) -> bool:
    items = given.items
    return any(
        isinstance(m, dict) and m.get("kind") in ("request", "response") and isinstance(m.get("parts"), list)
        for m in items[:10]
    )


def read(given: Given) -> list[Session]:
    items, file, name = given.items, given.file, given.name
    builder = SessionBuilder(file, "pydantic-ai messages")
    for n, message in enumerate(items):
        builder.where = f"message {n}"
        if not isinstance(message, dict):
            raise builder.error(builder.where, "expected a message object")
        parts = [p for p in as_list(message.get("parts")) if isinstance(p, dict)]
        if message.get("kind") == "response":
            _response(builder, message, parts)
            continue
        for part in parts:
            kind, content = part.get("part_kind"), part.get("content")
            text = content if isinstance(content, str) else arguments_text(content)
            if kind == "system-prompt":
                builder.add("system", text)
            elif kind == "user-prompt":
                builder.add("user", _user(content))
            elif kind in ("tool-return", "retry-prompt") and isinstance(part.get("tool_call_id"), str):
                builder.add("tool", text, tool_call_ids=(part["tool_call_id"],), name=part.get("tool_name"))
            elif kind == "retry-prompt":
                builder.add("user", text)
            else:
                builder.warn(builder.where, f"a {str(kind)[:30]} part is not replayed")
    return [builder.build(name)]


def _response(builder: SessionBuilder, message: dict, parts: list[dict]) -> None:
    texts, thoughts, calls = [], [], []
    for part in parts:
        kind = part.get("part_kind")
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "thinking" and isinstance(part.get("content"), str):
            thoughts.append(part["content"])
        elif kind == "tool-call" and isinstance(part.get("tool_call_id"), str):
            calls.append(
                ToolCall(
                    part["tool_call_id"], str(part.get("tool_name") or ""), arguments_text(part.get("args"))
                )
            )
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
    uncached = usage.get("input_tokens", usage.get("request_tokens"))
    time = builder.reply_time(message.get("timestamp"))
    builder.add(
        "assistant",
        "\n".join(texts),
        tool_calls=tuple(calls),
        thinking="\n".join(thoughts),
        prompt_tokens=builder.token_count(uncached, "input_tokens"),  # cache reads and writes included
        cache_read=builder.token_count(usage.get("cache_read_tokens"), "cache_read_tokens"),
        cache_write=builder.token_count(usage.get("cache_write_tokens"), "cache_write_tokens"),
        output=builder.token_count(usage.get("output_tokens", usage.get("response_tokens")), "output_tokens"),
        model=message.get("model_name") if isinstance(message.get("model_name"), str) else None,
        time=time,
    )


def _user(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c for c in content if isinstance(c, str))
    return arguments_text(content)
