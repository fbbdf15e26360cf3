"""Rows of figures as the command line shows and writes them: an aligned text table and CSV.

Plain Python over a list of dicts, so a command that reports a replay starts without pandas.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from playground.measures.metrics import spreadsheet_safe

MISSING = "-"  # how a table shows a figure that is not known


def text_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """``rows`` under their column names, numbers right-aligned, text left-aligned; a missing
    figure (None) shows as ``-``, the fractions of a column with as many decimals as its most
    precise one needs (six at most)."""
    columns = list(columns if columns is not None else (rows[0] if rows else ()))
    decimals = [_decimals([row.get(column) for row in rows]) for column in columns]
    cells = [
        [_cell(row.get(column), places) for column, places in zip(columns, decimals, strict=True)]
        for row in rows
    ]
    numeric = [all(_is_number(row.get(column)) for row in rows) for column in columns]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        parts = (
            value.rjust(width) if right else value.ljust(width)
            for value, width, right in zip(values, widths, numeric, strict=True)
        )
        return "  ".join(parts).rstrip()

    return "\n".join([line(columns), *(line(values) for values in cells)])


def write_csv(rows: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """``rows`` as CSV under a header of their column names; a missing figure is an empty field,
    text that opens like a formula is kept text (``spreadsheet_safe``)."""
    if not rows:
        return
    writer = csv.DictWriter(
        out, fieldnames=list(rows[0]), lineterminator="\r\n"
    )  # RFC 4180: a CR in a cell is quoted
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in rows)


def _decimals(values: Sequence[Any]) -> int:
    places = [len(f"{v:.6f}".rstrip("0").partition(".")[2]) for v in values if isinstance(v, float)]
    return max([1, *places])


def _cell(value: Any, decimals: int) -> str:
    if value is None:
        return MISSING
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))
