"""Claude Code's auto-compact and time-based microcompact (closed source: its public docs and issues)."""

from __future__ import annotations

from fnmatch import fnmatch

from policies.base import PERSISTENT, CompileEvent, Param, Policy, persistence_param
from policies.messages import STUB, Message, render_transcript, sources_of
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
    It counts as Claude Code's tokenCountWithEstimation does: the last reply's reported usage
    (input, cache and output) plus an estimate of what arrived since (as described in
    netease-lcap/wave-agent PR #1842, which aligns with it).
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
        tokens = event.estimated_tokens(messages)
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


MICROCOMPACT_PLACEHOLDER = "[Old tool result content cleared]"


class ClaudeCodeMicrocompactPolicy(Policy):
    """Claude Code's time-based microcompact: when the agent comes back after a gap longer
    than the prompt cache lives, the cache is cold and the next request is written in full
    anyway, so the contents of old tool results are cleared first, all but the last
    ``keep_recent``, each left as a placeholder (the call and its result stay paired).

    On by default in Claude Code and silent (claude-code #57788); its gap, keep count,
    placeholder and tool list are undocumented, so they are parameters here. Defaults: the
    1-hour cache lifetime Claude Code writes with, and our reading of its behaviour (keep 5).
    The gap is measured between the recorded times of the previous reply and this one: a
    transcript without reply times never triggers it (an event says so)."""

    params = (
        Param(
            "gap_minutes", int, 60, "Idle minutes since the previous reply after which it clears.", 1, 10_080
        ),
        Param("keep_recent", int, 5, "Most recent tool results never cleared.", 0, 200),
        Param("placeholder", str, MICROCOMPACT_PLACEHOLDER, "Text left in place of a cleared result."),
        Param("tools", list, ("*",), "Tool names (or glob patterns) whose results may be cleared."),
        persistence_param(
            PERSISTENT,
            "persistent: the cleared results stay cleared in the history, as in Claude Code; "
            "ephemeral: only the request after the gap is cleared.",
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.time is None or event.previous_time is None:
            if event.turn == 2 and event.time is None:
                event.report(
                    "skip", (), "the transcript recorded no reply times: a time-based clear never fires"
                )
            return None
        gap = event.time - event.previous_time
        if gap < self.gap_minutes * 60:
            return None
        results = [
            i
            for i, m in enumerate(messages)
            if m.is_tool_result and any(fnmatch(m.name or "", p) for p in self.tools)
        ]
        old = [i for i in results[: max(len(results) - self.keep_recent, 0)] if messages[i].kind != STUB]
        if not old:
            return None
        out = list(messages)
        for i in old:
            out[i] = messages[i].replace(content=self.placeholder, kind=STUB)
        event.report(
            "stub",
            sources_of([messages[i] for i in old]),
            f"{len(old)} tool result(s) cleared after {gap / 60:,.0f} idle minutes "
            f"(over {self.gap_minutes}: the prompt cache had expired)",
        )
        return out
