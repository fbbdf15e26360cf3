"""Candidate stacks, compared on one transcript: the headline figures side by side, the best
of each marked, and each candidate's difference from a baseline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playground.measures.figures import FIGURES_BY_KEY, Totals

# the headline figures compared, in this order (their labels and which way is better: measures.figures)
COMPARED = (
    "cost_usd",
    "saved_cost_pct",
    "summary_cost_usd",
    "cache_hit_pct",
    "cache_breaks",
    "billed_context_tokens",
    "saved_pct",
    "peak_context_tokens",
    "distinct_facts_lost",
    "turns_with_facts_lost",
    "distinct_quotes_lost",
    "turns_with_must_keep_lost",
    "refetches",
    "turns_with_violations",
    "turns_over_window",
    "stubs_created",
    "compactions",
)
FIGURES = tuple(FIGURES_BY_KEY[key] for key in COMPARED)


@dataclass(frozen=True)
class Comparison:
    """The figures of each candidate (by name, in order), the best of each row, the deltas."""

    names: tuple[str, ...]
    baseline: str
    values: dict[str, dict[str, Any]]  # figure key -> candidate -> value (None: unknown)
    best: dict[str, tuple[str, ...]]  # figure key -> the candidates that hold its best value
    deltas: dict[str, dict[str, float | None]]  # figure key -> candidate -> value - baseline's

    def rows(self) -> list[dict[str, Any]]:
        """One row per candidate: each figure, its delta against the baseline, and the
        figures it is best in (the CSV and JSON form)."""
        out = []
        for name in self.names:
            row: dict[str, Any] = {"candidate": name, "baseline": name == self.baseline}
            for figure in FIGURES:
                row[figure.key] = self.values[figure.key][name]
                row[f"delta_{figure.key}"] = self.deltas[figure.key][name]
            row["best_in"] = ";".join(f.key for f in FIGURES if name in self.best[f.key])
            out.append(row)
        return out


def display_table(comparison: Comparison) -> tuple[Any, Any]:
    """Figures down, candidates across, as text: each value with its difference from the
    baseline; and a same-shaped frame that is True where a cell holds its row's best value."""
    import pandas as pd

    cells: dict[str, list[str]] = {}
    best: dict[str, list[bool]] = {}
    for name in comparison.names:
        column = []
        for figure in FIGURES:
            value = comparison.values[figure.key][name]
            text = "-" if value is None else number(value)
            delta = comparison.deltas[figure.key][name]
            if name != comparison.baseline and delta:
                text += f" ({'+' if delta > 0 else ''}{number(delta)})"
            column.append(text)
        label = f"{name} (baseline)" if name == comparison.baseline else name
        cells[label] = column
        best[label] = [name in comparison.best[f.key] for f in FIGURES]
    index = [f.label for f in FIGURES]
    return pd.DataFrame(cells, index=index), pd.DataFrame(best, index=index)


def number(value: float) -> str:
    """A figure as the tables print it: thousands separated, fractions to a few places."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.4f}".rstrip("0") if abs(value) < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def compare(totals: Mapping[str, Totals], baseline: str | None = None) -> Comparison:
    """The comparison of candidates' session totals (``metrics.totals``), keyed by name."""
    names = tuple(totals)
    if not names:
        raise ValueError("nothing to compare: no candidates")
    baseline = names[0] if baseline is None else baseline
    if baseline not in totals:
        raise ValueError(f"the baseline {baseline!r} is not a candidate (candidates: {', '.join(names)})")
    values = {f.key: {name: totals[name][f.key] for name in names} for f in FIGURES}
    best = {f.key: best_of(values[f.key], f.better) for f in FIGURES}
    deltas = {
        f.key: {name: _delta(values[f.key][name], values[f.key][baseline]) for name in names} for f in FIGURES
    }
    return Comparison(names, baseline, values, best, deltas)


def best_of(values: Mapping[str, Any], better: str | None) -> tuple[str, ...]:
    """The names holding the best value; none when every known value is the same (nothing
    to choose between) or the figure has no better direction."""
    known = {name: value for name, value in values.items() if value is not None}
    if better is None or len(set(known.values())) < 2:
        return ()
    target = min(known.values()) if better == "lower" else max(known.values())
    return tuple(name for name, value in known.items() if value == target)


def _delta(value: Any, base: Any) -> float | None:
    if value is None or base is None:
        return None
    delta = value - base
    return round(delta, 6) if isinstance(delta, float) else delta


def unique_name(wanted: str, taken: Sequence[str]) -> str:
    """``wanted``, or ``wanted (2)``, ``(3)``… when a candidate already has that name."""
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted} ({n})"
    return name
