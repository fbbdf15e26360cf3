"""The one invariant every cutting policy shares: never separate a tool call from its result."""

from __future__ import annotations

from collections.abc import Sequence

from policies.messages import Message


def safe_cut(messages: Sequence[Message], cut: int) -> int:
    """The first index at or after ``cut`` where a split keeps every call with its results.

    A split before a tool result would leave that result without the assistant message
    carrying its call, so the cut advances past leading tool results.
    """
    while cut < len(messages) and messages[cut].is_tool_result:
        cut += 1
    return cut
