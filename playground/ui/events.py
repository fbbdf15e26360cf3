"""The event log as a filterable table."""

from __future__ import annotations

import streamlit as st

from playground.ui.cache import Replayed


def show(replayed: Replayed) -> None:
    events = replayed.events
    if events.empty:
        st.info("No policy acted and every request was valid.")
        return
    left, right = st.columns(2)
    policies = left.multiselect("Policy", sorted(events["policy"].unique()), key="events_policy")
    actions = right.multiselect("Action", sorted(events["action"].unique()), key="events_action")
    shown = events
    if policies:
        shown = shown[shown["policy"].isin(policies)]
    if actions:
        shown = shown[shown["action"].isin(actions)]
    st.caption(f"{len(shown):,} of {len(events):,} events")
    st.dataframe(shown, hide_index=True, width="stretch")
