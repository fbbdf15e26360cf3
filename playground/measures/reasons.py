"""Why a stack costs what it does against the raw history, in words whose parts add up.

The difference of the two bills is split by what each request pays for: cache reads, cache
writes, uncached input, the output (a long-context tier prices it by the request's size) and
the summaries the stack asks for. Each part carries its tokens and its dollars, and the
dollars sum to the difference (``metrics._difference``).
"""

from __future__ import annotations

from playground.measures.figures import Totals

PARTS = (
    ("read", "cache reads"),
    ("write", "cache writes"),
    ("uncached", "uncached input"),
)
SHOWN = 0.00005  # dollars: a part smaller than this is not worth a clause


def dollars(value: float) -> str:
    """Dollars as the page and the command line write them."""
    return f"${value:,.2f}" if abs(value) >= 10 else f"${value:,.4f}"


def signed(value: float) -> str:
    return ("+" if value >= 0 else "−") + dollars(abs(value))


def difference_parts(figures: Totals) -> str:
    """The parts of the stack's cost minus the raw history's, each with its tokens and its
    dollars, which add up to it ("cache reads −N tokens (+$a), cache writes +M tokens (+$b)");
    "" without a price."""
    if figures.cost_usd is None or figures.difference_read_usd is None:
        return ""
    clauses = []
    for part, label in PARTS:
        tokens, usd = figures[f"difference_{part}_tokens"], figures[f"difference_{part}_usd"]
        if tokens or abs(usd) >= SHOWN:
            clauses.append(f"{label} {'+' if tokens >= 0 else '−'}{abs(tokens):,} tokens ({signed(usd)})")
    if abs(figures.difference_output_usd or 0) >= SHOWN:
        clauses.append(
            f"output priced in another long-context tier ({signed(figures.difference_output_usd)})"
        )
    if figures.summary_cost_usd:
        clauses.append(f"summaries ({signed(figures.summary_cost_usd)})")
    return ", ".join(clauses) or "nothing differs"


def difference_words(figures: Totals) -> str:
    """ "This stack costs $X more than the raw history: " and its ``difference_parts``; ""
    without a price."""
    parts = difference_parts(figures)
    if not parts:
        return ""
    difference = figures.cost_usd - figures.raw_cost_usd
    if abs(difference) < SHOWN:
        return "This stack costs what the raw history costs."
    verdict = (
        f"costs {dollars(difference)} more than the raw history"
        if difference > 0
        else f"saves {dollars(-difference)} against the raw history"
    )
    return f"This stack {verdict}: {parts}."
