"""SlidingWindowPolicy (pyagentic): keep only the most recent messages."""

from __future__ import annotations

from policies.base import WINDOW, CompileEvent, Param, Policy
from policies.messages import Message, sources_of
from policies.pairs import safe_cut


class SlidingWindowPolicy(Policy):
    """Drops messages from the front so at most ``max_messages`` remain.

    The cut is advanced past leading tool results, so no result survives without the
    call that produced it (the window may then hold fewer than ``max_messages``).
    """

    place = WINDOW
    source = "pyagentic"
    summary = "keeps the last N messages, never starting on an orphaned result"

    params = (Param("max_messages", int, 50, "Most messages kept in the context.", 2, 500),)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if len(messages) <= self.max_messages:
            return None
        cut = safe_cut(messages, len(messages) - self.max_messages)
        event.report("drop", sources_of(messages[:cut]), f"{cut} message(s) left the window")
        return messages[cut:]
