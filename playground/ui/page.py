"""The page: its setup and wiring only; everything else is in the rooms of ``playground``.

Streamlit runs it as ``__main__``: from a checkout through the top-level ``app.py`` (``make run``),
from an installed package through ``playground app``, which runs this file itself."""

import os

import streamlit as st

from playground.limits import LimitError
from playground.measures.evaluate import Scenario
from playground.measures.metrics import csv_text
from playground.stacks.config import ConfigError
from playground.summaries.base import SummarizerError, SummaryStats
from playground.ui import (
    cache,
    candidates_panel,
    compare_view,
    config_io,
    corpus_view,
    events,
    figures,
    layout,
    model_picker,
    must_keep_panel,
    recommend_view,
    session_picker,
    side_by_side,
    stack_editor,
    state,
    summarizer_panel,
    sweep_view,
)
from playground.ui.text import escape_markdown
from policies.registry import SpecError, load_plugins


def main() -> None:
    st.set_page_config(page_title="Context Policy Playground", page_icon="🧰", layout="wide")
    # plugins are named by whoever starts the server, never by an upload
    load_plugins(os.environ.get("PLAYGROUND_PLUGINS", ""))
    state.init()

    st.title("Context Policy Playground")
    st.caption(
        "Replays a recorded agent session through a stack of context policies: what each stack would have "
        "kept, sent and paid (the recorded replies are replayed as they were, not what the model would "
        "have answered). **Start:** pick or upload a session in the sidebar, change the *Policy stack* "
        "(a preset, a slider, drag to reorder); *Side by side* shows any turn's request."
    )

    # the editor beside the results; on a narrow screen the results come first
    st.html(layout.NARROW_SCREEN_CSS)
    editor, results = st.container(key="layout").columns([1, 2.4], gap="large")
    stack_box, config_box = editor.container(), editor.container()
    config_io.address_box(config_box)  # first: a link's (or a refresh's) stack, model and candidates
    config_io.import_box(config_box)  # an imported config sets the model, summarizer and stack widgets
    session_box, model_box, summarizer_box, must_keep_box = (st.sidebar.container() for _ in range(4))
    with session_box:
        session = session_picker.show()
    with summarizer_box:
        summarizer = summarizer_panel.show()
    with model_box:
        settings = model_picker.show(summarizer, session)
        pricing = model_picker.pricing()
    with must_keep_box:
        facts = must_keep_panel.show()

    with stack_box:
        specs = stack_editor.show(session)
        candidates_panel.show(specs)
    config_io.keep_in_address(config_io.current_config(specs, settings, pricing, facts))
    scenario = Scenario(settings, pricing, facts)

    with results:
        if session is None:
            session_picker.nothing_shown()
            st.stop()
        if not session.turns:
            st.info(
                "This session holds no reply of the model (only input: an aborted run, or commands the "
                "tool ran itself), so no request was sent and there is nothing to replay. Pick another."
            )
            st.stop()
        progress = st.empty()

        def show_progress(turn: int, turns: int, stats: SummaryStats) -> None:
            if settings.summarizer.fetches:  # summaries may be fetched: say how far we are
                fetched = stats.calls - stats.cache_hits
                text = (
                    f"Turn {turn} of {turns}: {fetched} summaries fetched, {stats.cache_hits} from the cache"
                )
                progress.progress(turn / max(turns, 1), text=text)

        try:
            with st.spinner("Replaying the session through the stack…"):
                replayed = cache.replayed(session, specs, scenario, summarizer_panel.api_key(), show_progress)
        except (SpecError, SummarizerError, ConfigError, LimitError) as error:
            st.error(f"This stack cannot run: {escape_markdown(str(error))}")
            st.stop()
        progress.empty()
        replayed, must_keep_states = must_keep_panel.checked(replayed, facts)
        own = cache.own_reference(session, scenario, replayed.totals)
        figures.headline(replayed, len(facts) if must_keep_states is not None else 0, own)
        figures.summarizer_line(replayed)
        # only the open view runs and is sent: the page draws 8 charts, not every view at once
        tabs = st.tabs(state.VIEWS, key="view", on_change="rerun")
        charts_tab, compare_tab, sweep_tab, recommend_tab, corpus_tab, side_tab, events_tab, export_tab = tabs
        if charts_tab.open:
            with charts_tab:
                figures.charts_view(replayed, settings.context_window, must_keep_states)
        if compare_tab.open:
            with compare_tab:
                compare_view.show(session, specs, scenario)
        if sweep_tab.open:
            with sweep_tab:
                sweep_view.show(session, specs, scenario)
        if recommend_tab.open:
            with recommend_tab:
                recommend_view.show(session, scenario)
        if corpus_tab.open:
            with corpus_tab:
                corpus_view.show(
                    st.session_state["corpus_choices"],
                    st.session_state["corpus_origin"],
                    specs,
                    scenario,
                )
        if side_tab.open:
            with side_tab:
                side_by_side.show(replayed)
        if events_tab.open:
            with events_tab:
                events.show(replayed)
        if export_tab.open:
            with export_tab:
                config = config_io.current_config(specs, settings, pricing, facts)
                config_io.downloads(config, csv_text(replayed.turns), session.name)
                config_io.framework_export(
                    config,
                    session,
                    lambda stack: cache.replayed(session, stack, scenario, summarizer_panel.api_key()).totals,
                )

    with summarizer_box:
        summarizer_panel.cache_figures()


# the idiom multiprocessing asks for: a sweep's worker processes import the script streamlit ran
# as __mp_main__, and must not run the page
if __name__ == "__main__":
    main()
