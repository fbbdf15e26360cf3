"""The Compare tab: every candidate and the stack being edited, replayed on the same session."""

from __future__ import annotations

import streamlit as st

from playground.analyses.compare import compare, display_table
from playground.charts.compare import (
    COMPARE_CHARTS,
    EDITING_COLOUR,
    merged_identical,
    overlay_chart,
    with_cumulative_cost,
)
from playground.engine.session import Session
from playground.limits import LimitError
from playground.measures.evaluate import Scenario
from playground.stacks.config import ConfigError
from playground.summaries.base import SummarizerError
from playground.ui import cache, candidates_panel, must_keep_panel, stack_editor, state, summarizer_panel
from playground.ui.text import escape_markdown
from policies.registry import PolicySpec, SpecError

EDITING = "stack being edited"
BEST_STYLE = "background-color: rgba(30, 142, 62, 0.18); font-weight: 600"


def show(session: Session, editing: list[PolicySpec], scenario: Scenario) -> None:
    saved = candidates_panel.candidates()
    if not saved:
        st.info(
            "No candidates yet. Under *Candidates* (beside the stack), save the stack you are editing "
            "or add a preset; each candidate is then replayed here on this session, next to the stack "
            "being edited and the raw history."
        )
        return
    stacks = {EDITING: editing} | {c.name: list(c.stack) for c in saved}
    colours = {EDITING: EDITING_COLOUR} | candidates_panel.colours()
    totals, frames = {}, {}
    with st.spinner(f"Replaying {len(stacks)} stacks…"):
        for name, stack in stacks.items():
            try:
                replayed = cache.replayed(session, stack, scenario, summarizer_panel.api_key())
            except (SpecError, SummarizerError, ConfigError, LimitError) as error:
                st.error(f"{escape_markdown(name)} cannot run: {escape_markdown(str(error))}")
                continue
            replayed, _ = must_keep_panel.checked(replayed, scenario.must_keep)
            totals[name], frames[name] = replayed.totals, with_cumulative_cost(replayed.turns)
    if not totals:
        return
    names = list(totals)
    baseline = state.lasting(
        st.selectbox,
        "Baseline",
        names,
        key="compare_baseline",
        default=names[min(1, len(names) - 1)],
        help="Each figure's difference is taken against this stack.",
    )
    comparison = compare(totals, baseline if baseline in totals else None)
    cells, best = display_table(comparison)
    with st.container(key="compare_table"):
        st.table(cells.style.apply(lambda _: best.map(lambda b: BEST_STYLE if b else ""), axis=None))
    st.caption(
        "Green: the best value of its row (none where all are equal, or neither way is better). "
        "In brackets: the difference from the baseline."
    )
    loads = st.columns(len(saved))
    for column, candidate in zip(loads, saved, strict=True):
        column.button(
            f"Load {candidate.name}",
            key=f"compare_load_{candidate.name}",
            help="Load this candidate into the editor",
            on_click=stack_editor.replace_stack,
            args=(list(candidate.stack), "candidate", candidate.name),
            width="stretch",
        )
    same = merged_identical(frames)
    for members in (m for m in same.values() if len(m) > 1):
        st.caption(
            f"{' and '.join(escape_markdown(m) for m in members)} give the same figures on this session: "
            "each chart draws them as one line."
        )
    left, right = st.columns(2)
    for n, (title, column, raw) in enumerate(COMPARE_CHARTS):
        # one legend, under the first chart: the same stacks in the same colours in all four
        figure = overlay_chart(
            frames, colours, title, column, raw, dashed=(EDITING,), legend=n == 0, same=same
        )
        (left if n % 2 == 0 else right).plotly_chart(figure, width="stretch", key=f"compare_chart_{n}")
