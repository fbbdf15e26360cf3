"""What a stack made the agent lose, per turn: re-fetches, reference loss, copied lines lost,
standing rules lost.

A *copied line* is a line of at least ``QUOTE_CHARS`` characters that a reply writes verbatim
from an earlier tool result or user message (an Edit's ``old_string`` copied from a file the
agent read, an error line quoted): a request that no longer holds it would have left the agent
unable to copy it.

Tokens saved is half of the honest metric; this is the other half. Computed from a
replay's result (after it, not inside it), so a replay stays close to tokenizing once.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from playground.engine.replay import ReplayResult, Turn
from playground.engine.session import Session
from playground.engine.validity import STANDING_RULES
from playground.measures.fact_index import NONE, FactFinder
from policies.facts import facts_of_text, syntax_only
from policies.messages import NOT_JSON, ORIGINAL, Message, parsed_arguments, said, said_parts


@dataclass(frozen=True)
class TurnQuality:
    turn: int
    refetched: tuple[str, ...]  # calls repeated because their earlier result was gone
    lost_facts: tuple[str, ...]  # facts the reply uses, seen earlier, absent from the request
    standing_rules_lost: bool
    lost_quotes: tuple[str, ...] = ()  # lines the reply copies from an earlier result, absent


QUOTE_CHARS = 24  # a line this long copied verbatim is no coincidence


def quotes_of_reply(parts: list[str]) -> list[str]:
    """The lines of a reply (its text and each call's arguments, decoded) long enough to be
    copied rather than written, and more than a language's syntax (``} else if (x) {`` holds a
    name; ``} else {`` alone does not): each once, stripped of the indentation around it."""
    found: dict[str, None] = {}
    for part in parts:
        for line in part.splitlines():
            line = line.strip()
            if len(line) >= QUOTE_CHARS and not syntax_only(line):
                found[line] = None
    return list(found)


def call_key(name: str, arguments: str) -> tuple[str, str]:
    data = parsed_arguments(arguments)
    return name, arguments.strip() if data is NOT_JSON else json.dumps(data, sort_keys=True)


def calls_and_earlier_results(raw: Sequence[Message]) -> dict[int, list[tuple[str, list[int]]]]:
    """Raw index of each reply -> per call: how it is shown, and the raw indices of the results
    that the same call (name, normalized arguments) got before it. One pass, a key per call."""
    results: dict[tuple[str, str], list[int]] = {}
    call_of: dict[str, tuple[str, str]] = {}
    calls: dict[int, list[tuple[str, list[int]]]] = {}
    for index, message in enumerate(raw):
        shown = []
        for call in message.tool_calls:
            key = call_of[call.id] = call_key(call.name, call.arguments)
            shown.append((f"{call.name}({call.arguments})", list(results.get(key, ()))))
        if message.role == "assistant":
            calls[index] = shown
        for call_id in message.tool_call_ids:
            if call_id in call_of:
                results.setdefault(call_of[call_id], []).append(index)
    return calls


@dataclass(frozen=True)
class _SessionFacts:
    """What the quality pass needs from a session whatever the stack: computed once per session."""

    reply_facts: dict[int, tuple[int, ...]]  # raw index of a reply -> its facts, in order
    reply_quotes: dict[int, tuple[int, ...]]  # raw index of a reply -> its long lines (as facts)
    copied_from: list[int]  # per fact: the first tool result or user message holding it
    finder: FactFinder
    raw_held: list[np.ndarray]  # per raw message: the reply facts it holds (FactFinder.held)
    first_seen: list[int]  # per fact: the first raw message holding it (len(raw) for none)
    # raw index of a reply -> per call: how it is shown, and the raw indices of its earlier results
    calls: dict[int, list[tuple[str, list[int]]]]


# a session's facts, by the id of the session while it lives: one owner, shared by the threads of a
# server (a replay per browser, sweeps and searches beside them), each entry written once
_SESSIONS: dict[int, _SessionFacts] = {}
_SESSIONS_LOCK = threading.Lock()


def _session_facts(session: Session) -> _SessionFacts:
    known = _SESSIONS.get(id(session))
    if known is not None:
        return known
    raw = session.messages
    texts, replies, lines = [], {}, {}
    for i, m in enumerate(raw):
        parts = said_parts(m)  # a call's arguments decoded once, for its facts and its text
        texts.append(" ".join(parts))
        if m.role == "assistant":
            replies[i] = facts_of_reply(parts)
            lines[i] = quotes_of_reply(parts)
    wanted = (fact for found in (*replies.values(), *lines.values()) for fact in found)
    finder = FactFinder(wanted)
    ids = {fact: i for i, fact in enumerate(finder.facts)}
    # a text read again (the same file, the same output) is searched once
    by_text: dict[str, np.ndarray] = {}
    raw_held = []
    for text in texts:
        held = by_text.get(text)
        if held is None:
            held = by_text[text] = finder.held(text)
        raw_held.append(held)
    first_seen = _first_seen(raw_held, len(finder.facts))
    sources = [h if m.role in ("tool", "user") else NONE for h, m in zip(raw_held, raw, strict=True)]
    copied_from = _first_seen(sources, len(finder.facts))
    reply_facts = {i: tuple(ids[f] for f in facts) for i, facts in replies.items()}
    reply_quotes = {i: tuple(ids[q] for q in quotes) for i, quotes in lines.items()}
    known = _SessionFacts(
        reply_facts, reply_quotes, copied_from, finder, raw_held, first_seen, calls_and_earlier_results(raw)
    )
    with _SESSIONS_LOCK:  # two threads may have computed it: the first one kept wins
        kept = _SESSIONS.setdefault(id(session), known)
        if kept is known:  # an id is unique while its session lives: let go when it does not
            weakref.finalize(session, _forget, id(session))
    return kept


def _forget(key: int) -> None:
    with _SESSIONS_LOCK:
        _SESSIONS.pop(key, None)


def _first_seen(held: list[np.ndarray], facts: int) -> list[int]:
    """Per fact, the first of the messages (``held``: each one's facts) that holds it; the
    number of messages for a fact none holds."""
    first = np.full(facts, len(held), dtype=np.int64)
    if held:
        flat = np.concatenate(held)
        owners = np.repeat(np.arange(len(held)), [len(h) for h in held])
        np.minimum.at(first, flat, owners)  # unbuffered: each fact keeps its smallest owner
    return first.tolist()


def facts_of_reply(parts: list[str]) -> list[str]:
    """The facts a reply uses, from the parts ``said_parts`` gives in order: its thinking, its
    text (the very facts policies cutting by a reply's facts read, kept by ``facts_of_text``),
    then each call's arguments; each fact once."""
    found: dict[str, None] = {}
    for part in parts:
        found.update(dict.fromkeys(facts_of_text(part)))
    return list(found)


def per_turn(result: ReplayResult) -> list[TurnQuality]:
    """Linear in the session: each message's facts are found once, and per turn only the
    request's tail (what it did not share with the previous request) is looked at."""
    facts = _session_facts(result.session)
    raw = result.session.messages
    made: dict[int, tuple[Message, np.ndarray]] = {}  # id -> (message kept alive, its facts)

    def held(message: Message) -> np.ndarray:
        source = message.source
        if len(source) == 1 and source[0] < len(raw) and raw[source[0]] is message:
            return facts.raw_held[source[0]]
        known = made.get(id(message))
        if known is None:
            known = made[id(message)] = (message, facts.finder.held(said(message)))
        return known[1]

    holders = np.zeros(len(facts.finder.facts), dtype=np.int32)  # request positions holding each fact
    intact: dict[int, int] = {}  # raw index -> request positions holding it as recorded
    positions: list[_Held] = []  # per request position
    quality = []

    def count(entries: list[_Held], step: int) -> None:
        for entry in entries:
            holders[entry.facts] += step  # a message holds each of its facts once: no index repeats
            if entry.original is not None:
                intact[entry.original] = intact.get(entry.original, 0) + step

    for turn in result.turns:
        # the messages after the shared prefix leave; those the tail brings back (moved up by
        # a stub or a drop before them, not changed) keep their counts
        leaving: dict[int, list[_Held]] = {}
        for entry in positions[turn.shared :]:
            leaving.setdefault(id(entry.message), []).append(entry)
        del positions[turn.shared :]
        entering = []
        for message in turn.tail:
            back = leaving.get(id(message))
            if back:
                positions.append(back.pop())
                continue
            original = message.source[0] if message.kind == ORIGINAL and len(message.source) == 1 else None
            entering.append(_Held(message, held(message), original))
            positions.append(entering[-1])
        count(entering, 1)
        count([entry for entries in leaving.values() for entry in entries], -1)
        quality.append(_turn(turn, facts, holders, intact))
    return quality


class _Held(NamedTuple):
    """A request position: its message, the facts it holds, the raw index it keeps intact."""

    message: Message
    facts: np.ndarray  # FactFinder.held
    original: int | None


def _turn(turn: Turn, facts: _SessionFacts, holders: np.ndarray, intact: dict[int, int]) -> TurnQuality:
    refetched = tuple(
        label
        for label, earlier in facts.calls[turn.reply_index]
        if earlier and not any(intact.get(i) for i in earlier)
    )
    lost = tuple(
        facts.finder.facts[fact]
        for fact in facts.reply_facts[turn.reply_index]
        if facts.first_seen[fact] < turn.reply_index and not holders[fact]
    )
    standing_lost = any(v.rule == STANDING_RULES for v in turn.violations)
    quotes = tuple(
        facts.finder.facts[quote]
        for quote in facts.reply_quotes[turn.reply_index]
        if facts.copied_from[quote] < turn.reply_index and not holders[quote]
    )
    return TurnQuality(turn.number, refetched, lost, standing_lost, quotes)
