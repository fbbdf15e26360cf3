"""The Corpus tab: every uploaded session (or every sample, when fewer than two are
uploaded) under the stack being edited and each candidate: a box per stack of what it
saves and loses, a per-session table worst first, and "open this session" in the main view."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from playground.analyses.corpus import SESSION_COLUMNS, Job, session_figures, session_table, summary
from playground.charts.compare import EDITING_COLOUR, corpus_chart
from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.limits import LIMITS
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing
from playground.stacks.candidates import Candidate
from playground.ui import cache, candidates_panel, state, summarizer_panel
from playground.ui.compare_view import EDITING
from playground.ui.text import escape_markdown
from policies.registry import PolicySpec


# sized to the tab's budget: every session under the stack and every candidate, kept across reruns
@st.cache_data(show_spinner=False, max_entries=LIMITS.max_app_corpus_sessions * (LIMITS.max_candidates + 1))
def _figures(key: tuple[str, str], _session: Session, _job: Job, _api_key: str | None) -> list[dict]:
    """One session's figures under each stack, kept by (content hash, job digest): a row per
    stack, small, so a corpus of runs costs its replays once."""
    counter = cache.counter_for(_job.settings.model)
    rows = session_figures(_session, _job, counter, api_key=_api_key, hosted=True)
    return [row for row, _ in rows]


def _open(label: str) -> None:
    st.session_state["session_choice"] = label
    st.session_state["view"] = "Charts"


def show(
    choices: list[tuple[str, Session]],
    origin: str,
    editing: list[PolicySpec],
    settings: Settings,
    pricing: Pricing,
    facts: tuple[MustKeep, ...],
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
    job = Job(stacks, settings, pricing, facts)
    st.caption(
        f"{len(choices)} {'uploaded' if origin == 'upload' else 'sample'} sessions, each under {len(stacks)} "
        "stack(s): the stack being edited and the candidates. For thousands of sessions, or a "
        "Dask cluster: `playground corpus`."
    )
    digest, rows = job.digest(), []
    bar = st.progress(0.0, text="Replaying the corpus…")
    for n, (label, session) in enumerate(choices, start=1):
        for row in _figures((session.content_hash, digest), session, job, summarizer_panel.api_key()):
            rows.append({"session": label} | row)
        bar.progress(n / len(choices), text=f"Replaying the corpus: {n} of {len(choices)} sessions")
    bar.empty()
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
        st.dataframe(summary(ran, names), hide_index=True, width="stretch")
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
    table = session_table(ran, stack, by)
    with st.container(key="corpus_table"):
        st.dataframe(table, hide_index=True, width="stretch")
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
