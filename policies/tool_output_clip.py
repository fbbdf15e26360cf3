"""ToolOutputClipPolicy (pyagentic): clip huge tool outputs as they arrive."""

from __future__ import annotations

from policies.base import CLIPPING, AppendEvent, Param, Policy
from policies.messages import CLIPPED, ORIGINAL, Message


class ToolOutputClipPolicy(Policy):
    """Clips a tool (or agent) result longer than ``max_chars`` when it is appended.

    Runs at append time, so the huge output never occupies the context; the raw
    history keeps the full output.
    """

    place = CLIPPING
    source = "pyagentic"
    summary = "clips tool results as they arrive; the raw history keeps them whole"

    params = (
        Param("max_chars", int, 8000, "Longest tool result kept, in characters.", 100, 1_000_000),
        Param("suffix", str, "\n…[output clipped]", "Marker appended to a clipped output."),
    )

    def on_append(self, event: AppendEvent, message: Message) -> Message | None:
        if not message.is_tool_result or len(message.content) <= self.max_chars:
            return None
        event.report("clip", message.source, f"{len(message.content):,} → {self.max_chars:,} chars")
        kind = CLIPPED if message.kind == ORIGINAL else message.kind
        return message.replace(content=message.content[: self.max_chars] + self.suffix, kind=kind)
