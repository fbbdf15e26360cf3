"""Headline figures and the per-turn charts of a replay."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from playground.analyses.own_policy import OwnPolicy, against_own, stack_words
from playground.charts import turns as charts
from playground.engine.replay import NO_TURNS
from playground.measures import metrics
from playground.measures.baseline import raw_window_words, recorded_words
from playground.measures.figures import FIGURES_BY_KEY
from playground.measures.reasons import difference_parts, dollars
from playground.ui import compactions_view, state
from playground.ui.cache import Replayed
from playground.ui.text import escape_markdown
from policies.base import counted


def _meaning(key: str) -> str:
    """A figure's help text: what it means, as measures.figures declares it."""
    meaning = FIGURES_BY_KEY[key].meaning
    return meaning[0].upper() + meaning[1:] + "."


def _tokens(count: int) -> str:
    """A token count that fits a quarter of the results' width: millions as "2.62 M" (the
    exact count is in the figure's help and the CSV)."""
    return f"{count:,}" if count < 1_000_000 else f"{count / 1_000_000:.2f} M"


def _change(pct: float, against: str) -> dict[str, str]:
    """A lead figure's change in percent and its colour: a rise red, a fall green; no change
    (at the shown precision) said as such, uncoloured, never "-0.0%"."""
    if round(pct, 1) == 0:
        return {"delta": f"same ({against})", "delta_color": "off", "delta_arrow": "off"}
    return {"delta": f"{pct:+.1f}% {against}", "delta_color": "inverse"}


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}% of raw" if whole else ""


def headline(replayed: Replayed, must_keep: int = 0, own: OwnPolicy | None = None) -> None:
    """The answer first: four figures (cost against the raw history, or against your agent's own
    policy replayed where that is the reference (``own``); against the recorded bill; what was
    lost) and the one-line reason, then what a provider would refuse; every other figure folded
    below them. ``must_keep`` is how many must-keep facts are declared."""
    figures = replayed.totals
    if figures.turns == 0:
        st.warning(NO_TURNS)
        return
    _lead(replayed, must_keep, own)
    if own is not None:
        _own_policy(replayed, own)
    _reason(figures)
    _refused(replayed)
    notes = metrics.policy_notes(replayed.result.events)
    for note in (n for level, n in notes if level == "warning"):  # a policy that cannot meet its budget
        st.warning(escape_markdown(note))
    with st.expander("All figures: prompt cache, tokens, what the policies did, the recorded baseline"):
        for note in (n for level, n in notes if level != "warning"):  # a policy that never acts
            st.info(escape_markdown(note))
        _cache_figures(replayed)
        as_recorded(replayed)
        _token_figures(replayed, must_keep)


def _lead(replayed: Replayed, must_keep: int, own: OwnPolicy | None = None) -> None:
    figures = replayed.totals
    priced = figures.cost_usd is not None
    row = st.columns(4)
    against_agent = against_own(figures, own) if own is not None else {}
    if priced:
        base = (
            "Every request priced with the provider's prompt cache, plus the summaries the stack asks "
            f"for ({dollars(figures.summary_cost_usd)})"
        )
        if own is not None and against_agent.get("saved_vs_own_pct") is not None:
            change = _change(-against_agent["saved_vs_own_pct"], "vs own policy")
            help_text = (
                f"{base}, against your agent's own policy replayed ({dollars(own.cost_usd or 0.0)}): the "
                "reference where the agent compacted or the raw history outgrows its window."
            )
        else:
            change = _change(-figures.saved_cost_pct, "vs raw")
            help_text = (
                f"{base}. The raw history, the same session sent whole with no policy, costs "
                f"{dollars(figures.raw_cost_usd)}."
            )
        row[0].metric("Cost with this stack", dollars(figures.cost_usd), **change, help=help_text)
    else:
        row[0].metric(
            "Cost with this stack",
            "no price",
            help=f"No price is known for {replayed.result.settings.model}.",
        )
    recorded = figures.recorded_cost_usd
    if own is not None and own.cost_usd is not None and own.residual_pct is not None:
        row[1].metric(
            "Agent's own policy",
            dollars(own.cost_usd),
            **_change(own.residual_pct, "vs paid"),
            help=own.words(),
        )
    elif priced and recorded is not None and figures.saved_vs_recorded_pct is not None:
        row[1].metric(
            "As recorded",
            dollars(recorded),
            **_change(-figures.saved_vs_recorded_pct, "stack"),
            help="The bill of the calls as the file records them (ccusage's figure): what the agent "
            "actually paid, each call at its own model and cache tier.",
        )
    else:
        row[1].metric(
            "Input tokens sent",
            _tokens(figures.billed_context_tokens),
            **_change(-figures.saved_pct, "vs raw"),
            help=f"Sum of the input tokens of every request: {figures.billed_context_tokens:,}; the raw "
            f"history sends {figures.billed_raw_tokens:,}.",
        )
    row[2].metric(
        "Facts lost",
        f"{figures.distinct_facts_lost:,}",
        f"in {counted(figures.turns_with_facts_lost, 'turn')}",
        delta_color="off",
        delta_arrow="off",
        help=_meaning("distinct_facts_lost"),
    )
    if must_keep:
        lost = figures.distinct_must_keep_lost
        row[3].metric(
            "Must-keep lost",
            f"{lost} of {must_keep}",
            f"in {counted(figures.turns_with_must_keep_lost, 'turn')}" if lost else None,
            delta_color="inverse",
            delta_arrow="off",
            help=_meaning("distinct_must_keep_lost"),
        )
    else:
        row[3].metric(
            "Re-fetches",
            f"{figures.refetches:,}",
            help=_meaning("refetches"),
        )


def _own_policy(replayed: Replayed, own: OwnPolicy) -> None:
    """Your agent's own policy replayed beside what it paid, and this stack said against it."""
    same = tuple(s for s in replayed.result.specs if s.enabled) == own.stack
    st.markdown(f"**{escape_markdown(stack_words(replayed.totals, own, same))}**")
    st.caption(escape_markdown(own.words()))
    if own.raw_words():
        st.caption(escape_markdown(own.raw_words()))


def _reason(figures: dict) -> None:
    """Why the stack costs what it does, in one line: the parts of the difference from the raw history."""
    if figures.cost_usd is None:
        return
    saved = figures.saved_usd
    parts = escape_markdown(difference_parts(figures))
    breaks = figures.cache_breaks
    if saved < 0:
        st.markdown(
            f":red[**This stack costs {dollars(-saved)} more than the raw history "
            f"({-figures.saved_cost_pct:.1f}%)**, though it sends {figures.saved_pct}% fewer tokens. "
            f"The difference: {parts}"
            + (f" (its {counted(breaks, 'cache break')} write the cache again)" if breaks else "")
            + ". Batched eviction breaks the cache less often.]"
        )
    elif saved > 0:
        st.markdown(
            f":green[**This stack saves {dollars(saved)} against the raw history "
            f"({figures.saved_cost_pct:.1f}%)**: it sends {figures.saved_pct}% fewer tokens. "
            f"The difference: {parts}"
            + (
                f"; its {counted(breaks, 'cache break')} cost less than that."
                if breaks
                else "; it never breaks the prompt cache."
            )
            + "]"
        )


def _refused(replayed: Replayed) -> None:
    """What a provider would refuse, above the fold: requests over the window, standing rules cut."""
    figures = replayed.totals
    window = replayed.result.settings.context_window
    if figures.turns_over_window:
        st.warning(
            f"**{figures.turns_over_window:,} of {figures.turns:,} turns send more than the "
            f"{window:,}-token context window** (peak {figures.peak_context_tokens:,}): the provider would "
            "refuse these requests. Add a policy that keeps the context under the window, or pick a model "
            "with a larger one."
        )
    if figures.turns_standing_rules_lost:
        st.warning(
            f"**{counted(figures.turns_standing_rules_lost, 'turn')} without part of the system prompt** "
            "(standing rules): the stack cut what the agent is told to always follow."
        )


def _cache_figures(replayed: Replayed) -> None:
    """The prompt cache: hit rate, breaks, how it was priced, and the summaries' share."""
    figures, attrs = replayed.totals, replayed.turns.attrs
    where = "; ".join(
        escape_markdown(attrs[k]) for k in ("cache_rule", "cache_timing", "cache_served") if attrs.get(k)
    )
    if figures.cost_usd is None:
        st.info(f"No price known for this model: the figures are tokens. Prompt cache: {where}.")
        return
    row = st.columns(4)
    row[0].metric(
        "Money saved" if figures.saved_usd >= 0 else "Money lost",
        dollars(abs(figures.saved_usd)),
        f"{figures.saved_cost_pct:+.1f}%",
        delta_color="normal",
        help="Raw history's cost minus the stack's.",
    )
    row[1].metric(
        "Cache hit rate",
        f"{figures.cache_hit_pct:.1f}%",
        f"raw {figures.raw_cache_hit_pct:.1f}%",
        delta_color="off",
        delta_arrow="off",
        help=_meaning("cache_hit_pct"),
    )
    row[2].metric(
        "Cache breaks",
        f"{figures.cache_breaks:,}",
        f"{_tokens(figures.cache_break_repaid_tokens)} re-paid",
        delta_color="off",
        delta_arrow="off",
        help=f"{_meaning('cache_breaks')} Here {figures.cache_break_repaid_tokens:,} tokens are re-paid.",
    )
    row[3].metric(
        "Raw history",
        dollars(figures.raw_cost_usd),
        help="The same session sent whole, with no policy, priced the same way.",
    )
    st.caption(f"Priced as **{escape_markdown(attrs['priced_as'])}**; prompt cache: {where}.")
    if figures.summary_calls:
        st.markdown(
            f"**Summaries: {dollars(figures.summary_cost_usd)}** of the stack's cost, "
            f"{counted(figures.summary_calls, 'summarizer call')}: {figures.summary_input_tokens:,} tokens "
            f"in, {figures.summary_output_tokens:,} out, priced as "
            f"{escape_markdown(attrs.get('summaries_priced_as') or '')} without caching."
        )


def as_recorded(replayed: Replayed) -> None:
    """The honest baseline: what the agent actually sent and paid, as its log records, beside
    the stack and the raw history; and how the counts were calibrated to it."""
    figures = replayed.totals
    recorded = figures.recorded_cost_counted_output_usd
    if recorded is not None and figures.saved_vs_recorded_usd is not None:
        saved = figures.saved_vs_recorded_usd
        verdict = (
            f"saves {dollars(saved)} ({figures.saved_vs_recorded_pct:.1f}%)"
            if saved >= 0
            else f"costs {dollars(-saved)} more ({-figures.saved_vs_recorded_pct:.1f}%)"
        )
        as_counted = (
            f" ({dollars(recorded)} with each reply's output counted)"
            if dollars(recorded) != dollars(figures.recorded_cost_usd)
            else ""
        )
        st.markdown(
            f"**As recorded {dollars(figures.recorded_cost_usd)}**{as_counted} · this stack "
            f"{dollars(figures.cost_usd)} · "
            f"raw history {dollars(figures.raw_cost_usd)}: against what the agent actually sent, this stack "
            f"{verdict}."
        )
    priced_as = replayed.turns.attrs.get("priced_as_model") or ""
    st.caption(escape_markdown(recorded_words(figures, replayed.result.session.reported_cost_usd, priced_as)))
    fit = replayed.result.calibration
    if fit is not None:
        st.caption(escape_markdown(fit.note[0].upper() + fit.note[1:]) + ".")


def _token_figures(replayed: Replayed, must_keep: int) -> None:
    """Tokens held and sent, what the policies did, and what a provider would refuse."""
    figures = replayed.totals
    row1 = st.columns(4)
    row1[0].metric(
        "Peak context",
        _tokens(figures.peak_context_tokens),
        _pct(figures.peak_context_tokens, figures.peak_raw_tokens),
        delta_color="off",
        delta_arrow="off",
        help=f"Raw history peak: {figures.peak_raw_tokens:,} tokens",
    )
    row1[1].metric(
        "Final context",
        _tokens(figures.final_context_tokens),
        _pct(figures.final_context_tokens, figures.final_raw_tokens),
        delta_color="off",
        delta_arrow="off",
        help=f"Raw history at the last turn: {figures.final_raw_tokens:,} tokens",
    )
    row1[2].metric(
        "Input tokens billed",
        _tokens(figures.billed_context_tokens),
        f"raw {_tokens(figures.billed_raw_tokens)}",
        delta_color="off",
        delta_arrow="off",
        help=f"Sum of the input tokens of every inference: {figures.billed_context_tokens:,} "
        f"(raw history {figures.billed_raw_tokens:,}).",
    )
    row1[3].metric(
        "Tokens saved", f"{figures.saved_pct}%", help="Share of the raw token bill the stack avoids."
    )
    row2 = st.columns(4)
    row2[0].metric("Stubs created", f"{figures.stubs_created:,}")
    row2[1].metric("Clips", f"{figures.clips:,}")
    row2[2].metric(
        "Compactions",
        f"{figures.compactions:,}",
        f"{figures.summary_failures} failed" if figures.summary_failures else None,
        delta_color="inverse",
        delta_arrow="off",
    )
    row2[3].metric(
        "Turns with violations",
        f"{figures.turns_with_violations:,}",
        f"raw history {figures.raw_turns_with_violations:,}" if figures.raw_turns_with_violations else None,
        delta_color="off",
        delta_arrow="off",
        help=_meaning("turns_with_violations"),
    )
    window = replayed.result.settings.context_window
    raw_over = raw_window_words(figures, window, len(replayed.result.session.compactions))
    if raw_over:
        st.info(escape_markdown(raw_over))
    row3 = st.columns(4)
    row3[0].metric(
        "Standing rules lost",
        f"{figures.turns_standing_rules_lost:,}",
        help=_meaning("turns_standing_rules_lost"),
    )
    row3[1].metric("Turns", f"{figures.turns:,}")
    if must_keep:  # the lead row shows must-keep in the place of re-fetches
        row3[2].metric(
            "Re-fetches",
            f"{figures.refetches:,}",
            help=_meaning("refetches"),
        )


def _jump(key: str) -> None:
    """A click on a chart point opens that turn in the side-by-side view."""
    points = st.session_state[key].selection.points
    turn = next((p.get("x") for p in points if isinstance(p.get("x"), int | float)), None)
    if turn is not None:
        st.session_state["turn"] = int(turn)
        st.session_state["view"] = "Side by side"


def _chart(figure, key: str, where=st) -> None:
    where.plotly_chart(
        figure, width="stretch", key=key, on_select=lambda: _jump(key), selection_mode="points"
    )


def charts_view(
    replayed: Replayed, context_window: int, must_keep_states: pd.DataFrame | None = None
) -> None:
    """The cost per turn, the tokens sent beside the raw history (and the agent's compactions),
    what was lost; the other five charts a switch away (drawing all eight at once held the first
    one back by a second in the browser)."""
    turns, events = replayed.turns, replayed.events
    priced = bool(turns["cost_usd"].notna().all())
    st.caption("Click a point on a chart to open that turn side by side.")
    if must_keep_states is not None:
        _chart(charts.must_keep_chart(must_keep_states), "chart_must_keep")
    if priced:
        _chart(charts.cost_chart(turns), "chart_cost")
    _chart(charts.tokens_chart(turns, events, context_window), "chart_tokens")
    result = replayed.result
    compactions_view.show(result.session, result.settings.model, context_window)
    _chart(charts.quality_chart(turns), "chart_quality")
    more = "cumulative cost, cache hit rate, " if priced else ""
    shown = state.lasting(
        st.toggle, f"More charts: {more}stubs, composition, tokens removed", key="more_charts"
    )
    if not shown:
        return
    if priced:
        left, right = st.columns(2)
        _chart(charts.cumulative_cost_chart(turns), "chart_cumulative", left)
        _chart(charts.cache_hit_chart(turns), "chart_cache_hits", right)
    left, right = st.columns(2)
    _chart(charts.stubs_chart(turns), "chart_stubs", left)
    _chart(charts.composition_chart(turns), "chart_composition", right)
    _chart(charts.removed_chart(turns), "chart_removed")


def summarizer_line(replayed: Replayed) -> None:
    """What the summarizer did in this replay, and a warning when summaries failed or thrashed."""
    stats = replayed.result.summary_stats
    failed = replayed.totals.summary_failures
    if failed:
        st.warning(
            f"{failed} summar{'y' if failed == 1 else 'ies'} failed: those compactions were skipped and no "
            "history was lost. The Events tab says why."
        )
    thrash = replayed.totals.thrash_events
    if thrash:
        st.warning(
            f"Compaction thrash: {thrash} event(s) where a compaction left the context over its trigger or "
            "fired on consecutive turns. Lower keep_recent or raise the trigger."
        )
    for note in stats.notes:
        st.info(escape_markdown(note))
    if stats.calls:
        st.caption(
            f"Summarizer ({replayed.result.settings.summarizer.kind}): {stats.calls} summaries "
            f"({stats.cache_hits} from cache, {stats.failures} failed); "
            f"its own token use {stats.prompt_tokens:,} in + {stats.completion_tokens:,} out."
        )
