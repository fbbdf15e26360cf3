"""The policy stack editor: presets, add, drag to reorder, enable/disable, remove, parameters.

The stack lives in session state as plain entries ``{id, name, params, given, enabled}``;
``specs()`` turns them into PolicySpecs. Every widget is made from a parameter's
declaration, so a new policy needs no UI code.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit_sortables import sort_items

from playground.engine.replay import moved_ahead
from playground.engine.session import Session
from playground.stacks.presets import (
    DEFAULT_PRESET,
    OWN_PRESETS,
    available_presets,
    own_preset,
    policies_by_use,
    preset_label,
)
from playground.ui.text import escape_markdown
from policies.base import Param, Policy
from policies.registry import POLICY_TYPES, PolicySpec, SpecError

SLIDER_SPAN = 500  # integer ranges up to this wide get a slider; wider ones a number input


def _widget_key(entry_id: int, param: str) -> str:
    return f"param_{entry_id}_{param}"


def new_entry(spec: PolicySpec) -> dict[str, Any]:
    """A stack entry for ``spec``, with its widgets' state set from the spec."""
    entry_id = st.session_state["next_entry_id"]
    st.session_state["next_entry_id"] = entry_id + 1
    declared = {p.name: p for p in POLICY_TYPES[spec.name].params}
    params = {name: p.default for name, p in declared.items()} | dict(spec.params)
    for name, value in params.items():
        st.session_state[_widget_key(entry_id, name)] = _to_widget(declared[name], value)
    st.session_state[f"enabled_{entry_id}"] = spec.enabled
    return {
        "id": entry_id,
        "name": spec.name,
        "params": params,
        "given": sorted(spec.params),
        "enabled": spec.enabled,
    }


def replace_stack(specs: list[PolicySpec], kind: str, name: str) -> None:
    """The stack becomes ``specs``, loaded from the preset or the config file ``name``; the
    editor says where it came from, and that it was edited once it differs."""
    st.session_state["stack"] = [new_entry(s) for s in specs]
    st.session_state["stack_origin"] = (kind, name, list(specs))
    st.session_state["stack_epoch"] += 1


def set_param(entry_id: int, name: str, value: Any) -> bool:
    """Set one parameter of the entry ``entry_id`` and its widget (from a callback, before the
    widgets are drawn); False when the stack no longer holds that entry."""
    for entry in st.session_state["stack"]:
        if entry["id"] == entry_id:
            declared = {p.name: p for p in POLICY_TYPES[entry["name"]].params}
            entry["params"][name] = value
            st.session_state[_widget_key(entry_id, name)] = _to_widget(declared[name], value)
            st.session_state[f"panel_open_{entry_id}"] = True  # show the user what changed
            return True
    return False


def specs() -> list[PolicySpec]:
    """The stack as specs: only the parameters given or changed from their defaults."""
    out = []
    for entry in st.session_state["stack"]:
        declared = {p.name: p for p in POLICY_TYPES[entry["name"]].params}
        params = {
            name: value
            for name, value in entry["params"].items()
            if name in entry["given"] or value != declared[name].default
        }
        out.append(PolicySpec(entry["name"], params, entry["enabled"]))
    return out


def _to_widget(param: Param, value: Any) -> Any:
    if param.type is list:
        return ", ".join(value or ())
    return value


def _from_widget(param: Param, value: Any) -> Any:
    if param.type is list:
        return [v.strip() for v in str(value).split(",") if v.strip()]
    return value


def param_widget(param: Param, key: str) -> Any:
    """The widget a declaration calls for; returns the parameter's value."""
    label = param.name
    if param.optional:  # empty means "not set"
        kind = param.type
        low = None if param.minimum is None else kind(param.minimum)
        high = None if param.maximum is None else kind(param.maximum)
        wide = low is None or high is None or high - low > SLIDER_SPAN
        value = st.number_input(
            label,
            low,
            high,
            step=0.01 if kind is float else (100 if wide else 1),
            key=key,
            help=param.help + " Empty: not set.",
            placeholder="not set",
        )
        return None if value is None else param.type(value)
    if param.choices:
        value = st.selectbox(label, param.choices, key=key, help=param.help)
    elif param.type is bool:
        value = st.toggle(label, key=key, help=param.help)
    elif param.type in (int, float) and param.minimum is not None and param.maximum is not None:
        span = param.maximum - param.minimum
        if param.type is float or span <= SLIDER_SPAN:
            step = 0.01 if param.type is float else 1
            value = st.slider(
                label,
                param.type(param.minimum),
                param.type(param.maximum),
                step=step,
                key=key,
                help=param.help,
            )
        else:
            step = 1_000 if span >= 100_000 else 100
            value = st.number_input(
                label, int(param.minimum), int(param.maximum), step=step, key=key, help=param.help
            )
    elif param.type in (int, float):
        value = st.number_input(label, key=key, help=param.help)
    elif param.type is list:
        value = st.text_input(label, key=key, help=param.help + " (comma-separated)")
    else:
        long = len(str(param.default)) > 60
        widget = st.text_area if long else st.text_input
        value = widget(label, key=key, help=param.help)
    return _from_widget(param, value)


def _add() -> None:
    name = st.session_state["stack_add_choice"]
    entry = new_entry(PolicySpec(name))
    st.session_state[f"panel_open_{entry['id']}"] = True  # the user added it to tune it
    st.session_state["stack"].append(entry)
    st.session_state["stack_epoch"] += 1


def _remove(entry_id: int) -> None:
    st.session_state["stack"] = [e for e in st.session_state["stack"] if e["id"] != entry_id]
    st.session_state["stack_epoch"] += 1


def _apply_preset() -> None:
    name = st.session_state["stack_preset"]
    if name is None:
        return
    replace_stack(available_presets()[name], "preset", name)
    st.session_state["stack_preset"] = None  # back to "Load a preset…": picking it again reloads it


def _enabled(entry: dict[str, Any]) -> bool:
    """Whether the entry is on as of this run: its toggle, where it has been drawn already."""
    return bool(st.session_state.get(f"enabled_{entry['id']}", entry["enabled"]))


def _labels(stack: list[dict]) -> list[str]:
    counts: dict[str, int] = {}
    labels = []
    for entry in stack:
        counts[entry["name"]] = counts.get(entry["name"], 0) + 1
        label = entry["name"] if counts[entry["name"]] == 1 else f"{entry['name']} ({counts[entry['name']]})"
        labels.append(label if _enabled(entry) else f"{label} (disabled)")
    return labels


def _open_with_own_policy(session: Session | None) -> None:
    """A session newly picked whose agent's own policy the playground replays (Claude Code,
    Codex) opens with that policy as the stack, unless the user (a link, a config) gave one or
    edited it: it is the reference every other stack is measured against. Another session,
    picked after it, opens with the default stack again on the same terms."""
    if session is None or st.session_state["stack_for"] == session.content_hash:
        return
    st.session_state["stack_for"] = session.content_hash
    origin = st.session_state["stack_origin"]
    untouched = st.session_state["stack"] is None or (
        origin is not None
        and origin[0] == "preset"
        and origin[1] in (DEFAULT_PRESET, *OWN_PRESETS.values())
        and specs() == origin[2]
    )
    # an untouched stack follows the session: its agent's own policy, else the default one
    preset = own_preset(session.format) or DEFAULT_PRESET
    if untouched and (origin is None or origin[1] != preset):
        replace_stack(available_presets()[preset], "preset", preset)


def show(session: Session | None = None) -> list[PolicySpec]:
    """The editor; returns the stack as specs. ``session`` is the one picked: a newly picked
    Claude Code or Codex session opens with its agent's own policy."""
    _open_with_own_policy(session)
    if st.session_state["stack"] is None:
        replace_stack(available_presets()[DEFAULT_PRESET], "preset", DEFAULT_PRESET)
    st.subheader("Policy stack")
    presets = available_presets()
    st.selectbox(
        "Preset",
        list(presets),
        index=None,
        placeholder="Load a preset…",
        format_func=preset_label,
        help="Ready-made stacks, grouped by the framework whose rules and defaults they follow.",
        key="stack_preset",
        on_change=_apply_preset,
    )
    origin_note = st.empty()  # filled once every widget below has given its value
    add_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    add_col.selectbox("Add a policy", policies_by_use(), key="stack_add_choice", help="The most used first.")
    button_col.button("Add", on_click=_add, key="stack_add", width="stretch")

    stack = st.session_state["stack"]
    if len(stack) > 1:
        st.caption("Drag to reorder: policies run top to bottom, each on the previous one's output.")
        labels = _labels(stack)
        ordered = sort_items(
            labels, direction="vertical", key=f"stack_order_{st.session_state['stack_epoch']}"
        )
        if ordered != labels and sorted(ordered) == sorted(labels):
            by_label = dict(zip(labels, stack, strict=True))
            st.session_state["stack"] = stack = [by_label[label] for label in ordered]
    if not stack:
        st.info("No policies: the context is the raw history.")
    ahead = _moved_ahead(stack)
    for position, entry in enumerate(stack, start=1):
        _entry(position, entry, position - 1 in ahead)
    if st.session_state["stack_origin"] is not None:
        kind, name, loaded = st.session_state["stack_origin"]
        edited = ", edited" if specs() != loaded else ""
        origin_note.caption(f"From {kind} **{escape_markdown(name)}**{edited}")
    return specs()


def _built(entry: dict[str, Any]) -> Policy | None:
    try:
        return PolicySpec(entry["name"], entry["params"]).build()
    except SpecError:  # the replay names what is wrong
        return None


def _moved_ahead(stack: list[dict[str, Any]]) -> set[int]:
    enabled = [(i, p) for i, e in enumerate(stack) if _enabled(e) and (p := _built(e)) is not None]
    return {enabled[k][0] for k in moved_ahead([p for _, p in enabled])}


def _entry(position: int, entry: dict[str, Any], ahead: bool = False) -> None:
    cls = POLICY_TYPES[entry["name"]]
    title = f"{position}. {entry['name']}" + ("" if _enabled(entry) else " (disabled)")
    # open or shut as first drawn (open while the stack is short, or just added), then as the
    # user leaves it:
    # a keyed panel keeps its state when a policy is added, moved or disabled
    opened = st.session_state.setdefault(f"panel_open_{entry['id']}", len(st.session_state["stack"]) <= 3)
    with st.expander(title, expanded=opened, key=f"panel_{entry['id']}"):
        st.caption((cls.__doc__ or "").strip().split("\n\n")[0])
        on_col, remove_col = st.columns([1, 1], vertical_alignment="center")
        entry["enabled"] = on_col.toggle("enabled", key=f"enabled_{entry['id']}")
        remove_col.button(  # no icon: its ligature name would be read out ("delete Remove")
            "Remove",
            key=f"remove_{entry['id']}",
            on_click=_remove,
            args=(entry["id"],),
            type="tertiary",
        )
        for param in cls.params:
            entry["params"][param.name] = param_widget(param, _widget_key(entry["id"], param.name))
        policy = _built(entry)
        if policy is not None:
            note = policy.lifecycle().capitalize() + "."
            if ahead:
                note += " Runs before the ephemeral policies above it: history is rewritten first."
            st.caption(note)
