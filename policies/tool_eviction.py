"""ToolEvictionPolicy (pyagentic): stub all but the most recent tool results."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import STUB, Message


class ToolEvictionPolicy(Policy):
    """Replaces the content of every tool result but the last ``keep_last_n`` with a stub.

    The message and its tool_call_id survive, since providers reject a call without its
    result. Idempotent: a result already holding the stub is left alone.
    """

    params = (
        Param("keep_last_n", int, 5, "Most recent tool results kept intact.", 0, 100),
        Param("stub", str, "[tool result evicted to save context]", "Text left in place."),
        Param(
            "include_agent_results",
            bool,
            True,
            "Also evict results returned by sub-agents.",
        ),
    )

    def _manages(self, message: Message) -> bool:
        return message.role == "tool" and (self.include_agent_results or not message.agent_result)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        boundary = self._boundary(messages, len(messages))  # results from here on are kept
        # What this policy returned last time, and still stands unchanged, is stubbed up to
        # its own boundary: rescan only from the boundary that prefix implies (or less).
        start = self._boundary(messages, min(event.unchanged_prefix, boundary))
        stub = self.stub
        older = messages[start:boundary]
        if self.include_agent_results:  # the hot path: one comprehension
            due = [start + i for i, m in enumerate(older) if m.role == "tool" and m.content != stub]
        else:
            due = [start + i for i, m in enumerate(older) if self._manages(m) and m.content != stub]
        if not due:
            return None
        out = list(messages)
        for i in due:
            out[i] = messages[i].replace(content=stub, kind=STUB)
        evicted = sorted(index for i in due for index in messages[i].source)
        event.report("stub", evicted, f"{len(evicted)} tool result(s) stubbed")
        return out

    def _boundary(self, messages: list[Message], end: int) -> int:
        """Where the last ``keep_last_n`` managed results before ``end`` begin (0 if fewer)."""
        position, kept = end, 0
        while position > 0 and kept < self.keep_last_n:
            position -= 1
            kept += self._manages(messages[position])
        return position if kept == self.keep_last_n else 0
