"""The Recommend tab: the cheapest stack within a budget of facts lost, searched on this
session; the answer against the raw history, what the agent sent and the best preset, every
stack tried on a chart (a click loads one), and the answer loaded into the editor in one click.

The search runs on a thread of its own, so the page stays usable while it runs: a fragment
polls its progress and offers Cancel."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from playground.analyses.own_policy import own_stack
from playground.analyses.recommend import (
    ANY,
    Budget,
    Recommendation,
    RecommendError,
    Tried,
    money,
    recommend,
    stack_said,
)
from playground.analyses.runner import RunError, default_workers
from playground.charts.compare import recommend_chart
from playground.engine.session import Session
from playground.limits import LIMITS
from playground.measures.evaluate import Scenario
from playground.stacks.presets import FRAMEWORK_PRESETS
from playground.ui import background, stack_editor, state
from playground.ui.text import escape_markdown

APP_TRIALS = 40  # the tab's default: a minute or less on a long session
SEARCHED = 150  # about as many stacks as the search tries before the sampler: the first "of N"


@dataclass(kw_only=True)
class RecommendJob(background.Job):
    """A search of this browser's."""

    session: str  # the content hash of the session searched
    best: Tried | None = None  # the best within the budget so far
    result: Recommendation | None = None


def _search(job: RecommendJob, session, settings, budget, pricing, facts, framework, trials, seed) -> None:
    """The search, on the job's thread; ``budget`` None: no more loss than the agent's own policy."""

    def progress(done: int, planned: int, best: Tried | None) -> None:
        job.done, job.planned, job.best = done, planned, best

    job.result = recommend(
        [session],
        [settings],
        budget,
        pricing=pricing,
        must_keep=facts,
        framework=framework,
        trials=trials,
        seed=seed,
        workers=default_workers(),
        progress=progress,
        cancelled=job.cancel.is_set,
    )


def show(session: Session, scenario: Scenario) -> None:
    settings, pricing, facts = scenario.settings, scenario.pricing, scenario.must_keep
    st.caption(
        "Searches for the cheapest stack that stays within your budget on this session: the raw "
        "history and every preset, each policy alone over a log grid of its values, pairs of the best, "
        "a local search that halves and doubles each value, then the stacks an Optuna sampler proposes. "
        "Each is a whole replay with prompt caching priced, stopped early once it costs more than the "
        "best so far."
    )
    cols = st.columns(4)
    lost = state.lasting(
        cols[0].number_input, "Facts it may lose", key="recommend_facts", default=0, min_value=0, step=1
    )
    framework = state.lasting(
        cols[1].selectbox,
        "Policies from",
        [ANY, *FRAMEWORK_PRESETS],
        key="recommend_framework",
        format_func=lambda f: "any framework" if f == ANY else f,
        help="Only a framework's policies, so the answer exports to it cleanly.",
    )
    trials = state.lasting(
        cols[2].number_input,
        "Stacks to propose",
        key="recommend_trials",
        default=APP_TRIALS,
        min_value=1,
        max_value=min(LIMITS.max_recommend_trials, 400),
        step=10,
    )
    seed = state.lasting(cols[3].number_input, "Seed", key="recommend_seed", default=0, min_value=0, step=1)
    cols = st.columns(4)
    refetches = state.lasting(
        cols[0].number_input,
        "Re-fetches it may cause",
        key="recommend_refetches",
        value=None,
        min_value=0,
        step=1,
        placeholder="any number",
        help="A tool call the agent repeats because a policy took away its result. Empty: no limit.",
    )
    held = state.lasting(
        cols[1].toggle,
        "No must-keep fact lost",
        key="recommend_must_keep",
        default=True,
        disabled=not facts,
        help="Declare must-keep facts in the sidebar; off, losing one is shown but allowed.",
    )
    quotes = state.lasting(
        cols[2].number_input,
        "Copied lines it may lose",
        key="recommend_quotes",
        default=0,
        min_value=0,
        step=1,
        help="Lines of 24 characters or more that a later reply copies from an earlier tool result or user "
        "message (an edit's old text, an error quoted): lost where the request no longer holds them.",
    )
    budget: Budget | None = Budget(
        int(lost), bool(held), None if refetches is None else int(refetches), max_quotes_lost=int(quotes)
    )
    own = own_stack(session)
    if own is not None and state.lasting(
        st.toggle,
        "No more loss than your agent's own policy",
        key="recommend_against_own",
        default=True,
        help=f"Where {own[0]} is the reference (the agent compacted, or the raw history outgrows its window): "
        "a stack may lose no more facts, copied lines and re-fetches than it, and send no request over the "
        "window. The limits above apply where it is not.",
    ):
        budget = None
        st.caption(
            "Budget: no more loss than your agent's own policy, replayed first; no request over the window."
        )
    else:
        assert budget is not None
        st.caption(f"Budget: {budget.said()}" + (f" ({len(facts)} declared)" if facts else "") + ".")
    job: RecommendJob | None = st.session_state["recommend_job"]
    if job is not None and job.session != session.content_hash:  # another session: another answer
        job.cancel.set()
        st.session_state["recommend_job"] = job = None
    if st.button(
        "Recommend a stack", type="primary", disabled=job is not None and job.running, key="recommend_run"
    ):
        new = RecommendJob(session=session.content_hash, planned=int(trials) + SEARCHED)
        args = (new, session, settings, budget, pricing, facts, framework, int(trials), int(seed))
        if background.start(new, lambda: _search(*args), background.SEARCH, (RecommendError, RunError)):
            st.session_state["recommend_job"] = job = new
    if job is not None and background.progress(job, lambda: _progress_text(job), "recommend_cancel"):
        _answer(job)


def _progress_text(job: RecommendJob) -> str:
    best = "" if job.best is None else f"; best within the budget so far: {job.best.origin}"
    return f"{job.done} of {job.planned} stacks tried, {job.seconds:.0f} s{best}"


def _answer(job: RecommendJob) -> None:
    if job.error:
        st.error(escape_markdown(job.error))
        return
    answer = job.result
    if answer is None:
        return
    if job.cancel.is_set():
        st.warning(f"Cancelled: the answer is the best of the {len(answer.tried)} stacks tried.")
    for note in answer.notes:
        st.info(escape_markdown(note))
    best = answer.best
    verdict = answer.verdict()
    st.markdown(f"**Answer: {escape_markdown(verdict[0].upper() + verdict[1:])}.**")
    st.caption(f"Budget: {escape_markdown(answer.budget.said())}.")
    if best is None:
        st.error("No stack tried stays within the budget: allow more facts lost.")
        return
    objective = answer.objective
    if best.stack:
        st.success(
            f"**Recommended** ({escape_markdown(best.origin)}): " + escape_markdown(stack_said(best.stack))
        )
        st.button(
            "Load it into the editor", on_click=_load, args=(best,), key="recommend_load", type="primary"
        )
    rows = [
        ("recommended", best),
        *([("your agent's own policy", answer.own)] if answer.own is not None else []),
        ("raw history", answer.raw),
        ("best preset", answer.best_preset),
    ]
    table = pd.DataFrame(
        [
            {
                "stack": label if tried is None or label != "best preset" else f"best preset: {tried.origin}",
                "cost": "no preset within the budget"
                if tried is None
                else money(tried.total(objective) or 0.0, objective),
                "facts lost": "" if tried is None else f"{tried.total('distinct_facts_lost') or 0:,.0f}",
                "copied lines lost": ""
                if tried is None
                else f"{tried.total('distinct_quotes_lost') or 0:,.0f}",
            }
            for label, tried in rows
        ]
    )
    recorded = [s.recorded_cost_usd for s in best.sessions]
    if objective == "cost_usd" and recorded and all(r is not None for r in recorded):
        table.loc[len(table)] = {
            "stack": "as recorded (what the agent sent)",
            "cost": money(sum(recorded), objective),
            "facts lost": "",
            "copied lines lost": "",
        }
    st.dataframe(table, hide_index=True, key="recommend_table")
    why = answer.why()
    if why:
        st.markdown(
            "**Why it wins**, each policy against the stack without it:\n\n"
            + "\n".join(f"- {escape_markdown(line)}" for line in why)
        )
    ran = sum(t.ran for t in answer.tried)
    st.caption(
        f"{len(answer.tried)} stacks tried in {answer.seconds:.1f} s ({answer.trials} proposed by the sampler"
        + (f"; {answer.stopped_said()}" if answer.stopped_said() else "")
        + f"). The chart draws the {ran:,} that ran to the end (stacks of the same figures share a point); "
        "one stopped early has no losses to draw."
    )
    st.plotly_chart(
        recommend_chart(answer),
        width="stretch",
        key="recommend_chart",
        on_select=_load_point,
        selection_mode="points",
    )
    if st.session_state.get("recommend_loaded"):
        st.success(escape_markdown(st.session_state["recommend_loaded"]))


def _load(tried: Tried) -> None:
    stack_editor.replace_stack(list(tried.stack), "recommendation", tried.origin)
    st.session_state["recommend_loaded"] = f"Loaded {tried.origin} into the editor."


def _load_point() -> None:
    """A click on a point loads that stack into the editor."""
    job: RecommendJob | None = st.session_state["recommend_job"]
    selection = st.session_state["recommend_chart"].selection
    index = next((p["customdata"][0] for p in selection.points if p.get("customdata")), None)
    if job is None or job.result is None or not isinstance(index, int | float):
        return
    if 0 <= int(index) < len(job.result.tried):
        _load(job.result.tried[int(index)])
