"""Per-turn figures, the event log and per-session totals of a replay, as pandas frames.

The one place that turns a ReplayResult into numbers; the CLI, the app and the charts
all read these frames.
"""

from __future__ import annotations

from collections import defaultdict

import pandas as pd

from playground import quality as quality_measures
from playground.replay import ReplayResult
from playground.running import BUCKETS

# action name -> per-turn column counting the messages it affected
# a fold (tiered eviction's decision log) summarizes messages too, so it counts as compacted
ACTION_COLUMNS = {
    "stub": "stubs_created",
    "clip": "clips",
    "drop": "drops",
    "compact": "compacted_messages",
    "fold": "compacted_messages",
}
EVENT_COLUMNS = [
    "turn",
    "position",
    "policy",
    "action",
    "messages",
    "tokens_before",
    "tokens_after",
    "detail",
]


def removed_column(position: int, policy: str) -> str:
    return f"removed_by_{position}_{policy}"


def turns_frame(result: ReplayResult) -> pd.DataFrame:
    """One row per inference: what the raw history holds and what the stack sends."""
    per_turn: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    removed_columns = {
        removed_column(pos, spec.name): 0 for pos, spec in enumerate(result.specs, start=1) if spec.enabled
    }
    for event in result.events:
        row = per_turn[event.turn]
        column = ACTION_COLUMNS.get(event.action)
        if column:
            row[column] += max(len(event.messages), 1)
        if event.action == "compact":
            row["compactions"] += 1
        elif event.action == "summary_failed":
            row["summary_failures"] += 1
        elif event.action == "thrash":
            row["thrash"] += 1
        if event.position:
            row[removed_column(event.position, event.policy)] += event.tokens_before - event.tokens_after

    rows = []
    quality = {q.turn: q for q in quality_measures.per_turn(result)}
    for turn in result.turns:
        counts = per_turn.get(turn.number, {})
        row = {
            "turn": turn.number,
            "reply_index": turn.reply_index,
            "raw_tokens": turn.raw_tokens,
            "context_tokens": turn.context_tokens,
            "saved_tokens": turn.raw_tokens - turn.context_tokens,
            "raw_messages": turn.raw_messages,
            "context_messages": len(turn.request),
            "recorded_prompt_tokens": result.recorded_usage(turn),
            "stubs_created": counts.get("stubs_created", 0),
            "stubs_held": turn.stubs_held,
            "clips": counts.get("clips", 0),
            "drops": counts.get("drops", 0),
            "compactions": counts.get("compactions", 0),
            "compacted_messages": counts.get("compacted_messages", 0),
            "summary_failures": counts.get("summary_failures", 0),
            "thrash": counts.get("thrash", 0),
            "violations": len(turn.violations),
            "refetches": len(quality[turn.number].refetched),
            "facts_lost": len(quality[turn.number].lost_facts),
            "lost_facts": "; ".join(quality[turn.number].lost_facts),
            "standing_rules_lost": int(quality[turn.number].standing_rules_lost),
        }
        row.update({f"tokens_{b}": turn.tokens_by_bucket.get(b, 0) for b in BUCKETS})
        row.update({c: counts.get(c, 0) for c in removed_columns})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["recorded_prompt_tokens"] = frame["recorded_prompt_tokens"].astype("Int64")
    return frame


def events_frame(result: ReplayResult) -> pd.DataFrame:
    """The event log: one row per policy action or validity violation."""
    rows = [
        {
            "turn": e.turn,
            "position": e.position,
            "policy": e.policy,
            "action": e.action,
            "messages": len(e.messages),
            "tokens_before": e.tokens_before,
            "tokens_after": e.tokens_after,
            "detail": e.detail,
        }
        for e in result.events
    ]
    return pd.DataFrame(rows, columns=EVENT_COLUMNS)


def totals(frame: pd.DataFrame) -> dict[str, float | int]:
    """Per-session figures from a turns frame: peaks, finals, the token bill, savings, counts."""
    if frame.empty:
        return {"turns": 0}
    billed_raw = int(frame["raw_tokens"].sum())
    billed_context = int(frame["context_tokens"].sum())
    return {
        "turns": len(frame),
        "peak_context_tokens": int(frame["context_tokens"].max()),
        "final_context_tokens": int(frame["context_tokens"].iloc[-1]),
        "peak_raw_tokens": int(frame["raw_tokens"].max()),
        "final_raw_tokens": int(frame["raw_tokens"].iloc[-1]),
        "billed_context_tokens": billed_context,
        "billed_raw_tokens": billed_raw,
        "saved_pct": round(100 * (1 - billed_context / billed_raw), 1) if billed_raw else 0.0,
        "stubs_created": int(frame["stubs_created"].sum()),
        "clips": int(frame["clips"].sum()),
        "drops": int(frame["drops"].sum()),
        "compactions": int(frame["compactions"].sum()),
        "summary_failures": int(frame["summary_failures"].sum()),
        "thrash_events": int(frame["thrash"].sum()),
        "turns_with_violations": int((frame["violations"] > 0).sum()),
        "refetches": int(frame["refetches"].sum()),
        "turns_with_facts_lost": int((frame["facts_lost"] > 0).sum()),
        "distinct_facts_lost": len({f for cell in frame["lost_facts"] for f in cell.split("; ") if f}),
        "turns_standing_rules_lost": int(frame["standing_rules_lost"].sum()),
    }
