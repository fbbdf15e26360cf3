"""What an export costs: the stack a framework can express, replayed beside the user's, so
the download comes with both figures ("exported stack: $X, 3 facts lost; yours: $Y, 2")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.export import Export, export
from playground.export.nearest import Nearest, nearest_stack
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.figures import Totals
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing
from policies.registry import PolicySpec


@dataclass(frozen=True)
class ExportCheck:
    """The export of the nearest expressible stack, and the headline figures of both stacks
    on one session (``exported`` is ``yours`` where the stack is expressed exactly)."""

    target: str
    nearest: Nearest
    export: Export
    yours: Totals
    exported: Totals

    def line(self) -> str:
        """One line: both stacks' cost and facts lost."""
        return f"exported stack: {figures_said(self.exported)}; your stack: {figures_said(self.yours)}"


def figures_said(figures: Totals) -> str:
    cost = figures.cost_usd
    money = "no price known" if cost is None else f"${cost:,.2f}"
    lost = figures.distinct_facts_lost
    return f"{money}, {lost:,} fact{'' if lost == 1 else 's'} lost"


def export_check(
    session: Session,
    specs: list[PolicySpec],
    settings: Settings,
    target: str,
    pricing: Pricing | None = None,
    must_keep: Sequence[MustKeep] = (),
    figures: Callable[[list[PolicySpec]], Totals] | None = None,
) -> ExportCheck:
    """The nearest stack ``target`` expresses, its export, and both stacks' headline figures
    on ``session`` (``figures``: a stack's ``metrics.totals``, where the caller keeps replays;
    by default a replay of its own)."""
    nearest = nearest_stack(specs, settings, target)
    if figures is None:
        counter = TokenCounter(settings.model)
        scenario = Scenario(settings, pricing or Pricing(), tuple(must_keep))

        def figures(stack: list[PolicySpec]) -> Totals:
            return evaluate(session, stack, scenario, counter).totals

    mine = figures(specs)
    theirs = mine if nearest.exact else figures(nearest.stack)
    return ExportCheck(target, nearest, export(nearest.stack, settings, target), mine, theirs)
