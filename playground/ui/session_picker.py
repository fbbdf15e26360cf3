"""Session picker: the sample sessions and any number of browser uploads."""

from __future__ import annotations

import sysconfig
import time
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st
import yaml

from playground.engine.session import Session
from playground.formats import READABLE, with_companions
from playground.formats.builder import visible
from playground.formats.catalogue import FORMATS
from playground.measures.baseline import which_session
from playground.ui import cache, local_sessions
from playground.ui.text import escape_markdown
from policies.base import counted


def _samples_folder() -> Path:
    """The sample sessions: a checkout's folder, else where the installed package put them."""
    checkout = Path(__file__).parents[2] / "sample_sessions"
    if checkout.is_dir():
        return checkout
    return Path(sysconfig.get_path("data")) / "share" / "context-policy-playground" / "sample_sessions"


SAMPLES = _samples_folder()
DEFAULT_SAMPLE = "claude_code_compacted.jsonl"  # a real session whose agent compacted on its own


@dataclass(frozen=True)
class Choice:
    label: str
    session: Session
    origin: str  # "upload" or "sample"
    file: cache.Loaded | None = None  # every session the file holds, for "session 2 of 7"
    sample: str = ""  # the sample's file name, for where it comes from


def sample_files() -> list[Path]:
    files = sorted(p for p in SAMPLES.glob("*.json*") if p.suffix in (".json", ".jsonl"))
    return sorted(files, key=lambda p: p.name != DEFAULT_SAMPLE)


def _distinct(uploads: list) -> list[tuple[str, bytes]]:
    """Each uploaded file once, under a name of its own: a second file of the same name is
    "name (2)"; the same bytes uploaded again are said to be so and shown once."""
    seen: dict[bytes, str] = {}
    names: dict[str, int] = {}
    out = []
    for upload in uploads:
        data = upload.getvalue()
        if data in seen:
            st.info(
                f"{escape_markdown(upload.name)}: the same file as {escape_markdown(seen[data])}, shown once."
            )
            continue
        names[upload.name] = names.get(upload.name, 0) + 1
        name = upload.name if names[upload.name] == 1 else f"{upload.name} ({names[upload.name]})"
        seen[data] = name
        out.append((name, data))
    return out


def _choices(origin: str, name: str, loaded: cache.Loaded) -> list[Choice]:
    """One choice per session; a run of a multi-run file leads with its index and its own name
    (what the file records: task, trial, reward), so the list reads and searches by run."""
    name = visible(name)  # an upload's own name may hold anything
    if len(loaded.sessions) == 1:
        session = loaded.sessions[0]
        named = _named(session).removeprefix(session.name).removeprefix(" · ")
        return [Choice(f"{origin}: {name}" + (f" ({named})" if named else ""), session, origin, loaded)]
    return [
        Choice(f"#{i} {_named(s)} — {origin}: {name}", s, origin, loaded)
        for i, s in enumerate(loaded.sessions)
    ]


def _named(session: Session) -> str:
    """A session by what it records: its title or first request, the model, the day it ran."""
    parts = [session.name]
    if session.parent:
        parts.append("subagent")
    if session.recorded_model:  # the agents' logs: their model and the day they ran
        parts.append(session.recorded_model)
        if session.times:
            parts.append(time.strftime("%Y-%m-%d", time.gmtime(min(session.times.values()))))
    return " · ".join(parts)


WHERE_TOOLS_KEEP_THEM = (
    "Where the tools keep them: " + "; ".join(f"{f.tool} {f.where}" for f in FORMATS) + "."
)


def show(key: str = "session") -> Session | None:
    """The picker in the sidebar; returns the chosen session (None when nothing is readable)."""
    st.header("Session")
    uploads = st.file_uploader(
        "Upload transcripts (.json, .jsonl, .jsonl.zst, .traj, .eval, .aider.chat.history.md, ...)",
        # any name: the readers know a transcript by its content, and say in words why a file
        # is not one (a type filter would refuse .traj files with a hover-only message)
        type=None,
        accept_multiple_files=True,
        key=f"{key}_uploads",
        help=f"Readable: {READABLE}.\n\n{WHERE_TOOLS_KEEP_THEM}",
    )
    choices: list[Choice] = []
    mine = local_sessions.pick(key) if local_sessions.enabled() else None
    if mine is not None:  # the page runs on the user's own machine: a session of its agents
        loaded = cache.load_path(mine)
        if loaded.error:
            st.error(escape_markdown(loaded.error))
        choices += _choices("this machine", mine.name, loaded)
    distinct = _distinct(uploads or [])
    for name, data, beside in with_companions(tuple(distinct)):
        loaded = cache.load(data, name, beside)
        if loaded.error:
            st.error(escape_markdown(loaded.error))
        choices += _choices("upload", name, loaded)
    for path in sample_files():
        loaded = cache.load_path(path)
        if loaded.error:  # a broken sample is a bug, but it must not take the page down
            st.error(escape_markdown(loaded.error))
        choices += [replace(c, sample=path.name) for c in _choices("sample", path.stem, loaded)]
    if not choices:
        st.warning("No readable session: upload a transcript.")
        return None
    if not distinct and st.query_params.get(UPLOAD_KEY):
        if not st.session_state.get(f"{key}_seen"):  # a refresh, or a copied link: the upload is gone
            _upload_gone()
            return None
        del st.query_params[UPLOAD_KEY]  # this tab's own upload, removed: the samples again
    labels = [c.label for c in choices]
    # the Corpus tab's sessions: the uploads, or the samples when fewer than two are uploaded
    origin = "upload" if sum(c.origin == "upload" for c in choices) > 1 else "sample"
    st.session_state["corpus_choices"] = [(c.label, c.session) for c in choices if c.origin == origin]
    st.session_state["corpus_origin"] = origin
    uploaded = [c.label for c in choices if c.origin == "upload"]
    fresh = [label for label in uploaded if label not in st.session_state.get(f"{key}_seen", [])]
    st.session_state[f"{key}_seen"] = uploaded
    picked = str(mine) if mine is not None else None
    if picked != st.session_state.get(f"{key}_local_shown"):  # a session of this machine, newly picked
        st.session_state[f"{key}_local_shown"] = picked
        if picked is not None and choices and choices[0].origin == "this machine":
            st.session_state[f"{key}_choice"] = labels[0]
    if fresh:  # a new upload is what the user wants to look at
        st.session_state[f"{key}_choice"] = fresh[0]
    elif st.session_state.get(f"{key}_choice") not in labels:
        st.session_state[f"{key}_choice"] = labels[0]
    label = st.selectbox("Session", labels, key=f"{key}_choice")
    choice = choices[labels.index(label)]
    session = choice.session
    # the address says an upload is showing (never which: a copied link names no file of
    # yours), so that a refresh, which loses the upload, says so instead of showing a sample
    if choice.origin == "upload":
        st.query_params[UPLOAD_KEY] = "1"
    elif UPLOAD_KEY in st.query_params:
        del st.query_params[UPLOAD_KEY]
    if fresh:  # the page now shows another session: say which, and where the rest went
        more = (
            f"; {len(fresh) - 1} more session(s) of it in the list above"
            + (" and in the Corpus tab" if origin == "upload" else "")
            if len(fresh) > 1
            else ""
        )
        st.success(f"Now showing your upload, **{escape_markdown(label)}**{more}.")
    _describe(session)
    if choice.sample:
        st.caption(escape_markdown(sample_source(choice.sample)))
    if choice.file is not None:
        st.caption(escape_markdown(which_session(session, choice.file.sessions, choice.file.bill)))
    return session


@st.cache_data(show_spinner=False)
def _sources() -> dict[str, dict]:
    entries = yaml.safe_load((SAMPLES / "SOURCES.yaml").read_text(encoding="utf-8"))
    return {entry["file"]: entry for entry in entries}


def sample_source(name: str) -> str:
    """Where sample ``name`` comes from, in a sentence: a real session's agent, repository,
    commit and licence; or that it is synthetic."""
    entry = _sources().get(name)
    if entry is None:
        return "A sample session."
    if not entry.get("real"):
        return f"{entry['agent']}: {entry['what']}."
    return (
        f"A real session recorded by {entry['agent']}: {entry['what']}. From {entry['repository']} at "
        f"{entry['commit']}, {entry['path']}; {entry['licence'].rstrip('.')}."
    )


UPLOAD_KEY = "upload"  # ?upload=1 while an upload is the session shown


UPLOAD_GONE = (
    "**This page showed an uploaded transcript, which a refresh does not keep**: an upload lives only "
    "in the browser tab that sent it, nothing is stored. Upload it again in the sidebar; the stack, "
    "model and candidates are kept."
)


def _upload_gone() -> None:
    """After a refresh (or from a copied link) the page showed an upload the browser no longer
    holds: say so, and show nothing of another session until one is chosen."""
    st.warning("Upload your transcript again: a refresh does not keep it.")
    if st.button("Show the sample sessions instead", key="upload_gone_samples"):
        del st.query_params[UPLOAD_KEY]
        st.rerun()


def nothing_shown() -> None:
    """The results' place when no session is shown: why, where that is not said beside the picker."""
    if UPLOAD_KEY in st.query_params:
        st.warning(UPLOAD_GONE)


def _describe(session: Session) -> None:
    counter = cache.counter_for(st.session_state["model"])
    st.caption(
        f"**{escape_markdown(session.name)}** · {session.format} · {len(session.messages):,} messages · "
        f"{session.tool_calls:,} tool calls · {session.turns:,} turns · "
        f"{counter.total(session.messages):,} raw tokens · recorded usage: {'yes' if session.usage else 'no'}"
    )
    if session.warnings:
        with st.expander(counted(len(session.warnings), "reader warning")):
            for warning in session.warnings:
                st.text(f"- {warning}")
