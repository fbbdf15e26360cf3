"""Every session-state key the app uses, set once with its default."""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection
from typing import Any

import streamlit as st

# the result tabs, key "view"
VIEWS = ("Charts", "Compare", "Sweep", "Corpus", "Side by side", "Events", "Export")

DEFAULTS = {
    "model": "gpt-4o",
    "context_window": 128_000,
    "pin_standing_rules": True,
    "stack": None,  # list of stack entries; filled from the default preset on first run
    "stack_origin": None,  # (kind, name, specs): the preset or config file the stack was loaded from
    "stack_epoch": 0,  # bumped when entries are added, removed or replaced: resets the drag list
    "next_entry_id": 0,
    "config_upload_seen": None,
    "config_error": None,  # the message of the last config import that failed
    "turn": 1,
    "summarizer": {"kind": "extractive"},
    "price_as": "",  # price as this model; "" is the model's own
    "cache_rule": "auto",  # the prompt-cache rule pricing uses; auto is the provider's
    "must_keep_text": "",  # the declared must-keep facts, one per line
    "candidates": [],  # saved stacks to compare: {id, name, stack, colour} (ui.candidates_panel)
    "next_candidate_id": 0,
    "candidate_new_name": "",
    "candidate_error": None,
    "sweep_job": None,  # the sweep running or last run for this browser (ui.sweep_view)
    "corpus_choices": [],  # (label, session) of every session the Corpus tab replays (ui.session_picker)
    "corpus_origin": "sample",  # whether those are the uploads or the samples
    "lasting": {},  # the last value of each widget drawn with lasting(): outlives the runs that skip it
}


def init() -> None:
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            # a copy: a list or dict of the defaults is this module's, shared by every visitor
            st.session_state[key] = copy.deepcopy(value)


def lasting(
    draw: Callable[..., Any],
    *args: Any,
    key: str,
    default: Any = None,
    allowed: Collection | None = None,
    **kwargs: Any,
) -> Any:
    """Draw a widget whose value outlives the runs that do not draw it.

    Only the open tab runs, and streamlit forgets the state of a widget a run did not draw:
    without this, a visit to another tab would reset a tab's choices. The last value is put
    back before the widget is drawn (if ``allowed`` still holds it), else ``default`` (the
    widget's own when None); the widget is never given a value of its own, so nothing
    conflicts with the one put back."""
    memory = st.session_state["lasting"]
    if key not in st.session_state:
        last = memory.get(key)
        if isinstance(last, list) and allowed is not None:  # a multiselect: the picks still offered
            last = [v for v in last if v in allowed]
        elif allowed is not None and last not in allowed:
            last = None
        if last is not None:
            st.session_state[key] = last
        elif default is not None:
            st.session_state[key] = default
    value = draw(*args, key=key, **kwargs)
    memory[key] = value
    return value
