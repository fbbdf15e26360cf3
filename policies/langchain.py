"""LangChain v1's ``SummarizationMiddleware`` (``langchain==1.5.2``,
``langchain/agents/middleware/summarization.py``; its counter ``count_tokens_approximately``
from ``langchain-core``). Its ``ContextEditingMiddleware`` is ``ClearToolUsesPolicy`` with
``flavour: langchain``."""

from __future__ import annotations

import math
from collections.abc import Sequence

from policies.base import CompileEvent, Param, ParamError, Policy
from policies.estimates import LANGCHAIN_CHARS_PER_TOKEN, langchain_approximate_tokens
from policies.messages import Message, render_transcript
from policies.summaries import summarize_or_report, summary_message

SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"  # _build_new_messages
TOO_LONG = "Previous conversation was too long to summarize."  # _create_summary, trim left nothing
SCALE_CAP = 1.25  # usage-metadata scaling is clamped to [1, 1.25]
SUMMARY_PROMPT = (
    "Summarize the conversation below for an agent that will continue it without seeing it: "
    "the user's goal, what has been done and found, decisions made, and what remains to do. "
    "Keep names, numbers, paths and identifiers exactly."
)
MESSAGES, TOKENS, FRACTION = "messages", "tokens", "fraction"


class LangChainSummarizationPolicy(Policy):
    """Before each model call, once a trigger is met, summarizes the history before a cut
    point and replaces it with one user message "Here is a summary of the conversation to
    date:" (persistent: the state's messages are rewritten).

    As LangChain does it: triggers ``trigger_tokens``, ``trigger_messages``,
    ``trigger_fraction`` (of the context window), any one of them (a list of clauses) or all
    (one clause), each ``>=``; none set: it never fires, LangChain's default. Tokens are its
    approximate count of the messages (no system prompt, no tools): ceil(chars /
    ``chars_per_token``) + 3 per message, scaled by the last reply's reported total over the
    estimate up to it (clamped to 1-1.25); a reported total over a token threshold also fires
    it. A reply's reported total is its input and output as the provider reported them (see
    ``CompileEvent.reported_tokens``). ``keep_kind``/``keep_value`` keep the last N messages,
    or the shortest suffix within N tokens (binary search, unscaled), or a fraction of the
    window; a cut on a tool result moves back to the assistant message whose calls it answers
    (the first one found with any of the run's ids: langchain #38352, so other results may be
    orphaned), else forward. The summarizer reads the newest ``trim_tokens_to_summarize``
    tokens of what is cut by the same scaled count, the last lines of a message that does not
    fit whole included, from a user message on; when nothing is left, the summary is "Previous
    conversation was too long to summarize." with no model call.
    ``summary_prompt`` is our own; paste yours.
    """

    source = "`langchain==1.5.2`"
    summary = "its triggers (any / all), estimate with usage scaling, cut-point search (bug #38352 included) and user-role summary"

    params = (
        Param("trigger_tokens", int, None, "Fire at this many tokens (its estimate).", 1, 10_000_000, True),
        Param("trigger_messages", int, None, "Fire at this many messages.", 1, 1_000_000, True),
        Param(
            "trigger_fraction", float, None, "Fire at this fraction of the context window.", 0.01, 1.0, True
        ),
        Param(
            "trigger_mode",
            str,
            "any",
            "any: any trigger set fires it (a list); all: every trigger set must be met (one clause).",
            choices=("any", "all"),
        ),
        Param("keep_kind", str, MESSAGES, "What keep_value counts.", choices=(MESSAGES, TOKENS, FRACTION)),
        Param(
            "keep_value", float, 20, "Messages, tokens, or fraction of the window kept.", 0.0001, 10_000_000
        ),
        Param(
            "chars_per_token",
            float,
            LANGCHAIN_CHARS_PER_TOKEN,
            "Characters per token of its estimate (LangChain uses 3.3 for Anthropic chat models).",
            1.0,
            10.0,
        ),
        Param(
            "use_reported_usage", bool, True, "Scale the estimate by, and fire on, the last reply's usage."
        ),
        Param(
            "trim_tokens_to_summarize",
            int,
            4_000,
            "Newest tokens of the cut history the summarizer reads (empty: all).",
            1,
            10_000_000,
            True,
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        if self.keep_kind == FRACTION and self.keep_value > 1:
            raise ParamError(f"keep_value must be at most 1 for a fraction, got {self.keep_value}")
        self._totals: dict[tuple[int, ...], int] = {}  # a reply's raw indices -> its reported total

    def _tokens(self, message: Message) -> int:
        return langchain_approximate_tokens(message, self.chars_per_token)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if not messages:
            return None
        counts = [self._tokens(m) for m in messages]
        reported = self._record_usage(event, messages)
        totals = [self._total_of(m) for m in messages]
        total = langchain_scaled_count(counts, totals)
        if not self._triggered(event, len(messages), total, reported):
            return None
        cutoff = self._cutoff(event, messages, counts, total)
        if cutoff <= 0:
            return None
        head, tail = messages[:cutoff], messages[cutoff:]
        shown = self._trimmed(head, counts[:cutoff], totals[:cutoff])
        if shown:
            summary = summarize_or_report(event, self.summary_prompt, render_transcript(shown))
            if summary is None:
                return None
        else:
            summary = TOO_LONG
        message = summary_message("user", SUMMARY_PREFIX + summary, head)
        event.report(
            "compact", message.source, f"{len(head)} message(s) summarized at {total:,} tokens (its estimate)"
        )
        return [message, *tail]

    def _record_usage(self, event: CompileEvent, messages: Sequence[Message]) -> int | None:
        """The last reply's reported total (input + output), kept with that reply: in LangChain
        every AIMessage carries its call's ``usage_metadata``, and the counter scales by it."""
        if not self.use_reported_usage or event.last_usage is None:
            return None
        reported = event.reported_tokens(messages)
        last = next((m for m in reversed(messages) if m.role == "assistant"), None)
        if last is not None and last.source and reported is not None:
            self._totals[last.source] = reported
        return reported

    def _total_of(self, message: Message) -> int | None:
        if not self.use_reported_usage or message.role != "assistant":
            return None
        return self._totals.get(message.source)

    def _triggered(self, event: CompileEvent, n: int, total: int, reported: int | None) -> bool:
        def tokens_met(threshold: int) -> bool:
            return total >= threshold or (reported is not None and reported >= threshold)

        clauses = []
        if self.trigger_messages is not None:
            clauses.append(n >= self.trigger_messages)
        if self.trigger_tokens is not None:
            clauses.append(tokens_met(self.trigger_tokens))
        if self.trigger_fraction is not None:
            clauses.append(tokens_met(max(int(event.context_window * self.trigger_fraction), 1)))
        if not clauses:
            return False  # trigger=None: never
        return all(clauses) if self.trigger_mode == "all" else any(clauses)

    def _cutoff(self, event: CompileEvent, messages: list[Message], counts: list[int], total: int) -> int:
        if self.keep_kind == MESSAGES:
            keep = int(self.keep_value)
            if len(messages) <= keep:
                return 0
            return langchain_safe_cutoff(messages, len(messages) - keep)
        target = (
            int(event.context_window * self.keep_value)
            if self.keep_kind == FRACTION
            else int(self.keep_value)
        )
        target = max(target, 1)
        if total <= target:
            return 0
        suffix = [0] * (len(counts) + 1)  # suffix[i] = unscaled tokens of messages[i:]
        for i in range(len(counts) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + counts[i]
        left, right, candidate = 0, len(messages), len(messages)
        for _ in range(len(messages).bit_length() + 1):
            if left >= right:
                break
            middle = (left + right) // 2
            if suffix[middle] <= target:
                candidate, right = middle, middle
            else:
                left = middle + 1
        if candidate == len(messages):
            candidate = left
        if candidate >= len(messages):
            if len(messages) == 1:
                return 0
            candidate = len(messages) - 1
        return langchain_safe_cutoff(messages, candidate)

    def _trimmed(self, head: list[Message], counts: list[int], totals: list[int | None]) -> list[Message]:
        """What the summarizer reads of ``head``: ``_trim_messages_for_summary``, with the
        counter that decided to fire."""
        if self.trim_tokens_to_summarize is None:
            return head
        return langchain_trim_last(head, self.trim_tokens_to_summarize, counts, totals, self.chars_per_token)


def langchain_scaled_count(counts: Sequence[int], totals: Sequence[int | None]) -> int:
    """``count_tokens_approximately(use_usage_metadata_scaling=True)`` of a list, given each
    message's unscaled count and each reply's reported total (None: no usage): the sum, times
    the last reported total over the count up to that reply, held to [1, 1.25]; a list of one
    is never scaled."""
    count, last_total, count_at = 0.0, None, 0.0
    for tokens, reported in zip(counts, totals, strict=True):
        count += tokens
        if reported is not None:
            last_total, count_at = reported, count
    if len(counts) > 1 and last_total is not None and count_at > 0:
        count *= min(SCALE_CAP, max(1.0, last_total / count_at))
    return math.ceil(count)


def langchain_trim_last(
    messages: Sequence[Message],
    max_tokens: int,
    counts: Sequence[int],
    totals: Sequence[int | None],
    chars_per_token: float = LANGCHAIN_CHARS_PER_TOKEN,
) -> list[Message]:
    """``trim_messages(strategy="last", allow_partial=True, include_system=True,
    start_on="human")`` (langchain-core 1.8.3, ``_last_max_tokens``/``_first_max_tokens``):
    the newest messages that fit (a binary search over the newest-first list, with the scaled
    counter), then the last lines of the next older one that fit, then back to a user message;
    a leading system message is kept and its tokens come off the budget."""
    rows = list(zip(messages, counts, totals, strict=True))
    if not rows:
        return []
    system = []
    budget = max_tokens
    if rows[0][0].role in ("system", "developer"):  # a SystemMessage
        system, rows = rows[:1], rows[1:]
        budget = max(0, max_tokens - system[0][1])

    def count(part: Sequence[tuple[Message, int, int | None]]) -> int:
        return langchain_scaled_count([r[1] for r in part], [r[2] for r in part])

    newest = rows[::-1]
    if count(newest) <= budget:
        kept = len(newest)
    else:
        left, right = 0, len(newest)
        for _ in range(len(newest).bit_length()):
            if left >= right:
                break
            middle = (left + right + 1) // 2
            if count(newest[:middle]) <= budget:
                left = middle
            else:
                right = middle - 1
        kept = left
        if kept < len(newest) and newest[kept][0].content:
            partial = _last_lines(newest[kept][0], budget - count(newest[:kept]), chars_per_token)
            if partial is not None:
                newest = [*newest[:kept], (partial, 0, newest[kept][2])]
                kept += 1
    while kept > 0 and newest[kept - 1][0].role != "user":  # start_on="human"
        kept -= 1
    return [r[0] for r in system] + [r[0] for r in newest[:kept][::-1]]


def _last_lines(message: Message, budget: int, chars_per_token: float) -> Message | None:
    """The message with the most trailing lines of its text (newlines kept) that count within
    ``budget`` on their own; None when not even the last line does."""
    pieces = message.content.split("\n")
    lines = [p + "\n" for p in pieces[:-1]] + pieces[-1:]
    lines.reverse()

    def tokens(taken: int) -> int:
        text = "".join(reversed(lines[:taken]))
        return langchain_approximate_tokens(message.replace(content=text), chars_per_token)

    left, right = 0, len(lines)
    for _ in range(len(lines).bit_length()):
        if left >= right:
            break
        middle = (left + right + 1) // 2
        if tokens(middle) <= budget:
            left = middle
        else:
            right = middle - 1
    if left == 0:
        return None
    return message.replace(content="".join(reversed(lines[:left])))


def langchain_safe_cutoff(messages: Sequence[Message], cutoff: int) -> int:
    """``_find_safe_cutoff_point``: a cut on a tool result moves back to the first assistant
    message (searching backward) whose calls share an id with the run of results there; with
    none, forward past the run."""
    if cutoff >= len(messages) or not messages[cutoff].is_tool_result:
        return cutoff
    ids, end = set(), cutoff
    while end < len(messages) and messages[end].is_tool_result:
        ids.update(messages[end].tool_call_ids[:1])
        end += 1
    for i in range(cutoff - 1, -1, -1):
        message = messages[i]
        if message.role == "assistant" and message.tool_calls and ids & {c.id for c in message.tool_calls}:
            return i
    return end
