"""Recommend a stack: the cheapest one that loses nothing the user cares about.

The search space is stacks built from a set of policies in an order that makes sense
(clipping each result, then clearing or evicting old ones, then a window, then compaction),
each parameter over a grid (``grid``: a log scale from its default, 0 its own value). The
objective is the session's dollars with prompt caching, summaries included (input tokens
billed where no price is known); the constraints are the budget: no invalid turn, no
must-keep fact lost, facts lost, copied lines lost and re-fetches within their limits.

The search is deterministic first (the raw history, the presets, each policy alone over its
grid, pairs and triples of the best, a local search by halving and doubling each value), then
Optuna's TPE sampler (seeded, constraint-aware) is told all of that and proposes more; its
study lives in memory, or in SQLite with ``resume``. A stack is priced turn by turn as it
replays (``RunningCost``) and stopped once it already costs more than the best stack within
the budget so far: it cannot be the answer (the sampler learns it as pruned, at its projected
cost). Over several sessions the cost is their total and each constraint must hold in every
one, or each loss limit in the share of them the budget's ``percentile`` names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from playground.analyses.own_policy import needs_reference, own_stack
from playground.analyses.processes import process_context
from playground.analyses.sweep import pareto_front
from playground.cache_dir import default_cache_dir
from playground.engine.replay import ReplayResult, Settings
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.limits import LIMITS, LimitError
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing, RunningCost
from playground.stacks.presets import FRAMEWORK_PRESETS, available_presets
from playground.summaries.base import SummarizerError
from policies.base import Param
from policies.registry import POLICY_TYPES, PolicySpec, SpecError

ANY = "any"
DEFAULT_POLICIES = (
    "ToolOutputClipPolicy",
    "ToolEvictionPolicy",
    "ClearToolUsesPolicy",
    "SlidingWindowPolicy",
    "CompactionPolicy",
)
DEFAULT_TRIALS = 60


class RecommendError(ValueError):
    """A search that cannot run: the message names the setting."""


@dataclass(frozen=True)
class Budget:
    """What the user cares about: a stack over it is not an answer, however cheap."""

    max_facts_lost: int = 0
    must_keep: bool = True  # no must-keep fact lost (where the user declared any)
    max_refetches: int | None = None
    # over several sessions: the share of them in which each loss limit must hold (an invalid
    # request is a failed call, not a loss: no turn may be invalid in any session)
    percentile: float = 100.0
    max_quotes_lost: int = 0  # lines a later reply copies from an earlier result
    # turns a provider would refuse for a broken call/result pair: none, unless the agent's own
    # policy sends as many (the raw history holds them: no stack is to blame)
    max_invalid_turns: int = 0
    of_own_policy: bool = False  # the limits are what the agent's own policy loses

    def excess(self, figures: Mapping[str, Any]) -> list[float]:  # in the order of LIMIT_NAMES
        """How far ``figures`` (one session's totals) are over each limit; all <= 0: within."""
        return [
            float(figures["turns_with_violations"] - self.max_invalid_turns),
            float(figures["turns_over_window"]),
            float(figures["distinct_facts_lost"] - self.max_facts_lost),
            float(figures.get("turns_with_must_keep_lost") or 0) if self.must_keep else 0.0,
            float(figures["refetches"] - self.max_refetches) if self.max_refetches is not None else 0.0,
            float(figures.get("distinct_quotes_lost", 0) - self.max_quotes_lost),
        ]

    def said(self) -> str:
        parts = [
            f"at most {self.max_invalid_turns:,} invalid turns"
            if self.max_invalid_turns
            else "no invalid turn",
            f"at most {self.max_facts_lost:,} facts lost",
            f"at most {self.max_quotes_lost:,} copied lines lost"
            if self.max_quotes_lost
            else "no copied line lost",
        ]
        if self.must_keep:
            parts.append("no must-keep fact lost")
        if self.max_refetches is not None:
            parts.append(f"at most {self.max_refetches:,} re-fetches")
        said = ", ".join(parts)
        if self.percentile < 100:
            said += f" (the losses in {self.percentile:g} % of the sessions)"
        if self.of_own_policy:
            said = f"no more loss than your agent's own policy ({said}), no request over the window"
        return said

    @classmethod
    def of(cls, own: Tried) -> Budget:
        """The default budget where the agent's own policy is the reference: no more facts lost,
        copied lines lost, re-fetches or invalid turns than it, in any session."""
        return cls(
            max_facts_lost=int(own.worst("distinct_facts_lost")),
            max_refetches=int(own.worst("refetches")),
            max_quotes_lost=int(own.worst("distinct_quotes_lost")),
            max_invalid_turns=int(own.worst("turns_with_violations")),
            of_own_policy=True,
        )

    def over(self, sessions: Sequence[Mapping[str, Any]]) -> list[float]:
        """Each limit's excess over ``sessions`` (a stack within the budget: all <= 0): in the
        session that exceeds it most, or for a loss limit with a ``percentile`` below 100, at
        that percentile of the sessions (nearest rank). A stack that did not run: over."""
        if not sessions:
            return [1.0] * len(LIMIT_NAMES)
        columns = zip(*(self.excess(s) for s in sessions), strict=True)
        rank = max(1, math.ceil(self.percentile / 100 * len(sessions)))  # of the ascending excesses
        return [
            max(column) if name in STRICT_LIMITS else sorted(column)[rank - 1]
            for name, column in zip(LIMIT_NAMES, columns, strict=True)
        ]


@dataclass(frozen=True)
class Tried:
    """One stack tried: its figures summed over the sessions (per-session ones kept)."""

    stack: tuple[PolicySpec, ...]
    origin: str  # what it is: "raw history", a preset's name, "trial 12", "trial 12, less ToolEvictionPolicy"
    kind: str  # RAW, PRESET, TRIAL, or SIMPLER (a stack tried with one policy fewer)
    sessions: tuple[Mapping[str, Any], ...] = ()
    error: str | None = None
    feasible: bool = False
    stopped: str | None = None  # stopped early, already costing more than the best: how far it got

    @property
    def ran(self) -> bool:
        """Whether it ran to the end: its figures are whole."""
        return self.error is None and self.stopped is None

    def total(self, key: str) -> float | None:
        values = [s.get(key) for s in self.sessions]
        return None if not values or any(v is None for v in values) else float(sum(values))

    def worst(self, key: str) -> float:
        return max((float(s.get(key) or 0) for s in self.sessions), default=0.0)


@dataclass(frozen=True)
class Recommendation:
    budget: Budget
    objective: str  # "cost_usd", or "billed_context_tokens" where a session has no price
    tried: tuple[Tried, ...]
    trials: int  # of them, the ones the sampler proposed
    seconds: float
    study: str  # its name in the study file
    without: tuple[Tried, ...] = ()  # the best stack less each of its policies, in stack order
    notes: tuple[str, ...] = ()  # what the user should know of the run

    def why(self) -> list[str]:
        """What each policy of the best stack does for it: the figures without it."""
        best = self.best
        if best is None or not self.without:
            return []
        cost = best.total(self.objective) or 0.0
        lines = []
        for spec, other in zip(best.stack, self.without, strict=True):
            if other.error is not None:
                lines.append(f"{spec.name}: the stack does not run without it ({other.error})")
                continue
            saves = (other.total(self.objective) or 0.0) - cost
            kept = (other.total("distinct_facts_lost") or 0) - (best.total("distinct_facts_lost") or 0)
            effect = (
                f"saves {money(saves, self.objective)}"
                if saves > 0
                else f"costs {money(-saves, self.objective)}"
                if saves < 0
                else "changes no cost"
            )
            if kept:
                effect += f", {'keeps' if kept > 0 else 'loses'} {abs(kept):,.0f} fact{'' if abs(kept) == 1 else 's'}"
            if not other.feasible:
                effect += "; without it the stack is over the budget"
            lines.append(f"{spec.name}: {effect}")
        return lines

    def stopped_said(self) -> str:
        """How many stacks were stopped early, in words ("" for none)."""
        stopped = sum(t.stopped is not None for t in self.tried)
        return f"{stopped:,} stopped early, already costing more than the best" if stopped else ""

    @property
    def best(self) -> Tried | None:
        """The cheapest stack within the budget (the raw history when it is the cheapest)."""
        feasible = [t for t in self.tried if t.feasible]
        return min(feasible, key=lambda t: (t.total(self.objective), len(t.stack)), default=None)

    @property
    def raw(self) -> Tried:
        return next(t for t in self.tried if t.kind == RAW)

    @property
    def own(self) -> Tried | None:
        """Your agent's own policy replayed, where it is the reference (the agent compacted, or
        the raw history outgrows the window it had)."""
        return next((t for t in self.tried if t.kind == OWN), None)

    def verdict(self) -> str:
        """The answer in one sentence: what the best stack beats, or that nothing found does."""
        best, own = self.best, self.own
        if best is None:
            if own is not None:
                return "no stack tried stays within the budget, your agent's own policy included"
            return "no stack tried stays within the budget, not even the raw history: loosen it"
        if own is not None and own.ran:
            reference = own.total(self.objective) or 0.0
            cost = best.total(self.objective) or 0.0
            if best is own or cost >= reference - ROUNDING:
                return (
                    f"nothing found beats your agent's own policy ({money(reference, self.objective)}) "
                    "within its own losses"
                )
            pct = 100 * (reference - cost) / reference if reference else 0.0
            return (
                f"{pct:.1f} % cheaper than your agent's own policy ({money(cost, self.objective)} against "
                f"{money(reference, self.objective)}), at no more loss"
            )
        if not best.stack:
            return "the raw history: no stack tried is cheaper within the budget"
        return f"{best.origin}, the cheapest within the budget"

    @property
    def best_preset(self) -> Tried | None:
        presets = [t for t in self.tried if t.feasible and t.kind == PRESET]
        return min(presets, key=lambda t: t.total(self.objective), default=None)

    def front(self) -> list[Tried]:
        """The stacks on the Pareto front of cost against facts lost (invalid ones aside)."""
        ran = [t for t in self.tried if t.ran and not t.worst("turns_with_violations")]
        pairs = [(t.total(self.objective), t.total("distinct_facts_lost")) for t in ran]
        return [t for t, on in zip(ran, pareto_front(pairs), strict=True) if on]


RAW, PRESET, TRIAL, SIMPLER, SEARCH = "raw history", "preset", "trial", "simpler", "search"
OWN = "your agent's own policy"


def stack_said(stack: Sequence[PolicySpec]) -> str:
    """A stack with every value it sets: ``ToolOutputClipPolicy(max_chars=595) → …``."""
    if not stack:
        return "no policy (the raw history)"
    return " → ".join(
        f"{spec.name}({', '.join(f'{k}={_shown(v)}' for k, v in spec.params.items())})" for spec in stack
    )


def money(value: float, objective: str) -> str:
    return f"${value:,.4f}" if objective == "cost_usd" else f"{value:,.0f} tokens"


LIMIT_NAMES = (
    "invalid_turns",
    "turns_over_window",
    "facts_lost",
    "must_keep_lost",
    "refetches",
    "quotes_lost",
)
STRICT_LIMITS = ("invalid_turns", "turns_over_window")  # held in every session whatever the percentile


def policies_for(framework: str) -> tuple[str, ...]:
    """The policies a search may use: a framework's (those its presets use, so the answer
    exports cleanly), or the general set."""
    if framework == ANY:
        names = DEFAULT_POLICIES
    elif framework in FRAMEWORK_PRESETS:
        names = tuple({s.name for p in FRAMEWORK_PRESETS[framework] for s in available_presets().get(p, ())})
    else:
        raise RecommendError(
            f"unknown framework {framework[:40]!r} (known: {ANY}, {', '.join(FRAMEWORK_PRESETS)})"
        )
    return tuple(sorted(names, key=lambda n: (_place(n), n)))


def presets_for(framework: str) -> dict[str, list[PolicySpec]]:
    """The presets tried as they are: every one (any stack is an answer), or a framework's."""
    available = available_presets()
    names = (
        list(available) if framework == ANY else [n for n in FRAMEWORK_PRESETS[framework] if n in available]
    )
    return {name: list(available[name]) for name in names if available[name]}


def searched(param: Param) -> bool:
    """Whether the search varies this parameter (free text, which only its choices make a value to
    tune, and lists stay as declared, and a replay's own switches, which its declaration marks)."""
    if not param.search or param.type in (list, tuple):
        return False
    if param.type is str:
        return bool(param.choices)
    if param.type is bool:
        return True
    return param.minimum is not None and param.maximum is not None


GRID_STEPS = 3  # a value's grid: doubled this many times, within the range
GRID_DOWN = 5  # and halved this many (a tighter setting is where most of the saving is)
ZERO_DEFAULT_STEPS = 6  # a threshold whose default is 0: this many doublings from its first step


def grid(param: Param) -> tuple[Any, ...]:
    """The values a search tries for a parameter, in order: both for a switch, every choice; a
    number from its default halved and doubled across its range (a log scale: the useful values
    of a threshold are a few per cent of its range), 0 as its own value where allowed."""
    if param.type is bool:
        return (False, True)
    if param.type is str:
        return tuple(param.choices)
    low, high = float(param.minimum), float(param.maximum)
    default = param.default if param.default is not None else param.search_from
    if default:
        candidates = [default * 2.0**k for k in range(-GRID_DOWN, GRID_STEPS + 1)]
    else:  # 0 by default (a threshold that is off): steps from a thousandth of the range up
        first = 10 ** math.floor(math.log10(max(high, 1)) / 2)
        candidates = [first * 2.0**k for k in range(ZERO_DEFAULT_STEPS + 1)]
    values = {min(max(v, low), high) for v in candidates} | ({0.0} if low <= 0 <= high else set())
    if param.type is int:
        values = {float(round(v)) for v in values}
        return tuple(sorted({int(v) for v in values}))
    return tuple(sorted(values))


def neighbours(param: Param, value: Any, factor: float = 2.0) -> list[Any]:
    """The values next to ``value`` a local search tries: a number ``factor`` times smaller and
    larger within its range (from 0, the grid's first step; to 0 from there); a switch its
    other state; a choice the others."""
    if param.type is bool:
        return [not value]
    if param.type is str:
        return [v for v in grid(param) if v != value]
    low, high = float(param.minimum), float(param.maximum)
    first = min((v for v in grid(param) if v > 0), default=None)
    if not value:
        candidates = [first] if first is not None else []
    else:
        candidates = [value / factor, value * factor]
        if low <= 0 and first is not None and value <= first:
            candidates.append(0)
    out = []
    for v in candidates:
        v = min(max(float(v), low), high)
        v = round(v) if param.type is int else v
        if v != value and v not in out:
            out.append(v)
    return out


def space(policies: Sequence[str]) -> dict[str, Any]:
    """The search space as Optuna's distributions: each policy in or out, each parameter it
    searches over its grid (so every stack of grid values the search tries can be told)."""
    from optuna.distributions import CategoricalDistribution

    out: dict[str, Any] = {}
    for name in policies:
        out[name] = CategoricalDistribution([False, True])
        for param in POLICY_TYPES[name].params:
            if searched(param):
                out[f"{name}.{param.name}"] = CategoricalDistribution(list(grid(param)))
    return out


def stack_of_trial(trial: Any, policies: Sequence[str]) -> list[PolicySpec]:
    """The stack a trial proposes: for each allowed policy whether it is in, and its settings."""
    stack = []
    for name in policies:
        if not trial.suggest_categorical(f"{name}", [False, True]):
            continue
        params = {
            p.name: trial.suggest_categorical(f"{name}.{p.name}", list(grid(p)))
            for p in POLICY_TYPES[name].params
            if searched(p)
        }
        stack.append(PolicySpec(name, params))
    return stack


def trial_params(stack: Sequence[PolicySpec], policies: Sequence[str]) -> dict[str, Any] | None:
    """``stack`` as the parameters of a trial in ``space(policies)``; None where it is not in
    it (another order, a policy not searched, a value off the grid)."""
    named = {spec.name: spec for spec in stack}
    if len(named) != len(stack) or any(n not in policies for n in named):
        return None
    if [s.name for s in stack] != [n for n in policies if n in named]:
        return None
    params: dict[str, Any] = {}
    for name in policies:
        params[name] = name in named
        if name not in named:
            continue
        for param in POLICY_TYPES[name].params:
            if not searched(param):
                continue
            value = named[name].params.get(param.name, param.default)
            if value not in grid(param):
                return None
            params[f"{name}.{param.name}"] = value
    return params


@dataclass(frozen=True)
class _Job:
    sessions: tuple[Session, ...]
    scenarios: tuple[Scenario, ...]  # each session's: its own recorded model where it has one


class _Stopped(Exception):
    """A stack's running cost passed the best one's: it cannot be the answer."""

    def __init__(self, text: str, value: float, projected: float | None = None) -> None:
        super().__init__(text, value)
        self.text, self.value = text, value
        self.projected = value if projected is None else projected  # at the same rate to the end


Bound = tuple[str, float]  # (objective, the best feasible value so far): a stack over it stops


class _Watch:
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
            raise _Stopped(text, value, self.spent + (value - self.spent) / done)


def _figures(
    job: _Job, stack: Sequence[PolicySpec], counters: dict[str, TokenCounter], bound: Bound | None = None
) -> tuple[tuple, str | None, _Stopped | None]:
    """The stack's totals in each session; or why it did not run; or where it stopped, once
    over ``bound``."""
    out = []
    spent, many = 0.0, len(job.sessions) > 1
    for number, (session, scenario) in enumerate(zip(job.sessions, job.scenarios, strict=True), start=1):
        model = scenario.settings.model
        counter = counters.setdefault(model, TokenCounter(model))
        watch = None
        if bound is not None:
            where = f" of session {number:,} of {len(job.sessions):,}" if many else ""
            watch = _Watch(bound, scenario.pricing, spent, ROUNDING * len(job.sessions), where)
        try:
            figures = evaluate(session, stack, scenario, counter, watch=watch).totals
        except _Stopped as stop:
            return (), None, stop
        except (SpecError, SummarizerError, LimitError) as error:
            return (), str(error), None
        out.append(figures)
        if bound is not None:
            spent += figures.get(bound[0]) or 0.0
    return tuple(out), None, None


ROUNDING = 1e-6  # a session's dollars are rounded to this


_worker: tuple[_Job, dict[str, TokenCounter]] | None = None


def _start_worker(job: _Job) -> None:
    global _worker
    _worker = (job, {})


def _worker_figures(stack: tuple[PolicySpec, ...], bound: Bound | None) -> tuple:
    assert _worker is not None
    return _figures(_worker[0], stack, _worker[1], bound)


Progress = Callable[[int, int, "Tried | None"], None]


def recommend(
    sessions: Sequence[Session],
    settings: Sequence[Settings],
    budget: Budget | None = None,
    *,
    pricing: Pricing | None = None,
    must_keep: Sequence[MustKeep] = (),
    framework: str = ANY,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    workers: int = 1,
    resume: bool = False,
    scheduler: Any = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Recommendation:
    """Search for the cheapest stack within ``budget`` on ``sessions`` (each replayed with its
    ``settings``). Deterministic first: the raw history, your agent's own policy where it is the
    reference (its sessions compacted, or their raw history outgrows the window the agent had),
    the presets (and each less one of its policies), each allowed policy alone over its grid
    (the agent's own knobs among them), pairs and triples of the best of those, a local search
    from the best; then ``trials`` stacks proposed by the sampler, told all of that; then the
    local search again and the best less each policy (what each does for it). With no
    ``budget``: no more loss than the agent's own policy where it is the reference, else none.
    ``progress(done, planned, best)`` after each batch; ``cancelled()`` stops it, keeping what
    ran (with ``resume``, the study keeps it too)."""
    if not sessions:
        raise RecommendError("no session to recommend for")
    if not 1 <= trials <= LIMITS.max_recommend_trials:
        raise RecommendError(f"trials must be from 1 to {LIMITS.max_recommend_trials:,}")
    workers = max(1, min(workers, LIMITS.max_sweep_workers))
    policies = policies_for(framework)
    presets = presets_for(framework)
    starts = [(name, PRESET, stack) for name, stack in presets.items()]
    # each preset less one of its policies: a preset over the budget is often one policy from within it
    starts += [
        (f"{name}, less {stack[i].name}", SIMPLER, stack[:i] + stack[i + 1 :])
        for name, stack in presets.items()
        if len(stack) > 1
        for i in range(len(stack))
    ]
    shared = Scenario(pricing=pricing or Pricing(), must_keep=tuple(must_keep))
    job = _Job(tuple(sessions), tuple(shared.at(s) for s in settings))
    evaluate, close = _evaluator(job, workers, scheduler)
    search = _Search(budget or Budget(), evaluate, progress, cancelled or (lambda: False), workers)
    search.planned = len(starts) + 2 + COMBINATIONS + LOCAL_ROUNDS + trials
    done, name = 0, ""
    try:
        search.report()  # progress from the first moment: nothing tried yet, and how much is planned
        search.run([(RAW, RAW, [])], bounded=False)  # the raw history: whether there are dollars at all
        search.objective = (
            "cost_usd"
            if all(s.get("cost_usd") is not None for s in search.tried[0].sessions)
            else "billed_context_tokens"
        )
        own = agent_policy(sessions, search.tried[0].sessions)
        if own is not None:
            preset, stack = own
            search.run([(f"{OWN} ({preset})", OWN, stack)], bounded=False)
            if budget is None and search.tried[-1].ran:
                search.rejudge(Budget.of(search.tried[-1]))
            if framework == ANY:  # the agent's own knobs are searched too
                policies = tuple(sorted({*policies, *(s.name for s in stack)}, key=_place_and_name))
        singles = single_policies(policies)
        search.planned = len(search.tried) + len(starts) + len(singles) + COMBINATIONS + LOCAL_ROUNDS + trials
        name = study_name(job, search.budget, policies, seed)
        search.run(starts, bounded=False)
        search.run(singles)
        search.run(combinations(search, policies))
        search.refine()
        done = search.sample(_study(name, resume, seed, search, policies), policies, trials)
        search.refine()
        without = _descend(search.tried, evaluate, search.budget, search.objective, done, name)
    finally:
        close()
    seconds = time.perf_counter() - search.started
    return Recommendation(
        search.budget,
        search.objective,
        tuple(search.tried),
        done,
        seconds,
        name,
        without,
        tuple(search.notes),
    )


def agent_policy(sessions: Sequence[Session], raw: Sequence[Mapping[str, Any]]) -> tuple[str, list] | None:
    """The agent's own policy (its preset and stack) where it is the reference for these
    sessions: one agent recorded them all, and one of them compacted or outgrew its window
    (``raw``: the raw history's totals in each)."""
    found = {own_stack(s)[0] if own_stack(s) else "" for s in sessions}
    if len(found) != 1 or "" in found:
        return None
    if not any(needs_reference(s, f) for s, f in zip(sessions, raw, strict=True)):
        return None
    return own_stack(sessions[0])


def _place_and_name(name: str) -> tuple[int, str]:
    return _place(name), name


COMBINATIONS = 40  # about as many pairs and triples of the best single policies as the search tries
LOCAL_ROUNDS = 12  # a guess at the local search's stacks, for the progress bar
MAX_LOCAL_ROUNDS = 8  # moves of the local search at each step size, at the most
REFINE_STEPS = (2.0, 2**0.5, 2**0.25)  # the local search's step sizes, coarse to fine


def single_policies(policies: Sequence[str]) -> list[tuple[str, str, list[PolicySpec]]]:
    """Each allowed policy alone: at its defaults, and each parameter it searches over its grid
    (the others at their defaults)."""
    out: list[tuple[str, str, list[PolicySpec]]] = []
    seen: set[tuple] = set()
    for name in policies:
        stacks = [(f"{name} alone", {})]
        for param in POLICY_TYPES[name].params:
            if searched(param):
                stacks += [(f"{name} {param.name}={_shown(v)}", {param.name: v}) for v in grid(param)]
        for origin, params in stacks:
            spec = PolicySpec(name, params)
            if spec.key() not in seen:
                seen.add(spec.key())
                out.append((origin, SEARCH, [spec]))
    return out


def combinations(search: _Search, policies: Sequence[str]) -> list[tuple[str, str, list[PolicySpec]]]:
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
            if _place(first) == _place(second):
                continue
            for a in best[first]:
                for b in best[second]:
                    out.append((f"{a.origin} + {b.origin}", SEARCH, [a.stack[0], b.stack[0]]))
    places: dict[int, Tried] = {}
    for n in names:  # the best single stack of each place
        top = best[n][0]
        if _place(n) not in places or search.cost(top) < search.cost(places[_place(n)]):
            places[_place(n)] = top
    chosen = [places[k] for k in sorted(places)]
    if len(chosen) > 2:
        for skip in [None, *range(len(chosen))]:
            group = [t for j, t in enumerate(chosen) if j != skip]
            if len(group) > 2 or skip is None:
                out.append((" + ".join(t.origin for t in group), SEARCH, [t.stack[0] for t in group]))
    return out


def _place(name: str) -> int:
    """Where policy ``name`` goes in a stack, as it declares (``Policy.place``)."""
    return POLICY_TYPES[name].place


def _shown(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


class _Search:
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
        return _best(self.tried, self.objective)

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
                _tried(stack, origin, kind, figures, error, self.budget, stop)
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
                one = _tried(stack, f"trial {trial.number}", TRIAL, figures, error, self.budget, stop)
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


def _study(name: str, resume: bool, seed: int, search: _Search, policies: Sequence[str]) -> Any:
    """The sampler's study: in memory, or with ``resume`` kept in SQLite under a name made of
    every argument of the search (two runs of the same search share it; no run deletes one)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # multivariate and group are marked experimental
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True, n_startup_trials=10)
    if not resume:
        return optuna.create_study(study_name=name, sampler=sampler)
    try:
        with _study_lock():  # two runs creating the file's tables at once would collide
            return _open_kept(name, sampler, search)
    except OSError as error:  # the cache folder is a file, or cannot be written
        raise RecommendError(
            f"--resume: the study folder cannot be used ({error.strerror or error})"
        ) from None


def _open_kept(name: str, sampler: Any, search: _Search) -> Any:
    """The kept study; a damaged file (not a busy one) set aside with one line, and a new one."""
    try:
        return _kept_study(name, sampler)
    except Exception as error:  # whatever SQLite or Optuna says of the file
        path = study_file()
        if _busy(error):  # another run holds it: say so, never set it aside
            raise RecommendError(
                f"--resume: {path.name} is busy (another search holds it for over {SQLITE_WAIT} s); "
                "try again when it is done"
            ) from None
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        path.replace(aside)
        search.notes.append(
            f"{path.name} could not be opened ({type(error).__name__}): moved aside as {aside.name}; "
            "the search starts a new one"
        )
        return _kept_study(name, sampler)


def _busy(error: BaseException) -> bool:
    """Whether opening the study file failed because another process held it (not a damaged file)."""
    text = " ".join(str(e) for e in (error, error.__cause__, error.__context__) if e is not None).lower()
    return "database is locked" in text or "database is busy" in text


def _kept_study(name: str, sampler: Any) -> Any:
    import optuna
    from sqlalchemy.engine import URL

    # built from the path, never pasted into it: a "?" or "%41" in a folder's name is a name
    _check_tables(study_file())  # before Optuna opens it: it would make a missing table anew, empty
    url = URL.create("sqlite", database=str(study_file())).render_as_string(hide_password=False)
    storage = optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": SQLITE_WAIT}})
    return optuna.create_study(study_name=name, storage=storage, sampler=sampler, load_if_exists=True)


STUDY_TABLES = ("studies", "trials", "trial_params", "trial_values", "version_info")  # Optuna's own


def _check_tables(path: Any) -> None:
    """A study file that has Optuna's tables but lacks one of them is damaged: said here, where
    it is set aside, not at the search's first trial ("no such table: trial_params")."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path, timeout=SQLITE_WAIT)) as db:
        found = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [t for t in STUDY_TABLES if t not in found]
    if found and missing:
        raise sqlite3.DatabaseError(f"the study file lacks the table {missing[0]}")


SQLITE_WAIT = 60  # seconds a run waits for another's write to the study file


@contextlib.contextmanager
def _study_lock() -> Iterator[None]:
    """The study file to this process alone while it is opened (an advisory lock beside it)."""
    import fcntl

    with open(study_file().with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _descend(
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
        _tried(stack, f"{best.origin}, less {best.stack[i].name}", SIMPLER, figures, error, budget)
        for i, (stack, (figures, error, _)) in enumerate(zip(stacks, evaluate(stacks, None), strict=True))
    )


def _best(tried: Sequence[Tried], objective: str) -> Tried | None:
    return min((t for t in tried if t.feasible), key=lambda t: t.total(objective), default=None)


def _tried(
    stack: Sequence[PolicySpec],
    origin: str,
    kind: str,
    figures: tuple,
    error: str | None,
    budget: Budget,
    stop: _Stopped | None = None,
) -> Tried:
    feasible = error is None and stop is None and all(v <= 0 for v in budget.over(figures))
    return Tried(tuple(stack), origin, kind, figures, error, feasible, None if stop is None else stop.text)


Evaluate = Callable[[list, "Bound | None"], list]  # stacks, a bound -> their _figures


def _evaluator(job: _Job, workers: int, scheduler: Any = None) -> tuple[Evaluate, Callable[[], None]]:
    """A function of stacks (and a bound to stop them at) to their figures: in this process,
    in ``workers`` processes, or on the Dask cluster at ``scheduler`` (its address, or a
    ``distributed.Client`` held open)."""
    if scheduler:
        return _on_dask(job, scheduler)
    if workers <= 1:
        counters: dict[str, TokenCounter] = {}
        return (lambda stacks, bound: [_figures(job, s, counters, bound) for s in stacks]), (lambda: None)
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(workers, process_context(), initializer=_start_worker, initargs=(job,))

    def evaluate(stacks: list, bound: Bound | None) -> list:
        return list(pool.map(_worker_figures, [tuple(s) for s in stacks], [bound] * len(stacks)))

    return evaluate, lambda: pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(job: _Job, scheduler: Any) -> tuple[Evaluate, Callable[[], None]]:
    from playground.analyses.corpus import CorpusError, connect_scheduler

    try:
        from distributed import Client
    except ImportError:
        raise CorpusError("--scheduler needs Dask distributed: pip install '.[dask]'") from None
    owned = isinstance(scheduler, str)
    client = connect_scheduler(Client, scheduler) if owned else scheduler
    shared = client.scatter(job, broadcast=True)

    def evaluate(stacks: list, bound: Bound | None) -> list:
        futures = client.map(_dask_figures, [tuple(s) for s in stacks], job=shared, bound=bound, pure=False)
        return client.gather(futures)

    return evaluate, (client.close if owned else (lambda: None))


_DASK_COUNTERS: dict[str, TokenCounter] = {}  # a Dask worker's counters, kept across its tasks


def _dask_figures(stack: tuple[PolicySpec, ...], job: _Job, bound: Bound | None) -> tuple:
    return _figures(job, stack, _DASK_COUNTERS, bound)


def study_file() -> Any:
    folder = default_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "recommend-studies.sqlite3"


def study_name(job: _Job, budget: Budget, policies: Sequence[str], seed: int) -> str:
    """One study per sessions, settings, pricing, budget, space and seed."""
    shared = job.scenarios[0]  # every session's scenario prices and keeps the same: their settings differ
    key = json.dumps(
        [
            [s.content_hash for s in job.sessions],
            [repr(s.settings.key()) for s in job.scenarios],
            repr(shared.pricing),
            [m.text for m in shared.must_keep],
            repr(budget),
            list(policies),
            seed,
        ]
    )
    return "recommend-" + hashlib.sha256(key.encode()).hexdigest()[:24]
