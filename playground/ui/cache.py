"""Cached work shared across reruns: parsed sessions, token counters, replays.

Keys are content hashes and plain-data specs; cached values are immutable, so one copy
serves every rerun and every user of the server.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from playground.formats import read_bytes
from playground.metrics import events_frame, totals, turns_frame
from playground.replay import ReplayResult, Settings, replay
from playground.session import Session, TranscriptError
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


def load_path(path: Path) -> Loaded:
    return load(path.read_bytes(), path.name)


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


@st.cache_resource(show_spinner=False, max_entries=128)
def _replay(session_key: str, stack_key: tuple, settings_key: tuple, _session, _specs, _settings) -> Replayed:
    result = replay(_session, _specs, _settings, counter=counter_for(_settings.model))
    frame = turns_frame(result)
    return Replayed(result, frame, events_frame(result), totals(frame))


def replayed(session: Session, specs: list[PolicySpec], settings: Settings) -> Replayed:
    """The replay of a session through a stack, cached by (content hash, stack spec, settings)."""
    return _replay(
        session.content_hash, tuple(s.key() for s in specs), settings.key(), session, specs, settings
    )
