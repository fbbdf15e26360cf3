"""The event log as a filterable table."""

from __future__ import annotations

import streamlit as st

from playground.ui import state
from playground.ui.cache import Replayed


def show(replayed: Replayed) -> None:
    events = replayed.events
    if events.empty:
        st.info("No policy acted and every request was valid.")
        return
    left, right = st.columns(2)
    named, done = sorted(events["policy"].unique()), sorted(events["action"].unique())
    policies = state.lasting(left.multiselect, "Policy", named, key="events_policy")
    actions = state.lasting(right.multiselect, "Action", done, key="events_action")
    shown = events
    if policies:
        shown = shown[shown["policy"].isin(policies)]
    if actions:
        shown = shown[shown["action"].isin(actions)]
    st.caption(f"{len(shown):,} of {len(events):,} events · pick a row to open its turn side by side")
    st.session_state["events_shown"] = shown["turn"].tolist()  # what the selection's rows refer to
    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        key="events_table",
        on_select=_jump,
        selection_mode="single-row",
    )


def _jump() -> None:
    rows = st.session_state["events_table"].selection.rows
    turns = st.session_state.get("events_shown", [])
    if rows and rows[0] < len(turns):
        st.session_state["turn"] = int(turns[rows[0]])
        st.session_state["view"] = "Side by side"
