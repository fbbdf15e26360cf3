"""The recorded baseline in words: what the agent's calls cost as the file records them, which
session of the file a replay is, and the whole file's bill. One place for the sentences the
app, the command line and the JSON share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playground.engine.session import Session
from playground.money.cost import recorded_bill

# the output figure of a recorded call and the replies' own count part by more than this share:
# the file records a snapshot (Claude Code 1.x/2.0 often logs output_tokens mid-stream)
OUTPUT_GAP = 0.005


def which_session(session: Session, sessions: Sequence[Session]) -> str:
    """``session``'s place among the file's ``sessions`` and the whole file's recorded bill;
    "" for a file of one session (its own figures say it all)."""
    if len(sessions) < 2:
        return ""
    position = next((i for i, s in enumerate(sessions) if s is session), 0)
    subagents = sum(1 for s in sessions if s.parent)
    kinds = f" ({len(sessions) - subagents} main, {subagents} subagent)" if subagents else ""
    words = f"Session {position + 1} of {len(sessions)} in this file{kinds}."
    bill = recorded_bill(sessions)
    if bill.calls:
        words += f" The whole file's recorded bill: {bill.note}, each call at its own model and cache tier."
    return words


def file_figures(sessions: Sequence[Session], session: Session) -> dict[str, Any]:
    """The file-level figures of a replay's JSON: which session, of how many, and the whole
    file's recorded bill (None where no call records usage)."""
    bill = recorded_bill(sessions)
    position = next((i for i, s in enumerate(sessions) if s is session), 0)
    return {
        "session_index": position,
        "file_sessions": len(sessions),
        "file_recorded_calls": bill.calls,
        "file_recorded_cost_usd": bill.cost if bill.calls and bill.priced == bill.calls else None,
        "file_recorded_note": bill.note if bill.calls else "no call in the file records usage",
    }


def recorded_words(figures: Mapping[str, Any]) -> str:
    """The as-recorded figures of a replay's totals in one sentence: the bill as the file
    records it (ccusage's figure), on how many of the calls, and the estimate with each reply's
    output counted where the recorded output is a snapshot; or why there is no bill."""
    calls, turns = figures.get("recorded_calls") or 0, figures.get("turns") or 0
    if not calls:
        return "The session records no usage: compared with the raw history only."
    share = f"all {turns:,} calls" if calls == turns else f"{calls:,} of {turns:,} calls"
    recorded = figures.get("recorded_cost_usd")
    if recorded is None:
        if figures.get("recorded_cache_hit_pct") is None:
            return (
                f"The session records the input tokens of {share} but not what the prompt cache served, "
                "so what the agent paid is unknown: its tokens are shown, not a bill."
            )
        return f"The session records usage on {share}, but no price is known for its model: tokens only."
    words = f"As recorded ${recorded:,.4f} on {share} (the file's own usage, as ccusage bills it)"
    counted = figures.get("recorded_cost_counted_output_usd")
    if counted is not None and abs(counted - recorded) > OUTPUT_GAP * max(recorded, 1e-9):
        words += (
            f"; ${counted:,.4f} with each reply's output counted from its text, as every replay here is "
            "billed (the file's output_tokens fall short of the replies it holds: mid-stream snapshots)"
        )
    if calls < turns:
        words += f"; the stack is compared with it on those {calls:,} calls"
    return words + "."
