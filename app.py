"""Streamlit entry point: page setup and wiring only; everything else is in playground/."""

import streamlit as st

from playground.config import ConfigError
from playground.summarizers import SummarizerError
from playground.ui import (
    cache,
    config_io,
    events,
    figures,
    model_picker,
    session_picker,
    side_by_side,
    stack_editor,
    state,
)
from policies.registry import SpecError

st.set_page_config(page_title="Context Policy Playground", page_icon="🧰", layout="wide")
state.init()

st.title("Context Policy Playground")
st.caption(
    "Replays a recorded agent session through a stack of context policies. The recorded replies "
    "are replayed as they were: the figures show what each stack would have kept and sent, "
    "not what the model would have answered with a different context."
)

session_box, model_box, config_box = st.sidebar.container(), st.sidebar.container(), st.sidebar.container()
config_io.import_box(config_box)  # first: an imported config sets the model and stack widgets
with session_box:
    session = session_picker.show()
with model_box:
    settings = model_picker.show()

editor, results = st.columns([1, 2.4], gap="large")
with editor:
    specs = stack_editor.show()

with results:
    if session is None:
        st.stop()
    try:
        replayed = cache.replayed(session, specs, settings)
    except (SpecError, SummarizerError, ConfigError) as error:
        st.error(f"This stack cannot run: {error}")
        st.stop()
    figures.headline(replayed)
    charts_tab, side_tab, events_tab, export_tab = st.tabs(["Charts", "Side by side", "Events", "Export"])
    with charts_tab:
        figures.charts_view(replayed, settings.context_window)
    with side_tab:
        side_by_side.show(replayed)
    with events_tab:
        events.show(replayed)
    with export_tab:
        config = config_io.current_config(specs, settings)
        config_io.downloads(config, replayed.turns.to_csv(index=False), session.name)
