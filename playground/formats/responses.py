"""OpenAI Responses API items: ``message``, ``function_call``, ``function_call_output``, ``reasoning``.

Reasoning, message and function-call items that follow each other make one inference,
so they join one assistant message.
"""

from __future__ import annotations

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, kind_of
from playground.formats.given import Given
from playground.formats.openai_chat import content_text
from policies.messages import ROLES, ToolCall

FORMAT = "openai-responses"
ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning")


def looks_like(given: Given) -> bool:
    items = given.items
    return any(isinstance(i, dict) and i.get("type") in ITEM_TYPES[1:] for i in items)


def read(given: Given) -> list[Session]:
    items, file, name, tools = given.items, given.file, given.name, given.tools
    builder = SessionBuilder(file, FORMAT)
    if isinstance(tools, list):
        builder.tools = tuple(t for t in tools if isinstance(t, dict))
    pending_reasoning: list[str] = []
    for i, item in enumerate(items):
        where = builder.where = f"item {i}"
        if not isinstance(item, dict):
            raise builder.error(where, f"expected an item object, got {kind_of(item)}")
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "reasoning":
            summary = item.get("summary") or []
            if not isinstance(summary, list):
                raise builder.error(where, f"reasoning summary must be a list, got {kind_of(summary)}")
            texts = [s.get("text", "") for s in summary if isinstance(s, dict)]
            if not all(isinstance(t, str) for t in texts):
                raise builder.error(where, "reasoning summary text must be text")
            pending_reasoning.append("[reasoning] " + " ".join(texts) if texts else "[reasoning]")
        elif kind == "function_call":
            call_id, call_name = item.get("call_id") or item.get("id"), item.get("name")
            if not isinstance(call_id, str) or not isinstance(call_name, str):
                raise builder.error(where, "function_call needs a call_id and a name")
            call = (ToolCall(call_id, call_name, arguments_text(item.get("arguments"))),)
            _assistant(builder, "\n".join(pending_reasoning), call, item)
            pending_reasoning = []
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if not isinstance(call_id, str):
                raise builder.error(where, "function_call_output has no call_id")
            output = item.get("output")
            text = output if isinstance(output, str) else content_text(output, where, builder)
            builder.add("tool", text, tool_call_ids=(call_id,))
        elif kind == "message":
            role = item.get("role")
            if role not in ROLES or role == "tool":
                builder.warn(where, f"unknown role {role!r}: left out of the replay")
                continue
            text = content_text(item.get("content"), where, builder)
            if role == "assistant":
                _assistant(builder, "\n".join([*pending_reasoning, text]), (), item)
                pending_reasoning = []
            else:
                builder.add(role, text)
        else:
            builder.warn(where, f"item type {kind!r} is not replayed")
    return [builder.build(name)]


def _assistant(builder: SessionBuilder, text: str, calls: tuple[ToolCall, ...], item: dict) -> None:
    if builder.last_is_open_assistant() and not text.startswith("[reasoning]"):
        builder.join_last(text, calls)
        return
    usage = item.get("usage") if isinstance(item.get("usage"), dict) else {}
    builder.add(
        "assistant",
        text,
        tool_calls=calls,
        prompt_tokens=builder.token_count(usage.get("input_tokens"), "input_tokens"),
        cache_read=builder.cache_read(usage),
    )
