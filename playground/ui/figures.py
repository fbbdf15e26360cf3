"""Headline figures and the per-turn charts of a replay."""

from __future__ import annotations

import streamlit as st

from playground import charts
from playground.ui.cache import Replayed
from playground.ui.text import escape_markdown


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}% of raw" if whole else ""


def headline(replayed: Replayed) -> None:
    figures = replayed.totals
    if figures.get("turns", 0) == 0:
        st.warning("This session has no assistant replies, so there is no inference to replay.")
        return
    row1 = st.columns(4)
    row1[0].metric(
        "Peak context",
        f"{figures['peak_context_tokens']:,}",
        _pct(figures["peak_context_tokens"], figures["peak_raw_tokens"]),
        delta_color="off",
        delta_arrow="off",
        help=f"Raw history peak: {figures['peak_raw_tokens']:,} tokens",
    )
    row1[1].metric(
        "Final context",
        f"{figures['final_context_tokens']:,}",
        _pct(figures["final_context_tokens"], figures["final_raw_tokens"]),
        delta_color="off",
        delta_arrow="off",
        help=f"Raw history at the last turn: {figures['final_raw_tokens']:,} tokens",
    )
    row1[2].metric(
        "Input tokens billed",
        f"{figures['billed_context_tokens']:,}",
        f"raw {figures['billed_raw_tokens']:,}",
        delta_color="off",
        delta_arrow="off",
        help="Sum of the input tokens of every inference.",
    )
    row1[3].metric("Saved", f"{figures['saved_pct']}%", help="Share of the raw token bill the stack avoids.")
    row2 = st.columns(4)
    row2[0].metric("Stubs created", f"{figures['stubs_created']:,}")
    row2[1].metric("Clips", f"{figures['clips']:,}")
    row2[2].metric(
        "Compactions",
        f"{figures['compactions']:,}",
        f"{figures['summary_failures']} failed" if figures["summary_failures"] else None,
        delta_color="inverse",
        delta_arrow="off",
    )
    row2[3].metric(
        "Turns with violations",
        f"{figures['turns_with_violations']:,}",
        help="Turns whose request a provider would reject (broken call/result pairs, standing rules missing).",
    )
    row3 = st.columns(4)
    row3[0].metric(
        "Facts lost",
        f"{figures['distinct_facts_lost']:,}",
        f"in {figures['turns_with_facts_lost']} turn(s)",
        delta_color="off",
        delta_arrow="off",
        help="Facts (numbers, dates, ids, paths, quoted strings) a recorded reply uses that appeared earlier "
        "in the session but were missing from the context sent at that turn.",
    )
    row3[1].metric(
        "Re-fetches",
        f"{figures['refetches']:,}",
        help="Tool calls repeating an earlier call whose result was no longer intact in the context.",
    )
    row3[2].metric(
        "Standing rules lost",
        f"{figures['turns_standing_rules_lost']:,}",
        help="Turns whose request lacks part of the system prompt (standing rules).",
    )
    row3[3].metric("Turns", f"{figures['turns']:,}")


def charts_view(replayed: Replayed, context_window: int) -> None:
    turns, events = replayed.turns, replayed.events
    st.plotly_chart(charts.tokens_chart(turns, events, context_window), width="stretch", key="chart_tokens")
    st.plotly_chart(charts.quality_chart(turns), width="stretch", key="chart_quality")

    left, right = st.columns(2)
    left.plotly_chart(charts.stubs_chart(turns), width="stretch", key="chart_stubs")
    right.plotly_chart(charts.composition_chart(turns), width="stretch", key="chart_composition")
    st.plotly_chart(charts.removed_chart(turns), width="stretch", key="chart_removed")


def summarizer_line(replayed: Replayed) -> None:
    """What the summarizer did in this replay, and a warning when summaries failed or thrashed."""
    stats = replayed.result.summary_stats
    failed = replayed.totals.get("summary_failures", 0)
    if failed:
        st.warning(
            f"{failed} summar{'y' if failed == 1 else 'ies'} failed: those compactions were skipped and no "
            "history was lost. The Events tab says why."
        )
    thrash = replayed.totals.get("thrash_events", 0)
    if thrash:
        st.warning(
            f"Compaction thrash: {thrash} event(s) where a compaction left the context over its trigger or "
            "fired on consecutive turns. Lower keep_recent or raise the trigger."
        )
    for note in stats.notes:
        st.info(escape_markdown(note))
    if stats.calls:
        st.caption(
            f"Summarizer ({replayed.result.settings.summarizer.get('kind')}): {stats.calls} summaries "
            f"({stats.cache_hits} from cache, {stats.failures} failed); "
            f"its own token use {stats.prompt_tokens:,} in + {stats.completion_tokens:,} out."
        )
