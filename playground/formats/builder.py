"""What every reader shares: building a Session message by message, with its warnings."""

from __future__ import annotations

import json
from typing import Any

from playground.session import ReadWarning, Session, TranscriptError
from policies.messages import Message, ToolCall


def is_agent_tool(name: str | None) -> bool:
    """Whether a tool name calls a sub-agent (Claude Code's Task/Agent, `*_agent`, `agent_*`)."""
    if not name:
        return False
    lowered = name.lower()
    return lowered in ("task", "agent") or lowered.endswith("_agent") or lowered.startswith("agent_")


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text, whether recorded as text or as an object."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class SessionBuilder:
    """Collects messages in raw order; each gets its raw index as ``source``."""

    def __init__(self, file: str, format: str) -> None:
        self.file = file
        self.format = format
        self.messages: list[Message] = []
        self.usage: dict[int, int] = {}
        self.warnings: list[ReadWarning] = []
        self.tools: tuple[dict, ...] = ()
        self._call_names: dict[str, str] = {}

    def error(self, where: str, what: str) -> TranscriptError:
        return TranscriptError(self.file, where, what)

    def warn(self, where: str, what: str) -> None:
        self.warnings.append(ReadWarning(where, what))

    def add(
        self,
        role: str,
        content: str = "",
        *,
        tool_calls: tuple[ToolCall, ...] = (),
        tool_call_ids: tuple[str, ...] = (),
        name: str | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        index = len(self.messages)
        for call in tool_calls:
            self._call_names[call.id] = call.name
        if role == "tool" and name is None and tool_call_ids:
            name = self._call_names.get(tool_call_ids[0])
        agent_result = role == "tool" and is_agent_tool(name)
        self.messages.append(
            Message(
                role=role,
                content=content,
                tool_calls=tool_calls,
                tool_call_ids=tool_call_ids,
                name=name,
                source=(index,),
                agent_result=agent_result,
            )
        )
        if prompt_tokens is not None:
            self.usage[index] = prompt_tokens

    def last_is_open_assistant(self) -> bool:
        """Whether the last message is an assistant reply that more calls may still join."""
        return bool(self.messages) and self.messages[-1].role == "assistant"

    def join_last(self, content: str = "", tool_calls: tuple[ToolCall, ...] = ()) -> None:
        """Add text and calls to the last (assistant) message: one inference, several items."""
        last = self.messages[-1]
        for call in tool_calls:
            self._call_names[call.id] = call.name
        text = "\n".join(t for t in (last.content, content) if t)
        self.messages[-1] = last.replace(content=text, tool_calls=last.tool_calls + tool_calls)

    def build(self, name: str) -> Session:
        if not self.messages:
            raise self.error("", "the session holds no messages")
        return Session(
            name=name,
            format=self.format,
            messages=tuple(self.messages),
            usage=self.usage,
            tools=self.tools,
            warnings=tuple(self.warnings),
            file=self.file,
        )


def kind_of(value: Any) -> str:
    """How an error names the JSON type it found."""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "text", bool: "true/false"}.get(type(value), "a number")


def as_int(value: Any) -> int | None:
    """A recorded token count, or None when it is absent or not a whole number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)
