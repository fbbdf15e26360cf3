"""The one rule every summarizing policy shares: a failed summary skips the cut, never loses history."""

from __future__ import annotations

from collections.abc import Sequence

from policies.base import CompileEvent
from policies.messages import SUMMARY, Message, sources_of


def summary_message(role: str, content: str, replaced: Sequence[Message]) -> Message:
    """The one message a summarizing policy leaves in place of ``replaced``."""
    return Message(
        role=role, content=content, kind=SUMMARY, source=sources_of(replaced), compacted_count=len(replaced)
    )


def summarize_or_report(
    event: CompileEvent, system_prompt: str, transcript: str, what: str = ""
) -> str | None:
    """The summary, stripped; or None after reporting why (no summarizer, an error, an empty reply)."""
    label = f"{what}: " if what else ""
    if event.summarizer is None:
        event.report("summary_failed", (), f"{label}no summarizer configured; skipped")
        return None
    try:
        summary = event.summarizer.summarize(system_prompt, transcript)
    except Exception as error:  # any failure: the caller keeps the history as it was
        reason = " ".join(str(error).split())[:300]  # one line, and never an endpoint's whole reply
        event.report("summary_failed", (), f"{label}{type(error).__name__}: {reason}; skipped")
        return None
    if not summary or not summary.strip():
        event.report("summary_failed", (), f"{label}the summarizer returned nothing; skipped")
        return None
    return summary.strip()
