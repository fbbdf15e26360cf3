"""The Corpus tab: every uploaded session (or every sample, when fewer than two are
uploaded) under the stack being edited and each candidate: a box per stack of what it
saves and loses, a per-session table worst first, and "open this session" in the main view.

The replays run on a thread of their own, so the page (this browser's and everyone
else's) stays usable meanwhile: a fragment polls their progress and offers Cancel. Each
session's figures are kept, server-wide and bounded, by (content, stacks and settings)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from playground.analyses.corpus import (
    SESSION_COLUMNS,
    SESSION_KEY_COLUMNS,
    Job,
    session_figures,
    session_table,
    summary_by_figure,
)
from playground.analyses.replay_store import Lru
from playground.charts.compare import EDITING_COLOUR, corpus_chart
from playground.engine.session import Session
from playground.limits import LIMITS
from playground.measures.evaluate import Scenario
from playground.stacks.candidates import Candidate
from playground.ui import background, cache, candidates_panel, state, summarizer_panel
from playground.ui.compare_view import EDITING
from playground.ui.text import escape_markdown
from policies.registry import PolicySpec


@st.cache_resource(show_spinner=False)
def _figures() -> Lru:
    """Each session's rows under a job, by (content hash, job digest): small, so a corpus of
    runs costs its replays once; sized to the tab's budget times the stacks it compares."""
    return Lru(LIMITS.max_app_corpus_sessions * (LIMITS.max_candidates + 1))


@dataclass(kw_only=True)
class CorpusRun(background.Job):
    """The replay of this browser's corpus, running or finished."""

    key: tuple  # what it replays: the job's digest and each session's label and content
    rows: list[dict] = field(default_factory=list)


def _replay(
    run: CorpusRun, choices: list[tuple[str, Session]], job: Job, figures: Lru, api_key: str | None
) -> None:
    """Each session under each stack, on the run's thread; a session replayed before is read back."""
    digest, counter = job.digest(), cache.counter_for(job.model)
    for label, session in choices:
        if run.cancel.is_set():
            break
        rows = figures.get((session.content_hash, digest))
        if rows is None:
            found = session_figures(session, job, counter, api_key=api_key, hosted=True)
            rows = [row for row, _ in found]
            figures.put((session.content_hash, digest), rows)
        run.rows.extend({"session": label} | row for row in rows)
        run.done += 1


def _start(key: tuple, choices: list[tuple[str, Session]], job: Job) -> CorpusRun | None:
    """A new run of the corpus on its thread, or None (having said why) when the server runs
    as many as it allows."""
    run = CorpusRun(key=key, planned=len(choices))
    args = (run, list(choices), job, _figures(), summarizer_panel.api_key())
    if not background.start(run, lambda: _replay(*args), background.CORPUS):
        st.button("Try again", key="corpus_retry")
        return None
    st.session_state["corpus_run"] = run
    return run


def _open(label: str) -> None:
    st.session_state["session_choice"] = label
    st.session_state["view"] = "Charts"


def show(
    choices: list[tuple[str, Session]],
    origin: str,
    editing: list[PolicySpec],
    scenario: Scenario,
) -> None:
    if len(choices) < 2:
        st.info("Upload several transcripts, or a file of several runs, to replay them all here.")
        return
    stacks = (Candidate(EDITING, tuple(editing)), *candidates_panel.candidates())
    if len(choices) > LIMITS.max_app_corpus_sessions:
        st.warning(
            f"{len(choices):,} sessions: the page replays at most {LIMITS.max_app_corpus_sessions:,} "
            "(PLAYGROUND_MAX_APP_CORPUS_SESSIONS). Run `playground corpus` on the files instead."
        )
        return
    work = len(stacks) * sum(len(session.messages) for _, session in choices)
    if work > LIMITS.max_app_corpus_messages:
        st.warning(
            f"{len(choices):,} sessions under {len(stacks)} stack(s) are {work:,} messages to replay; the "
            f"page replays at most {LIMITS.max_app_corpus_messages:,} (PLAYGROUND_MAX_APP_CORPUS_MESSAGES). "
            "Run `playground corpus` on the files instead, or save fewer candidates."
        )
        return
    # the model picker's choice holds for every session; else each replays at the model it records
    job = Job(stacks, scenario, model_given=st.session_state["model_chosen"])
    st.caption(
        f"{len(choices)} {'uploaded' if origin == 'upload' else 'sample'} sessions, each under {len(stacks)} "
        "stack(s): the stack being edited and the candidates. For thousands of sessions, or a "
        "Dask cluster: `playground corpus`."
    )
    key = (job.digest(), tuple((label, session.content_hash) for label, session in choices))
    run: CorpusRun | None = st.session_state["corpus_run"]
    if run is None or run.key != key:
        if run is not None:
            run.cancel.set()  # the corpus or the stacks changed: its replays are for nothing now
        run = _start(key, choices, job)
        if run is None:
            return

    def text() -> str:
        return f"Replaying the corpus: {run.done} of {run.planned} sessions, {run.seconds:.0f} s"

    if not background.progress(run, text, "corpus_cancel"):
        return
    if run.error:
        st.error(escape_markdown(run.error))
        return
    if run.done < run.planned:
        st.warning(f"Cancelled: {run.done} of {run.planned} sessions replayed ({run.seconds:.1f} s).")
        if st.button("Replay the rest", key="corpus_resume"):
            st.session_state["corpus_run"] = None
            st.rerun()
    if not run.rows:
        return
    _results(run.rows, stacks)


def _results(rows: list[dict], stacks: tuple[Candidate, ...]) -> None:
    frame = pd.DataFrame(rows)
    for row in frame[frame["error"] != ""].itertuples():
        st.warning(
            f"{escape_markdown(row.stack)} cannot run on {escape_markdown(row.session)}: "
            f"{escape_markdown(row.error)}"
        )
    ran = frame[frame["error"] == ""]
    if ran.empty:
        return
    names = [s.name for s in stacks]
    colours = {EDITING: EDITING_COLOUR} | candidates_panel.colours()
    saved = "saved_cost_pct" if ran["saved_cost_pct"].notna().all() else "saved_pct"
    left, right = st.columns(2)
    for column, figure in ((left, saved), (right, "distinct_facts_lost")):
        title = f"{SESSION_COLUMNS[figure].capitalize()} per session"
        chart = corpus_chart(ran, names, figure, title, colours)
        column.plotly_chart(chart, width="stretch", key=f"corpus_box_{figure}")
    with st.container(key="corpus_summary"):
        st.dataframe(summary_by_figure(ran, names), width="stretch")
    by_column, stack_column = st.columns(2)
    by = state.lasting(
        by_column.selectbox,
        "Sort by",
        list(SESSION_COLUMNS),
        format_func=SESSION_COLUMNS.get,
        key="corpus_sort",
        help="Worst first: the most lost, or the least saved. Headings sort the table too.",
    )
    stack = state.lasting(stack_column.selectbox, "Stack", names, key="corpus_stack")
    table = session_table(ran, stack, by, SESSION_KEY_COLUMNS)
    with st.container(key="corpus_table"):
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config={"session": st.column_config.TextColumn(width="medium")},
        )
    pick, button = st.columns([3, 1], vertical_alignment="bottom")
    # a new order puts its worst session first in the picker
    picked = pick.selectbox("Session to open", list(table["session"]), key=f"corpus_open_{by}_{stack}")
    button.button(
        "Open this session",
        on_click=_open,
        args=(picked,),
        key="corpus_open_button",
        type="primary",
        help="Replay it in the main view, under the stack being edited",
    )
