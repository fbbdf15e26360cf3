"""The Sweep tab: one parameter (or two, a grid) over a range, each point a replay, plotted
as cost against loss with the front drawn; a click on a point loads its values.

The sweep runs on a thread of its own (its points in worker processes), so the page stays
usable while it runs: a fragment polls its progress and offers Cancel."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from playground.analyses.runner import RunError, default_workers
from playground.analyses.sweep import (
    COST_AXES,
    LOSS_AXES,
    Axis,
    Sweep,
    SweepError,
    axis,
    points,
    run_sweep,
    suggested_range,
    sweepable,
)
from playground.charts.compare import sweep_chart
from playground.engine.session import Session
from playground.measures.evaluate import Scenario
from playground.ui import background, cache, stack_editor, state, summarizer_panel
from playground.ui.text import escape_markdown
from policies.registry import POLICY_TYPES, PolicySpec


@dataclass(kw_only=True)
class SweepJob(background.Job):
    """A sweep of this browser's."""

    axes: tuple[Axis, ...]
    entry_ids: tuple[int, ...]  # the stack entry of each axis, to load a point's values into
    result: Sweep | None = None
    swept_from: tuple = ()  # the stack it ran on, the swept values left out (``_unswept``)


def _sweep(job: SweepJob, session: Session, specs, settings, pricing, facts, api_key) -> None:
    job.result = run_sweep(
        session,
        specs,
        job.axes,
        settings,
        pricing,
        facts,
        counter=cache.counter_for(settings.model),
        workers=default_workers(),
        api_key=api_key,
        hosted=True,
        progress=lambda done, planned: setattr(job, "done", done),
        cancelled=job.cancel.is_set,
    )


def _axis_picker(stack: list[dict], n: int, column) -> tuple[Axis, int] | None:
    """Entry, parameter and values of axis ``n``; None (having said why) when they do not parse."""
    choices = {  # entry id -> (position, entry)
        entry["id"]: (position, entry)
        for position, entry in enumerate(stack, start=1)
        if entry["enabled"] and any(sweepable(p) for p in POLICY_TYPES[entry["name"]].params)
    }
    if not choices:
        column.info("No enabled policy in the stack has a number, a switch or a choice to sweep.")
        return None
    # lasting: a visit to another tab keeps the picks
    entry_id = state.lasting(
        column.selectbox,
        "Policy to sweep",
        list(choices),
        format_func=lambda i: f"{choices[i][0]}. {choices[i][1]['name']}",
        key=f"sweep_entry_{n}",
    )
    position, entry = choices[entry_id]
    params = {p.name: p for p in POLICY_TYPES[entry["name"]].params if sweepable(p)}
    param = params[
        state.lasting(
            column.selectbox,
            "Parameter to sweep",
            list(params),
            key=f"sweep_param_{n}_{entry_id}",
        )
    ]
    written = state.lasting(
        column.text_input,
        "Values",
        key=f"sweep_values_{n}_{entry_id}_{param.name}",
        default=suggested_range(param),
        help="START:END (whole numbers, step 1), START:END:STEP, or a list: a,b,c.",
    )
    try:
        return axis(position, entry["name"], param, written, f"{param.name}={written}"), entry_id
    except SweepError as error:
        column.error(escape_markdown(str(error)))
        return None


def show(session: Session, specs: list[PolicySpec], scenario: Scenario) -> None:
    settings, pricing, facts = scenario.settings, scenario.pricing, scenario.must_keep
    st.caption(
        "Replays the stack at every value of a parameter (two for a grid) and plots what each point "
        "costs against what it loses; the front holds the points no other beats on both. "
        "Click a point to load its values into the editor."
    )
    stack = st.session_state["stack"]
    first, second = st.columns(2)
    picked = [_axis_picker(stack, 0, first)]
    if state.lasting(second.toggle, "A second parameter (a grid)", key="sweep_grid"):
        picked.append(_axis_picker(stack, 1, second))
    loss = state.lasting(
        st.radio,
        "Loss",
        list(LOSS_AXES),
        format_func=LOSS_AXES.get,
        horizontal=True,
        key="sweep_loss",
        help="What the front weighs the cost against.",
    )
    job: SweepJob | None = st.session_state["sweep_job"]
    if job is not None and job.swept_from != _unswept(stack, job.axes, job.entry_ids):
        # the stack changed under the sweep (not by loading one of its points): its figures
        # and what it loaded describe another stack now
        job.cancel.set()
        st.session_state["sweep_job"] = job = None
        st.session_state["sweep_loaded"] = None
    ready = all(p is not None for p in picked)
    planned = None
    if ready:
        try:
            planned = len(points([p[0] for p in picked]))
        except SweepError as error:
            st.error(escape_markdown(str(error)))
    start = st.button(
        f"Run the sweep ({planned} points)" if planned else "Run the sweep",
        type="primary",
        disabled=planned is None or (job is not None and job.running),
        key="sweep_run",
    )
    if start and planned:
        axes = tuple(p[0] for p in picked)
        entry_ids = tuple(p[1] for p in picked)
        new = SweepJob(
            axes=axes, entry_ids=entry_ids, planned=planned, swept_from=_unswept(stack, axes, entry_ids)
        )
        args = (new, session, list(specs), settings, pricing, facts, summarizer_panel.api_key())
        if background.start(new, lambda: _sweep(*args), background.SWEEP, (SweepError, RunError)):
            st.session_state["sweep_job"] = job = new
    if job is not None and background.progress(
        job, lambda: f"{job.done} of {job.planned} points, {job.seconds:.0f} s", "sweep_cancel"
    ):
        _results(job, loss)


def _unswept(stack: list[dict], axes: tuple[Axis, ...], entry_ids: tuple[int, ...]) -> tuple:
    """The stack as plain data with the values a sweep sets left out: loading one of its points
    leaves this as it was; any other edit changes it."""
    swept = set(zip(entry_ids, (a.param for a in axes), strict=True))
    return tuple(
        (
            entry["id"],
            entry["name"],
            entry.get("enabled", True),
            tuple(sorted((k, repr(v)) for k, v in entry["params"].items() if (entry["id"], k) not in swept)),
        )
        for entry in stack
    )


def _results(job: SweepJob, loss: str) -> None:
    if job.error:
        st.error(escape_markdown(job.error))
        return
    sweep = job.result
    if sweep is None:
        return
    took = job.seconds
    if not sweep.complete:
        st.warning(f"Cancelled: {len(sweep.points)} of {sweep.planned} points ran ({took:.1f} s).")
    else:
        st.caption(f"{sweep.planned} points in {took:.1f} s.")
    if not sweep.points:
        return
    st.plotly_chart(
        sweep_chart(sweep, loss),
        width="stretch",
        key="sweep_chart",
        on_select=_load_point,
        selection_mode="points",
    )
    if st.session_state.get("sweep_loaded"):
        st.success(escape_markdown(st.session_state["sweep_loaded"]))
    cost = sweep.cost_axis()
    rows = pd.DataFrame(sweep.rows(loss))
    columns = [a.label for a in sweep.axes] + [
        cost,
        loss,
        "turns_with_violations",
        "on_front",
        "invalid",
        "error",
    ]
    headers = {
        cost: COST_AXES[cost].capitalize(),
        loss: LOSS_AXES[loss].capitalize(),
        "turns_with_violations": "Turns with violations",
        "on_front": "On the front",
        "invalid": "Invalid requests",
        "error": "Why it could not run",
    }
    st.dataframe(
        rows[columns].rename(columns=headers),
        hide_index=True,
        width="stretch",
        key="sweep_table",
    )


def _load_point() -> None:
    """A click on a point sets its values in the editor (the stack entries swept, by id)."""
    job: SweepJob | None = st.session_state["sweep_job"]
    selection = st.session_state["sweep_chart"].selection
    index = next(
        (_index(p.get("customdata")) for p in selection.points if p.get("customdata") is not None), None
    )
    if job is None or job.result is None or index is None or index >= len(job.result.points):
        return
    point = job.result.points[index]
    loaded = []
    for ax, entry_id, value in zip(job.axes, job.entry_ids, point.values, strict=True):
        if stack_editor.set_param(entry_id, ax.param, value):
            loaded.append(f"{ax.param} = {value}")
    st.session_state["sweep_loaded"] = (
        f"Loaded {', '.join(loaded)} into the editor."
        if loaded
        else "The policies swept are no longer in the stack."
    )


def _index(customdata) -> int | None:
    value = customdata[0] if isinstance(customdata, list | tuple) and customdata else customdata
    return int(value) if isinstance(value, int | float) else None
