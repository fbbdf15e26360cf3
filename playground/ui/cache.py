"""Cached work shared across reruns: parsed sessions, token counters, replays.

Keys are content hashes and plain-data specs; cached values are immutable, so one copy
serves every rerun and every user of the server.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from playground.analyses.own_policy import OwnPolicy, needs_reference, own_stack
from playground.analyses.replay_store import SWEEP_SECONDS, Lru, Replayed, ReplayStore
from playground.engine.session import Session, TranscriptError
from playground.engine.tokens import TokenCounter
from playground.formats import read_bytes, read_path
from playground.measures.evaluate import MustKeepCheck, Scenario, check_must_keep, evaluate
from playground.measures.metrics import events_frame
from playground.measures.must_keep import MustKeep, MustKeepError
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


def _browser_session_is_open(session_id: str) -> bool:
    """Whether the browser session ``session_id`` is still open (True where no server runs)."""
    from streamlit.runtime import Runtime

    return not Runtime.exists() or Runtime.instance().is_active_session(session_id)


@st.cache_resource(show_spinner=False)
def replay_store() -> ReplayStore:
    store = ReplayStore(is_live=_browser_session_is_open)
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
    done = Replayed(
        evaluated.result, table.frame(), events_frame(evaluated.result, table), evaluated.totals, key
    )
    store.put(key, done, _browser_session())
    return done


MUST_KEEP_CHECKS = 32  # the recent replays' must-keep checks the server keeps, all browsers together


@st.cache_resource(show_spinner=False)
def _must_keep_checks() -> Lru:
    return Lru(MUST_KEEP_CHECKS)


def must_keep_check(replayed: Replayed, facts: Sequence[MustKeep]) -> MustKeepCheck | str:
    """``replayed`` with ``facts`` checked (``measures.evaluate.check_must_keep``), kept by the
    replay and the facts as declared, so a rerun that changes neither (a tab, a turn) reuses
    it; or why matching stopped, kept too (a slow pattern costs its budget once)."""
    key = (replayed.key, tuple(fact.text for fact in facts))
    checks = _must_keep_checks()
    found = checks.get(key)
    if found is None:
        try:
            found = check_must_keep(replayed.result, replayed.turns, facts)
        except MustKeepError as error:
            found = str(error)
        checks.put(key, found)
    return found


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
