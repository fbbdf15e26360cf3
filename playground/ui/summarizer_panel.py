"""The summarizer used by compaction policies: kind, its settings, the API key, the cache."""

from __future__ import annotations

from typing import Any

import streamlit as st

from playground.summaries.endpoints import EndpointError, choose_key
from playground.summaries.summarizers import SUMMARIZER_PARAMS
from playground.summaries.summary_cache import SummaryCache
from playground.ui.stack_editor import param_widget
from playground.ui.text import escape_markdown

KEY_HELP = (
    "Kept in this browser session only; never written to a config, an export or a log. Empty: the "
    "server's own key, and only for the server's own endpoint."
)


def _widget_key(kind: str, name: str) -> str:
    return f"summarizer_{kind}_{name}"


def load(spec: dict[str, Any]) -> None:
    """Set the panel's widgets from a summarizer spec (an imported config)."""
    kind = spec.get("kind", "extractive")
    st.session_state["summarizer_kind"] = kind
    for param in SUMMARIZER_PARAMS.get(kind, ()):
        st.session_state[_widget_key(kind, param.name)] = spec.get(param.name, param.default)


def _clear_cache() -> None:
    st.session_state["summarizer_cleared"] = SummaryCache().clear()


def show() -> dict[str, Any]:
    """The panel; returns the summarizer spec (never the key)."""
    st.header("Summarizer")
    if "summarizer_kind" not in st.session_state:
        load(st.session_state["summarizer"])
    kind = st.selectbox(
        "Summarizer",
        list(SUMMARIZER_PARAMS),
        key="summarizer_kind",
        help="Used by compaction policies. extractive: offline and deterministic, a stand-in for an LLM. "
        "openai: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio).",
    )
    spec: dict[str, Any] = {"kind": kind}
    for param in SUMMARIZER_PARAMS[kind]:
        key = _widget_key(kind, param.name)
        st.session_state.setdefault(key, param.default)
        value = param_widget(param, key)
        if value != param.default:
            spec[param.name] = value
    if kind == "openai":
        st.text_input("API key", type="password", key="summarizer_api_key", help=KEY_HELP)
        try:
            choice = choose_key(spec.get("base_url", ""), api_key(), hosted=True)
        except EndpointError as error:
            st.error(escape_markdown(str(error)))
        else:
            (st.info if choice.key else st.warning)(
                escape_markdown(choice.notice[0].upper() + choice.notice[1:] + ".")
            )
    st.session_state["summarizer"] = spec
    return spec


def cache_figures() -> None:
    """The disk cache's size and a button to clear it; drawn after the replay, so it is current."""
    if st.session_state.get("summarizer_kind") != "openai":
        return
    cache = SummaryCache()
    st.caption(f"Summary cache: {cache.size():,} summaries in `{cache.folder}`")
    if cache.notice:
        st.info(escape_markdown(cache.notice))
    st.button("Clear cache", on_click=_clear_cache, key="summarizer_clear_cache")
    cleared = st.session_state.pop("summarizer_cleared", None)
    if cleared is not None:
        st.success(f"Cleared {cleared:,} cached summaries.")


def api_key() -> str | None:
    return st.session_state.get("summarizer_api_key") or None
