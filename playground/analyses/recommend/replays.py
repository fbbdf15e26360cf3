"""A stack replayed on every session of a search, priced as it goes, stopped once over the best."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from playground.analyses.recommend.budget import ROUNDING, money
from playground.analyses.runner import Counters, Runner
from playground.engine.replay import ReplayResult
from playground.engine.session import Session
from playground.limits import LimitError
from playground.measures.evaluate import Scenario, evaluate
from playground.money.cost import Pricing, RunningCost
from playground.summaries.base import SummarizerError
from policies.registry import PolicySpec, SpecError


@dataclass(frozen=True)
class Job:
    sessions: tuple[Session, ...]
    scenarios: tuple[Scenario, ...]  # each session's: its own recorded model where it has one


class Stopped(Exception):
    """A stack's running cost passed the best one's: it cannot be the answer."""

    def __init__(self, text: str, value: float, projected: float | None = None) -> None:
        super().__init__(text, value)
        self.text, self.value = text, value
        self.projected = value if projected is None else projected  # at the same rate to the end


Bound = tuple[str, float]  # (objective, the best feasible value so far): a stack over it stops


class Watch:
    """Stops a replay (``replay(watch=...)``) once the sessions done (``spent``) and this one's
    running cost pass the bound. The running cost never exceeds the final figure, so a stack
    stopped would have cost more than the best: it cannot be the answer."""

    def __init__(self, bound: Bound, pricing: Pricing, spent: float, slack: float, where: str) -> None:
        self.objective, self.limit = bound
        self.limit += slack  # the figures are rounded: a tie is not stopped
        self.running = RunningCost(pricing) if self.objective == "cost_usd" else None
        self.spent, self.where = spent, where

    def __call__(self, result: ReplayResult) -> None:
        turn = result.turns[-1]
        if self.running is not None:
            self.running(result)
            value = self.spent + self.running.spent
        else:
            self.spent += turn.context_tokens
            value = self.spent
        if value > self.limit:
            text = (
                f"stopped at turn {turn.number:,} of {result.session.turns:,}{self.where}: "
                f"{money(value, self.objective)} already, over the best's {money(self.limit, self.objective)}"
            )
            done = turn.number / max(result.session.turns, 1)
            raise Stopped(text, value, self.spent + (value - self.spent) / done)


Evaluate = Callable[[list, "Bound | None"], list]  # stacks, a bound -> their stack_figures


def evaluator(runner: Runner) -> Evaluate:
    """Stacks (and a bound to stop them at) to their figures, on ``runner`` (here, in worker
    processes or on a Dask cluster), in the stacks' order."""
    return lambda stacks, bound: runner.map([(tuple(stack), bound) for stack in stacks])


def stack_figures(
    job: Job, counters: Counters, item: tuple[Sequence[PolicySpec], Bound | None]
) -> tuple[tuple, str | None, Stopped | None]:
    """The runner's task: a stack's totals in each session; or why it did not run; or where it
    stopped, once over the bound (``item``: the stack and the bound, or None)."""
    stack, bound = item
    out = []
    spent, many = 0.0, len(job.sessions) > 1
    for number, (session, scenario) in enumerate(zip(job.sessions, job.scenarios, strict=True), start=1):
        counter = counters(scenario.settings.model)
        watch = None
        if bound is not None:
            where = f" of session {number:,} of {len(job.sessions):,}" if many else ""
            watch = Watch(bound, scenario.pricing, spent, ROUNDING * len(job.sessions), where)
        try:
            figures = evaluate(session, stack, scenario, counter, watch=watch).totals
        except Stopped as stop:
            return (), None, stop
        except (SpecError, SummarizerError, LimitError) as error:
            return (), str(error), None
        out.append(figures)
        if bound is not None:
            spent += figures[bound[0]] or 0.0
    return tuple(out), None, None
