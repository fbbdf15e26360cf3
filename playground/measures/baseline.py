"""The recorded baseline in words: what the agent's calls cost as the file records them, which
session of the file a replay is, and the whole file's bill. One place for the sentences the
app, the command line and the JSON share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playground.engine.session import Session
from playground.measures.figures import Totals
from playground.money.cost import RecordedBill, recorded_bill
from policies.base import counted

# the output figure of a recorded call and the replies' own count part by more than this share:
# the file records a snapshot (Claude Code 1.x/2.0 often logs output_tokens mid-stream)
OUTPUT_GAP = 0.005


def which_session(session: Session, sessions: Sequence[Session], bill: RecordedBill | None = None) -> str:
    """``session``'s place among the file's ``sessions`` and the whole file's recorded bill
    (``bill``, where the caller has it already); "" for a file of one session (its own figures
    say it all)."""
    if len(sessions) < 2:
        return ""
    position = next((i for i, s in enumerate(sessions) if s is session), 0)
    subagents = sum(1 for s in sessions if s.parent)
    kinds = f" ({len(sessions) - subagents} main, {subagents} subagent)" if subagents else ""
    words = f"Session {position + 1} of {len(sessions)} in this file{kinds}."
    bill = bill or recorded_bill(sessions)
    if bill.calls:
        words += f" The whole file's recorded bill: {bill.note}, each call at its own model and cache tier."
    return words


def file_figures(sessions: Sequence[Session], session: Session) -> dict[str, Any]:
    """The file-level figures of a replay's JSON: which session, of how many, the whole file's
    recorded bill (None where no call records usage) and the agent's own bill of the session."""
    bill = recorded_bill(sessions)
    position = next((i for i, s in enumerate(sessions) if s is session), 0)
    return {
        "agent_reported_cost_usd": session.reported_cost_usd,
        "session_index": position,
        "file_sessions": len(sessions),
        "file_recorded_calls": bill.calls,
        "file_recorded_cost_usd": bill.cost if bill.calls and bill.priced == bill.calls else None,
        "file_recorded_note": bill.note if bill.calls else "no call in the file records usage",
    }


def recorded_words(figures: Totals, reported: float | None = None, priced_as: str = "") -> str:
    """The as-recorded figures of a replay's totals in one sentence: the bill as the file
    records it (ccusage's figure), on how many of the calls, and the estimate with each reply's
    output counted where the recorded output is a snapshot; or why there is no bill. With the
    agent's own bill (``reported``), that too, and what a gap between the two means. Where the
    user prices the replay as another model (``priced_as``), the recorded calls are at its price."""
    words = _recorded_words(figures, priced_as)
    if reported is None:
        return words
    words += f" The agent's own bill of the session: ${reported:,.4f}."
    recorded = figures.recorded_cost_usd
    if priced_as:
        return words[:-1] + " (at the model it ran)."
    if recorded is not None and abs(recorded - reported) > PRICE_GAP * max(reported, 1e-9):
        words += (
            f" The usage it recorded, at genai-prices' list price, comes to ${recorded:,.4f} "
            f"({100 * (recorded - reported) / reported:+.0f} %): the agent priced its calls otherwise "
            "(a list price changed since, or another model's name), so its own figure is the one it paid."
        )
    return words


PRICE_GAP = 0.02  # our bill of the recorded usage and the agent's own this far apart: said


def _recorded_words(figures: Totals, priced_as: str) -> str:
    calls, turns = figures.recorded_calls, figures.turns
    if not calls:
        return "The session records no usage: compared with the raw history only."
    share = f"all {turns:,} calls" if calls == turns else f"{calls:,} of {turns:,} calls"
    recorded = figures.recorded_cost_usd
    if recorded is None:
        if figures.recorded_cache_hit_pct is None:
            return (
                f"The session records the input tokens of {share} but not what the prompt cache served, "
                "so what the agent paid is unknown: its tokens are shown, not a bill."
            )
        return f"The session records usage on {share}, but no price is known for its model: tokens only."
    words = (
        f"As recorded ${recorded:,.4f} on {share} (the file's own usage at list prices, as ccusage bills it)"
        if not priced_as
        else f"As recorded, priced as {priced_as}: ${recorded:,.4f} on {share} (the file's own usage at that price)"
    )
    with_output = figures.recorded_cost_counted_output_usd
    if with_output is not None and abs(with_output - recorded) > OUTPUT_GAP * max(recorded, 1e-9):
        words += (
            f"; ${with_output:,.4f} with each reply's output counted from its text, as every replay here is "
            "billed (the replies count more than the file's output_tokens: Claude Code 1.x and 2.0, for "
            "one, log a mid-stream snapshot)"
        )
    if calls < turns:
        words += f"; the stack is compared with it on those {calls:,} calls"
    return words + "."


def raw_window_words(figures: Totals, window: int, compactions: int) -> str:
    """Where the raw history (no policy) outgrows the window the agent had: it could not have
    been sent, and the agent's own ``compactions`` are why its recorded requests fit; "" where
    the raw history fits."""
    over = figures.raw_turns_over_window
    if not over:
        return ""
    words = (
        f"The raw history outgrows the {window:,}-token window at {over:,} of {figures.turns:,} turns "
        f"(peak {figures.peak_raw_tokens:,} tokens): no provider would take those requests, so its "
        "cost is a bound, not a bill."
    )
    if compactions:
        words += (
            f" The agent compacted its own context {counted(compactions, 'time')} (marked on the tokens chart and "
            "in the event log): the recorded figures are what it sent after each."
        )
    return words
