"""The immutable message model shared by transcripts, policies and the replay engine.

A policy never edits a message: it returns a new one (``message.replace(...)``) that
records which raw messages it came from, so the raw history stays untouched.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Final

ROLES: Final = ("system", "developer", "user", "assistant", "tool")
STANDING_ROLES: Final = ("system", "developer")

# What the playground itself made of a message. ORIGINAL is a recorded message as is.
ORIGINAL: Final = "original"
CLIPPED: Final = "clipped"
STUB: Final = "stub"
SUMMARY: Final = "summary"
DECISION_LOG: Final = "decision_log"
KINDS: Final = (ORIGINAL, CLIPPED, STUB, SUMMARY, DECISION_LOG)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of an assistant message; ``arguments`` is the JSON text as recorded."""

    id: str
    name: str
    arguments: str = ""


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message.

    ``tool_call_ids`` answers one call for most providers; SWE-agent trajectories let
    one tool message answer several. ``source`` holds the raw-history indices the
    message stands for (empty for messages made up in tests).
    """

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_ids: tuple[str, ...] = ()
    name: str | None = None
    kind: str = ORIGINAL
    source: tuple[int, ...] = ()
    agent_result: bool = False
    compacted_count: int = 0
    thinking: str = ""  # an assistant's reasoning sent back with it (Anthropic's thinking blocks)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; expected one of {', '.join(ROLES)}")
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; expected one of {', '.join(KINDS)}")

    @property
    def is_tool_result(self) -> bool:
        return self.role == "tool"

    @property
    def tool_call_id(self) -> str | None:
        return self.tool_call_ids[0] if self.tool_call_ids else None

    def replace(self, **changes: object) -> Message:
        """A new message with ``changes`` applied; this one is left as it is."""
        return dataclasses.replace(self, **changes)

    def content_key(self) -> tuple:
        """What a tokenizer sees: equal keys always count the same tokens."""
        return (self.role, self.content, self.tool_calls, self.name, self.thinking)


def said(message: Message) -> str:
    """What a message says: its thinking, content and tool calls' arguments, where facts are looked for."""
    return " ".join(said_parts(message))


def said_parts(message: Message) -> list[str]:
    """The parts ``said`` joins: the thinking (where there is any), the content, then what each
    tool call's arguments say."""
    parts = [message.thinking] if message.thinking else []
    parts.append(message.content)
    parts.extend(arguments_said(c.arguments) for c in message.tool_calls)
    return parts


NOT_JSON: Final = object()  # what ``parsed_arguments`` gives for arguments that are not JSON
MAX_ARGUMENT_DEPTH: Final = 64  # deeper arguments are read as text: no tool takes such, and a
# parser, ``repr`` or ``json.dumps`` of thousands of levels runs out of stack


def parsed_arguments(arguments: str) -> object:
    """A tool call's arguments as JSON, or ``NOT_JSON`` where they are not JSON or nest deeper
    than ``MAX_ARGUMENT_DEPTH``: the one place an uploaded call's arguments are parsed."""
    try:
        data = json.loads(arguments)
    except (ValueError, RecursionError):
        return NOT_JSON
    return data if _depth(data) <= MAX_ARGUMENT_DEPTH else NOT_JSON


def _depth(data: object) -> int:
    """How deep lists and objects nest in ``data``, walked without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


def arguments_said(arguments: str) -> str:
    """What a tool call's arguments say: the values of their JSON, decoded (a ``\\n`` is a line
    break, not the letter n; a key names a field, it says nothing), one per line; the text as
    recorded where it is not JSON."""
    if not arguments.lstrip().startswith(("{", "[")):
        return arguments
    data = parsed_arguments(arguments)
    return arguments if data is NOT_JSON else "\n".join(_values(data))


def _values(data: object) -> list[str]:
    if isinstance(data, dict):
        return [text for value in data.values() for text in _values(value)]
    if isinstance(data, list):
        return [text for value in data for text in _values(value)]
    if isinstance(data, str):
        return [data]
    if type(data) is int:  # not a bool: what json.dumps writes, without its machinery
        return [str(data)]
    return [] if data is None else [json.dumps(data)]


def sources_of(messages: list[Message] | tuple[Message, ...]) -> tuple[int, ...]:
    """The sorted raw indices that a group of messages stands for."""
    return tuple(sorted({index for message in messages for index in message.source}))


def render_transcript(messages: list[Message] | tuple[Message, ...]) -> str:
    """Plain text of a message list, as a summarizer reads it."""
    lines = []
    called = {c.id: c.name for m in messages for c in m.tool_calls}
    for message in messages:
        if message.role == "tool":
            name = message.name or called.get(message.tool_call_id or "", "?")
            lines.append(f"[tool result: {name}] {message.content}")
            continue
        if message.thinking:
            lines.append(f"{message.role}: [thinking] {message.thinking}")
        if message.content:
            lines.append(f"{message.role}: {message.content}")
        lines.extend(f"[tool call] {c.name}({c.arguments})" for c in message.tool_calls)
    return "\n".join(lines)
