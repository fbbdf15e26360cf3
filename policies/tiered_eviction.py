"""TieredEvictionPolicy ("cut in this order"): cheapest losses first, stop once the context fits.

1. raw tool output the agent already consumed → one result line: the call, the facts
   of the output that the consuming reply repeats, and the turn it was dropped;
2. retrieved facts that can be fetched again (tool names matching patterns) → a
   pointer naming the call that gets them back;
3. old task-state turns (user/assistant prose outside the recent ones) → folded into
   one running decision log: conclusions, not conversation;
4. standing rules → never: if the budget still cannot be met, an event says so.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from functools import lru_cache

from policies.base import CLEARING, CompileEvent, Param, Policy
from policies.facts import facts_among, facts_of_text, iter_facts
from policies.messages import (
    CLIPPED,
    DECISION_LOG,
    ORIGINAL,
    STUB,
    Message,
    ToolCall,
    parsed_arguments,
    render_transcript,
    sources_of,
)
from policies.pairs import call_of
from policies.summaries import summarize_or_report

DEFAULT_RETRIEVAL_TOOLS = (
    "*search*",
    "fetch*",
    "http_get",
    "get_*",
    "read_file",
    "query_*",
    "retrieve*",
    "kb_*",
)
DECISION_LOG_HEADER = "[Decision log: conclusions of earlier turns]"
DECISION_LOG_PROMPT = (
    "Fold these earlier turns of an agent conversation into a decision log: one line per "
    "conclusion, decision, fact or open question the agent needs later. Conclusions, not conversation."
)
_DECIDES = re.compile(
    r"\b(decid|conclu|confirm|approv|agreed|will |won't|can't|cannot|must|should|need|fixed|found|"
    r"because|so |root cause|contract|policy|done|filed)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _arguments(call: ToolCall | None) -> str:
    if call is None:
        return "?"
    data = parsed_arguments(call.arguments) if call.arguments else {}
    text = ", ".join(f"{k}={v}" for k, v in data.items()) if isinstance(data, dict) else call.arguments
    return text if len(text) <= 80 else text[:79] + "…"


def _log_lines(message: Message) -> list[str]:
    """Extractive conclusions of one prose message."""
    text = " ".join(message.content.split())
    if not text:
        return []
    if message.role == "user":
        first = _SENTENCE.split(text, maxsplit=1)[0]
        return [f"- user asked: {first[:200]}"]
    return [
        f"- agent: {sentence[:240]}"
        for sentence in _SENTENCE.split(text)
        if _DECIDES.search(sentence) or next(iter_facts(sentence), None)
    ]


def _consuming_replies(messages: list[Message], start: int) -> list[Message | None]:
    """For each position from ``start`` on, the assistant reply that consumed it: the first
    later one with text (else the first later one); None while no assistant has come after it."""
    replies: list[Message | None] = [None] * (len(messages) - start)
    first_any = first_text = None
    for i in range(len(messages) - 1, start - 1, -1):
        replies[i - start] = first_text or first_any
        if messages[i].role == "assistant":
            first_any = messages[i]
            if messages[i].content:
                first_text = messages[i]
    return replies


def _foldable(message: Message) -> bool:
    """Prose the third tier may fold: a user or assistant message that is no tool call."""
    return (
        message.role in ("user", "assistant")
        and not message.tool_calls
        and message.kind in (ORIGINAL, CLIPPED)
    )


class TieredEvictionPolicy(Policy):
    """Cuts in order — consumed tool output, re-fetchable retrievals, old prose — until the
    request fits its budget; never the standing rules or the last ``keep_recent`` messages.

    Every cut leaves a stub (a result line, a pointer, or the decision log); stubs are
    idempotent and tool calls keep their results, so the request stays valid.
    """

    place = CLEARING
    source = '"cut in this order"'
    summary = "consumed tool output → result lines; re-fetchable results → pointers; old prose → a decision log; standing rules never"

    params = (
        Param(
            "budget_tokens",
            int,
            None,
            "Token budget of the request; unset: budget_fraction of the window.",
            500,
            2_000_000,
            optional=True,
        ),
        Param(
            "budget_fraction",
            float,
            0.5,
            "Budget as a fraction of the context window (when budget_tokens is unset).",
            0.05,
            1.0,
        ),
        Param(
            "retrieval_tools",
            list,
            DEFAULT_RETRIEVAL_TOOLS,
            "Glob patterns of tool names whose results can be fetched again.",
        ),
        Param("keep_recent", int, 6, "Most recent messages never cut.", 0, 200),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        self._retrieval: dict[str, bool] = {}  # tool name -> matches a retrieval pattern
        # In the list returned last time, per tier and for the decision log: the first position
        # that may hold what it looks for (nothing before it does). Within the engine's
        # unchanged prefix they spare a scan of the whole history at every compile.
        self._first = [0, 0, 0, 0]

    def is_retrieval(self, name: str) -> bool:
        """Whether results of tool ``name`` can be fetched again (decided once per name)."""
        known = self._retrieval.get(name)
        if known is None:
            known = self._retrieval[name] = any(fnmatch(name, p) for p in self.retrieval_tools)
        return known

    def budget(self, event: CompileEvent) -> int:
        if self.budget_tokens is not None:
            return self.budget_tokens
        return int(self.budget_fraction * event.context_window)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        if counter is None:
            return None
        first = self._first = [min(f, event.unchanged_prefix) for f in self._first]
        budget = self.budget(event)
        tokens = event.given_tokens(messages)
        if tokens <= budget:
            return None
        out = list(messages)
        protected = max(len(out) - self.keep_recent, 0)
        start = min(first[0], first[1])
        replies = _consuming_replies(out, start)
        cut: dict[int, None] = {}  # positions cut, in order
        for tier, cuts in enumerate((self._consumed_output, self._refetchable)):
            left = None  # the first position this tier could still cut
            for i in range(first[tier], protected):
                if not self._can_cut(tier, out, i):
                    continue
                if tokens <= budget:  # enough cut
                    left = i
                    break
                reply = replies[i - start]
                if reply is None:  # not consumed yet: the agent has not seen it
                    left = i if left is None else left
                    continue
                replacement = cuts(out[i], reply, call_of(out, i)[1], event.turn)
                tokens += counter.count(replacement) - counter.count(out[i])
                out[i] = replacement
                cut[i] = None
            first[tier] = protected if left is None else left
        stubs = [out[i] for i in cut]
        folded: list[Message] = []
        if tokens > budget:
            log_at = first[3] = _find_log(out, first[3])
            out, tokens, folded, first[3], first[2] = self._fold(
                out, first[2], protected, tokens, budget, event, log_at
            )
            if folded:  # positions moved: the tiers look from the start next time
                first[0] = first[1] = 0
        if tokens > budget:
            event.report(
                "budget_unmet",
                (),
                f"{tokens:,} tokens remain over the {budget:,} budget: standing rules, the last "
                f"{self.keep_recent} messages and the arguments of tool calls are never cut",
            )
        if not stubs and not folded:
            return None
        self._report(event, stubs, folded)
        return out

    def _can_cut(self, tier: int, messages: list[Message], index: int) -> bool:
        """Whether ``tier`` (0: consumed output, 1: re-fetchable) can cut the message at ``index``."""
        message = messages[index]
        if not message.is_tool_result:
            return False
        if tier == 0:
            return message.kind in (ORIGINAL, CLIPPED)
        if message.content.startswith("[pointer]"):
            return False
        call = None if message.name else call_of(messages, index)[1]
        return self.is_retrieval(message.name or (call.name if call else ""))

    # tier 1
    def _consumed_output(self, message: Message, reply: Message, call: ToolCall | None, turn: int) -> Message:
        used = facts_among(message.content, _facts_of(reply.content))
        name = message.name or (call.name if call else "tool")
        what = f"used {', '.join(used[:12])}" if used else "nothing quoted from it"
        line = f"[tool {name}({_arguments(call)}) -> {what}; full output dropped at turn {turn}]"
        return message.replace(content=line, kind=STUB)

    # tier 2
    def _refetchable(self, message: Message, reply: Message, call: ToolCall | None, turn: int) -> Message:
        name = message.name or (call.name if call else "")
        line = f"[pointer] result dropped at turn {turn}; fetch it again with {name}({_arguments(call)})"
        return message.replace(content=line, kind=STUB)

    # tier 3
    def _fold(
        self,
        out: list[Message],
        start: int,
        protected: int,
        tokens: int,
        budget: int,
        event: CompileEvent,
        log_at: int,
    ) -> tuple[list[Message], int, list[Message], int, int]:
        """Folds old prose (from ``start``, where the first foldable message may sit) into the
        decision log at ``log_at`` (``len(out)``: none yet) until the request fits. Returns the list,
        its tokens, the messages folded, where the log now is and where the first foldable
        message now may sit."""
        counter = event.counter
        old_log = out[log_at] if log_at < len(out) else None
        folded: list[int] = []
        lines = old_log.content.split("\n")[1:] if old_log else []
        estimate = tokens
        for i in range(start, protected):
            m = out[i]
            if not _foldable(m):
                continue
            new_lines = _log_lines(m)
            folded.append(i)
            lines += new_lines
            estimate += -counter.count(m) + sum(len(line) // 4 + 1 for line in new_lines)
            if estimate <= budget:
                break
        if not folded:
            return out, tokens, [], log_at, protected
        group = [out[i] for i in folded] + ([old_log] if old_log else [])
        if event.summarizer is not None and getattr(event.summarizer, "name", "") != "extractive":
            previous = old_log.content if old_log else ""
            transcript = previous + "\n" + render_transcript([out[i] for i in folded])
            summary = summarize_or_report(event, DECISION_LOG_PROMPT, transcript, "decision log")
            if summary is None:  # the prose stays as it was
                return out, tokens, [], log_at, folded[0]
            lines = [summary]
        log = Message(
            role="user",
            content="\n".join([DECISION_LOG_HEADER, *lines]),
            kind=DECISION_LOG,
            source=sources_of(group),
            compacted_count=sum(max(m.compacted_count, 1) for m in group),
        )
        drop = set(folded) | ({log_at} if old_log else set())
        position = min(drop)
        result = [m for i, m in enumerate(out) if i not in drop]
        at = sum(1 for i in range(position) if i not in drop)
        result.insert(at, log)
        removed = sum(counter.count(out[i]) for i in drop)
        return result, tokens - removed + counter.count(log), [out[i] for i in folded], at, at

    def _report(self, event: CompileEvent, stubs: list[Message], folded: list[Message]) -> None:
        result_lines = [m for m in stubs if m.content.startswith("[tool ")]
        pointers = [m for m in stubs if m.content.startswith("[pointer]")]
        if result_lines:
            event.report(
                "stub",
                sources_of(result_lines),
                f"tier 1: {len(result_lines)} consumed tool output(s) → result lines",
            )
        if pointers:
            event.report(
                "stub", sources_of(pointers), f"tier 2: {len(pointers)} re-fetchable result(s) → pointers"
            )
        if folded:
            event.report(
                "fold", sources_of(folded), f"tier 3: {len(folded)} old turn(s) folded into the decision log"
            )


def _find_log(messages: list[Message], start: int) -> int:
    """Where the decision log is, looking from ``start``; ``len(messages)`` when nowhere."""
    return next((i for i in range(start, len(messages)) if messages[i].kind == DECISION_LOG), len(messages))


@lru_cache(maxsize=1024)
def _facts_of(reply: str) -> frozenset[str]:
    """The facts of a reply: one reply is the use of many outputs, so they are found once."""
    return frozenset(facts_of_text(reply))
