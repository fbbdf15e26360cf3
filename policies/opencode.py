"""opencode's compaction on overflow and its prune of old tool outputs.

Read in ``sst/opencode`` at commit 31e22f6: ``packages/opencode/src/session/overflow.ts``
(``usable``, ``isOverflow``, ``COMPACTION_BUFFER``), ``session/compaction.ts`` (``select``,
``splitTurn``, ``prune``, ``PRUNE_MINIMUM``, ``PRUNE_PROTECT``, the continue message) and
``session/message-v2.ts`` (a compaction part reads "What did we do so far?"; a pruned output
"[Old tool result content cleared]"). Its token estimate is a quarter of the characters.
"""

from __future__ import annotations

from policies.base import CLEARING, PER_TURN, CompileEvent, Param, Policy
from policies.messages import STUB, SUMMARY, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report, summary_message

COMPACTION_BUFFER = 20_000
OUTPUT_TOKEN_MAX = 32_000  # the output cap opencode asks for (OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX)
MIN_PRESERVE_RECENT_TOKENS = 2_000
MAX_PRESERVE_RECENT_TOKENS = 15_000
PRUNE_MINIMUM = 20_000
PRUNE_PROTECT = 40_000
PRUNE_PROTECTED_TOOLS = ("skill",)
PRUNED = "[Old tool result content cleared]"
QUESTION = "What did we do so far?"
CONTINUE = (
    "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
)
SUMMARY_PROMPT = (
    "Summarize the conversation so far so that an agent can continue the work without it: the "
    "goal, what was done, the files and commands involved, decisions made, and the next steps."
)


def estimate(text: str) -> int:
    """opencode's Token.estimate: a quarter of the characters, rounded."""
    return round(len(text) / 4)


def _size(message: Message) -> int:
    """A message's characters as opencode serializes it (content, calls' names and arguments)."""
    return len(message.content) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)


class OpencodeCompactionPolicy(Policy):
    """opencode's auto-compaction: after a step whose reported tokens (input, output, cache
    reads and writes) reach the usable window (the window less the model's output cap less
    a reserve of min(20,000, that cap)), the older history is summarized. The newest turns
    stay verbatim within ``preserve_recent_tokens`` (default a quarter of the usable window,
    between 2,000 and 15,000; a turn that does not fit is split at a later message), after
    the question "What did we do so far?" and the summary; a user message asking to
    continue follows. Persistent. ``summary_prompt`` is our own; paste yours."""

    source = (
        "opencode (`sst/opencode` at 31e22f6: `packages/opencode/src/session/compaction.ts`, `overflow.ts`)"
    )
    summary = 'after a step whose reported tokens reach the usable window (window − output cap − min(20,000, cap)), older history becomes "What did we do so far?" + an assistant summary; the newest turns stay within a 2,000–15,000-token tail; a user message asks to continue'

    params = (
        Param(
            "reserved",
            int,
            None,
            "compaction.reserved: tokens kept free besides the output cap (unset: min(20,000, cap)).",
            0,
            2_000_000,
            optional=True,
        ),
        Param(
            "max_output_tokens", int, OUTPUT_TOKEN_MAX, "The model's output cap as opencode asks.", 1, 200_000
        ),
        Param(
            "preserve_recent_tokens",
            int,
            None,
            "compaction.preserve_recent_tokens: the verbatim tail's budget (unset: 25% of usable, "
            "2,000 to 15,000).",
            0,
            2_000_000,
            optional=True,
        ),
        Param(
            "tail_turns",
            int,
            None,
            "compaction.tail_turns: at most this many recent turns stay (0: none).",
            0,
            1_000,
            optional=True,
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def usable(self, context_window: int) -> int:
        reserved = (
            self.reserved if self.reserved is not None else min(COMPACTION_BUFFER, self.max_output_tokens)
        )
        return max(0, context_window - self.max_output_tokens - reserved)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        reported = event.reported_tokens(messages)
        usable = self.usable(event.context_window)
        if usable == 0 and event.turn == 1:
            event.report(
                "skip",
                (),
                f"a {event.context_window:,}-token window less the output cap and reserve leaves no "
                "room: opencode compacts after every step",
            )
        if reported is None or reported < usable:
            return None
        start = self.tail_start(messages, usable)
        head, tail = messages[:start], messages[start:]
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(head))
        if summary is None:
            return None
        question = Message("user", QUESTION, kind=SUMMARY, source=sources_of(head))
        answer = summary_message("assistant", summary, head)
        event.report(
            "compact",
            answer.source,
            f"{len(head)} message(s) compacted at {reported:,} tokens (usable {usable:,}); "
            f"{len(tail)} kept verbatim",
        )
        return [question, answer, *tail, Message("user", CONTINUE)]

    def tail_start(self, messages: list[Message], usable: int) -> int:
        """Where the verbatim tail opens (``len(messages)``: no tail), as opencode's ``select``:
        whole turns from the newest while they fit the budget, then the latest start inside the
        next turn whose rest fits."""
        if self.tail_turns is not None and self.tail_turns <= 0:
            return len(messages)
        budget = self.preserve_recent_tokens
        if budget is None:
            budget = min(MAX_PRESERVE_RECENT_TOKENS, max(MIN_PRESERVE_RECENT_TOKENS, usable // 4))
        starts = [i for i, m in enumerate(messages) if m.role == "user" and m.kind != SUMMARY]
        if self.tail_turns is not None:
            starts = starts[-self.tail_turns :]
        after = [0] * (len(messages) + 1)  # characters from i to the end
        for i in range(len(messages) - 1, -1, -1):
            after[i] = after[i + 1] + _size(messages[i])
        keep, end, total = None, len(messages), 0
        for start in reversed(starts):
            size = round((after[start] - after[end]) / 4)
            if total + size <= budget:
                total += size
                keep, end = start, start
                continue
            remaining = budget - total
            split = next(
                (
                    i
                    for i in range(start + 1, end)
                    if not messages[i].is_tool_result and round((after[i] - after[end]) / 4) <= remaining
                ),
                None,
            )
            if split is not None:
                keep = split
            break
        return len(messages) if keep is None or keep == 0 else keep


class OpencodePrunePolicy(Policy):
    """opencode's prune, run when the agent finishes answering a user message: walking back
    from the turn before the current one, the newest 40,000 tokens of tool outputs are
    protected and every older output is cleared to "[Old tool result content cleared]", but
    only when that frees over 20,000 tokens. It stops at a summary or at an output pruned
    before; ``skill`` outputs are never pruned. Persistent, once per user turn. On by default
    in 2025 releases (``compaction.prune: false`` turned it off); opt-in
    (``compaction.prune: true``) in the release read here."""

    place = CLEARING
    source = "opencode (`session/compaction.ts` at 31e22f6: `PRUNE_PROTECT` 40,000, `PRUNE_MINIMUM` 20,000, `skill` protected)"
    summary = "once per user turn, past the last two turns, tool outputs beyond the newest 40,000 tokens become `[Old tool result content cleared]` when that frees over 20,000"

    timing = PER_TURN
    params = (
        Param(
            "protect_tokens",
            int,
            PRUNE_PROTECT,
            "PRUNE_PROTECT: newest tool-output tokens kept.",
            0,
            10_000_000,
        ),
        Param(
            "minimum_tokens",
            int,
            PRUNE_MINIMUM,
            "PRUNE_MINIMUM: prune only when freeing more.",
            0,
            10_000_000,
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        turns, total, pruned = 0, 0, 0
        chosen: list[int] = []
        called = {c.id: c.name for m in messages for c in m.tool_calls}
        # opencode prunes when the last answer ends, before the user's new message: from there
        answered = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), -1)
        for i in range(answered, -1, -1):
            message = messages[i]
            if message.role == "user":
                turns += 1
            if turns < 2:
                continue
            if message.kind == SUMMARY:
                break
            if not message.is_tool_result:
                continue
            name = message.name or called.get(message.tool_call_id or "", "")
            if name in PRUNE_PROTECTED_TOOLS:
                continue
            if message.kind == STUB:
                break
            tokens = estimate(message.content)
            total += tokens
            if total <= self.protect_tokens:
                continue
            pruned += tokens
            chosen.append(i)
        if pruned <= self.minimum_tokens:
            return None
        out = list(messages)
        for i in chosen:
            out[i] = messages[i].replace(content=PRUNED, kind=STUB)
        event.report(
            "stub",
            sources_of([messages[i] for i in chosen]),
            f"{len(chosen)} old tool output(s) cleared, about {pruned:,} tokens "
            f"(the newest {self.protect_tokens:,} protected)",
        )
        return out
