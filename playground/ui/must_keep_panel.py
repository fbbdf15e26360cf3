"""The must-keep facts box: what the user says the agent must never lose."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from playground.measures import must_keep
from playground.ui import cache
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
    """``replayed`` with its per-turn must-keep columns and totals, and the per-fact states for
    the chart (None when nothing is declared or matching ran out of time, which it says)."""
    if not facts:
        return replayed, None
    check = cache.must_keep_check(replayed, facts)
    if isinstance(check, str):
        st.error(escape_markdown(check))
        return replayed, None
    return dataclasses.replace(replayed, turns=check.turns, totals=check.totals), check.states
