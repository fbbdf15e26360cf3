"""Claude Code's auto-compact and time-based microcompact (closed source: its public docs and issues)."""

from __future__ import annotations

from fnmatch import fnmatch

from policies.agent_record import earlier_block, earlier_tokens, leave_agent_summary
from policies.base import CLEARING, PERSISTENT, CompileEvent, Param, Policy, persistence_param
from policies.messages import STUB, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report, summary_message

OUTPUT_RESERVE = 20_000  # /context's "Autocompact buffer: 33k tokens (16.5%)" on 200K (claude-code #35127)
OLDER_OUTPUT_RESERVE = 32_000  # releases before 2.1.29: compactions at 155,003-156,699 on 200K (real files)
THRESHOLD_MARGIN = 13_000  # threshold = effective window - 13,000 (formula quoted in claude-code #31806)
FORMAT = "Claude Code session"  # the transcripts whose record is Claude Code's own
NEWER_RULE_FROM = (2, 1, 29)  # the first release seen compacting at ~167,000 with the estimate
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
# which count is compared, and with which threshold
AUTO, ESTIMATE, LAST_CALL = "by release", "estimate (2.1.29+)", "last call (before 2.1.29)"
RULES = (AUTO, ESTIMATE, LAST_CALL)


def release(version: str) -> tuple[int, ...] | None:
    """A release as numbers ("2.1.7" -> (2, 1, 7)); None where it does not read as one."""
    parts = version.split("-")[0].split(".")
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() for p in parts) else None


def rule_of(version: str) -> str:
    """The trigger rule Claude Code ``version`` compacts by, as its files show it: from 2.1.29 the
    previous call's usage plus an estimate of what arrived since, at window - 33,000; before,
    the previous call's usage alone, at window - 45,000 (no release between 2.1.19 and 2.1.29
    is in any file seen). A version that does not read (or none) takes the newer rule."""
    number = release(version)
    return LAST_CALL if number is not None and number < NEWER_RULE_FROM else ESTIMATE


def autocompact_threshold(context_window: int, pct_override: int | None = None, rule: str = ESTIMATE) -> int:
    """Tokens at which Claude Code compacts: the window less the output reserve (20,000; 32,000
    before 2.1.29), less 13,000; ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` can only lower it
    (claude-code #31806)."""
    effective = context_window - (OLDER_OUTPUT_RESERVE if rule == LAST_CALL else OUTPUT_RESERVE)
    threshold = effective - THRESHOLD_MARGIN
    if pct_override is not None:
        threshold = min(effective * pct_override // 100, threshold)
    return threshold


class ClaudeCodeAutoCompactPolicy(Policy):
    """Before each request, once Claude Code's count of the whole prompt reaches the threshold,
    the conversation is replaced by one structured summary, a user message, with no verbatim
    tail; the system prompt and memory files (the pinned rules) stay. Persistent.

    The count and threshold follow the session's release (``rule``): from 2.1.29 the last
    reply's reported usage (input, cache and output) plus an estimate of what arrived since
    (as netease-lcap/wave-agent PR #1842 describes tokenCountWithEstimation), at window −
    20,000 output reserve − 13,000 (167,000 of 200K); before, the last reply's usage alone at
    window − 32,000 − 13,000 (155,000 of 200K), as real files of 2.0.67–2.1.19 compact.

    On a Claude Code session, with its own settings (``follow_record``), it does what the
    agent did while the replay is still the agent's: compacts where the file records a
    compaction (the /compact the user typed included) and leaves the agent's own summary, and
    clears old tool results where the agent trimmed a request without a line (2.0), sized from
    the recorded usage. Elsewhere the rule decides; where it fires within two calls of one of
    the agent's compactions, the agent's summary stands in for a new one.
    ``summary_prompt`` is our own; paste yours."""

    source = "Claude Code (its docs, issues #31806 #35127, and its real files: `compact_boundary` `preTokens` of 2.0.67–2.1.53)"
    summary = "the whole conversation becomes one user-role summary; `rule` by the session's release: from 2.1.29 the last call's usage plus an estimate of what arrived since at window − 33,000 (167,000 of 200K), before it the last call's usage alone at window − 45,000 (155,000); on a Claude Code session (`follow_record`) it does what the agent did while the replay is still the agent's (see *Your agent's own policy, replayed*)"

    params = (
        Param(
            "autocompact_pct_override",
            int,
            None,
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: percent of the effective window (it only lowers the threshold).",
            1,
            100,
            optional=True,
            search_from=80,
        ),
        Param(
            "auto_compact_window",
            int,
            None,
            "autoCompactWindow / CLAUDE_CODE_AUTO_COMPACT_WINDOW: the window Claude Code compacts in "
            "(unset: the model's; a larger one than the model's is held to it).",
            100_000,
            1_000_000,
            optional=True,
            search_from=200_000,
        ),
        Param(
            "rule",
            str,
            AUTO,
            "Which release's trigger: by the session's release, 2.1.29+ (estimate at window − 33,000) "
            "or before 2.1.29 (the last call's usage at window − 45,000).",
            choices=RULES,
            search=False,
        ),
        Param(
            "follow_record",
            bool,
            True,
            "On a Claude Code session, with these defaults: compact and trim where the agent did "
            "(its own summary), while the replay is still the agent's.",
            search=False,
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def rule_for(self, event: CompileEvent) -> str:
        if self.rule != AUTO:
            return self.rule
        record = event.record
        return rule_of(record.version if record is not None and record.format == FORMAT else "")

    def own_settings(self, event: CompileEvent) -> bool:
        """Whether this is Claude Code's own policy on its own session, as the agent ran it."""
        record = event.record
        return (
            self.follow_record
            and record is not None
            and record.format == FORMAT
            and self.autocompact_pct_override is None
            and self.auto_compact_window is None
            and self.rule in (AUTO, rule_of(record.version))
        )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None:
            return None
        record = event.record
        if self.own_settings(event) and record is not None and event.following_record:
            return self.as_recorded(event, messages)
        if not messages:
            return None
        due = (
            record.compaction_due(event.previous_reply, event.reply_index)
            if record is not None and record.format == FORMAT
            else None
        )
        if due is not None and due[1].trigger == "manual":  # the /compact the user typed
            return leave_agent_summary(event, messages, *due, "the user's /compact, as recorded")
        rule = self.rule_for(event)
        tokens = event.estimated_tokens(messages) if rule == ESTIMATE else event.reported_tokens(messages)
        window = min(event.context_window, self.auto_compact_window or event.context_window)
        threshold = autocompact_threshold(window, self.autocompact_pct_override, rule)
        if threshold <= 0:  # Claude Code's windows are 100,000 tokens or more
            if event.turn == 1:
                event.report(
                    "skip",
                    (),
                    f"a {window:,}-token window leaves no room under the threshold "
                    f"(window − {window - threshold:,}): it never compacts",
                )
            return None
        if tokens is None or tokens < threshold:
            return None
        near = (
            record.nearest_compaction(messages, event.reply_index)
            if record is not None and record.format == FORMAT
            else None
        )
        if near is not None:
            return leave_agent_summary(
                event, messages, *near, f"at {tokens:,} tokens (threshold {threshold:,}, {rule})"
            )
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(messages))
        if summary is None:
            return None
        message = summary_message("user", CONTINUATION + summary, messages)
        event.report(
            "compact",
            message.source,
            f"{len(messages)} message(s) compacted at {tokens:,} tokens (threshold {threshold:,}, {rule})",
        )
        return [message]

    def as_recorded(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        """What the agent did right before this request, as its file records it: a compaction, a
        trim, or nothing."""
        record = event.record
        assert record is not None
        due = record.compaction_due(event.previous_reply, event.reply_index)
        if due is not None:
            number, compaction = due
            event.follow_record()
            at = f" at {compaction.pre_tokens:,} tokens" if compaction.pre_tokens else ""
            return leave_agent_summary(
                event, messages, number, compaction, f"as the agent did ({compaction.trigger or 'auto'}{at})"
            )
        trim = record.trim_due(event.reply_index)
        if trim is not None:
            trimmed = clear_oldest_results(event, messages, trim.tokens, MICROCOMPACT_PLACEHOLDER)
            if trimmed is not None:
                event.follow_record()
            return trimmed
        return None


def clear_oldest_results(
    event: CompileEvent, messages: list[Message], tokens: int, placeholder: str
) -> list[Message] | None:
    """The oldest tool results not yet cleared left as ``placeholder``, oldest first, until
    ``tokens`` are freed (the agent's trim, sized from its recorded usage); the last one is
    never cleared. None where nothing is left to clear."""
    counter = event.counter
    assert counter is not None
    out, freed, cleared = list(messages), 0, []
    results = [i for i, m in enumerate(messages) if m.is_tool_result and m.kind != STUB][:-1]
    for i in results:
        if freed >= tokens:
            break
        stub = messages[i].replace(content=placeholder, kind=STUB)
        freed += counter.count(messages[i]) - counter.count(stub)
        out[i] = stub
        cleared.append(messages[i])
    block = earlier_tokens(out[0]) if out else None
    if freed < tokens and block:  # the rest lay in the conversation before a mid-session file's start
        taken = min(block, tokens - freed)
        out[0], freed = earlier_block(block - taken), freed + taken
    if freed == 0:
        return None
    event.report(
        "stub",
        sources_of(cleared),
        f"{len(cleared)} old tool result(s) cleared, {freed:,} tokens, where the agent trimmed its request "
        f"without a line ({tokens:,} tokens smaller than its history, by the recorded usage)"
        + (
            " (the rest from the conversation before the file's first line)"
            if block and out[0] is not messages[0]
            else ""
        ),
    )
    return out


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

    place = CLEARING
    source = "Claude Code"
    summary = "after a gap between replies longer than the cache lifetime (60 minutes), old tool results but the last 5 become `[Old tool result content cleared]`; needs a transcript with reply times (its undocumented values are parameters)"

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
