"""Model and context window: they set the tokenizer and the window the charts draw."""

from __future__ import annotations

import streamlit as st

from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.models.catalogue import PICKER, at_recorded_model, window_of, window_words
from playground.money.caching import RULES
from playground.money.cost import MAX_PRICE_PER_MILLION, Pricing
from playground.money.pricing import PRICE_PARTS, find_price
from playground.summaries.summarizers import SummarizerSpec
from playground.ui import cache
from playground.ui.text import escape_markdown

CACHE_CHOICES = ["auto", *RULES]


def _model_changed() -> None:
    st.session_state["model_chosen"] = True  # kept for every session picked from now on
    model = st.session_state["model"]
    st.session_state["context_window"] = window_of(model, st.session_state["context_window"])


PART_LABELS = {
    "input": "Input",
    "cached_input": "Cached input",
    "cache_write": "Cache write",
    "output": "Output",
}


def pricing() -> Pricing:
    """How the replay is priced: the model's price and its provider's prompt cache, or overrides."""
    state = st.session_state
    with st.expander("Pricing", expanded=False):
        st.text_input(
            "Price as model",
            key="price_as",
            placeholder=state["model"],
            help="Price the requests as another model (genai-prices' name for it); empty: the model above.",
        )
        listed = find_price(state["price_as"].strip() or state["model"])
        st.caption(
            f"Prices per million tokens from **{escape_markdown(listed.label)}**; type yours to correct them."
            if listed
            else "genai-prices has no entry for this model: give all four prices to see dollars."
        )
        row = st.columns(2)
        for i, part in enumerate(PRICE_PARTS):
            row[i % 2].number_input(
                f"{PART_LABELS[part]} $/M",
                min_value=0.0,
                max_value=MAX_PRICE_PER_MILLION,
                step=0.01,
                format="%.4g",
                key=f"price_{part}",
                placeholder=f"{listed.listed_per_million[part]:.4g}" if listed else "not listed",
                help=f"Your price per million tokens of {PART_LABELS[part].lower()} in place of "
                "genai-prices'; empty: genai-prices'.",
            )
        st.selectbox(
            "Prompt cache",
            CACHE_CHOICES,
            key="cache_rule",
            format_func=lambda name: "auto: the provider's" if name == "auto" else RULES[name].label,
            help="How the provider caches the prompt prefix; auto follows the model's provider.",
        )
    own = tuple(state[f"price_{part}"] for part in PRICE_PARTS)
    chosen = Pricing(model=state["price_as"].strip(), cache=state["cache_rule"], own=own)  # type: ignore[arg-type]
    price, _ = chosen.resolve(state["model"])
    if price is None:
        st.caption(
            f"No price known for **{escape_markdown(chosen.model or state['model'])}**: figures stay in tokens."
        )
    return chosen


def _at_recorded_model(session: Session | None) -> None:
    """A session newly picked replays as the model it records (and that model's window; the
    default model where it records none), unless the user (or a config) picked a model."""
    if session is None or st.session_state["model_for"] == session.content_hash:
        return
    st.session_state["model_for"] = session.content_hash
    if st.session_state["model_chosen"]:
        return
    chosen = at_recorded_model(Settings(), session)
    st.session_state["model"], st.session_state["context_window"] = chosen.model, chosen.context_window


def show(summarizer: dict, session: Session | None = None) -> Settings:
    st.header("Model")
    _at_recorded_model(session)
    options = list(PICKER)
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
    st.toggle(
        "Calibrate to the recorded usage",
        key="calibrate",
        help="Where the session records what each call cost, count every request as the provider did: "
        "a hidden prefix (the system prompt and tool definitions the file does not hold) plus a "
        "tokenizer ratio, fitted on the calls before the agent's first compaction. Thresholds and bills "
        "then use that count, as the agent's own counter did.",
    )
    if session is not None and window_words(session, int(st.session_state["context_window"])):
        st.caption(escape_markdown(window_words(session, int(st.session_state["context_window"]))))
    counter = cache.counter_for(st.session_state["model"])
    st.caption(f"Encoding in use: **{escape_markdown(counter.encoding_note)}**")
    return Settings(
        model=st.session_state["model"],
        context_window=int(st.session_state["context_window"]),
        pin_standing_rules=st.session_state["pin_standing_rules"],
        summarizer=SummarizerSpec.of(summarizer),
        calibrate=st.session_state["calibrate"],
    )
