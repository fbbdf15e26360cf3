"""Cached work shared across reruns: parsed sessions, token counters, replays.

Keys are content hashes and plain-data specs; cached values are immutable, so one copy
serves every rerun and every user of the server.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from playground.analyses.own_policy import OwnPolicy, needs_reference, own_stack
from playground.engine.replay import ReplayResult
from playground.engine.session import Session, TranscriptError
from playground.engine.tokens import TokenCounter
from playground.formats import read_bytes, read_path
from playground.limits import LIMITS
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.figures import Totals
from playground.measures.metrics import events_frame
from playground.models.plausible import plausible
from playground.money.cost import RecordedBill, recorded_bill
from playground.summaries.base import SummaryStats
from policies.base import shown
from policies.registry import PolicySpec

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Loaded:
    sessions: tuple[Session, ...] = ()
    error: str | None = None
    bill: RecordedBill | None = None  # every call the file records, once per file (not per rerun)


@st.cache_resource(show_spinner=False, max_entries=16)
def _load(digest: str, name: str, _data: bytes, _beside: tuple[tuple[str, bytes], ...] = ()) -> Loaded:
    return _loaded(lambda: read_bytes(_data, name, dict(_beside)), name)


def _loaded(read: Callable[[], list[Session]], name: str) -> Loaded:
    """The sessions ``read`` finds, each call's usage held to what its model could make, and the
    file's recorded bill; or the reader's message."""
    try:
        sessions = tuple(plausible(read()))
        return Loaded(sessions, bill=recorded_bill(sessions))
    except TranscriptError as error:
        return Loaded(error=str(error))
    except Exception:  # a fault of ours, not of the file: said plainly, the server's log has it
        _log.exception("reading %r failed", name[:200])
        return Loaded(
            error=f"{shown(name)}: the playground failed to read this file (its fault, not the file's)"
        )


def load(data: bytes, name: str, beside: tuple[tuple[str, bytes], ...] = ()) -> Loaded:
    """Sessions in an uploaded or sample file, or the reader's message; parsed once per content
    (and per content of the files uploaded beside it that its reader uses)."""
    digest = hashlib.sha256(data)
    for companion, content in beside:
        digest.update(companion.encode() + b"\0" + hashlib.sha256(content).digest())
    return _load(digest.hexdigest(), name, data, beside)


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_file(path: str, mtime_ns: int, size: int) -> Loaded:
    return _loaded(lambda: read_path(path), Path(path).name)  # as the CLI reads a path


def load_path(path: Path) -> Loaded:
    """A sample, or a session of this machine's agents where the app runs on the user's own
    machine (``playground app``): read and parsed once until it changes on disk."""
    try:
        stat = path.stat()
    except OSError as error:
        return Loaded(error=f"{shown(str(path))}: {error.strerror or error}")
    return _load_file(str(path), stat.st_mtime_ns, stat.st_size)


@st.cache_resource(show_spinner=False, max_entries=8)
def counter_for(model: str) -> TokenCounter:
    """One token counter per model, for the models in use lately (a name an upload or a config
    gives is any text): each distinct message is tokenized once while its model is in use, and
    what a counter holds is bounded (``max_counted_chars``)."""
    return TokenCounter(model)


@dataclass(frozen=True)
class Replayed:
    result: ReplayResult
    turns: pd.DataFrame
    events: pd.DataFrame
    totals: Totals
    # the last must-keep check of this replay, by the facts as declared (ui.must_keep_panel)
    must_keep_checked: dict = field(default_factory=dict, compare=False, repr=False)


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
        self.is_live = is_live or _browser_session_is_open
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


def _browser_session_is_open(session_id: str) -> bool:
    """Whether the browser session ``session_id`` is still open (True where no server runs)."""
    from streamlit.runtime import Runtime

    return not Runtime.exists() or Runtime.instance().is_active_session(session_id)


@st.cache_resource(show_spinner=False)
def replay_store() -> ReplayStore:
    store = ReplayStore()
    store.sweep_every(SWEEP_SECONDS)
    return store


def replayed(
    session: Session,
    specs: list[PolicySpec],
    scenario: Scenario,
    api_key: str | None = None,
    progress: Callable[[int, int, SummaryStats], None] | None = None,
) -> Replayed:
    """The replay of a session through a stack priced by ``pricing``, cached by (content hash,
    stack spec, settings, pricing).

    The API key is not part of the key (nor kept): the summaries themselves are cached on disk.
    """
    # the must-keep facts are checked apart (ui.must_keep_panel): one replay serves every set of them
    scenario = Scenario(scenario.settings, scenario.pricing)
    key = (session.content_hash, tuple(s.key() for s in specs), scenario.key())
    store = replay_store()
    hit = store.get(key)
    if hit is not None:
        return hit
    evaluated = evaluate(
        session,
        specs,
        scenario,
        counter_for(scenario.settings.model),
        api_key=api_key,
        hosted=True,  # the server's key goes only to the server's own endpoint
        progress=progress,
    )
    table = evaluated.table
    done = Replayed(evaluated.result, table.frame(), events_frame(evaluated.result, table), evaluated.totals)
    store.put(key, done, _browser_session())
    return done


def own_reference(session: Session, scenario: Scenario, figures: dict) -> OwnPolicy | None:
    """The agent's own policy replayed (cached like any replay), where it is the reference for
    ``session`` (``figures``: the totals of any replay of it); None elsewhere."""
    found = own_stack(session)
    if found is None or not needs_reference(session, figures):
        return None
    preset, stack = found
    done = replayed(session, stack, scenario)
    return OwnPolicy(preset, tuple(stack), done.result, done.totals)


def _browser_session() -> str:
    context = get_script_run_ctx()
    return context.session_id if context is not None else ""
