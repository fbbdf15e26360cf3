"""Anthropic Messages transcripts: top-level ``system``, messages of content blocks.

``text``, ``tool_use``, ``tool_result`` (string or blocks, ``is_error``) and ``thinking``
blocks; a ``tool_result`` block inside a user message becomes a tool message, placed
before the user's own text; an assistant's thinking is kept apart from its text (``thinking``). Usage (``input_tokens`` plus cache reads and writes) is kept.
"""

from __future__ import annotations

from typing import Any

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, kind_of
from playground.formats.given import Given
from policies.messages import ToolCall

FORMAT = "anthropic-messages"
BLOCK_TYPES = ("tool_use", "tool_result", "thinking", "redacted_thinking")


def looks_like(given: Given) -> bool:
    """Anthropic blocks in any message, or a top-level ``system`` beside system-free messages."""
    messages, data = given.items, given.container
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in BLOCK_TYPES for b in content
        ):
            return True
    if data is not None and "system" in data:
        return not any(isinstance(m, dict) and m.get("role") in ("system", "tool") for m in messages)
    return False


def _text_of_blocks(blocks: Any, where: str, builder: SessionBuilder) -> str:
    if isinstance(blocks, str):
        return blocks
    if blocks is None:
        return ""
    if not isinstance(blocks, list):
        raise builder.error(where, f"content must be text or a list of blocks, got {kind_of(blocks)}")
    return "\n".join(_block_text(block, j, where, builder) for j, block in enumerate(blocks))


def _block_text(block: Any, j: int, where: str, builder: SessionBuilder) -> str:
    """The text a non-tool content block stands for (images and the like as a placeholder)."""
    if not isinstance(block, dict):
        raise builder.error(where, f"block {j} must be an object, got {kind_of(block)}")
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "thinking":
        thinking = block.get("thinking", "")
        if not isinstance(thinking, str):
            raise builder.error(where, f"thinking block {j} must hold text, got {kind_of(thinking)}")
        return thinking
    if kind in ("image", "document", "redacted_thinking"):
        return f"[{kind.replace('_', ' ')}]"
    return f"[{kind or 'unknown'} block]"


def _prompt_tokens(message: dict, builder: SessionBuilder) -> int | None:
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    parts = [
        builder.token_count(usage.get(k), k)
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    ]
    if parts[0] is None:
        return None
    return sum(p for p in parts if p is not None)


def _recorded(message: dict, builder: SessionBuilder) -> dict:
    return {
        "prompt_tokens": _prompt_tokens(message, builder),
        "cache_read": builder.cache_read(message.get("usage")),
        "time": builder.timestamp(message.get("timestamp"), "timestamp"),
    }


def read(given: Given) -> list[Session]:
    messages, file, name, system, tools = given.items, given.file, given.name, given.system, given.tools
    builder = SessionBuilder(file, FORMAT)
    if isinstance(tools, list):
        builder.tools = tuple(t for t in tools if isinstance(t, dict))
    if system:
        builder.add("system", _text_of_blocks(system, "system", builder))
    for i, message in enumerate(messages):
        where = builder.where = f"message {i}"
        if not isinstance(message, dict):
            raise builder.error(where, f"expected a message object, got {kind_of(message)}")
        role = message.get("role")
        content = message.get("content")
        if role not in ("user", "assistant", "system"):
            if isinstance(role, str):
                builder.warn(where, f"unknown role {role!r}: left out of the replay")
                continue
            raise builder.error(where, "has no role")
        if isinstance(content, str) or content is None:
            builder.add(
                role,
                content or "",
                **(_recorded(message, builder) if role == "assistant" else {}),
            )
            continue
        if not isinstance(content, list):
            raise builder.error(where, f"content must be text or a list of blocks, got {kind_of(content)}")
        if role == "assistant":
            _assistant(content, message, where, builder)
        else:
            _user(role, content, where, builder)
    return [builder.build(name)]


def _assistant(blocks: list, message: dict, where: str, builder: SessionBuilder) -> None:
    texts, calls, thoughts = [], [], []
    for j, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("tool_use", "server_tool_use"):
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise builder.error(where, f"tool_use block {j} needs an id and a name")
            calls.append(ToolCall(block["id"], block["name"], arguments_text(block.get("input", {}))))
        elif kind in ("thinking", "redacted_thinking"):  # kept apart: context editing clears it
            thoughts.append(_block_text(block, j, where, builder))
        else:
            texts.append(_block_text(block, j, where, builder))
    builder.add(
        "assistant",
        "\n".join(texts),
        tool_calls=tuple(calls),
        thinking="\n".join(thoughts),
        **_recorded(message, builder),
    )


def _user(role: str, blocks: list, where: str, builder: SessionBuilder) -> None:
    rest = []
    for j, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str) or not call_id:
                raise builder.error(where, f"tool_result block {j} has no tool_use_id")
            text = _text_of_blocks(block.get("content"), f"{where} block {j}", builder)
            if block.get("is_error"):
                text = f"[error] {text}"
            builder.add("tool", text, tool_call_ids=(call_id,))
        else:
            rest.append(block)
    if rest or not blocks:
        builder.add(role, _text_of_blocks(rest, where, builder))
