"""Cached work shared across reruns: parsed sessions, token counters, replays.

Keys are content hashes and plain-data specs; cached values are immutable, so one copy
serves every rerun and every user of the server.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from playground.formats import read_bytes
from playground.metrics import events_frame, totals, turns_frame
from playground.replay import ReplayResult, Settings, replay
from playground.session import Session, TranscriptError
from playground.summarizers import SummaryStats
from playground.tokens import TokenCounter
from policies.registry import PolicySpec


@dataclass(frozen=True)
class Loaded:
    sessions: tuple[Session, ...] = ()
    error: str | None = None


@st.cache_resource(show_spinner=False, max_entries=64)
def _load(digest: str, name: str, _data: bytes) -> Loaded:
    try:
        return Loaded(tuple(read_bytes(_data, name)))
    except TranscriptError as error:
        return Loaded(error=str(error))


def load(data: bytes, name: str) -> Loaded:
    """Sessions in an uploaded or sample file, or the reader's message; parsed once per content."""
    return _load(hashlib.sha256(data).hexdigest(), name, data)


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_file(path: str, mtime_ns: int, size: int) -> Loaded:
    file = Path(path)
    return load(file.read_bytes(), file.name)


def load_path(path: Path) -> Loaded:
    """A sample file, read and parsed once until it changes on disk (not on every rerun)."""
    stat = path.stat()
    return _load_file(str(path), stat.st_mtime_ns, stat.st_size)


@st.cache_resource(show_spinner=False)
def counter_for(model: str) -> TokenCounter:
    """One token counter per model: each distinct message is tokenized once per server."""
    return TokenCounter(model)


@dataclass(frozen=True)
class Replayed:
    result: ReplayResult
    turns: pd.DataFrame
    events: pd.DataFrame
    totals: dict


class ReplayStore:
    """The most recent replays, shared by every rerun; a plain LRU so a slow replay can
    report progress to the page (streamlit's cached functions cannot draw)."""

    def __init__(self, size: int = 128) -> None:
        self.size = size
        self._items: OrderedDict[tuple, Replayed] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Replayed | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: tuple, value: Replayed) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


@st.cache_resource(show_spinner=False)
def replay_store() -> ReplayStore:
    return ReplayStore()


def replayed(
    session: Session,
    specs: list[PolicySpec],
    settings: Settings,
    api_key: str | None = None,
    progress: Callable[[int, int, SummaryStats], None] | None = None,
) -> Replayed:
    """The replay of a session through a stack, cached by (content hash, stack spec, settings).

    The API key is not part of the key (nor kept): the summaries themselves are cached on disk.
    """
    key = (session.content_hash, tuple(s.key() for s in specs), settings.key())
    store = replay_store()
    hit = store.get(key)
    if hit is not None:
        return hit
    result = replay(
        session, specs, settings, counter=counter_for(settings.model), api_key=api_key, progress=progress
    )
    frame = turns_frame(result)
    done = Replayed(result, frame, events_frame(result), totals(frame))
    store.put(key, done)
    return done
