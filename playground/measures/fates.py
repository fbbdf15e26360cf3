"""What became of each raw message at a turn: intact, clipped, stubbed, summarized, dropped, pinned."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from playground.engine.replay import ReplayResult, Turn
from policies.messages import CLIPPED, DECISION_LOG, ORIGINAL, STUB, SUMMARY, Message

INTACT, PINNED, DROPPED = "intact", "pinned", "dropped"
STUBBED, SUMMARIZED = "stubbed", "summarized"
FATES = (PINNED, INTACT, CLIPPED, STUBBED, SUMMARIZED, DROPPED)
_KIND_FATE = {
    ORIGINAL: INTACT,
    CLIPPED: CLIPPED,
    STUB: STUBBED,
    SUMMARY: SUMMARIZED,
    DECISION_LOG: SUMMARIZED,
}


@dataclass(frozen=True)
class Placed:
    """A message shown at a turn, with its fate and its token count."""

    position: int
    message: Message
    fate: str
    tokens: int


def fate_of(message: Message, pinned: bool = False) -> str:
    """The fate a message in a compiled request stands for."""
    return PINNED if pinned else _KIND_FATE.get(message.kind, INTACT)


def raw_fates(result: ReplayResult, turn: Turn) -> list[Placed]:
    """Every raw message before the turn's reply, with what the turn's request made of it.

    A raw message several made messages stand for takes the gentlest fate among them
    (intact beats clipped beats stubbed beats summarized).
    """
    order = {fate: rank for rank, fate in enumerate(FATES)}
    best: dict[int, str] = {}
    for message in turn.context:
        fate = fate_of(message)
        for index in message.source:
            if index not in best or order[fate] < order[best[index]]:
                best[index] = fate
    count = result.counter.count
    pinned = len(turn.pinned)
    raw = result.session.messages[: turn.reply_index]
    return [Placed(i, m, PINNED if i < pinned else best.get(i, DROPPED), count(m)) for i, m in enumerate(raw)]


def request_fates(result: ReplayResult, turn: Turn) -> list[Placed]:
    """The request sent at the turn, each message with the fate it stands for."""
    count = result.counter.count
    pinned = len(turn.pinned)
    return [Placed(i, m, fate_of(m, i < pinned), count(m)) for i, m in enumerate(turn.request)]


# what the side-by-side view can step between: name -> which rows of the events frame count
STEP_KINDS: dict[str, Callable[[pd.DataFrame], pd.Series]] = {
    "any event": lambda e: e["action"] != "idle",
    "compaction": lambda e: e["action"].isin(("compact", "fold")),
    "cache break": lambda e: e["action"] == "cache_break",
    "the agent's own compaction": lambda e: e["action"] == "recorded_compaction",
    "violation": lambda e: e["policy"] == "validity",
    "stub": lambda e: e["action"] == "stub",
    "clip": lambda e: e["action"] == "clip",
}


def event_turns(events: pd.DataFrame, kind: str = "any event") -> list[int]:
    """Turns holding an event of ``kind`` (a STEP_KINDS name), for jumping between them."""
    if events.empty:
        return []
    return sorted(set(events.loc[STEP_KINDS[kind](events), "turn"].astype(int)))
