"""LangChain message dumps: ``{"type": "human"|"ai"|"tool"|"system", "data": {...}}``.

``tool_calls`` carry ``args`` as an object; usage comes from ``usage_metadata`` or the
provider's ``response_metadata.token_usage``.
"""

from __future__ import annotations

from typing import Any

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, kind_of
from playground.formats.given import Given
from playground.formats.openai_chat import content_text
from policies.messages import ToolCall

FORMAT = "langchain"
ROLE_OF = {
    "human": "user",
    "ai": "assistant",
    "tool": "tool",
    "system": "system",
    "AIMessageChunk": "assistant",
}


def looks_like(given: Given) -> bool:
    items = given.items
    first = items[0] if items else None
    return (
        isinstance(first, dict)
        and _role(first.get("type")) is not None
        and isinstance(first.get("data"), dict)
    )


def _role(kind: Any) -> str | None:
    return ROLE_OF.get(kind) if isinstance(kind, str) else None


def read(given: Given) -> list[Session]:
    items, file, name = given.items, given.file, given.name
    builder = SessionBuilder(file, FORMAT)
    for i, item in enumerate(items):
        where = builder.where = f"message {i}"
        if not isinstance(item, dict) or not isinstance(item.get("data"), dict):
            raise builder.error(where, f"expected {{type, data}}, got {kind_of(item)}")
        role = _role(item.get("type"))
        if role is None:
            builder.warn(where, f"unknown message type {item.get('type')!r}: left out of the replay")
            continue
        data = item["data"]
        text = content_text(data.get("content"), where, builder)
        if role == "tool":
            call_id = data.get("tool_call_id")
            if not isinstance(call_id, str):
                raise builder.error(where, "tool message has no tool_call_id")
            builder.add(
                "tool", text, tool_call_ids=(call_id,), name=builder.text_or_none(data.get("name"), "name")
            )
        elif role == "assistant":
            builder.add(
                "assistant",
                text,
                tool_calls=_calls(data, where, builder),
                prompt_tokens=_usage(data, builder),
                cache_read=builder.cache_read(data.get("usage_metadata")),
            )
        else:
            builder.add(role, text)
    return [builder.build(name)]


def _calls(data: dict, where: str, builder: SessionBuilder) -> tuple[ToolCall, ...]:
    calls = data.get("tool_calls") or []
    if not isinstance(calls, list):
        raise builder.error(where, f"tool_calls must be a list, got {kind_of(calls)}")
    out = []
    for j, call in enumerate(calls):
        if (
            not isinstance(call, dict)
            or not isinstance(call.get("id"), str)
            or not isinstance(call.get("name"), str)
        ):
            raise builder.error(where, f"tool call {j} needs an id and a name")
        out.append(ToolCall(call["id"], call["name"], arguments_text(call.get("args"))))
    return tuple(out)


def _usage(data: dict, builder: SessionBuilder) -> int | None:
    usage: Any = data.get("usage_metadata")
    if isinstance(usage, dict) and builder.token_count(usage.get("input_tokens"), "input_tokens") is not None:
        return builder.token_count(usage["input_tokens"], "input_tokens")
    metadata = data.get("response_metadata")
    token_usage = metadata.get("token_usage") if isinstance(metadata, dict) else None
    if not isinstance(token_usage, dict):
        return None
    return builder.token_count(token_usage.get("prompt_tokens"), "prompt_tokens")
