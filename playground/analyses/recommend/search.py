"""The search: the stacks tried so far and how to try more, from presets to a sampler to a local search."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from playground.analyses.recommend.budget import LIMIT_NAMES, SEARCH, SIMPLER, TRIAL, Budget, Tried
from playground.analyses.recommend.replays import Bound, Evaluate, Stopped
from playground.analyses.recommend.result import Recommendation
from playground.analyses.recommend.space import (
    neighbours,
    place,
    searched,
    space,
    stack_of_trial,
    trial_params,
)
from policies.registry import POLICY_TYPES, PolicySpec

Progress = Callable[[int, int, "Tried | None"], None]
COMBINATIONS = 40  # about as many pairs and triples of the best single policies as the search tries
LOCAL_ROUNDS = 12  # a guess at the local search's stacks, for the progress bar
MAX_LOCAL_ROUNDS = 8  # moves of the local search at each step size, at the most
REFINE_STEPS = (2.0, 2**0.5, 2**0.25)  # the local search's step sizes, coarse to fine


def combinations(search: Search, policies: Sequence[str]) -> list[tuple[str, str, list[PolicySpec]]]:
    """Pairs of the two best single stacks of each policy, across the places a policy takes in a
    stack (a clip and an eviction, not two evictions), and the best of each place together."""
    best: dict[str, list[Tried]] = {}
    for tried in sorted(search.feasible_of(SEARCH), key=search.cost):
        spec = tried.stack[0]
        if len(tried.stack) == 1 and len(best.setdefault(spec.name, [])) < 2:
            best[spec.name].append(tried)
    names = [n for n in policies if n in best]
    out: list[tuple[str, str, list[PolicySpec]]] = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if place(first) == place(second):
                continue
            for a in best[first]:
                for b in best[second]:
                    out.append((f"{a.origin} + {b.origin}", SEARCH, [a.stack[0], b.stack[0]]))
    places: dict[int, Tried] = {}
    for n in names:  # the best single stack of each place
        top = best[n][0]
        if place(n) not in places or search.cost(top) < search.cost(places[place(n)]):
            places[place(n)] = top
    chosen = [places[k] for k in sorted(places)]
    if len(chosen) > 2:
        for skip in [None, *range(len(chosen))]:
            group = [t for j, t in enumerate(chosen) if j != skip]
            if len(group) > 2 or skip is None:
                out.append((" + ".join(t.origin for t in group), SEARCH, [t.stack[0] for t in group]))
    return out


class Search:
    """The stacks tried so far and how to try more: in batches (a progress report after each),
    each stack stopped once it costs more than the best within the budget."""

    def __init__(
        self,
        budget: Budget,
        evaluate: Evaluate,
        progress: Progress | None,
        cancelled: Callable[[], bool],
        workers: int,
    ) -> None:
        self.budget, self.evaluate, self.progress, self.cancelled = budget, evaluate, progress, cancelled
        self.chunk = max(4, 2 * workers)
        self.tried: list[Tried] = []
        self.notes: list[str] = []  # what the user should know of the run (a study file set aside)
        self.seen: set[tuple] = set()
        self.objective = "cost_usd"
        self.planned = 0
        self.started = time.perf_counter()

    def cost(self, tried: Tried) -> float:
        return tried.total(self.objective) or 0.0

    def rejudge(self, budget: Budget) -> None:
        """Judge every stack tried so far, and every later one, by ``budget``."""
        self.budget = budget
        self.tried = [
            replace(t, feasible=t.ran and all(v <= 0 for v in budget.over(t.sessions))) for t in self.tried
        ]

    def best(self) -> Tried | None:
        return best_of(self.tried, self.objective)

    def feasible_of(self, kind: str) -> list[Tried]:
        return [t for t in self.tried if t.feasible and t.kind == kind]

    def bound(self) -> Bound | None:
        best = self.best()
        return None if best is None else (self.objective, self.cost(best))

    def run(self, stacks: Sequence[tuple[str, str, list[PolicySpec]]], bounded: bool = True) -> None:
        """Try each stack not tried yet, in batches, reporting progress after each."""
        fresh = []
        for origin, kind, stack in stacks:
            key = tuple(spec.key() for spec in stack)
            if key not in self.seen:
                self.seen.add(key)
                fresh.append((origin, kind, stack))
        for at in range(0, len(fresh), self.chunk):
            if self.cancelled():
                return
            part = fresh[at : at + self.chunk]
            results = self.evaluate([stack for _, _, stack in part], self.bound() if bounded else None)
            self.tried.extend(
                tried_of(stack, origin, kind, figures, error, self.budget, stop)
                for (origin, kind, stack), (figures, error, stop) in zip(part, results, strict=True)
            )
            self.report()

    def report(self) -> None:
        if self.progress:
            self.planned = max(self.planned, len(self.tried))
            self.progress(len(self.tried), self.planned, self.best())

    def refine(self) -> None:
        """A local search from the best stack: each value twice as large and half as large,
        each policy taken out (then retuned), for as long as a move makes it cheaper within the
        budget; then in finer steps (x1.41, then x1.19)."""
        for factor in REFINE_STEPS:
            self._climb(factor)

    def _climb(self, factor: float) -> None:
        for _ in range(MAX_LOCAL_ROUNDS):
            best = self.best()
            if best is None or not best.stack or self.cancelled():
                return
            moves = []
            root = best.origin.split(", ")[0]  # what the moves started from
            for i, spec in enumerate(best.stack):
                moves.append((f"{root}, less {spec.name}", SIMPLER, [*best.stack[:i], *best.stack[i + 1 :]]))
                for param in POLICY_TYPES[spec.name].params:
                    if not searched(param):
                        continue
                    current = spec.params.get(param.name, param.default)
                    for value in neighbours(param, current, factor):
                        moved = PolicySpec(spec.name, {**spec.params, param.name: value}, spec.enabled)
                        origin = f"{root}, tuned"
                        moves.append((origin, SEARCH, [*best.stack[:i], moved, *best.stack[i + 1 :]]))
            self.run(moves)
            if self.best() is best:
                return

    def sample(self, study: Any, policies: Sequence[str], trials: int) -> int:
        """``trials`` stacks proposed by the sampler, told every stack tried so far that its
        space holds; a stack stopped early is reported at its projected cost."""
        import optuna

        distributions = space(policies)
        told = self.tried if not study.trials else []  # a resumed study was told before
        for tried in told:
            params = trial_params(tried.stack, policies)
            if params is None or not tried.ran:
                continue
            kept = {k: distributions[k] for k in params}
            constraints = dict(zip(LIMIT_NAMES, self.budget.over(tried.sessions), strict=True))
            study.add_trial(
                optuna.trial.create_trial(
                    params=params, distributions=kept, value=self.cost(tried), constraints=constraints
                )
            )
        done = 0
        while done < trials and not self.cancelled():
            batch = [study.ask() for _ in range(min(self.chunk, trials - done))]
            stacks = [stack_of_trial(t, policies) for t in batch]
            results = self.evaluate(stacks, self.bound())
            for trial, stack, (figures, error, stop) in zip(batch, stacks, results, strict=True):
                one = tried_of(stack, f"trial {trial.number}", TRIAL, figures, error, self.budget, stop)
                self.tried.append(one)
                self.seen.add(tuple(spec.key() for spec in stack))
                if stop is not None:  # over the best already: its losses unknown, its cost higher
                    trial.report(stop.projected, step=0)
                    study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                elif error is not None or one.total(self.objective) is None:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    for limit, excess in zip(LIMIT_NAMES, self.budget.over(one.sessions), strict=True):
                        trial.set_constraint(limit, excess)
                    study.tell(trial, one.total(self.objective))
                done += 1
            self.report()
        return done


def descend(
    tried: list[Tried], evaluate: Evaluate, budget: Budget, objective: str, done: int, name: str
) -> tuple[Tried, ...]:
    """Take policies out of the best stack while that keeps it within the budget at no more
    cost (a policy that does nothing, or costs more than it saves, goes); the stacks tried
    join ``tried``. Returns the final best stack less each of its policies: what each does."""
    for _ in range(MAX_POLICIES):
        best = Recommendation(budget, objective, tuple(tried), done, 0.0, name).best
        if best is None or not best.stack:
            return ()
        without = _without_each(best, evaluate, budget)
        tried.extend(without)
        if Recommendation(budget, objective, tuple(tried), done, 0.0, name).best is best:
            return without
    return ()


MAX_POLICIES = 32  # a stack is never longer: the descent ends


def _without_each(best: Tried, evaluate: Evaluate, budget: Budget) -> tuple[Tried, ...]:
    """The best stack with each of its policies taken out in turn: what each one does for it."""
    stacks = [[s for j, s in enumerate(best.stack) if j != i] for i in range(len(best.stack))]
    return tuple(
        tried_of(stack, f"{best.origin}, less {best.stack[i].name}", SIMPLER, figures, error, budget)
        for i, (stack, (figures, error, _)) in enumerate(zip(stacks, evaluate(stacks, None), strict=True))
    )


def best_of(tried: Sequence[Tried], objective: str) -> Tried | None:
    return min((t for t in tried if t.feasible), key=lambda t: t.total(objective), default=None)


def tried_of(
    stack: Sequence[PolicySpec],
    origin: str,
    kind: str,
    figures: tuple,
    error: str | None,
    budget: Budget,
    stop: Stopped | None = None,
) -> Tried:
    feasible = error is None and stop is None and all(v <= 0 for v in budget.over(figures))
    return Tried(tuple(stack), origin, kind, figures, error, feasible, None if stop is None else stop.text)
