"""Must-keep facts: what the user says the agent must never lose, checked at every turn.

The facts a reply happens to repeat (``playground.measures.quality``) are a guess at what mattered;
a must-keep fact is the user's own statement of it, the one loss measure they fully
control. Each is plain text (matched ignoring case) or a regular expression written
between slashes, ``/EQ[0-9A-Z]{4}/``. At each turn a fact is

- ``unseen`` while no raw message before the turn's reply holds it,
- ``held`` when some message of the request holds it,
- ``lost`` when the raw history held it and the request no longer does.

A pattern comes from an uploaded config as easily as from the person at the keyboard, so
matching runs with a time budget (``max_must_keep_seconds``) and a pattern that exceeds it
is refused with its name, never left to spin.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from playground.engine.replay import ReplayResult
from playground.limits import LIMITS, over
from policies.base import shown
from policies.messages import Message, said

if TYPE_CHECKING:  # pandas is imported where a frame is built, regex where a fact is declared
    import pandas as pd
    import regex

UNSEEN, HELD, LOST = "unseen", "held", "lost"
MAX_LENGTH = 500  # characters in one declared fact
MAX_REPEAT = 1_000  # copies a pattern's counted repeats may ask for, nested ones multiplied
_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


class MustKeepError(ValueError):
    """A declared fact that cannot be used; the message names it."""


@dataclass(frozen=True)
class MustKeep:
    text: str  # as declared: "fixed-term contract" or "/EQ[0-9A-Z]{4}/"
    pattern: regex.Pattern


def _is_regex(text: str) -> bool:
    return len(text) > 2 and text.startswith("/") and text.endswith("/")


def repeat_copies(pattern: str) -> int:
    """The most copies of one atom a pattern's counted repeats (``{m}``, ``{m,n}``, ``{m,}``)
    make the compiler write out, nested repeats multiplied: read before compiling, which
    would otherwise take memory in proportion (``x{100000000}`` takes gigabytes)."""
    groups = [1]  # per open group: the most copies inside it so far
    last = 1  # copies of the atom before the current position (a group's: its inside)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i, last = i + 2, 1
            continue
        if char == "[":  # a class is one atom; a ] first in it is literal
            j = i + 2 if pattern[i + 1 : i + 2] in ("]", "^") else i + 1
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i, last = j + 1, 1
            continue
        if char == "(":
            groups.append(1)
        elif char == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] = max(groups[-1], last)
            i += 1
            continue
        elif char == "{" and (count := _COUNT.match(pattern, i)):
            low, high = count.group(1), count.group(2)
            times = (
                max(int(low or 0), int(high) if high else 0) if count.group(0).count(",") else int(low or 1)
            )
            last *= times
            groups[-1] = max(groups[-1], last)
            i = count.end()
            continue
        last = 1
        i += 1
    return max(groups[0], last)


def parse(items: Iterable[object], where: str = "must_keep") -> tuple[MustKeep, ...]:
    """Declared facts, validated; MustKeepError names the entry (1-based) and what is wrong."""
    import regex  # matching with a time budget, which re lacks

    facts: list[MustKeep] = []
    for n, item in enumerate(items, start=1):
        if n > LIMITS.max_must_keep:
            raise MustKeepError(f"{where}: {over('max_must_keep', 'more facts are declared')}")
        if not isinstance(item, str):
            raise MustKeepError(f"{where} entry {n}: expected text or /regex/, got {shown(item)}")
        text = item.strip()
        if not text:
            raise MustKeepError(f"{where} entry {n}: empty")
        if len(text) > MAX_LENGTH:
            raise MustKeepError(f"{where} entry {n}: longer than {MAX_LENGTH} characters")
        if _is_regex(text) and (copies := repeat_copies(text[1:-1])) > MAX_REPEAT:
            raise MustKeepError(
                f"{where} entry {n} ({shown(text)}): its counted repeats ask for {copies:,} copies "
                f"(at most {MAX_REPEAT:,}, nested repeats multiplied): compiling it would exhaust memory"
            )
        try:
            pattern = (
                regex.compile(text[1:-1]) if _is_regex(text) else regex.compile(regex.escape(text), regex.I)
            )
        except regex.error as error:
            raise MustKeepError(
                f"{where} entry {n} ({shown(text)}): not a valid regular expression ({error})"
            ) from None
        if any(f.text == text for f in facts):
            raise MustKeepError(f"{where} entry {n} ({shown(text)}): declared twice")
        facts.append(MustKeep(text, pattern))
    return tuple(facts)


def lines(text: str) -> list[str]:
    """The facts a text box holds, one per line (blank lines ignored)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


class _Matcher:
    """Whether a message holds a fact, decided once per message object and fact; every search
    shares one deadline."""

    def __init__(self, facts: Sequence[MustKeep]) -> None:
        self.facts = facts
        self.deadline = time.monotonic() + LIMITS.max_must_keep_seconds
        self._seen: dict[int, tuple[bool, ...]] = {}

    def holds(self, message: Message) -> tuple[bool, ...]:
        known = self._seen.get(id(message))
        if known is None:
            text = said(message)
            known = tuple(self._search(fact, text) for fact in self.facts)
            self._seen[id(message)] = known  # the result keeps every message alive: ids stay unique
        return known

    def _search(self, fact: MustKeep, text: str) -> bool:
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            return fact.pattern.search(text, timeout=left) is not None
        except TimeoutError:
            what = f"must_keep {shown(fact.text)}: matching it runs past the time limit on this session; simplify it"
            raise MustKeepError(str(over("max_must_keep_seconds", what))) from None


def state_rows(result: ReplayResult, facts: Sequence[MustKeep]) -> list[tuple[int, str, str]]:
    """One ``(turn, fact as declared, state)`` per turn and fact.

    Incremental like the engine: a turn's request shares its opening messages with the
    previous one, so only its tail is searched and the holders in the shared part carry over."""
    rows: list[tuple[int, str, str]] = []
    if not facts:
        return rows
    matcher = _Matcher(facts)
    raw = result.session.messages
    first_seen = [len(raw)] * len(facts)  # raw index of the first message holding each fact
    scanned = 0
    holders: list[list[int]] = [[] for _ in facts]  # positions in the request holding each fact
    for turn in result.turns:
        while scanned < turn.reply_index:
            for f, held in enumerate(matcher.holds(raw[scanned])):
                if held and first_seen[f] == len(raw):
                    first_seen[f] = scanned
            scanned += 1
        for positions in holders:
            del positions[bisect.bisect_left(positions, turn.shared) :]
        for offset, message in enumerate(turn.tail, start=turn.shared):
            for f, held in enumerate(matcher.holds(message)):
                if held:
                    holders[f].append(offset)
        for f, fact in enumerate(facts):
            state = HELD if holders[f] else LOST if first_seen[f] < turn.reply_index else UNSEEN
            rows.append((turn.number, fact.text, state))
    return rows


def states(result: ReplayResult, facts: Sequence[MustKeep]) -> pd.DataFrame:
    """``state_rows`` as a frame: ``turn``, ``fact`` (as declared), ``state``."""
    import pandas as pd

    return pd.DataFrame(state_rows(result, facts), columns=["turn", "fact", "state"])


def per_turn(rows: Iterable[tuple[int, str, str]], turns: Sequence[int]) -> tuple[list[int], list[str]]:
    """Per turn of ``turns``, from ``(turn, fact, state)`` rows: how many declared facts are
    lost, and which (joined by "; ")."""
    lost: dict[int, list[str]] = {}
    for turn, fact, state in rows:
        if state == LOST:
            lost.setdefault(turn, []).append(fact)
    named = [lost.get(turn, []) for turn in turns]
    return [len(n) for n in named], ["; ".join(n) for n in named]
