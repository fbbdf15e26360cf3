"""Per-turn figures, the event log and per-session totals of a replay.

The one place that turns a ReplayResult into numbers. The figures are plain rows
(``turn_table``, ``event_rows``), so the command line reports a replay without loading
pandas; the app, the charts and the corpus read them as pandas frames (``turns_frame``,
``events_frame``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playground.engine.replay import Event, ReplayResult
from playground.engine.running import BUCKETS
from playground.engine.session import RecordedCompaction
from playground.engine.validity import OVER_WINDOW, check_calls
from playground.measures import must_keep as must_keep_measure
from playground.measures import quality as quality_measures
from playground.measures.figures import Totals
from playground.money.cost import Pricing, cost_report, other_model
from playground.money.pricing import PARTS
from policies.base import counted

if TYPE_CHECKING:  # pandas is imported where a frame is built: the CLI reports without it
    import pandas as pd

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


# the columns that can hold "unknown" (None), by the type of what they hold when known
NULLABLE_INTS = (
    "recorded_prompt_tokens",
    "recorded_cache_read_tokens",
    "recorded_cache_write_tokens",
    "recorded_output_tokens",
    "cache_break_at",
)
COST_COLUMNS = (
    "cost_usd",
    "summary_cost_usd",
    "raw_cost_usd",
    "recorded_cost_usd",
    "recorded_counted_output_usd",
    *(f"cost_{p}_usd" for p in PARTS),
    *(f"raw_cost_{p}_usd" for p in PARTS),
)


@dataclass
class TurnTable:
    """A replay's per-turn figures: one row per inference (None where a figure is unknown,
    such as a cost without a price) and how they were priced (``attrs``)."""

    rows: list[dict[str, Any]]
    attrs: dict[str, str | None]

    def frame(self) -> pd.DataFrame:
        """The rows as a frame: the unknown figures as missing values, ``attrs`` kept."""
        import pandas as pd

        frame = pd.DataFrame(self.rows)
        if frame.empty:
            return frame
        for column in NULLABLE_INTS:
            frame[column] = frame[column].astype("Int64")
        for column in COST_COLUMNS:
            frame[column] = frame[column].astype("float64")
        frame.attrs.update(self.attrs)
        return frame


def turns_frame(
    result: ReplayResult,
    pricing: Pricing | None = None,
    must_keep: Sequence[must_keep_measure.MustKeep] = (),
) -> pd.DataFrame:
    """``turn_table`` as a frame."""
    return turn_table(result, pricing, must_keep).frame()


def turn_table(
    result: ReplayResult,
    pricing: Pricing | None = None,
    must_keep: Sequence[must_keep_measure.MustKeep] = (),
) -> TurnTable:
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
    # the raw history's own broken call/result pairs: a request holds each one before its reply
    raw_broken = sorted(v.position for v in check_calls(result.session.messages) if v.position is not None)
    for n, turn in enumerate(result.turns):
        cached, raw_cached, brk = report.stack[n], report.raw[n], breaks.get(turn.number)
        call = report.recorded[n]
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
            "as_sent": int(turn.as_sent),
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
            "raw_over_window": int(turn.raw_tokens > result.settings.context_window),
            "raw_violations": bisect_left(raw_broken, turn.reply_index),
            "refetches": len(quality[turn.number].refetched),
            "facts_lost": len(quality[turn.number].lost_facts),
            "lost_facts": "; ".join(quality[turn.number].lost_facts),
            "quotes_lost": len(quality[turn.number].lost_quotes),
            "lost_quotes": "\n".join(quality[turn.number].lost_quotes),  # lines: no line break in one
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
                "recorded_cache_read_tokens": None if call is None else call.cache_read,
                "recorded_cache_write_tokens": None if call is None else call.cache_write,
                "recorded_output_tokens": None if call is None else call.output,
                "recorded_cost_usd": None if call is None else call.cost,
                "recorded_counted_output_usd": None if call is None else call.estimated_cost,
                "cache_break_at": None if brk is None else brk.position,
                "cache_break_repaid": 0 if brk is None else brk.repaid,
                "cache_break_policy": "" if brk is None else brk.policy,
                "cold_cache": int(cached.cold),
                "cost_usd": None if report.stack_cost is None else report.stack_cost[n].total,
                "summary_cost_usd": None if report.summary_cost is None else report.summary_cost[n],
                **dict(zip(SUMMARY_COLUMNS, summaries.get(turn.number, (0, 0, 0)), strict=True)),
                "raw_cost_usd": None if report.raw_cost is None else report.raw_cost[n].total,
                "raw_uncached_tokens": raw_cached.uncached,
            }
        )
        row.update(
            {
                f"raw_cost_{part}_usd": None if report.raw_cost is None else report.raw_cost[n].part(part)
                for part in PARTS
            }
        )
        row.update(
            {
                f"cost_{part}_usd": None if report.stack_cost is None else report.stack_cost[n].part(part)
                for part in PARTS
            }
        )
        row.update({f"tokens_{b}": turn.tokens_by_bucket.get(b, 0) for b in BUCKETS})
        # what opens every request besides its messages: the tool definitions, the hidden prefix
        # the calibration found (a system prompt the file does not hold), the reply's priming
        row["tokens_head"] = max(turn.context_tokens - sum(turn.tokens_by_bucket.values()), 0)
        row.update({c: counts.get(c, 0) for c in removed_columns})
        rows.append(row)
    counts, names = must_keep_measure.per_turn(
        must_keep_measure.state_rows(result, must_keep), [row["turn"] for row in rows]
    )
    for row, count, lost in zip(rows, counts, names, strict=True):
        row.update(must_keep_lost=count, lost_must_keep=lost)
    attrs = {
        "priced_as": report.price.label if report.price else None,
        "cache_rule": report.rule.label,
        "cache_timing": report.timing_note,
        "cache_served": report.served_note,
        "summaries_priced_as": report.summary_priced_as,
        # the model the user prices the replay as, where not the recorded one: recorded calls at it too
        "priced_as_model": other_model(result, pricing or Pricing()) or None,
    }
    return TurnTable(rows, attrs)


def with_must_keep(frame: pd.DataFrame, states: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the per-turn must-keep columns of ``states`` (``must_keep.states``):
    ``must_keep_lost`` (how many) and ``lost_must_keep`` (which, as declared)."""
    if frame.empty:
        return frame
    rows = states.itertuples(index=False, name=None)
    counts, names = must_keep_measure.per_turn(rows, frame["turn"].tolist())
    return frame.assign(must_keep_lost=counts, lost_must_keep=names)


RECORDED_COMPACTION = "recorded_compaction"  # the recording agent's own, as its log holds it


def recorded_compactions(result: ReplayResult) -> dict[int, list[RecordedCompaction]]:
    """The compactions the recording agent ran itself, by the turn they first shaped: the
    first whose recorded reply comes at or after each."""
    by_turn: dict[int, list[RecordedCompaction]] = defaultdict(list)
    replies = [t.reply_index for t in result.turns]
    for compaction in result.session.compactions:
        place = bisect_left(replies, compaction.at)  # found, not scanned for: one per compaction
        if place < len(replies):
            by_turn[result.turns[place].number].append(compaction)
    return by_turn


def recorded_compaction_rows(result: ReplayResult) -> list[dict[str, Any]]:
    """One event per compaction the recording agent ran itself, at the first turn after it."""
    rows = []
    for turn, compactions in recorded_compactions(result).items():
        for compaction in compactions:
            before = (
                f"{compaction.pre_tokens:,} tokens before, as it counted; " if compaction.pre_tokens else ""
            )
            rows.append(
                {
                    "turn": turn,
                    "position": 0,
                    "policy": "the recording agent",
                    "action": RECORDED_COMPACTION,
                    "messages": 0,
                    "tokens_before": compaction.pre_tokens or 0,
                    "tokens_after": 0,
                    "detail": f"{compaction.trigger or 'a'} compaction in the log: {before}"
                    f"its summary holds {len(compaction.summary):,} characters",
                }
            )
    return rows


def event_rows(result: ReplayResult, turns: TurnTable | pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """The event log: one row per policy action or validity violation, one per compaction the
    recording agent ran itself, and, given the turns, one ``cache_break`` per turn whose
    request broke the cached prefix."""
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
    rows += recorded_compaction_rows(result)
    if turns is None:
        rows.sort(key=lambda r: r["turn"])
        return rows
    for row in records(turns):
        at = row["cache_break_at"]
        if at is None:
            continue
        rows.append(
            {
                "turn": row["turn"],
                "position": 0,
                "policy": row["cache_break_policy"] or "(none acted)",
                "action": "cache_break",
                "messages": max(row["context_messages"] - at, 0),
                "tokens_before": row["cache_break_repaid"],
                "tokens_after": 0,
                "detail": f"the cached prefix ends at message {at}: "
                f"{row['cache_break_repaid']:,} tokens of the previous request re-paid",
            }
        )
    rows.sort(key=lambda r: r["turn"])  # stable: a turn's actions, then its break
    return rows


def events_frame(result: ReplayResult, turns: TurnTable | pd.DataFrame | None = None) -> pd.DataFrame:
    """``event_rows`` as a frame."""
    import pandas as pd

    return pd.DataFrame(event_rows(result, turns), columns=EVENT_COLUMNS)


def records(turns: TurnTable | pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of a turn table, or of a turns frame with its missing values as None."""
    if isinstance(turns, TurnTable):
        return turns.rows
    plain = turns.astype(object).where(turns.notna(), None)
    return [{k: _python(v) for k, v in row.items()} for row in plain.to_dict(orient="records")]


def _python(value: Any) -> Any:
    """A frame's numpy scalar as the Python number it holds."""
    return value.item() if hasattr(value, "item") else value


def policy_notes(events: Iterable[Event]) -> list[tuple[str, str]]:
    """What the page and the CLI say about policies that did not do their job: (level, text),
    level "warning" for a budget a policy could not meet, "info" for one that never acted."""
    unmet: dict[tuple[int, str], list[Event]] = defaultdict(list)
    idle = []
    for event in events:
        if event.action == "budget_unmet":
            unmet[event.position, event.policy].append(event)
        elif event.action == "idle":
            idle.append(event)
    notes = []
    for (position, policy), group in sorted(unmet.items()):
        worst = max(group, key=lambda e: e.tokens_after)  # the first of the worst
        turns = len({e.turn for e in group})
        notes.append(
            (
                "warning",
                f"{position}. {policy} could not meet its budget on {counted(turns, 'turn')}; "
                f"at turn {worst.turn}: {worst.detail}.",
            )
        )
    for event in idle:
        notes.append(
            ("info", f"{event.position}. {event.policy} {event.detail}, so it changes nothing here.")
        )
    return notes


def totals(turns: TurnTable | pd.DataFrame) -> Totals:
    """Per-session figures of a turn table (or frame): peaks, finals, the token bill, savings, counts."""
    rows = records(turns)
    if not rows:
        return Totals()

    def column(name: str) -> list:
        return [row[name] for row in rows]

    def total(name: str) -> int:
        return int(sum(column(name)))

    def turns_with(name: str) -> int:
        return sum(1 for value in column(name) if value > 0)

    def distinct(name: str) -> int:  # of the "; "-joined names in a column
        return len({item for cell in column(name) for item in cell.split("; ") if item})

    billed_raw, billed_context = total("raw_tokens"), total("context_tokens")
    return Totals(
        turns=len(rows),
        peak_context_tokens=max(column("context_tokens")),
        final_context_tokens=rows[-1]["context_tokens"],
        peak_raw_tokens=max(column("raw_tokens")),
        final_raw_tokens=rows[-1]["raw_tokens"],
        billed_context_tokens=billed_context,
        billed_raw_tokens=billed_raw,
        saved_pct=round(100 * (1 - billed_context / billed_raw), 1) if billed_raw else 0.0,
        stubs_created=total("stubs_created"),
        clips=total("clips"),
        drops=total("drops"),
        compactions=total("compactions"),
        summary_failures=total("summary_failures"),
        thrash_events=total("thrash"),
        turns_with_violations=turns_with("violations"),
        turns_over_window=total("over_window"),
        raw_turns_over_window=total("raw_over_window"),
        as_sent_turns=total("as_sent"),
        raw_turns_with_violations=turns_with("raw_violations"),
        refetches=total("refetches"),
        turns_with_facts_lost=turns_with("facts_lost"),
        distinct_facts_lost=distinct("lost_facts"),
        turns_with_quotes_lost=turns_with("quotes_lost"),
        distinct_quotes_lost=len({q for cell in column("lost_quotes") for q in str(cell).split("\n") if q}),
        turns_standing_rules_lost=total("standing_rules_lost"),
        turns_with_must_keep_lost=turns_with("must_keep_lost"),
        distinct_must_keep_lost=distinct("lost_must_keep"),
        **_money(rows),
    )


def _money(rows: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """Session cost figures of the turn rows; the dollar ones None where no price is known."""

    def total(name: str) -> int:
        return int(sum(row[name] for row in rows))

    sent = total("cache_read_tokens") + total("cache_write_tokens") + total("uncached_tokens")
    figures: dict[str, float | int | None] = {
        "cache_hit_pct": _pct(total("cache_read_tokens"), sent),
        "raw_cache_hit_pct": _pct(total("raw_cache_read_tokens"), total("raw_tokens")),
        "cache_write_tokens": total("cache_write_tokens"),
        "cache_breaks": sum(1 for row in rows if row["cache_break_at"] is not None),
        "cache_break_repaid_tokens": total("cache_break_repaid"),
        "cold_cache_turns": total("cold_cache"),
        **{column: total(column) for column in SUMMARY_COLUMNS},
        "cost_usd": None,
        "raw_cost_usd": None,
        "summary_cost_usd": None,
        "saved_usd": None,
        "saved_cost_pct": None,
        **_recorded(rows),
    }
    figures.update(_difference(rows))
    if all(row["cost_usd"] is not None for row in rows):
        summaries = sum(row["summary_cost_usd"] for row in rows)
        stack = sum(row["cost_usd"] for row in rows) + summaries
        raw = sum(row["raw_cost_usd"] for row in rows)
        figures.update(
            cost_usd=round(stack, 6),
            raw_cost_usd=round(raw, 6),
            summary_cost_usd=round(summaries, 6),
            saved_usd=round(raw - stack, 6),
            saved_cost_pct=_pct(raw - stack, raw),
        )
    return figures


# the parts of a request's input whose tokens and dollars the stack and the raw history differ by
INPUT_PARTS = (
    ("read", "cache_read_tokens"),
    ("write", "cache_write_tokens"),
    ("uncached", "uncached_tokens"),
)


def _difference(rows: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """The stack's cost minus the raw history's, in parts that add up to it: per input part
    (cache reads, cache writes, uncached input) the tokens more or fewer and their dollars,
    and the summaries (the output is the same reply, billed alike)."""
    figures: dict[str, float | int | None] = {}
    priced = all(row["cost_usd"] is not None for row in rows)
    for part, column in INPUT_PARTS:
        figures[f"difference_{part}_tokens"] = int(sum(row[column] - row[f"raw_{column}"] for row in rows))
        figures[f"difference_{part}_usd"] = (
            round(sum(row[f"cost_{part}_usd"] - row[f"raw_cost_{part}_usd"] for row in rows), 6)
            if priced
            else None
        )
    # the same replies, but a long-context tier prices the output of a longer request higher
    figures["difference_output_usd"] = (
        round(sum(row["cost_output_usd"] - row["raw_cost_output_usd"] for row in rows), 6) if priced else None
    )
    return figures


def _recorded(rows: list[dict[str, Any]]) -> dict[str, float | int | None]:
    """What the session records the agent sent and paid, beside the stack's figures: sums over
    the calls that record it (``recorded_calls`` of ``turns``; the comparisons with the stack
    over those turns alone), None where no call does. ``recorded_cost_usd`` is the bill as the
    file records it (ccusage's figure); ``recorded_cost_counted_output_usd`` the same calls with
    each reply's output as the stack is billed it (where a file records a mid-stream snapshot)."""
    calls = [row for row in rows if row["recorded_prompt_tokens"] is not None]
    figures: dict[str, float | int | None] = {
        "recorded_calls": len(calls),
        "recorded_input_tokens": None,
        "recorded_cache_hit_pct": None,
        "recorded_cost_usd": None,
        "recorded_cost_counted_output_usd": None,
        "saved_vs_recorded_usd": None,
        "saved_vs_recorded_pct": None,
    }
    if not calls:
        return figures
    sent = sum(row["recorded_prompt_tokens"] for row in calls)
    figures["recorded_input_tokens"] = sent
    if all(row["recorded_cache_read_tokens"] is not None for row in calls):
        figures["recorded_cache_hit_pct"] = _pct(
            sum(row["recorded_cache_read_tokens"] for row in calls), sent
        )
    priced = [row for row in calls if row["recorded_cost_usd"] is not None]
    if len(priced) == len(calls):
        recorded = sum(row["recorded_cost_usd"] for row in calls)
        counted = sum(row["recorded_counted_output_usd"] for row in calls)
        figures["recorded_cost_usd"] = round(recorded, 6)
        figures["recorded_cost_counted_output_usd"] = round(counted, 6)
        if all(row["cost_usd"] is not None for row in calls):
            # like with like: the stack's output is the reply's one figure, so it is set against
            # the recorded calls at that same output
            stack = sum(row["cost_usd"] + row["summary_cost_usd"] for row in calls)
            figures.update(
                saved_vs_recorded_usd=round(counted - stack, 6),
                saved_vs_recorded_pct=_pct(counted - stack, counted),
            )
    return figures


def _pct(part: float, whole: float) -> float:
    return round(100 * float(part) / float(whole), 1) if whole else 0.0


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: text that opens like a formula (``=``, ``+``,
    ``-``, ``@``, a tab or CR) gets a leading ``'`` (OWASP's rule); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """A frame as CSV with every text cell spreadsheet-safe."""
    return frame.map(spreadsheet_safe).to_csv(index=False)
