"""Replays kept for a server: shared by every page run and every browser, bounded in bytes
(each replay's tables, and once each session it pins) and in entries per browser, a closed
browser's replays let go on a timer; and a small thread-safe LRU for other shared results.
The page (``ui.cache``) owns one store and says which browser sessions are still open."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from playground.engine.replay import ReplayResult
from playground.engine.session import Session
from playground.limits import LIMITS
from playground.measures.figures import Totals

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Replayed:
    result: ReplayResult
    turns: pd.DataFrame
    events: pd.DataFrame
    totals: Totals
    key: tuple = ()  # what it is a replay of: the session's content, the stack, the scenario


def replay_bytes(replayed: Replayed) -> int:
    """What keeping a replay costs, roughly: its per-turn references and its tables (the
    messages themselves belong to the session, which is cached apart)."""
    result = replayed.result
    log = result.turns[0].log.references() if result.turns else 0
    references = log + sum(len(t.tokens_by_bucket) for t in result.turns)
    frames = replayed.turns.memory_usage(deep=True).sum() + replayed.events.memory_usage(deep=True).sum()
    return 8 * references + 400 * len(result.turns) + 200 * len(result.events) + int(frames)


class Lru:
    """A map of at most ``size`` entries, the least recently used dropped first; safe to
    share between the page's runs and the threads of long analyses."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple):
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: tuple, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class ReplayStore:
    """The most recent replays, shared by every rerun; an LRU so a slow replay can report
    progress to the page (streamlit's cached functions cannot draw).

    Bounded in bytes for the whole server (``max_store_bytes``), counting each replay's tables
    and, once per session however many replays it has, the session it replayed (each pins
    its session: a 16 MB transcript under a 4 KiB replay was invisible to the bound); and in
    entries per browser session (``max_replays_per_browser``): one visitor's sweep cannot push
    out everyone else's replays, nor grow the server without end. A closed browser session's
    replays go at the next store or within ``SWEEP_SECONDS`` (``sweep``, on a timer), whichever
    is first (``is_live`` says whether it is open)."""

    def __init__(
        self,
        max_bytes: int | None = None,
        per_owner: int | None = None,
        is_live: Callable[[str], bool] | None = None,
    ) -> None:
        self.max_bytes = max_bytes or LIMITS.max_store_bytes
        self.per_owner = per_owner or LIMITS.max_replays_per_browser
        self.is_live = is_live or (lambda owner: True)
        self._items: OrderedDict[tuple, tuple[Replayed, int]] = OrderedDict()
        self._owned: dict[str, list[tuple]] = {}
        self._sessions: dict[str, list[int]] = {}  # content hash -> [its bytes, replays kept of it]
        self.bytes = 0
        self._lock = threading.Lock()
        self._timer: threading.Thread | None = None

    def get(self, key: tuple) -> Replayed | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, key: tuple, value: Replayed, owner: str = "") -> None:
        size = replay_bytes(value)
        session = value.result.session
        with self._lock:
            if key in self._items:
                return
            kept = self._sessions.get(session.content_hash)
            pinned = 0 if kept else session_bytes(session)
            if size + pinned > self.max_bytes:  # served once, never kept
                return
            self._drop_closed(but=owner)
            owned = self._owned.setdefault(owner, [])
            while len(owned) >= self.per_owner:
                self._drop(owned.pop(0))
            self._items[key] = (value, size)
            owned.append(key)
            self.bytes += size
            kept = self._sessions.setdefault(session.content_hash, [session_bytes(session), 0])
            if kept[1] == 0:
                self.bytes += kept[0]
            kept[1] += 1
            while self.bytes > self.max_bytes:
                self._drop(next(iter(self._items)))

    def sweep(self) -> None:
        """Let go of the replays of every browser session that has closed."""
        with self._lock:
            self._drop_closed(but=None)

    def sweep_every(self, seconds: float) -> None:
        """Sweep on a timer, from a daemon thread started once (a closed browser's replays went
        only when another browser stored one)."""
        with self._lock:
            if self._timer is not None:
                return
            self._timer = threading.Thread(target=self._sweeping, args=(seconds,), daemon=True)
            self._timer.start()

    def _sweeping(self, seconds: float) -> None:
        while True:
            time.sleep(seconds)
            try:
                self.sweep()
            except Exception:  # never let the timer die of one fault: said in the server's log
                _log.exception("sweeping the replay store failed")

    def _drop_closed(self, but: str | None) -> None:
        for closed in [o for o in self._owned if o and o != but and not self.is_live(o)]:
            for gone in self._owned.pop(closed):
                self._drop(gone)

    def _drop(self, key: tuple) -> None:
        entry = self._items.pop(key, None)
        if entry is not None:
            self.bytes -= entry[1]
            digest = entry[0].result.session.content_hash
            kept = self._sessions[digest]
            kept[1] -= 1
            if kept[1] == 0:  # its last replay gone: the session is no longer held here
                self.bytes -= kept[0]
                del self._sessions[digest]
        for owned in self._owned.values():
            if key in owned:
                owned.remove(key)

    def __len__(self) -> int:
        return len(self._items)


SWEEP_SECONDS = 60.0


def session_bytes(session: Session) -> int:
    """What keeping a session costs, roughly: its text and a Python object per message and call."""
    return sum(
        240
        + len(m.content)
        + len(m.thinking)
        + sum(120 + len(c.id) + len(c.name) + len(c.arguments) for c in m.tool_calls)
        for m in session.messages
    )
