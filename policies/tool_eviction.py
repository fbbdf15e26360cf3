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

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        stub, agents_too = self.stub, self.include_agent_results
        out: list[Message] | None = None
        evicted: list[int] = []
        kept = 0
        for i in range(len(messages) - 1, -1, -1):  # newest first: the first keep_last_n stay
            message = messages[i]
            if message.role != "tool" or (message.agent_result and not agents_too):
                continue
            if kept < self.keep_last_n:
                kept += 1
            elif message.content != stub:
                if out is None:
                    out = list(messages)
                out[i] = message.replace(content=stub, kind=STUB)
                evicted.extend(message.source)
        if out is None:
            return None
        evicted.sort()
        event.report("stub", evicted, f"{len(evicted)} tool result(s) stubbed")
        return out
