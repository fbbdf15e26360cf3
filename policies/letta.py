"""Letta's server summarizer (``letta==0.16.8``, the last release with the server code:
``letta/services/summarizer/compact.py``, ``summarizer_sliding_window.py``,
``summarizer_all.py``, ``thresholds.py``, ``letta/system.py``)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

from policies.base import CompileEvent, Param, Policy
from policies.messages import STANDING_ROLES, Message, render_transcript
from policies.summaries import summarize_or_report, summary_message

TRIGGER_MULTIPLIER = 0.9  # letta.constants.SUMMARIZATION_TRIGGER_MULTIPLIER
APPROX_BYTES_PER_TOKEN = 4  # ApproxTokenCounter
APPROX_SAFETY_MARGIN = 1.3  # APPROX_TOKEN_SAFETY_MARGIN
TRUNCATION_SUFFIX = "... [summary truncated to fit]"  # SUMMARY_TRUNCATION_SUFFIX
SLIDING, ALL = "sliding_window", "all"
APPROX, MODEL = "approx", "model"
SUMMARY_PROMPT = (
    "Summarize the earlier part of this agent's conversation so it can go on without it: "
    "what the user wants, what was done and found, decisions and their reasons, the values "
    "it will need again (names, numbers, paths, ids), and what is still open."
)


def letta_approximate_tokens(messages: list[Message], tools: tuple[dict, ...] = ()) -> int:
    """``count_tokens_with_tools`` with Letta's ``ApproxTokenCounter``: the UTF-8 bytes of
    the messages as an OpenAI JSON list, over 4, rounded up, times the 1.3 safety margin;
    the tool schemas the same way."""
    dumped = json.dumps([_openai(m) for m in messages])
    tokens = int(_ceil_quarter(dumped) * APPROX_SAFETY_MARGIN)
    if tools:
        schemas = [t if t.get("type") == "function" else {"type": "function", "function": t} for t in tools]
        tokens += int(_ceil_quarter(json.dumps(schemas)) * APPROX_SAFETY_MARGIN)
    return tokens


def _ceil_quarter(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / APPROX_BYTES_PER_TOKEN)


def _openai(message: Message) -> dict:
    out: dict = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    return out


class LettaSummarizerPolicy(Policy):
    """After a step whose usage went over 90% of the window, Letta summarizes the oldest
    messages (``sliding_window``, its default) or all of them (``all``) into one message at
    the top, right after the system prompt. Persistent: the evicted messages leave the
    context (Letta keeps them searchable with ``conversation_search``).

    Sliding window, as the code does it (its docstring says the reverse): the eviction
    fraction starts at ``sliding_window_percentage`` + 0.10, the cut snaps back to the
    nearest assistant message, and the fraction grows by 0.10 until the system prompt and
    what follows the cut count under ``(1 − sliding_window_percentage)`` of the window.
    If no cut gets there, or the cut would take the last message, it summarizes all. If
    the kept part still counts over the trigger it summarizes that too and the first
    summary is lost (Letta's own fallback). The summary is clipped to ``clip_chars`` and
    wrapped in Letta's ``system_alert`` JSON ("Note: N messages from the beginning of the
    conversation have been hidden from view due to memory constraints.").

    The trigger reads the previous request's tokens (Letta reads the step's total usage,
    output included). ``counter``: ``approx`` is Letta's byte estimate (bytes / 4 × 1.3,
    used for OpenAI and most providers); ``model`` is the request's token count (Letta asks
    Anthropic's and Gemini's counting endpoints). The summary is a user message (Letta's
    legacy role; the new ``summary`` role reaches the model as user text too); its time is
    the previous reply's recorded time, or the epoch. ``summary_prompt`` is our own.
    """

    source = "`letta==0.16.8`"
    summary = "after a step over 90% of the window, the oldest messages (from 40%, growing by tenths, cut at an assistant message, until the rest counts under 70%) become one `system_alert` summary; its fallbacks to summarizing all included"

    params = (
        Param(
            "trigger_fraction",
            float,
            TRIGGER_MULTIPLIER,
            "Window fraction the last step's usage must exceed.",
            0.1,
            1.0,
        ),
        Param(
            "sliding_window_percentage",
            float,
            0.30,
            "Share of the messages evicted at first (grows by 0.10); the kept part aims under 1 − it of the window.",
            0.0,
            0.9,
        ),
        Param("mode", str, SLIDING, "sliding_window (the oldest) or all.", choices=(SLIDING, ALL)),
        Param(
            "counter",
            str,
            APPROX,
            "approx: Letta's bytes/4 × 1.3; model: the request's tokens.",
            choices=(APPROX, MODEL),
        ),
        Param(
            "clip_chars", int, 50_000, "Longest summary in characters; longer ones are cut.", 100, 1_000_000
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None or event.last_usage is None:
            return None
        threshold = int(event.context_window * self.trigger_fraction)
        if event.last_usage <= threshold:
            return None
        # Letta's list: the system prompt at 0, then the conversation
        head = list(event.pinned)
        rest = list(messages)
        if not head and rest and rest[0].role in STANDING_ROLES:
            head, rest = rest[:1], rest[1:]
        if not rest:
            return None
        letta = [None, *rest]  # index 0 stands for the system prompt (pinned or first)

        def count(kept: list[Message], with_tools: bool = False) -> int:
            """Letta's count of the system prompt and ``kept``: the cut search counts the
            messages alone, the check after it the tool definitions too."""
            if self.counter == MODEL:
                tools = event.fixed_tokens if with_tools else 0
                return event.counter.total(head) + event.counter.total(kept) + tools
            return letta_approximate_tokens(head + kept, event.tools if with_tools else ())

        mode, cut = self.mode, None
        if mode == SLIDING:
            cut = self._sliding_cut(letta, count, event.context_window)
            if cut is None:
                mode = ALL
        note = ""
        if mode == SLIDING:
            evicted, kept = rest[: cut - 1], rest[cut - 1 :]
            if count(kept, with_tools=True) >= threshold:
                # still over: Letta summarizes what it kept as well, and keeps only that summary
                if summarize_or_report(event, self.summary_prompt, render_transcript(evicted)) is None:
                    return None
                mode, evicted, kept = ALL, rest[cut - 1 :], []
                note = "; the kept part still counted over the trigger, so it was summarized too and the first summary was dropped (Letta's fallback)"
        else:
            evicted, kept = rest, []
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(evicted))
        if summary is None:
            return None
        if len(summary) > self.clip_chars:
            summary = summary[: self.clip_chars] + TRUNCATION_SUFFIX
        after = count(kept, with_tools=True)
        hidden = len(rest) + 1 - (len(kept) + 2)  # messages_count_before - messages_count_after
        alert = self._alert(summary, mode, hidden, event, after, len(rest) + 1, len(kept) + 2)
        message = summary_message("user", alert, rest if mode == ALL else rest[: cut - 1])
        event.report(
            "compact",
            message.source,
            f"{len(rest) - len(kept)} message(s) summarized ({mode}) after a step of "
            f"{event.last_usage:,} tokens, over {threshold:,}{note}",
        )
        system = [] if event.pinned else head  # a system prompt it was given stays first
        return [*system, message, *kept]

    def _sliding_cut(self, letta: list, count, window: int) -> int | None:
        """Letta's cut point: the index (in its list) of the first message kept, or None
        where it falls back to summarizing all."""
        total = len(letta)
        goal = (1 - self.sliding_window_percentage) * window
        fraction = self.sliding_window_percentage
        tokens, cut = window, None
        while tokens >= goal and fraction < 1.0:
            fraction += 0.10
            limit = round(fraction * total)
            cut = next(
                (i for i in reversed(range(1, limit + 1)) if i < total and letta[i].role == "assistant"), None
            )
            if cut is None:
                continue
            tokens = count(letta[cut:])
        if cut is None or fraction >= 1.0 or cut >= total - 1:
            return None
        return cut

    def _alert(self, summary, mode, hidden, event, after, before_count, after_count) -> str:
        """The summary as Letta packages it: a ``system_alert`` JSON object."""
        if mode == SLIDING:
            note = (
                f"Note: {hidden} messages from the beginning of the conversation have been hidden from view "
                "due to memory constraints.\n"
            )
        else:
            note = "Note: prior messages have been hidden from view due to conversation memory constraints.\n"
        when = datetime.fromtimestamp(event.previous_time or 0, UTC)
        packaged = {
            "type": "system_alert",
            "message": note + f"The following is a summary of the previous messages:\n {summary}",
            "time": when.strftime("%Y-%m-%d %I:%M:%S %p %Z%z"),
            "compaction_stats": {
                "trigger": "post_step_context_check",
                "context_tokens_before": event.last_usage,
                "context_tokens_after": after,
                "context_window": event.context_window,
                "messages_count_before": before_count,
                "messages_count_after": after_count,
            },
        }
        return json.dumps(packaged, indent=2, ensure_ascii=False)
