"""Every session-state key the app uses, set once with its default."""

from __future__ import annotations

import copy

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
}


def init() -> None:
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            # a copy: a list or dict of the defaults is this module's, shared by every visitor
            st.session_state[key] = copy.deepcopy(value)
