"""Candidates: stacks saved by name to compare (the Compare tab) and export with the config.

Kept in session state as plain entries ``{id, name, stack, colour}``; a candidate keeps its
colour until it is removed, so its line is the same colour on every chart.
"""

from __future__ import annotations

import streamlit as st

from playground.analyses.compare import unique_name
from playground.charts.compare import CANDIDATE_COLOURS
from playground.limits import LIMITS
from playground.stacks.candidates import Candidate
from playground.stacks.presets import available_presets, preset_label
from playground.ui import stack_editor
from playground.ui.text import escape_markdown
from policies.registry import PolicySpec


def entries() -> list[dict]:
    return st.session_state["candidates"]


def candidates() -> list[Candidate]:
    return [Candidate(e["name"], tuple(e["stack"])) for e in entries()]


def colours() -> dict[str, str]:
    return {e["name"]: e["colour"] for e in entries()}


def add(name: str, stack: list[PolicySpec] | tuple[PolicySpec, ...]) -> str | None:
    """Keep ``stack`` as a candidate; the reason it cannot be kept, or None."""
    if len(entries()) >= LIMITS.max_candidates:
        return f"At most {LIMITS.max_candidates} candidates: remove one first."
    name = unique_name(name.strip() or "Candidate", [e["name"] for e in entries()])
    used = {e["colour"] for e in entries()}
    colour = next(c for c in CANDIDATE_COLOURS if c not in used)
    entry_id = st.session_state["next_candidate_id"]
    st.session_state["next_candidate_id"] = entry_id + 1
    entries().append({"id": entry_id, "name": name, "stack": list(stack), "colour": colour})
    st.session_state[f"candidate_name_{entry_id}"] = name
    return None


def replace_all(found: list[Candidate]) -> None:
    """The candidates become those of an imported config."""
    st.session_state["candidates"] = []
    for candidate in found[: LIMITS.max_candidates]:
        add(candidate.name, candidate.stack)


def _save(stack: list[PolicySpec]) -> None:
    st.session_state["candidate_error"] = add(
        st.session_state["candidate_new_name"] or _default_name(), stack
    )
    st.session_state["candidate_new_name"] = ""


def _add_preset() -> None:
    name = st.session_state["candidate_preset"]
    if name is not None:
        st.session_state["candidate_error"] = add(name, available_presets()[name])
        st.session_state["candidate_preset"] = None


def _rename(entry: dict) -> None:
    wanted = st.session_state[f"candidate_name_{entry['id']}"].strip()
    others = [e["name"] for e in entries() if e is not entry]
    if not wanted or wanted in others:
        st.session_state["candidate_error"] = (
            "A candidate needs a name of its own."
            if not wanted
            else f"There is already a candidate {wanted!r}."
        )
        st.session_state[f"candidate_name_{entry['id']}"] = entry["name"]
        return
    st.session_state["candidate_error"] = None
    entry["name"] = wanted


def _remove(entry_id: int) -> None:
    st.session_state["candidates"] = [e for e in entries() if e["id"] != entry_id]
    st.session_state["candidate_error"] = None


def _default_name() -> str:
    origin = st.session_state["stack_origin"]
    if origin is None:
        return f"Candidate {len(entries()) + 1}"
    _, name, loaded = origin
    return name if stack_editor.specs() == loaded else f"{name} (edited)"


def show(stack: list[PolicySpec]) -> None:
    """Save the stack (or a preset) as a candidate; rename, load or remove the saved ones."""
    st.subheader("Candidates")
    st.caption(
        f"Save up to {LIMITS.max_candidates} stacks to compare them in the *Compare* tab; they are "
        "written to the exported config as `candidates`."
    )
    full = len(entries()) >= LIMITS.max_candidates
    st.text_input("Name", key="candidate_new_name", placeholder=_default_name())
    st.button(
        "Save the stack as a candidate", on_click=_save, args=(stack,), disabled=full, key="candidate_save"
    )
    st.selectbox(
        "Add a built-in stack as a candidate",
        list(available_presets()),
        index=None,
        placeholder="Choose one…",
        format_func=preset_label,
        key="candidate_preset",
        on_change=_add_preset,
        disabled=full,
    )
    if st.session_state["candidate_error"]:
        st.warning(escape_markdown(st.session_state["candidate_error"]))
    for entry in entries():
        with st.container(key=f"candidate_{entry['id']}"):
            swatch, name = st.columns([0.1, 1], vertical_alignment="center", gap="small")
            # the colour is one of ours, never the user's text
            swatch.html(f'<div style="width:14px;height:14px;background:{entry["colour"]}"></div>')
            name.text_input(
                f"Candidate {entry['id']}",
                key=f"candidate_name_{entry['id']}",
                on_change=_rename,
                args=(entry,),
                label_visibility="collapsed",
            )
            load, remove = st.columns(2)
            load.button(
                "Load",
                key=f"candidate_load_{entry['id']}",
                help="Load this stack into the editor",
                on_click=stack_editor.replace_stack,
                args=(list(entry["stack"]), "candidate", entry["name"]),
                type="tertiary",
            )
            remove.button(
                "Remove",
                key=f"candidate_remove_{entry['id']}",
                on_click=_remove,
                args=(entry["id"],),
                type="tertiary",
            )
