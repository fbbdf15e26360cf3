"""Model and context window: they set the tokenizer and the window the charts draw."""

from __future__ import annotations

import streamlit as st

from playground.replay import Settings
from playground.ui import cache
from playground.ui.text import escape_markdown

MODELS = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o3": 200_000,
    "gpt-4-turbo": 128_000,
    "gpt-3.5-turbo": 16_385,
    "claude-sonnet-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "gemini-2.5-pro": 1_048_576,
}


def _model_changed() -> None:
    st.session_state["context_window"] = MODELS.get(
        st.session_state["model"], st.session_state["context_window"]
    )


def show(summarizer: dict) -> Settings:
    st.header("Model")
    options = list(MODELS)
    if st.session_state["model"] not in options:  # a model named by an imported config
        options.append(st.session_state["model"])
    st.selectbox(
        "Model",
        options,
        key="model",
        on_change=_model_changed,
        help="Sets the tokenizer and the default context window.",
    )
    st.number_input(
        "Context window (tokens)", min_value=1_000, max_value=10_000_000, step=1_000, key="context_window"
    )
    st.toggle(
        "Pin standing rules",
        key="pin_standing_rules",
        help="The system/developer messages that open the session are sent every turn and never handed to a policy. Turn off to see what a careless policy does to them.",
    )
    counter = cache.counter_for(st.session_state["model"])
    st.caption(f"Encoding in use: **{escape_markdown(counter.encoding_note)}**")
    return Settings(
        model=st.session_state["model"],
        context_window=int(st.session_state["context_window"]),
        pin_standing_rules=st.session_state["pin_standing_rules"],
        summarizer=dict(summarizer),
    )
