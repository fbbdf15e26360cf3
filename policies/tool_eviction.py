"""ToolEvictionPolicy (pyagentic): stub all but the most recent tool results."""

from __future__ import annotations

from policies.base import CLEARING, CompileEvent, Param, Policy
from policies.messages import STUB, Message


class ToolEvictionPolicy(Policy):
    """Replaces the content of every tool result but the last ``keep_last_n`` with a stub.

    The message and its tool_call_id survive, since providers reject a call without its
    result. Idempotent: a result already holding the stub is left alone.

    ``min_freed_tokens`` batches the evictions for prompt caching: each eviction edits the
    middle of the context and breaks the provider's cached prefix from there on, so with it
    set the policy waits until the results due hold at least that many tokens, then stubs
    them all at once (one break instead of one per turn).
    """

    place = CLEARING
    source = "pyagentic"
    summary = (
        "stubs all but the last N tool results (one no longer than the stub stays as it is); never deletes"
    )

    params = (
        Param("keep_last_n", int, 5, "Most recent tool results kept intact.", 0, 100),
        Param("stub", str, "[tool result evicted to save context]", "Text left in place."),
        Param(
            "include_agent_results",
            bool,
            True,
            "Also evict results returned by sub-agents.",
        ),
        Param(
            "min_freed_tokens",
            int,
            0,
            "Wait until the results due hold this many tokens, then evict them at once (0: every turn). "
            "Fewer, larger evictions break the provider's prompt cache less often.",
            0,
            1_000_000,
        ),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        self._freed: dict[int, tuple[Message, int]] = {}

    def _manages(self, message: Message) -> bool:
        return message.role == "tool" and (self.include_agent_results or not message.agent_result)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        boundary = self._boundary(messages, len(messages))  # results from here on are kept
        # What this policy returned last time, and still stands unchanged, is stubbed up to
        # its own boundary: rescan only from the boundary that prefix implies (or less).
        # A batching policy may have left due results in place last time: scan from the start.
        start = (
            0 if self.min_freed_tokens else self._boundary(messages, min(event.unchanged_prefix, boundary))
        )
        stub = self.stub
        older = messages[start:boundary]
        # a result no longer than the stub stays as it is: stubbing it would add to the request
        if self.include_agent_results:  # the hot path: one comprehension
            due = [start + i for i, m in enumerate(older) if m.role == "tool" and len(m.content) > len(stub)]
        else:
            due = [start + i for i, m in enumerate(older) if self._manages(m) and len(m.content) > len(stub)]
        if not due:
            return None
        if (
            self.min_freed_tokens
            and sum(self._frees(messages[i], event) for i in due) < self.min_freed_tokens
        ):
            return None
        out = list(messages)
        for i in due:
            out[i] = messages[i].replace(content=stub, kind=STUB)
        evicted = sorted(index for i in due for index in messages[i].source)
        event.report("stub", evicted, f"{len(evicted)} tool result(s) stubbed")
        return out

    def _frees(self, message: Message, event: CompileEvent) -> int:
        """Tokens stubbing ``message`` frees; a result waits many turns for its batch, so each
        is counted once (kept with the message, so its id is not reused meanwhile)."""
        known = self._freed.get(id(message))
        if known is None or known[0] is not message:
            count = event.counter.count
            known = self._freed[id(message)] = (
                message,
                count(message) - count(message.replace(content=self.stub)),
            )
        return known[1]

    def _boundary(self, messages: list[Message], end: int) -> int:
        """Where the last ``keep_last_n`` managed results before ``end`` begin (0 if fewer)."""
        position, kept = end, 0
        while position > 0 and kept < self.keep_last_n:
            position -= 1
            kept += self._manages(messages[position])
        return position if kept == self.keep_last_n else 0
