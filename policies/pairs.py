"""The one invariant every cutting policy shares: never separate a tool call from its result."""

from __future__ import annotations

from collections.abc import Sequence

from policies.messages import Message, ToolCall


def safe_cut(messages: Sequence[Message], cut: int) -> int:
    """The first index at or after ``cut`` where a split keeps every call with its results.

    A split before a tool result would leave that result without the assistant message
    carrying its call, so the cut advances past leading tool results.
    """
    while cut < len(messages) and messages[cut].is_tool_result:
        cut += 1
    return cut


def call_of(
    messages: Sequence[Message], index: int, *, assistant_only: bool = False
) -> tuple[int, ToolCall | None]:
    """Where the call the tool result at ``index`` answers is, and the call: in the nearest
    assistant message before it that carries its id, as ids may repeat (``assistant_only``:
    in the nearest assistant message or none, as LangChain looks); (-1, None) when none does."""
    wanted = messages[index].tool_call_id
    for at in range(index - 1, -1, -1):
        message = messages[at]
        if message.role != "assistant":
            continue
        call = next((c for c in message.tool_calls if c.id == wanted), None)
        if call is not None or assistant_only:
            return at, call
    return -1, None
