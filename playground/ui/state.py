"""Every session-state key the app uses, set once with its default."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import streamlit as st

from playground.engine.defaults import DEFAULT_MODEL, DEFAULT_WINDOW
from playground.summaries.summarizers import DEFAULT_KIND

# the result tabs, key "view"
VIEWS = ("Charts", "Compare", "Sweep", "Recommend", "Corpus", "Side by side", "Events", "Export")

DEFAULTS = {
    "model": DEFAULT_MODEL,
    "context_window": DEFAULT_WINDOW,
    "pin_standing_rules": True,
    "calibrate": True,  # count as the provider recorded, where the session records its usage
    "model_for": None,  # the session (content hash) the model was last set for (ui.model_picker)
    "address_read": False,  # the page's address was read for a stack (ui.config_io.address_box)
    "address": None,  # the stack as last written to the page's address
    "model_chosen": False,  # the user or a config named the model: a session's own is not used
    "stack": None,  # list of stack entries; filled from the default preset on first run
    "stack_for": None,  # the session (content hash) the stack was last opened for (ui.stack_editor)
    "stack_origin": None,  # (kind, name, specs): the preset or config file the stack was loaded from
    "stack_epoch": 0,  # bumped when entries are added, removed or replaced: resets the drag list
    "next_entry_id": 0,
    "config_upload_seen": None,
    "config_error": None,  # the message of the last config import that failed
    "turn": 1,
    "summarizer": {"kind": DEFAULT_KIND},
    "price_as": "",  # price as this model; "" is the model's own
    "cache_rule": "auto",  # the prompt-cache rule pricing uses; auto is the provider's
    # the user's own prices, dollars per million tokens (None: genai-prices')
    "price_input": None,
    "price_cached_input": None,
    "price_cache_write": None,
    "price_output": None,
    "must_keep_text": "",  # the declared must-keep facts, one per line
    "candidates": [],  # saved stacks to compare: {id, name, stack, colour} (ui.candidates_panel)
    "next_candidate_id": 0,
    "candidate_new_name": "",
    "candidate_error": None,
    "sweep_job": None,  # the sweep running or last run for this browser (ui.sweep_view)
    "recommend_job": None,  # the search running or last run for this browser (ui.recommend_view)
    "recommend_loaded": None,  # what the last click on the Recommend tab loaded into the editor
    "corpus_run": None,  # the corpus replay running or last run for this browser (ui.corpus_view)
    "corpus_choices": [],  # (label, session) of every session the Corpus tab replays (ui.session_picker)
    "corpus_origin": "sample",  # whether those are the uploads or the samples
    "lasting": {},  # the last value of each widget drawn with lasting(): outlives the runs that skip it
}


def init() -> None:
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            # a copy: a list or dict of the defaults is this module's, shared by every visitor
            st.session_state[key] = copy.deepcopy(value)


# how each kind of widget takes its starting value
_START = {
    "selectbox": "index",
    "radio": "index",
    "toggle": "value",
    "text_input": "value",
    "multiselect": "default",
    "number_input": "value",
}


def lasting(
    draw: Callable[..., Any], label: str, *args: Any, key: str, default: Any = None, **kwargs: Any
) -> Any:
    """Draw a widget whose value outlives the runs that do not draw it.

    Only the open tab runs, and streamlit forgets the state of a widget a run did not draw:
    without this, a visit to another tab would reset a tab's choices. The widget starts from
    the value it last had (if it can still take it), else from ``default``; a value the page
    sends for it wins over both, as for any widget, so nothing the user just did is undone."""
    memory = st.session_state["lasting"]
    start = memory.get(key, default)
    kind = _START[draw.__name__]
    if kind == "index":
        options = list(args[0])
        if start in options:
            kwargs["index"] = options.index(start)
    elif kind == "default":
        kwargs["default"] = [v for v in start or () if v in args[0]]
    elif start is not None:
        kwargs["value"] = start
    value = draw(label, *args, key=key, **kwargs)
    memory[key] = value
    return value
