"""Claude Code's auto-compact (closed source: its public docs and issues)."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import Message, render_transcript
from policies.summaries import summarize_or_report, summary_message

OUTPUT_RESERVE = 20_000  # /context's "Autocompact buffer: 33k tokens (16.5%)" on 200K (claude-code #35127)
THRESHOLD_MARGIN = 13_000  # threshold = effective window - 13,000 (formula quoted in claude-code #31806)
CONTINUATION = (  # how the summary opens (claude-code #33212)
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\n"
)
SUMMARY_PROMPT = (
    "You are compacting a coding agent's conversation so it can continue without it. "
    "Write a structured summary: the user's requests and intent, key technical decisions, "
    "files and code touched, errors met and how they were fixed, pending tasks, and the "
    "work in progress right now with its next step."
)


def autocompact_threshold(context_window: int, pct_override: int | None = None) -> int:
    """Tokens at which Claude Code compacts: the window less the output reserve, less 13,000;
    ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` can only lower it (claude-code #31806)."""
    effective = context_window - OUTPUT_RESERVE
    threshold = effective - THRESHOLD_MARGIN
    if pct_override is not None:
        threshold = min(effective * pct_override // 100, threshold)
    return threshold


class ClaudeCodeAutoCompactPolicy(Policy):
    """Before each request, once its own count of the whole prompt (system prompt, tools and
    messages) reaches the threshold (window − 20,000 output reserve − 13,000, about 83.5% of
    200K), the conversation is replaced by one structured summary, a user message, with no
    verbatim tail; the system prompt and memory files (the pinned rules) stay. Persistent.
    Its estimator is undocumented: the request's token count stands in for it.
    ``summary_prompt`` is our own; paste yours."""

    params = (
        Param(
            "autocompact_pct_override",
            int,
            None,
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: percent of the effective window (it only lowers the threshold).",
            1,
            100,
            optional=True,
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None or not messages:
            return None
        tokens = event.given_tokens(messages) + event.fixed_tokens
        threshold = autocompact_threshold(event.context_window, self.autocompact_pct_override)
        if threshold <= 0:  # Claude Code's windows are 100,000 tokens or more
            if event.turn == 1:
                event.report(
                    "skip",
                    (),
                    f"a {event.context_window:,}-token window leaves no room under the threshold "
                    f"(window − {OUTPUT_RESERVE + THRESHOLD_MARGIN:,}): it never compacts",
                )
            return None
        if tokens < threshold:
            return None
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(messages))
        if summary is None:
            return None
        message = summary_message("user", CONTINUATION + summary, messages)
        event.report("compact", message.source, f"{len(messages)} message(s) compacted at {tokens:,} tokens")
        return [message]
