"""Per-turn figures, the event log and per-session totals of a replay, as pandas frames.

The one place that turns a ReplayResult into numbers; the CLI, the app and the charts
all read these frames.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pandas as pd

from playground import must_keep as must_keep_measure
from playground import quality as quality_measures
from playground.cost import Pricing, cost_report
from playground.pricing import PARTS
from playground.replay import ReplayResult
from playground.running import BUCKETS
from playground.validity import OVER_WINDOW

# action name -> per-turn column counting the messages it affected
# a fold (tiered eviction's decision log) summarizes messages too, so it counts as compacted
ACTION_COLUMNS = {
    "stub": "stubs_created",
    "clip": "clips",
    "drop": "drops",
    "compact": "compacted_messages",
    "fold": "compacted_messages",
}
# the summarizer calls a turn's policies made, and their tokens (priced as calls of their own)
SUMMARY_COLUMNS = ("summary_calls", "summary_input_tokens", "summary_output_tokens")
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


def turns_frame(
    result: ReplayResult,
    pricing: Pricing | None = None,
    must_keep: Sequence[must_keep_measure.MustKeep] = (),
) -> pd.DataFrame:
    """One row per inference: what the raw history holds and what the stack sends, what each
    costs under ``pricing`` (the model's own price and cache rule by default), and which of
    the ``must_keep`` facts the request lost."""
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
    report = cost_report(result, pricing)
    breaks = {b.turn: b for b in report.breaks}
    summaries: defaultdict[int, list[int]] = defaultdict(lambda: [0, 0, 0])  # per turn, as SUMMARY_COLUMNS
    for number, prompt, summary in report.summaries:
        billed = summaries[number]
        billed[0] += 1
        billed[1] += prompt
        billed[2] += summary
    for n, turn in enumerate(result.turns):
        cached, raw_cached, brk = report.stack[n], report.raw[n], breaks.get(turn.number)
        counts = per_turn.get(turn.number, {})
        row = {
            "turn": turn.number,
            "reply_index": turn.reply_index,
            "raw_tokens": turn.raw_tokens,
            "context_tokens": turn.context_tokens,
            "saved_tokens": turn.raw_tokens - turn.context_tokens,
            "raw_messages": turn.raw_messages,
            "context_messages": turn.size,
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
            "over_window": int(any(v.rule == OVER_WINDOW for v in turn.violations)),
            "refetches": len(quality[turn.number].refetched),
            "facts_lost": len(quality[turn.number].lost_facts),
            "lost_facts": "; ".join(quality[turn.number].lost_facts),
            "standing_rules_lost": int(quality[turn.number].standing_rules_lost),
        }
        row.update(
            {
                "cache_read_tokens": cached.read,
                "cache_write_tokens": cached.write,
                "uncached_tokens": cached.uncached,
                "output_tokens": report.output[n],
                "raw_cache_read_tokens": raw_cached.read,
                "raw_cache_write_tokens": raw_cached.write,
                "recorded_cache_read_tokens": result.session.cache_reads.get(turn.reply_index),
                "cache_break_at": None if brk is None else brk.position,
                "cache_break_repaid": 0 if brk is None else brk.repaid,
                "cache_break_policy": "" if brk is None else brk.policy,
                "cold_cache": int(cached.cold),
                "cost_usd": None if report.stack_cost is None else report.stack_cost[n]["total"],
                "summary_cost_usd": None if report.summary_cost is None else report.summary_cost[n],
                **dict(zip(SUMMARY_COLUMNS, summaries.get(turn.number, (0, 0, 0)), strict=True)),
                "raw_cost_usd": None if report.raw_cost is None else report.raw_cost[n]["total"],
            }
        )
        row.update(
            {
                f"cost_{part}_usd": None if report.stack_cost is None else report.stack_cost[n][part]
                for part in PARTS
            }
        )
        row.update({f"tokens_{b}": turn.tokens_by_bucket.get(b, 0) for b in BUCKETS})
        row.update({c: counts.get(c, 0) for c in removed_columns})
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    for column in ("recorded_prompt_tokens", "recorded_cache_read_tokens", "cache_break_at"):
        frame[column] = frame[column].astype("Int64")
    for column in ("cost_usd", "summary_cost_usd", "raw_cost_usd", *(f"cost_{p}_usd" for p in PARTS)):
        frame[column] = frame[column].astype("float64")
    frame.attrs["priced_as"] = report.price.label if report.price else None
    frame.attrs["cache_rule"] = report.rule.label
    frame.attrs["cache_timing"] = report.timing_note
    frame.attrs["summaries_priced_as"] = report.summary_priced_as
    return with_must_keep(frame, must_keep_measure.states(result, must_keep))


def with_must_keep(frame: pd.DataFrame, states: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the per-turn must-keep columns of ``states`` (``must_keep.states``):
    ``must_keep_lost`` (how many) and ``lost_must_keep`` (which, as declared)."""
    if frame.empty:
        return frame
    counts, names = must_keep_measure.per_turn(states, frame["turn"].tolist())
    return frame.assign(must_keep_lost=counts, lost_must_keep=names)


def events_frame(result: ReplayResult, turns: pd.DataFrame | None = None) -> pd.DataFrame:
    """The event log: one row per policy action or validity violation, and, given the turns
    frame, one ``cache_break`` per turn whose request broke the cached prefix."""
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
    if turns is not None and not turns.empty:
        for row in turns[turns["cache_break_at"].notna()].itertuples():
            rows.append(
                {
                    "turn": row.turn,
                    "position": 0,
                    "policy": row.cache_break_policy or "(none acted)",
                    "action": "cache_break",
                    "messages": max(row.context_messages - int(row.cache_break_at), 0),
                    "tokens_before": row.cache_break_repaid,
                    "tokens_after": 0,
                    "detail": f"the cached prefix ends at message {int(row.cache_break_at)}: "
                    f"{row.cache_break_repaid:,} tokens of the previous request re-paid",
                }
            )
        rows.sort(key=lambda r: r["turn"])  # stable: a turn's actions, then its break
    return pd.DataFrame(rows, columns=EVENT_COLUMNS)


def policy_notes(events: pd.DataFrame) -> list[tuple[str, str]]:
    """What the page and the CLI say about policies that did not do their job: (level, text),
    level "warning" for a budget a policy could not meet, "info" for one that never acted."""
    notes = []
    unmet = events[events["action"] == "budget_unmet"]
    for (position, policy), group in unmet.groupby(["position", "policy"], sort=True):
        worst = group.loc[group["tokens_after"].idxmax()]
        notes.append(
            (
                "warning",
                f"{position}. {policy} could not meet its budget on {group['turn'].nunique():,} turn(s); "
                f"at turn {worst['turn']}: {worst['detail']}.",
            )
        )
    for row in events[events["action"] == "idle"].itertuples():
        notes.append(("info", f"{row.position}. {row.policy} {row.detail}, so it changes nothing here."))
    return notes


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
        "turns_over_window": int(frame["over_window"].sum()),
        "refetches": int(frame["refetches"].sum()),
        "turns_with_facts_lost": int((frame["facts_lost"] > 0).sum()),
        "distinct_facts_lost": len({f for cell in frame["lost_facts"] for f in cell.split("; ") if f}),
        "turns_standing_rules_lost": int(frame["standing_rules_lost"].sum()),
        "turns_with_must_keep_lost": int((frame["must_keep_lost"] > 0).sum()),
        "distinct_must_keep_lost": len(
            {f for cell in frame["lost_must_keep"] for f in cell.split("; ") if f}
        ),
        **money(frame),
    }


def money(frame: pd.DataFrame) -> dict[str, float | int | None]:
    """Session cost figures of a turns frame; the dollar ones None where no price is known."""
    sent = frame["cache_read_tokens"] + frame["cache_write_tokens"] + frame["uncached_tokens"]
    raw_sent = frame["raw_tokens"]
    figures: dict[str, float | int | None] = {
        "cache_hit_pct": _pct(frame["cache_read_tokens"].sum(), sent.sum()),
        "raw_cache_hit_pct": _pct(frame["raw_cache_read_tokens"].sum(), raw_sent.sum()),
        "cache_write_tokens": int(frame["cache_write_tokens"].sum()),
        "cache_breaks": int(frame["cache_break_at"].notna().sum()),
        "cache_break_repaid_tokens": int(frame["cache_break_repaid"].sum()),
        "cold_cache_turns": int(frame["cold_cache"].sum()),
        **{column: int(frame[column].sum()) for column in SUMMARY_COLUMNS},
        "cost_usd": None,
        "raw_cost_usd": None,
        "summary_cost_usd": None,
        "saved_usd": None,
        "saved_cost_pct": None,
    }
    if frame["cost_usd"].notna().all():
        stack = float(frame["cost_usd"].sum() + frame["summary_cost_usd"].sum())
        raw = float(frame["raw_cost_usd"].sum())
        figures.update(
            cost_usd=round(stack, 6),
            raw_cost_usd=round(raw, 6),
            summary_cost_usd=round(float(frame["summary_cost_usd"].sum()), 6),
            saved_usd=round(raw - stack, 6),
            saved_cost_pct=_pct(raw - stack, raw),
        )
    return figures


def _pct(part: float, whole: float) -> float:
    return round(100 * float(part) / float(whole), 1) if whole else 0.0
