"""The sessions on the user's own machine, where the page was started by ``playground app``: the
files named, then those the agents keep (newest first). A page started any other way (a hosted
server) never looks at its own disk: neither setting is there."""

from __future__ import annotations

import os
import time
from pathlib import Path

import streamlit as st

from playground.formats.builder import visible
from playground.formats.local import LOCAL, LOCAL_PATHS, Found, agent_sessions, named_sessions

NONE = "(none: the samples and uploads)"


def enabled() -> bool:
    return os.environ.get(LOCAL) == "1" or bool(os.environ.get(LOCAL_PATHS))


@st.cache_data(ttl=30, show_spinner=False)
def _listed(paths: str, agents: bool) -> list[Found]:
    named = named_sessions([Path(p) for p in paths.split(os.pathsep) if p])
    return named + (agent_sessions() if agents else [])


def pick(key: str) -> Path | None:
    """The file of this machine chosen in the sidebar (the first named, at first), or None."""
    found = _listed(os.environ.get(LOCAL_PATHS, ""), os.environ.get(LOCAL) == "1")
    if not found:
        st.caption("No session found in the agents' folders on this machine.")
        return None
    labels = [NONE, *(_label(f) for f in found)]
    named_first = bool(os.environ.get(LOCAL_PATHS))
    chosen = st.selectbox(
        f"Your sessions on this machine ({len(found):,}, newest first)",
        labels,
        index=1 if named_first else 0,
        key=f"{key}_local",
        help="The files you named to `playground app`, then those Claude Code, Codex CLI, Gemini CLI and Pi "
        "keep in your home folder. Only a page you started on this machine looks here.",
    )
    return None if chosen == NONE else found[labels.index(chosen) - 1].path


def _label(found: Found) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found.mtime))
    where = str(found.path).replace(str(Path.home()), "~", 1)
    return visible(f"{when} · {found.tool + ' · ' if found.tool else ''}{where}")
