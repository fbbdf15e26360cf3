"""What a corpus run's figures say: per stack, per session, against the first stack."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playground.measures.figures import heading, higher_is_better


def summary(frame: Any, stacks: Sequence[str]) -> Any:
    """Per stack, the distribution over sessions of what it saves and what it loses."""
    import pandas as pd

    rows = []
    ran = frame[frame["error"] == ""] if "error" in frame else frame
    for name in stacks:
        own = ran[ran["stack"] == name]
        if own.empty:
            rows.append({"stack": name, "sessions": 0})
            continue
        # each session is priced at its own model: the money is over those genai-prices knows
        priced = own[own["saved_usd"].notna()]
        rows.append(
            {
                "stack": name,
                "sessions": len(own),
                "tokens saved % (median)": own["saved_pct"].median(),
                "tokens saved % (p10..p90)": _spread(own["saved_pct"]),
                "sessions priced": len(priced),
                "cost saved % (median)": priced["saved_cost_pct"].median() if len(priced) else float("nan"),
                "cost saved % (p10..p90)": _spread(priced["saved_cost_pct"]) if len(priced) else "-",
                "$ saved (total)": round(float(priced["saved_usd"].sum()), 4)
                if len(priced)
                else float("nan"),
                **_against_recorded(own),
                "sessions losing facts": int((own["distinct_facts_lost"] > 0).sum()),
                "facts lost (p90)": own["distinct_facts_lost"].quantile(0.9),
                "re-fetches": int(own["refetches"].sum()),
                "sessions with invalid turns": int((own["turns_with_violations"] > 0).sum()),
                "compactions": int(own["compactions"].sum()),
            }
        )
    return pd.DataFrame(rows)


def _against_recorded(own: Any) -> dict[str, Any]:
    """What the stack saves against what the agents actually sent, over the sessions that
    record it (and how many do: the others are against the raw history only)."""
    recorded = own[own["saved_vs_recorded_usd"].notna()] if "saved_vs_recorded_usd" in own else own[:0]
    if recorded.empty:
        return {"sessions recorded": 0}
    return {
        "sessions recorded": len(recorded),
        "$ saved vs recorded (total)": round(float(recorded["saved_vs_recorded_usd"].sum()), 4),
        "cost saved vs recorded % (median)": recorded["saved_vs_recorded_pct"].median(),
    }


def _spread(values: Any) -> str:
    return f"{values.quantile(0.1):.1f}..{values.quantile(0.9):.1f}"


def deltas(frame: Any, stacks: Sequence[str]) -> Any:
    """Per session, each stack's figures minus the first stack's (the baseline)."""
    ran = frame[frame["error"] == ""]
    keys = ["source", "session_index"]
    base = ran[ran["stack"] == stacks[0]].set_index(keys)
    out = []
    for name in stacks[1:]:
        own = ran[ran["stack"] == name].set_index(keys)
        joined = own.merge(base, left_index=True, right_index=True, suffixes=("", "_base"))
        for figure in ("cost_usd", "billed_context_tokens", "distinct_facts_lost", "refetches"):
            joined[f"delta_{figure}"] = joined[figure] - joined[f"{figure}_base"]
        out.append(
            joined.reset_index()[[*keys, "session", "stack", *(c for c in joined if c.startswith("delta_"))]]
        )
    import pandas as pd

    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


# the per-session table's columns (metrics.totals names) and short headings (measures.figures); each can order it
SESSION_COLUMNS = {
    key: heading(key)
    for key in (
        "distinct_facts_lost",
        "distinct_quotes_lost",
        "saved_cost_pct",
        "saved_usd",
        "saved_vs_recorded_pct",
        "saved_pct",
        "refetches",
        "turns_with_violations",
        "compactions",
        "turns",
    )
}
SAVINGS = tuple(
    key for key in SESSION_COLUMNS if higher_is_better(key)
)  # higher is better; for the rest lower is


# what a page-wide table of sessions shows (the rest is in the Parquet and the CLI's JSON)
SESSION_KEY_COLUMNS = ("distinct_facts_lost", "saved_cost_pct", "saved_vs_recorded_pct", "refetches")


def session_table(frame: Any, stack: str, by: str, figures: Sequence[str] = tuple(SESSION_COLUMNS)) -> Any:
    """The sessions ``stack`` ran on, worst first by ``by`` (least saved, most lost): the
    session's name (and model, with every figure), ``by``, then ``figures``, under their headings."""
    own = frame[(frame["stack"] == stack) & (frame["error"] == "")]
    ordered = own.sort_values(by, ascending=by in SAVINGS, kind="stable", na_position="last")
    whole = len(figures) == len(SESSION_COLUMNS)
    named = ["session", "model"] if "model" in ordered and whole else ["session"]  # the model it ran at
    shown = list(dict.fromkeys([by, *figures])) if not whole else list(SESSION_COLUMNS)
    return ordered[[*named, *shown]].rename(columns=SESSION_COLUMNS).reset_index(drop=True)


def summary_by_figure(frame: Any, stacks: Sequence[str]) -> Any:
    """``summary`` turned: a row per figure, a column per stack (it fits a page at any count
    of figures)."""
    table = summary(frame, stacks).set_index("stack").T
    table.index.name = "figure"
    return table.map(_cell)


def _cell(value: Any) -> str:
    """A figure as the turned table shows it: one type per column (text), numbers grouped."""
    if isinstance(value, str):
        return value
    if value is None or value != value:  # NaN: no figure (no price, no record)
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def worst(frame: Any, stack: str, n: int = 5) -> list[tuple[str, Any]]:
    """The sessions where ``stack`` hurts most: most facts lost, most cost added against raw."""
    own = frame[(frame["stack"] == stack) & (frame["error"] == "")]
    if own.empty:
        return []
    lost = own[own["distinct_facts_lost"] > 0].sort_values(
        "distinct_facts_lost", ascending=False, kind="stable"
    )
    views = [("most facts lost", lost.head(n))]
    if own["saved_usd"].notna().all():
        added = own[own["saved_usd"] < 0].sort_values("saved_usd", kind="stable")
        views.append(("most cost added against raw history", added.head(n)))
    return views
