"""Export the stack as a config file or as a framework's code, import one, download the per-turn figures."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from playground.analyses.export_check import export_check, figures_said
from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.export import TARGETS, ExportError
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing
from playground.money.pricing import PRICE_PARTS
from playground.stacks.config import Config, ConfigError, address_of, config_at, parse_config
from playground.ui import candidates_panel, stack_editor, state, summarizer_panel
from playground.ui.text import escape_markdown
from policies.registry import PolicySpec

MIME_TYPES = {"json": "application/json", "toml": "application/toml", "python": "text/x-python"}


def current_config(
    specs: list[PolicySpec], settings: Settings, pricing: Pricing, must_keep: tuple[MustKeep, ...]
) -> Config:
    return Config(
        candidates=tuple(candidates_panel.candidates()),
        settings=settings,
        stack=specs,
        pricing=pricing,
        must_keep=must_keep,
    )


ADDRESS_KEY = "stack"  # ?stack=… : the config as stacks.config.address_of writes it


def address_box(box: DeltaGenerator) -> None:
    """Once per browser session: the stack, model and candidates a link (or a refresh) holds in
    the page's address, set before their widgets are made."""
    if st.session_state["address_read"]:
        return
    st.session_state["address_read"] = True
    address = st.query_params.get(ADDRESS_KEY)
    if not address:
        return
    try:
        config = config_at(address)
    except ConfigError as error:
        box.error(escape_markdown(str(error)))
        return
    apply_config(config, "the page's address")
    st.session_state["address"] = address


def keep_in_address(config: Config) -> None:
    """The page's address follows the stack, model and candidates: a refresh keeps them, and a
    copied link opens them."""
    address = address_of(config)
    if st.session_state["address"] != address:
        st.session_state["address"] = address
        st.query_params[ADDRESS_KEY] = address


def import_box(box: DeltaGenerator) -> None:
    """Config uploader: a valid config replaces stack, model and window; a bad one says why.

    Runs before the model and stack widgets are made, so it can set their state."""
    upload = box.file_uploader(
        "Import a stack config (YAML or JSON)", type=["yaml", "yml", "json"], key="config_upload"
    )
    if upload is None:
        st.session_state["config_upload_seen"] = None
        return
    seen = (upload.name, upload.size, upload.file_id)
    if st.session_state["config_upload_seen"] == seen:
        if st.session_state["config_error"]:
            box.error(escape_markdown(st.session_state["config_error"]))
        return
    st.session_state["config_upload_seen"] = seen
    try:
        config = parse_config(
            upload.getvalue().decode("utf-8", errors="replace"), upload.name, allow_plugins=False
        )
    except ConfigError as error:
        st.session_state["config_error"] = str(error)
        box.error(escape_markdown(str(error)))
        return
    st.session_state["config_error"] = None
    apply_config(config, upload.name)
    held = f" and {len(config.candidates)} candidates" if config.candidates else ""
    box.success(f"Loaded {escape_markdown(upload.name)}: {len(config.stack)} policies{held}.")


def apply_config(config: Config, origin: str) -> None:
    """A config's stack, model, window, summarizer, pricing, must-keep facts and candidates
    into the page's state (before their widgets are made)."""
    stack_editor.replace_stack(config.stack, "config", origin)
    settings = config.settings
    st.session_state["model"] = settings.model
    st.session_state["model_chosen"] = st.session_state["model_chosen"] or config.model_given
    st.session_state["context_window"] = settings.context_window
    st.session_state["pin_standing_rules"] = settings.pin_standing_rules
    st.session_state["calibrate"] = settings.calibrate
    st.session_state["summarizer"] = settings.summarizer.to_data()
    st.session_state["price_as"] = config.pricing.model
    st.session_state["cache_rule"] = config.pricing.cache
    for part, value in zip(PRICE_PARTS, config.pricing.own, strict=True):
        st.session_state[f"price_{part}"] = value
    st.session_state["must_keep_text"] = "\n".join(fact.text for fact in config.must_keep)
    summarizer_panel.load(settings.summarizer.to_data())
    if config.candidates:
        candidates_panel.replace_all(list(config.candidates))


def downloads(config: Config, turns_csv: str, session_name: str) -> None:
    cols = st.columns(3)
    cols[0].download_button(
        "Stack config (YAML)", config.to_yaml(), "stack.yaml", "application/x-yaml", key="download_yaml"
    )
    cols[1].download_button(
        "Stack config (JSON)", config.to_json(), "stack.json", "application/json", key="download_json"
    )
    cols[2].download_button(
        "Per-turn figures (CSV)", turns_csv, f"{session_name}-turns.csv", "text/csv", key="download_csv"
    )
    st.caption("Replay the config from the command line: `playground replay SESSION --config stack.yaml`.")
    st.code(config.to_yaml(), language="yaml")


def framework_export(
    config: Config, session: Session, figures: Callable[[list[PolicySpec]], Mapping]
) -> None:
    """The stack as a framework's code or config. What the framework cannot express is
    replaced by its nearest policy (or left out), said, and replayed beside the user's stack
    so the two figures show what the approximation costs before the download."""
    st.subheader("Take it to your framework")
    target = state.lasting(
        st.selectbox,
        "Framework",
        list(TARGETS),
        format_func=lambda name: TARGETS[name][0],
        key="export_target",
    )
    try:
        with st.spinner("Replaying the stack the framework can express…"):
            check = export_check(session, config.stack, config.settings, target, figures=figures)
    except ExportError as error:
        st.error(f"Cannot export this stack: {escape_markdown(str(error))}")
        return
    result = check.export
    if result.unexpressible:  # the changes made to fit, then what it cannot express
        lines = "\n".join(f"- {escape_markdown(str(line))}" for line in result.unexpressible)
        where = "listed at its top" if result.notes_in_file else "said here: the file holds only what is sent"
        st.warning(f"Not expressible in {TARGETS[target][0]} as it is ({where}):\n\n{lines}")
    else:
        st.success("Every policy of the stack is expressed exactly: the file replays as your stack does.")
    if not check.nearest.exact:
        cols = st.columns(2)
        for col, label, figures_of in (
            (cols[0], "Your stack", check.yours),
            (cols[1], "Exported stack", check.exported),
        ):
            col.metric(label, figures_said(figures_of), border=True)
        st.caption(f"Both replayed on {escape_markdown(session.name)}: {escape_markdown(check.line())}.")
    st.download_button(
        f"Download {result.filename}",
        result.text,
        result.filename,
        MIME_TYPES[result.language],
        key="download_export",
    )
    st.code(result.text, language=result.language)
