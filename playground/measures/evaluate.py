"""One evaluation: a session through a stack under a scenario, replayed, measured turn by turn
and totalled. Every front and analysis (the app, the CLI's replay and compare, sweep,
recommend, corpus, the export check) evaluates through here, so a figure means the same
wherever it is shown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from playground.engine.replay import ReplayResult, Settings, replay
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.measures import must_keep as must_keep_measure
from playground.measures.figures import Totals
from playground.measures.metrics import TurnTable, totals, turn_table, with_must_keep
from playground.measures.must_keep import MustKeep
from playground.models.catalogue import at_recorded_model
from playground.money.cost import Pricing
from playground.summaries.base import SummaryStats
from policies.registry import PolicySpec

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Scenario:
    """What every replay of one run shares: how to replay (the model, its window, the
    summarizer: ``settings``), how to price (``pricing``), and the facts that must be kept."""

    settings: Settings = field(default_factory=Settings)
    pricing: Pricing = field(default_factory=Pricing)
    must_keep: tuple[MustKeep, ...] = ()

    def key(self) -> tuple:
        """What tells two scenarios apart, as a cache key."""
        return (self.settings.key(), self.pricing, tuple(f.text for f in self.must_keep))

    def at(self, settings: Settings) -> Scenario:
        """The same scenario with other settings."""
        return self if settings == self.settings else replace(self, settings=settings)

    def for_session(self, session: Session, model_given: bool) -> Scenario:
        """This scenario for ``session``: at the model it records (with the window the agent
        had), unless a model was named (``model_given``: the CLI's --model, a config's model:,
        the app's picker)."""
        return self if model_given else self.at(at_recorded_model(self.settings, session))


@dataclass(frozen=True)
class Evaluation:
    """A replay, its per-turn table and its totals."""

    result: ReplayResult
    table: TurnTable
    totals: Totals


def evaluate(
    session: Session,
    stack: Sequence[PolicySpec],
    scenario: Scenario,
    counter: TokenCounter | None = None,
    *,
    api_key: str | None = None,
    hosted: bool = False,
    progress: Callable[[int, int, SummaryStats], None] | None = None,
    watch: Callable[[ReplayResult], None] | None = None,
) -> Evaluation:
    """``session`` through ``stack`` under ``scenario``. ``counter`` (of the scenario's model)
    shares tokenization between evaluations of one session; ``api_key``, ``hosted``,
    ``progress`` and ``watch`` as for ``engine.replay.replay``."""
    result = replay(
        session,
        list(stack),
        scenario.settings,
        counter,
        api_key=api_key,
        hosted=hosted,
        progress=progress,
        watch=watch,
    )
    table = turn_table(result, scenario.pricing, scenario.must_keep)
    return Evaluation(result, table, totals(table))


@dataclass(frozen=True)
class MustKeepCheck:
    """A replay's figures with the must-keep facts checked: the per-turn frame with its
    must-keep columns, the totals, and each fact's state at every turn (for the chart)."""

    turns: pd.DataFrame
    totals: Totals
    states: pd.DataFrame


def check_must_keep(result: ReplayResult, turns: pd.DataFrame, facts: Sequence[MustKeep]) -> MustKeepCheck:
    """The must-keep facts checked on a replay evaluated without them (``turns``: its per-turn
    frame): the same figures ``evaluate`` gives with the facts in its scenario, so one replay
    serves every set of facts. MustKeepError when matching runs out of its time."""
    states = must_keep_measure.states(result, tuple(facts))
    frame = with_must_keep(turns, states)
    return MustKeepCheck(frame, totals(frame), states)
