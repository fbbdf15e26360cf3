"""What the recording agent did to its own context, as its transcript records it: the
compactions it ran (before which message, the summary it wrote, what it kept) and the requests
it trimmed without a line saying so. An agent's own policy, replayed, follows this record while
the replay's requests are still the agent's; elsewhere it follows its rule.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from policies.messages import STANDING_ROLES, SUMMARY, Message, sources_of


class Reports(Protocol):
    """What a policy reports its actions to (a compile event)."""

    def report(self, action: str, messages: Sequence[int] = (), detail: str = "") -> None: ...


@dataclass(frozen=True)
class RecordedCompaction:
    """A compaction the recording agent ran itself: before raw message ``at`` it replaced
    what it sent with ``summary`` (Claude Code's compact_boundary and its summary line,
    Codex's compacted item); ``kept`` holds what it sent besides, where the file says."""

    at: int
    trigger: str = ""  # auto, manual, or as the file says
    pre_tokens: int | None = None  # the context's size before, as the agent counted it
    summary: str = ""
    kept: tuple[Message, ...] = ()


@dataclass(frozen=True)
class RecordedTrim:
    """A request the agent sent smaller than its history, with no line saying why (Claude Code
    2.0 clears old tool results once a call passes about 135,000 tokens): the reply at raw
    index ``at`` answered a request ``tokens`` smaller than the history before it, as the
    provider counts (the recorded input against the one before and what arrived since)."""

    at: int
    tokens: int


@dataclass(frozen=True)
class AgentRecord:
    """The record, as a policy sees it right before one request.

    One per replay, the same for every request: where a request stands (the raw index of the
    reply it gets, and of the reply before) and whether the replay is still the agent's are
    the compile event's (``reply_index``, ``previous_reply``, ``following_record``)."""

    format: str  # the transcript's format: the agent whose record this is
    version: str  # the agent's release, as the file names it ("" where it does not)
    compactions: tuple[RecordedCompaction, ...] = ()
    trims: tuple[RecordedTrim, ...] = ()
    replies: tuple[int, ...] = ()  # the raw index of every reply of the session, in order
    compaction_points: tuple[int, ...] = ()  # where each compaction was made, in order

    def __post_init__(self) -> None:
        if len(self.compaction_points) != len(self.compactions):  # made once, carried by replace()
            object.__setattr__(self, "compaction_points", tuple(c.at for c in self.compactions))

    def compaction_due(self, previous_reply: int, reply_index: int) -> tuple[int, RecordedCompaction] | None:
        """The agent's compaction made right before this request (after the previous reply),
        with its place in the record (the last, where it made several in a row: the request is
        what that one left); None where it made none here."""
        last = bisect_right(self.compaction_points, reply_index) - 1  # found, not scanned for
        if last < 0 or self.compactions[last].at <= previous_reply:
            return None
        return last, self.compactions[last]

    def trim_due(self, reply_index: int) -> RecordedTrim | None:
        """The agent's trim of the request answered at ``reply_index``, where it made one (the
        trims are in order)."""
        place = bisect_left(self.trims, reply_index, key=lambda t: t.at)
        return self.trims[place] if place < len(self.trims) and self.trims[place].at == reply_index else None

    def nearest_compaction(
        self, messages: Sequence[Message], reply_index: int, calls: int = 2
    ) -> tuple[int, RecordedCompaction] | None:
        """The agent's compaction within ``calls`` calls of this request (with its place in the
        record) whose summary ``messages`` do not hold yet: a rule that fires near where the
        agent compacted leaves the agent's own summary there, not a stand-in's."""
        held = {m.content for m in messages if m.kind == SUMMARY}
        here = bisect_left(self.replies, reply_index)
        for number, compaction in enumerate(self.compactions):
            if agent_summary_message(compaction, number, ()).content in held:
                continue
            if abs(bisect_left(self.replies, compaction.at) - here) <= calls:
                return number, compaction
        return None


def kept_after(messages: Sequence[Message], at: int) -> list[Message]:
    """The messages of ``messages`` that came at or after raw index ``at``: what an agent's
    compaction before message ``at`` leaves in place (made-up messages, without a source,
    go with what they stand for: none is left)."""
    return [m for m in messages if m.source and min(m.source) >= at]


EARLIER = (  # what stands for the conversation a mid-session file does not hold, and how large it is
    "[the conversation before this file's first line: about {tokens:,} tokens the file does not hold]"
)
_EARLIER = re.compile(r"\[the conversation before this file's first line: about ([\d,]{1,14}) tokens")


def earlier_block(tokens: int) -> Message:
    """The message a mid-session file's earlier conversation is held as (made here: no source)."""
    return Message(role="user", content=EARLIER.format(tokens=tokens))


def earlier_tokens(message: Message) -> int | None:
    """The size an earlier-conversation block says it stands for; None for any other message (a
    transcript's own message always has a source: its text claims nothing)."""
    if message.source or message.role != "user" or not message.content.startswith("[the conversation"):
        return None
    found = _EARLIER.match(message.content)
    return int(found.group(1).replace(",", "")) if found else None


ENCRYPTED = (  # what stands for a compaction whose summary the file does not hold (Codex's remote one)
    "[compaction {number}: the conversation so far, as the agent's own summary; the file holds it "
    "encrypted, so its size is taken from the recorded usage]"
)


def agent_summary_message(
    compaction: RecordedCompaction, number: int, replaced: Sequence[Message]
) -> Message:
    """The message an agent's own policy leaves for the agent's compaction ``number``: its
    summary as the file records it, in a user message (Claude Code's and Codex's role for it);
    where the file holds no text (Codex compacts on the server, encrypted), a line saying so."""
    text = compaction.summary or ENCRYPTED.format(number=number + 1)
    return Message(
        role="user",
        content=text,
        kind=SUMMARY,
        source=sources_of(replaced),
        compacted_count=len(replaced),
    )


def kept_messages(compaction: RecordedCompaction) -> list[Message]:
    """What the agent's compaction kept beside its summary (Codex's recent user messages), less
    the standing rules every request opens with anyway."""
    return [m for m in compaction.kept if m.role not in STANDING_ROLES]


def as_the_agent_compacted(
    messages: Sequence[Message], number: int, compaction: RecordedCompaction
) -> list[Message]:
    """``messages`` as the agent's compaction ``number`` left them: what it kept beside the
    summary, its summary, then the messages that came after the point it compacted at."""
    after = kept_after(messages, compaction.at)
    left = {id(m) for m in after}
    replaced = [m for m in messages if id(m) not in left]
    return [*kept_messages(compaction), agent_summary_message(compaction, number, replaced), *after]


def leave_agent_summary(
    event: Reports, messages: Sequence[Message], number: int, compaction: RecordedCompaction, why: str
) -> list[Message]:
    """``messages`` as the agent's compaction ``number`` left them (``as_the_agent_compacted``),
    reported as a compaction ``why`` it was made here."""
    out = as_the_agent_compacted(messages, number, compaction)
    summary = next(m for m in out if m.kind == SUMMARY)
    later = len(out) - 1 - len(kept_messages(compaction))
    event.report(
        "compact",
        summary.source,
        f"{summary.compacted_count} message(s) compacted {why}: the agent's own summary {number + 1}"
        + (f", {later} later message(s) kept" if later else ""),
    )
    return out
