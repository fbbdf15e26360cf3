"""The must-keep facts box: what the user says the agent must never lose."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from playground.measures import must_keep
from playground.measures.metrics import totals, with_must_keep
from playground.ui.cache import Replayed
from playground.ui.text import escape_markdown


def show() -> tuple[must_keep.MustKeep, ...]:
    """The declared facts (none while the box is empty or holds a mistake, which it names)."""
    st.header("Must-keep facts")
    text = st.text_area(
        "One per line",
        key="must_keep_text",
        placeholder="fixed-term contract\n/INV-[0-9]+/",
        help="Facts the agent must never lose: text (any case) or a /regular expression/. Each is checked "
        "at every turn: held in the request, lost (the history held it, the request does not), or not "
        "seen yet. Saved in the exported config as must_keep.",
    )
    try:
        return must_keep.parse(must_keep.lines(text), "Must-keep facts")
    except must_keep.MustKeepError as error:
        st.error(escape_markdown(str(error)))
        return ()


def checked(
    replayed: Replayed, facts: tuple[must_keep.MustKeep, ...]
) -> tuple[Replayed, pd.DataFrame | None]:
    """``replayed`` with its per-turn must-keep columns, and the per-fact states for the chart
    (None when nothing is declared or matching ran out of time, which the page then says)."""
    if not facts:
        return replayed, None
    declared = tuple(fact.text for fact in facts)
    # shared by every browser on this replay; read once into a local, so another session
    # replacing the entry between two lines cannot pull it away
    memo = replayed.must_keep_checked  # a rerun that moves nothing (a tab, a turn) reuses it
    result = memo.get(declared)
    if result is None:
        try:
            states = must_keep.states(replayed.result, facts)
        except must_keep.MustKeepError as error:  # kept too: a slow pattern costs its budget once
            result = str(error)
        else:
            turns = with_must_keep(replayed.turns, states)
            result = (dataclasses.replace(replayed, turns=turns, totals=totals(turns)), states)
        memo.clear()  # the last declaration only: the memo stays the size of one check
        memo[declared] = result
    if isinstance(result, str):
        st.error(escape_markdown(result))
        return replayed, None
    return result
