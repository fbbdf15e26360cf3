"""Anthropic's server compaction (``compact_20260112``, beta ``compact-2026-01-12``; the API's
compaction docs and ``anthropic==2.16.0`` ``beta_compact_20260112_edit_param.py``). Its
context editing is ``ClearToolUsesPolicy``."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import Message, render_transcript
from policies.summaries import summarize_or_report, summary_message

INSTRUCTIONS = (  # our own; the API's default asks for the summary in <summary> tags
    "Summarize this conversation so the work can continue from the summary alone: the task, "
    "what has been done and learned, decisions, and the next steps. Wrap it in <summary></summary>."
)


class AnthropicCompactionPolicy(Policy):
    """Once a request's input tokens (system, tools and messages) exceed ``trigger``, the same
    model summarizes the whole conversation; the summary is a ``compaction`` block opening
    the assistant's content, and later requests drop everything before it (the client sends
    back what it received: persistent). Here the block is an assistant message that replaces
    the conversation from that request on; the summary call is billed as a summary, as
    ``usage.iterations`` bills it apart. ``instructions`` replace the default prompt
    entirely, as the API's do; ours is our own wording."""

    params = (
        Param("trigger", int, 150_000, "Input tokens above which the server compacts.", 50_000, 10_000_000),
        Param("instructions", str, INSTRUCTIONS, "The summarizer's instructions (replace the default)."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None or not messages:
            return None
        tokens = event.given_tokens(messages) + event.fixed_tokens
        if tokens <= self.trigger:
            return None
        summary = summarize_or_report(event, self.instructions, render_transcript(messages))
        if summary is None:
            return None
        block = summary_message("assistant", summary, messages)
        event.report(
            "compact", block.source, f"{len(messages)} message(s) compacted at {tokens:,} input tokens"
        )
        return [block]
