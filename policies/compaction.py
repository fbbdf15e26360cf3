"""CompactionPolicy (pyagentic): summarize older history once the context grows too big."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import Message, render_transcript
from policies.pairs import safe_cut
from policies.summaries import summarize_or_report, summary_message

DEFAULT_SUMMARY_PROMPT = (
    "You are a conversation summarizer. Summarize the following agent conversation "
    "transcript into a concise brief that preserves: key facts and figures, user "
    "goals and preferences, decisions made, important tool results, and any open "
    "tasks or unanswered questions. Write it as context notes for the agent to "
    "continue the conversation, not as prose for the user."
)


class CompactionPolicy(Policy):
    """Replaces all but the last ``keep_recent`` messages with one summary message.

    Fires when the previous inference's input tokens exceed ``max_input_tokens`` (a
    chars/4 estimate of the context when there is no previous inference). The split
    never separates a call from its result; an earlier summary is folded into the next.
    Because the engine writes the result back, it fires once per threshold crossing.
    A failed summary skips the compaction and is reported; nothing is lost.
    """

    source = "pyagentic"
    summary = "one summary of older history when the previous inference was over the trigger"

    params = (
        Param(
            "max_input_tokens",
            int,
            100_000,
            "Input tokens of the previous inference above which compaction fires.",
            1_000,
            2_000_000,
        ),
        Param("keep_recent", int, 10, "Most recent messages kept verbatim.", 0, 200),
        Param("summary_prompt", str, DEFAULT_SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def _over_threshold(self, event: CompileEvent, messages: list[Message]) -> bool:
        if event.last_usage is not None:
            return event.last_usage > self.max_input_tokens
        return sum(len(m.content) for m in messages) // 4 > self.max_input_tokens

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if len(messages) <= self.keep_recent or not self._over_threshold(event, messages):
            return None
        cut = safe_cut(messages, len(messages) - self.keep_recent)
        head, tail = messages[:cut], messages[cut:]
        if not head:
            return None
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(head))
        if summary is None:
            return None
        text = f"[Summary of {len(head)} earlier messages]\n{summary}"
        message = summary_message("assistant", text, head)  # an assistant message, as pyagentic makes it
        event.report("compact", message.source, f"{len(head)} message(s) summarized")
        out = [message, *tail]
        report_if_still_over(event, out, self.max_input_tokens)
        return out


def report_if_still_over(event: CompileEvent, messages: list[Message], trigger: int) -> None:
    """Compaction thrash: after compacting, the request is still over the trigger."""
    if event.counter is None:
        return
    after = event.counter.total(event.pinned) + event.counter.total(messages)
    if after > trigger:
        event.report("thrash", (), f"still {after:,} tokens after compaction, over the {trigger:,} trigger")
