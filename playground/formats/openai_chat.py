"""OpenAI Chat Completions transcripts: a message list, ``{"messages": [...]}``, or JSONL.

Handles string and content-part content, ``tool_calls``, ``tool_call_id`` (and the
``tool_call_ids`` list SWE-agent writes), the legacy ``function_call`` / ``function``
form, the ``developer`` role, and recorded usage (``usage``, or mini-swe-agent's
``extra.response.usage``).
"""

from __future__ import annotations

from typing import Any

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, kind_of
from playground.formats.given import Given
from policies.messages import ROLES, Message, ToolCall

FORMAT = "openai-chat"
TEXT_PARTS = ("text", "input_text", "output_text")
IMAGE_PARTS = ("image_url", "image", "input_image", "image_file")


def is_message(message: Any) -> bool:
    """Whether one item is an OpenAI chat message (a dict with a string ``role``)."""
    return isinstance(message, dict) and isinstance(message.get("role"), str)


def looks_like(given: Given) -> bool:
    """A message list whose first item is an OpenAI chat message."""
    return bool(given.items) and is_message(given.items[0])


def read(given: Given) -> list[Session]:
    return [session_of(given.items, given.file, given.name, tools=given.tools)]


def content_text(content: Any, where: str, builder: SessionBuilder) -> str:
    """Text of a ``content`` field: a string, null, or a list of parts (images as a placeholder)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise builder.error(where, f"content must be text or a list of parts, got {kind_of(content)}")
    texts = []
    for j, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            raise builder.error(where, f"content part {j} must be an object, got {kind_of(part)}")
        kind = part.get("type")
        if kind in TEXT_PARTS and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind in IMAGE_PARTS:
            texts.append("[image]")
        else:
            texts.append(f"[{kind or 'unknown'} part]")
    return "\n".join(texts)


def _tool_calls(raw: Any, where: str, builder: SessionBuilder) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise builder.error(where, f"tool_calls must be a list, got {kind_of(raw)}")
    calls = []
    for j, call in enumerate(raw):
        if not isinstance(call, dict):
            raise builder.error(where, f"tool call {j} must be an object, got {kind_of(call)}")
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise builder.error(where, f"tool call {j} has no function name")
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise builder.error(where, f"tool call {j} ({name}) has no id")
        calls.append(ToolCall(call_id, name, arguments_text(function.get("arguments"))))
    return tuple(calls)


def _usage(message: dict) -> dict | None:
    """The usage a reply recorded: its own ``usage``, or mini-swe-agent's ``extra.response.usage``."""
    usage = message.get("usage")
    if not isinstance(usage, dict):
        extra = message.get("extra")
        response = extra.get("response") if isinstance(extra, dict) else None
        usage = response.get("usage") if isinstance(response, dict) else None
    return usage if isinstance(usage, dict) else None


def _prompt_tokens(message: dict, builder: SessionBuilder) -> int | None:
    usage = _usage(message)
    if usage is None:
        return None
    field = "prompt_tokens" if "prompt_tokens" in usage else "input_tokens"
    return builder.token_count(usage.get(field), field)


def _recorded(message: dict, builder: SessionBuilder) -> dict:
    usage = _usage(message) or {}
    field = "completion_tokens" if "completion_tokens" in usage else "output_tokens"
    return {
        "prompt_tokens": _prompt_tokens(message, builder),
        "cache_read": builder.cache_read(usage),
        "output": builder.token_count(usage.get(field), field),
        "model": _model(message),
        "time": _time(message, builder),
    }


def _model(message: dict) -> str | None:
    """The model that answered, as the reply records it: its ``model``, or the provider's raw
    response that mini-swe-agent keeps (``extra.response.model``)."""
    extra = message.get("extra")
    response = extra.get("response") if isinstance(extra, dict) else None
    for model in (message.get("model"), response.get("model") if isinstance(response, dict) else None):
        if isinstance(model, str) and model:
            return model
    return None


def _time(message: dict, builder: SessionBuilder) -> float | None:
    """When the reply was recorded: mini-swe-agent's ``extra.timestamp`` or the response's ``created``."""
    extra = message.get("extra")
    if not isinstance(extra, dict):
        return None
    if extra.get("timestamp") is not None:
        return builder.timestamp(extra["timestamp"], "extra.timestamp")
    response = extra.get("response")
    created = response.get("created") if isinstance(response, dict) else None
    return builder.timestamp(created, "extra.response.created")


def session_of(messages: list, file: str, name: str, tools: Any = None) -> Session:
    """A Session from a list of OpenAI chat messages (the readers of formats that embed them
    use it too); ``where`` in errors is the list index."""
    builder = SessionBuilder(file, FORMAT)
    if isinstance(tools, list):
        builder.tools = tuple(t for t in tools if isinstance(t, dict))
    legacy_call_id: str | None = None
    unknown: dict[str, int] = {}  # roles left out, by how often
    for i, message in enumerate(messages):
        where = builder.where = f"message {i}"
        if not isinstance(message, dict):
            raise builder.error(where, f"expected a message object, got {kind_of(message)}")
        role = message.get("role")
        if not isinstance(role, str):
            raise builder.error(where, "has no role")
        if role == "function":  # legacy function result: answers the last function_call
            role = "tool"
        elif role not in ROLES:
            builder.warn(where, f"unknown role {role!r}: left out of the replay")
            unknown[role[:40]] = unknown.get(role[:40], 0) + 1
            continue
        content = content_text(message.get("content"), where, builder)
        calls = _tool_calls(message.get("tool_calls"), where, builder)
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            legacy_call_id = f"function_call@{i}"
            calls += (ToolCall(legacy_call_id, legacy["name"], arguments_text(legacy.get("arguments"))),)
        ids: tuple[str, ...] = ()
        if role == "tool":
            ids = _result_ids(message, where, builder, legacy_call_id)
        if calls and role != "assistant":
            raise builder.error(where, f"a {role} message carries tool calls")
        author = message.get("name") if isinstance(message.get("name"), str) else None
        thinking = message.get("thinking", "")
        if not isinstance(thinking, str):
            raise builder.error(where, f"thinking must be text, got {kind_of(thinking)}")
        builder.add(
            role,
            content,
            tool_calls=calls,
            tool_call_ids=ids,
            name=author,
            thinking=thinking,
            **(_recorded(message, builder) if role == "assistant" else {}),
        )
    left_out = sum(unknown.values())
    if unknown and (2 * left_out > len(messages) or not any(m.role == "assistant" for m in builder.messages)):
        roles = ", ".join(f"{role!r} ({count:,})" for role, count in list(unknown.items())[:5])
        raise builder.error(
            "",
            f"{left_out:,} of {len(messages):,} messages have a role no chat format knows ({roles}): "
            "not a chat this reader knows the shape of, never an empty session",
        )
    return builder.build(name)


def _result_ids(
    message: dict, where: str, builder: SessionBuilder, legacy_call_id: str | None
) -> tuple[str, ...]:
    many = message.get("tool_call_ids")
    if isinstance(many, list) and all(isinstance(x, str) for x in many) and many:
        return tuple(many)
    one = message.get("tool_call_id")
    if isinstance(one, str) and one:
        return (one,)
    if message.get("role") == "function" and legacy_call_id:
        return (legacy_call_id,)
    raise builder.error(where, "tool result has no tool_call_id")


def to_openai(message: Message) -> dict[str, Any]:
    """A message in OpenAI chat format, as a provider would receive it."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.thinking:  # not OpenAI's: an Anthropic transcript's thinking, kept so it is not lost
        out["thinking"] = message.thinking
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.tool_call_ids:
        out["tool_call_id"] = message.tool_call_ids[0]
        if len(message.tool_call_ids) > 1:
            out["tool_call_ids"] = list(message.tool_call_ids)
    if message.name:
        out["name"] = message.name
    return out
