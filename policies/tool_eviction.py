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
        # newest first, find where the last keep_last_n managed results begin: usually a few steps
        boundary, kept = len(messages), 0
        while boundary > 0 and kept < self.keep_last_n:
            boundary -= 1
            kept += self._manages(messages[boundary])
        stub = self.stub
        if self.include_agent_results:  # the hot path: one comprehension over the older part
            due = [i for i, m in enumerate(messages[:boundary]) if m.role == "tool" and m.content != stub]
        else:
            due = [i for i, m in enumerate(messages[:boundary]) if self._manages(m) and m.content != stub]
        if not due:
            return None
        out = list(messages)
        for i in due:
            out[i] = messages[i].replace(content=stub, kind=STUB)
        evicted = sorted(index for i in due for index in messages[i].source)
        event.report("stub", evicted, f"{len(evicted)} tool result(s) stubbed")
        return out
