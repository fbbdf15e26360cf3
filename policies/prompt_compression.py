"""PromptCompressionPolicy (selectools): summarize old messages once the window fills up."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.compaction import report_if_still_over
from policies.messages import SUMMARY, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report

SUMMARIZER_SYSTEM_PROMPT = "You are a concise summarizer."
SUMMARY_INSTRUCTION = (
    "Summarize the following conversation excerpt in 3-5 sentences. "
    "Preserve key facts, decisions, and context needed to continue the conversation:\n\n"
)


class PromptCompressionPolicy(Policy):
    """Replaces older non-system messages with one ``[Compressed context]`` system message.

    As selectools does it: fires when the fill rate (context tokens / context window)
    reaches ``compress_threshold``; keeps every system message (moved to the front) and
    the last ``compress_keep_recent`` turns, counted as 2 messages each, verbatim;
    skips when fewer than 2 messages are eligible or the summary fails or is empty.
    The split ignores tool calls: where it separates a call from its result, the
    validity check says so, because that is what selectools would send.
    """

    params = (
        Param(
            "compress_threshold",
            float,
            0.75,
            "Fill rate (context tokens / context window) at which compression fires.",
            0.05,
            1.0,
        ),
        Param(
            "compress_keep_recent",
            int,
            4,
            "Recent turns kept verbatim, 2 messages each (at least 1 message is kept).",
            0,
            50,
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        window = event.context_window or 128_000
        if counter is None:
            return None
        before = event.given_tokens(messages)
        if before / window < self.compress_threshold:
            return None
        keep = max(self.compress_keep_recent * 2, 1)  # selectools' fix: the current message survives
        system = [m for m in messages if m.role == "system"]
        non_system = [m for m in messages if m.role != "system"]
        if len(non_system) <= keep:
            return None
        to_compress, recent = non_system[:-keep], non_system[-keep:]
        if len(to_compress) < 2:
            event.report("skip", (), "fewer than 2 messages eligible for compression")
            return None
        summary = summarize_or_report(
            event, SUMMARIZER_SYSTEM_PROMPT, SUMMARY_INSTRUCTION + render_transcript(to_compress)
        )
        if summary is None:  # selectools never crashes the agent for a failed compression
            return None
        message = Message(
            role="system",
            content=f"[Compressed context] {summary}",
            kind=SUMMARY,
            source=sources_of(to_compress),
            compacted_count=len(to_compress),
        )
        out = [*system, message, *recent]
        after = counter.total(event.pinned) + counter.total(out)
        event.report(
            "compact", message.source, f"Compressed {len(to_compress)} messages: {before:,}→{after:,} tokens"
        )
        report_if_still_over(event, out, int(self.compress_threshold * window))
        return out
