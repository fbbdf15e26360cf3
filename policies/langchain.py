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
    ``chars_per_token``) + 3 per message, scaled by the last reply's reported usage over the
    estimate up to it (clamped to 1-1.25); a reported usage over a token threshold also
    fires it. The reported usage is the replay's own count of the previous request plus that
    reply. ``keep_kind``/``keep_value`` keep the last N messages, or the shortest suffix within
    N tokens (binary search, unscaled), or a fraction of the window; a cut on a tool result
    moves back to the assistant message whose calls it answers (the first one found with any
    of the run's ids: langchain #38352, so other results may be orphaned), else forward.
    The summarizer reads the newest ``trim_tokens_to_summarize`` tokens of what is cut, from
    a user message (whole messages: LangChain may keep part of one); when nothing fits, the
    summary is "Previous conversation was too long to summarize." with no model call.
    ``summary_prompt`` is our own; paste yours.
    """

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

    def _tokens(self, message: Message) -> int:
        return langchain_approximate_tokens(message, self.chars_per_token)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if not messages:
            return None
        counts = [self._tokens(m) for m in messages]
        scale, reported = self._usage_scale(event, messages, counts)
        total = math.ceil(sum(counts) * scale)
        if not self._triggered(event, len(messages), total, reported):
            return None
        cutoff = self._cutoff(event, messages, counts, total)
        if cutoff <= 0:
            return None
        head, tail = messages[:cutoff], messages[cutoff:]
        shown = self._trimmed(head, counts[:cutoff])
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

    def _usage_scale(
        self, event: CompileEvent, messages: Sequence[Message], counts: Sequence[int]
    ) -> tuple[float, int | None]:
        """The scaling factor and the last reply's reported total (input + output)."""
        if not self.use_reported_usage or event.last_usage is None or event.counter is None:
            return 1.0, None
        last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None)
        if last is None:
            return 1.0, None
        reported = event.reported_tokens(messages)
        assert reported is not None  # last_usage is set
        approx = sum(counts[: last + 1])
        if len(messages) <= 1 or approx <= 0:
            return 1.0, reported
        return min(SCALE_CAP, max(1.0, reported / approx)), reported

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

    def _trimmed(self, head: list[Message], counts: list[int]) -> list[Message]:
        """``trim_messages(strategy="last", start_on="human", include_system=True)``, whole
        messages: the newest that fit, from a user message, the leading system one kept."""
        if self.trim_tokens_to_summarize is None:
            return head
        budget, start = self.trim_tokens_to_summarize, len(head)
        system = head[:1] if head and head[0].role == "system" else []
        if system:
            budget -= counts[0]
        while start > len(system) and counts[start - 1] <= budget:
            budget -= counts[start - 1]
            start -= 1
        while start < len(head) and head[start].role != "user":
            start += 1
        return [*system, *head[start:]] if start < len(head) else []


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
