"""What the recording agent changed in its own requests, read from the recorded usage: where it
trimmed a request with no line saying so, and how much content it re-attached after each of its
compactions that the transcript does not hold (files read again, CLAUDE.md, the todo list,
Codex's encrypted compaction item). Both are sized as the provider counted them, from the
calibrated counts of what the file holds.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import pairwise
from statistics import median

from playground.engine.session import Session
from playground.engine.tokens import REPLY_PRIMING, TokenCounter
from policies.agent_record import RecordedTrim, agent_summary_message, kept_messages

TRIM = 0.05  # a recorded input this much below the call before's, the history having grown: a trim
MIN_TRIM = 2_000  # tokens; a smaller fall is noise (a cache or tokenizer wobble), not a trim
MIN_REATTACHED = 0  # re-attached content is never negative: a summary longer than counted is not a gap


def recorded_trims(session: Session, counter: TokenCounter) -> tuple[RecordedTrim, ...]:
    """Each recorded call whose input fell by over ``TRIM`` below the call before's, within a
    stretch between two of the agent's compactions (the history only grew), and stayed down at
    the next call, against what the history would hold by then (a single call far off is an
    outlier, not a trim); sized as what its history
    would hold (the call before, as recorded, plus ``counter``'s count of what arrived since)
    less what it recorded."""
    starts = [c.at for c in session.compactions]  # where the agent compacted, in order
    replies = sorted(i for i in session.usage if session.messages[i].role == "assistant")
    growth = _growth(session, counter)
    trims = []
    for (before, at), after in zip(pairwise(replies), [*replies[2:], None], strict=True):
        if bisect_right(starts, at) > bisect_right(starts, before):
            continue  # the agent compacted between: the fall is its compaction's
        recorded = session.usage[at]
        later = session.usage[after] if after is not None else recorded
        short = session.usage[before] + growth(before, at) - recorded
        held_later = session.usage[before] + (growth(before, after) if after is not None else 0)
        fell = recorded < (1 - TRIM) * session.usage[before] and later < (1 - TRIM) * held_later
        if fell and short >= MIN_TRIM:
            trims.append(RecordedTrim(at, short))
    return tuple(trims)


def _growth(session: Session, counter: TokenCounter):
    """``growth(a, b)``: what the messages from raw index ``a`` (a reply) to ``b`` add to a
    request, as ``counter`` counts them."""
    running, total = [0], 0
    for message in session.messages:
        total += counter.count(message)
        running.append(total)
    return lambda a, b: running[b] - running[a]


def reattached(session: Session, counter: TokenCounter, trims: tuple[RecordedTrim, ...]) -> dict[str, int]:
    """Per compaction of the agent's (keyed by the text of the summary message its own policy
    leaves, ``agent_summary_message``): the tokens its requests after it held beyond the
    summary and the messages since, as the provider counted them: the median over the calls of
    its stretch that precede any trim. ``counter`` is calibrated (its head holds the hidden
    prefix); a compaction with no such call re-attaches nothing known."""
    out: dict[str, int] = {}
    fixed = counter.tools(session.tools) + REPLY_PRIMING
    trimmed = {t.at for t in trims}
    bounds = [*(c.at for c in session.compactions), len(session.messages)]
    for number, compaction in enumerate(session.compactions):
        summary = agent_summary_message(compaction, number, ())
        base = fixed + counter.count(summary) + counter.total(kept_messages(compaction))
        gaps, held = [], 0
        for index in range(compaction.at, bounds[number + 1]):
            message = session.messages[index]
            if index in trimmed:
                break
            if message.role == "assistant" and index in session.usage:
                gaps.append(session.usage[index] - base - held)
            held += counter.count(message)
        if gaps:
            out[summary.content] = max(round(median(gaps)), MIN_REATTACHED)
    return out
