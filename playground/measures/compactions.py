"""What each compaction the recording agent made did: where, the prompt before and after, what
it cost (the prefix written to the cache again after it; the summary call, estimated where the
file does not record it), what it dropped (facts and lines of the conversation before it that
its summary does not hold and a later reply used; the user's own words it left out) and what
the agent fetched again after it. Read from the session's own record, not from a replay.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.measures.quality import QUOTE_CHARS, call_key, quotes_of_reply
from playground.money.cost import call_price
from policies.agent_record import RecordedCompaction
from policies.claude_code import ESTIMATE, autocompact_threshold, rule_of
from policies.claude_code import FORMAT as CLAUDE_CODE
from policies.codex import FORMAT as CODEX
from policies.codex import default_limit
from policies.facts import facts_of_text
from policies.messages import Message, said, said_parts

SHOWN = 12  # facts, lines and calls a table lists per compaction (the counts are whole)


@dataclass(frozen=True)
class CompactionRow:
    """One compaction the agent made, as its file records it."""

    number: int  # 1-based, in the session's order
    call: int  # the call whose request followed it (1-based, as turns are counted)
    trigger: str  # auto, manual, or "" where the file does not say
    counted_tokens: int | None  # the context's size as the agent counted it (Claude Code's preTokens)
    before_tokens: int | None  # the recorded prompt of the call before it
    after_tokens: int | None  # the recorded prompt of the call after it
    rewritten_tokens: int | None  # what that call wrote to the cache: the prefix written again
    rewrite_usd: float | None
    summary_tokens: int | None  # our count of the summary (None: the file holds it encrypted)
    summary_call_usd: float | None  # estimated: the summary call is in no line of the file
    facts_dropped: int  # facts of the conversation before it that the summary does not hold
    facts_used_later: tuple[str, ...]  # of those, the ones a reply after it uses
    lines_used_later: tuple[str, ...]  # lines a reply after it copies from before it, not in the summary
    user_words_dropped: tuple[str, ...]  # facts of the user's own messages the summary left out
    refetched: tuple[str, ...]  # calls after it repeating a call made before it
    rule_call: int | None  # where the release's rule, on the recorded figures, would have compacted
    rule: str  # that rule, in words

    @property
    def cost_usd(self) -> float | None:
        """What it cost: the prefix written again and the summary call (estimated)."""
        parts = [p for p in (self.rewrite_usd, self.summary_call_usd) if p is not None]
        return round(sum(parts), 6) if parts else None


def compaction_report(session: Session, counter: TokenCounter, window: int) -> list[CompactionRow]:
    """A row per compaction the agent made in ``session`` (``counter`` counts the summaries and
    what arrived between calls; ``window`` is the context window the agent had)."""
    replies = list(session.replies)
    bounds = [0, *(c.at for c in session.compactions), len(session.messages)]
    return [
        _row(session, counter, window, replies, number, compaction, bounds[number], bounds[number + 2])
        for number, compaction in enumerate(session.compactions)
    ]


def _row(
    session: Session,
    counter: TokenCounter,
    window: int,
    replies: list[int],
    number: int,
    compaction: RecordedCompaction,
    start: int,
    end: int,
) -> CompactionRow:
    at = compaction.at
    call = bisect_left(replies, at)  # replies before it: the 0-based number of the call after it
    before = replies[call - 1] if call else None
    after = replies[call] if call < len(replies) else None
    messages = session.messages
    held_text = compaction.summary + "\n" + "\n".join(m.content for m in compaction.kept)
    earlier, later = messages[start:at], messages[at:end]
    dropped = _dropped_facts(earlier, held_text)
    used_later = _used_later(dropped, later)
    price = call_price(session, after) if after is not None else None
    written = session.cache_writes.get(after) if after is not None else None
    rewrite = None
    if price is not None and written is not None:
        hour = min(session.cache_writes_1h.get(after, 0), written)
        rewrite = round(price.cost(written, 0, written, 0, hour), 6)
    summary_tokens = counter.text(compaction.summary) if compaction.summary else None
    summary_call = None
    before_tokens = session.usage.get(before) if before is not None else None
    if price is not None and before_tokens is not None:
        # the conversation read back from the cache, the summary written as output
        summary_call = round(price.cost(before_tokens, before_tokens, 0, summary_tokens or 0), 6)
    rule_call, rule = _rule_call(session, counter, window, replies, start, at)
    return CompactionRow(
        number=number + 1,
        call=call + 1,
        trigger=compaction.trigger,
        counted_tokens=compaction.pre_tokens,
        before_tokens=before_tokens,
        after_tokens=session.usage.get(after) if after is not None else None,
        rewritten_tokens=written,
        rewrite_usd=rewrite,
        summary_tokens=summary_tokens,
        summary_call_usd=summary_call,
        facts_dropped=len(dropped),
        facts_used_later=tuple(used_later),
        lines_used_later=tuple(_lines_used_later(earlier, later, held_text)),
        user_words_dropped=tuple(_user_words_dropped(earlier, held_text)),
        refetched=tuple(_refetched(earlier, later)),
        rule_call=rule_call,
        rule=rule,
    )


def _dropped_facts(earlier: tuple[Message, ...], held_text: str) -> list[str]:
    """Facts of the messages before the compaction that what it kept does not hold, in order."""
    found: dict[str, None] = {}
    for message in earlier:
        for fact in facts_of_text(said(message)):
            if fact not in held_text:
                found[fact] = None
    return list(found)


def _used_later(dropped: list[str], later: tuple[Message, ...]) -> list[str]:
    """Of ``dropped``, the facts a reply after the compaction uses (in the order they were dropped)."""
    wanted = set(dropped)
    used: set[str] = set()
    for message in later:
        if message.role == "assistant":
            used.update(f for f in facts_of_text(said(message)) if f in wanted)
    return [f for f in dropped if f in used]


def _lines_used_later(earlier: tuple[Message, ...], later: tuple[Message, ...], held_text: str) -> list[str]:
    """Lines a reply after the compaction copies (an edit's old text) that a message before it
    held and the summary does not."""
    before = "\n".join(m.content for m in earlier if m.role in ("tool", "user"))
    out: dict[str, None] = {}
    for message in later:
        if message.role != "assistant":
            continue
        for line in quotes_of_reply(said_parts(message)):
            if len(line) >= QUOTE_CHARS and line in before and line not in held_text:
                out[line] = None
    return list(out)


def _user_words_dropped(earlier: tuple[Message, ...], held_text: str) -> list[str]:
    """Facts of what the user wrote before the compaction (not tool results) that the summary
    left out: the instructions a user finds missing after a compaction."""
    found: dict[str, None] = {}
    for message in earlier:
        if message.role == "user" and message.kind == "original":
            for fact in facts_of_text(message.content):
                if fact not in held_text:
                    found[fact] = None
    return list(found)


def _refetched(earlier: tuple[Message, ...], later: tuple[Message, ...]) -> list[str]:
    """Calls after the compaction repeating a call made before it (same tool, same arguments)."""
    made = {call_key(c.name, c.arguments) for m in earlier for c in m.tool_calls}
    out: dict[str, None] = {}
    for message in later:
        for c in message.tool_calls:
            if call_key(c.name, c.arguments) in made:
                out[f"{c.name}({c.arguments[:80]})"] = None
    return list(out)


def _rule_call(
    session: Session, counter: TokenCounter, window: int, replies: list[int], start: int, at: int
) -> tuple[int | None, str]:
    """The call before which the agent's own rule, on the figures the file records (the
    previous call's input and output, plus our count of what arrived since where the rule
    estimates it), first reaches its threshold in the stretch up to this compaction, or at the
    request the agent would have sent next had it not compacted (the last call's figures and all
    that arrived since); None where it never does (a manual compaction, a compaction the server
    decided, or the agent counted more than the file holds)."""
    if session.format == CLAUDE_CODE:
        rule = rule_of(session.agent_version)
        threshold = autocompact_threshold(window, None, rule)
        words = f"Claude Code {session.agent_version or '?'}: {rule}, at {threshold:,}"
    elif session.format == CODEX:
        rule, threshold = "", default_limit(window)
        words = (
            f"Codex {session.agent_version or '?'}: the last call's total at 90% of {window:,}, {threshold:,}"
        )
    else:
        return None, ""
    calls = [r for r in replies[bisect_left(replies, start) : bisect_left(replies, at)] if r in session.usage]
    if not calls:  # no recorded call before it in its stretch: nothing to put the rule to
        return None, words
    after = bisect_left(replies, at)  # the 0-based number of the call after the compaction
    for previous, following in zip(calls, [*calls[1:], at], strict=True):
        arrived = sum(counter.count(m) for m in session.messages[previous + 1 : following])
        reply = session.output_tokens(previous, counter.count(session.messages[previous]))
        tokens = session.usage[previous] + reply  # the reply counted where the file logs a snapshot
        if rule == ESTIMATE:
            tokens += arrived
        if tokens >= threshold:
            return bisect_left(replies, following) + 1, words
        if following == at and tokens + (0 if rule == ESTIMATE else arrived) >= threshold:
            return after + 2, words  # the request it would have sent next reaches it
    return None, words


# the columns a report's table shows, and the lists beside it
COLUMNS = (
    "compaction",
    "call",
    "trigger",
    "agent counted",
    "prompt before",
    "prompt after",
    "written again",
    "writing again $",
    "summary call $ (est.)",
    "dropped, used later",
    "lines copied later",
    "user's words left out",
    "fetched again",
    "rule's call",
)
LISTS = ("which facts", "which lines", "which words", "which calls")


def table_rows(rows: list[CompactionRow]) -> list[dict[str, object]]:
    """The report as a table's rows (the command line's and the page's): one per compaction,
    the lists cut to ``SHOWN`` with their whole counts."""

    def listed(items: tuple[str, ...]) -> str:
        more = f" (+{len(items) - SHOWN} more)" if len(items) > SHOWN else ""
        return "; ".join(items[:SHOWN]) + more

    return [
        {
            "compaction": r.number,
            "call": r.call,
            "trigger": r.trigger or "-",
            "agent counted": r.counted_tokens,
            "prompt before": r.before_tokens,
            "prompt after": r.after_tokens,
            "written again": r.rewritten_tokens,
            "writing again $": r.rewrite_usd,
            "summary tokens": r.summary_tokens,
            "summary call $ (est.)": r.summary_call_usd,
            "facts dropped": r.facts_dropped,
            "dropped, used later": len(r.facts_used_later),
            "lines copied later": len(r.lines_used_later),
            "user's words left out": len(r.user_words_dropped),
            "fetched again": len(r.refetched),
            "rule's call": r.rule_call,
            "which facts": listed(r.facts_used_later),
            "which lines": listed(r.lines_used_later),
            "which words": listed(r.user_words_dropped),
            "which calls": listed(r.refetched),
        }
        for r in rows
    ]


def report_words(rows: list[CompactionRow]) -> str:
    """The report in a sentence: how many compactions, what they cost, what they dropped."""
    if not rows:
        return "The agent made no compaction of its own in this session."
    costs = [r.cost_usd for r in rows if r.cost_usd is not None]
    cost = (
        f", costing ${sum(costs):,.2f} (writing the prefix again, and the summary calls estimated)"
        if costs
        else ""
    )
    used = sum(len(r.facts_used_later) for r in rows)
    refetched = sum(len(r.refetched) for r in rows)
    rule = rows[0].rule
    matched = sum(
        1
        for r in rows
        if r.trigger != "manual" and r.rule_call is not None and abs(r.rule_call - r.call) <= 2
    )
    automatic = sum(1 for r in rows if r.trigger != "manual")
    return (
        f"The agent compacted {len(rows)} time{'s' if len(rows) != 1 else ''}{cost}: "
        f"{used} fact{'s' if used != 1 else ''} it dropped were used again after, "
        f"{refetched} call{'s' if refetched != 1 else ''} fetched again. "
        + (
            f"Its rule ({rule}) puts {matched} of {automatic} automatic compactions within two calls of where it made them."
            if automatic and rule
            else ""
        )
    )
