"""Anthropic's server compaction (``compact_20260112``, beta ``compact-2026-01-12``; the API's
compaction docs and ``anthropic==2.16.0`` ``beta_compact_20260112_edit_param.py``) and its
``clear_thinking_20251015`` context edit (``beta_clear_thinking_20251015_edit_param.py``). Its
``clear_tool_uses_20250919`` edit is ``ClearToolUsesPolicy``."""

from __future__ import annotations

from policies.base import CLIPPING, EPHEMERAL, CompileEvent, Param, Policy
from policies.messages import CLIPPED, Message, render_transcript, sources_of
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

    source = "Anthropic `compact_20260112`"
    summary = "over the trigger (whole request), the whole conversation becomes one `compaction` block"

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


class ClearThinkingPolicy(Policy):
    """Anthropic's ``clear_thinking_20251015`` context edit: the thinking of all but the last
    ``keep_turns`` assistant turns that have any (``keep: {"type": "thinking_turns",
    "value": N}``) is removed from the request; the history keeps it (ephemeral, per request,
    as the API applies it). Its text and tool calls stay, so the request stays valid; a
    message that lost its thinking counts as clipped.

    The API lists it first among the edits, and without it keeps only the last assistant
    turn's thinking anyway: ``keep_turns`` 1 is what a request without the edit is billed
    for. Keeping all (no policy) keeps the cached prefix whole: removing older thinking
    breaks the cache where the first of it sat."""

    place = CLIPPING
    source = "Anthropic `clear_thinking_20251015`"
    summary = "ephemeral; the thinking of all but the last N assistant turns that have any is removed from the request (the API's own default keeps 1); exported first among the edits"

    persistence = EPHEMERAL
    params = (Param("keep_turns", int, 1, "Most recent assistant turns whose thinking is kept.", 0, 1_000),)

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        # id of a message -> (it, it without thinking): every request sends the same objects
        self._cleared: dict[int, tuple[Message, Message]] = {}
        self._reported: set[int] = set()  # raw indices whose thinking a request cleared already

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        thinking = [i for i, m in enumerate(messages) if m.thinking]
        clear = thinking[: max(len(thinking) - self.keep_turns, 0)]
        if not clear:
            return None
        out = list(messages)
        for i in clear:
            known = self._cleared.get(id(messages[i]))
            if known is None or known[0] is not messages[i]:
                known = self._cleared[id(messages[i])] = (
                    messages[i],
                    messages[i].replace(thinking="", kind=CLIPPED),
                )
            out[i] = known[1]
        new = [messages[i] for i in clear if not set(messages[i].source) <= self._reported]
        if new:
            self._reported.update(sources_of(new))
            event.report(
                "clip",
                sources_of(new),
                f"thinking of {len(new)} more assistant turn(s) cleared ({len(clear)} in all; "
                f"the last {self.keep_turns} kept)",
            )
        return out
