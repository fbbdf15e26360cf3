"""Recommend a stack: the cheapest one that loses nothing the user cares about.

The search space is stacks built from a set of policies in an order that makes sense
(clipping each result, then clearing or evicting old ones, then a window, then compaction),
each parameter over the range its ``Param`` declares (log scale where it spans orders of
magnitude); every preset of those policies, and the raw history, are tried as they are. The
objective is the session's dollars with prompt caching, summaries included (input tokens
billed where no price is known); the constraints are the budget: no invalid turn, no
must-keep fact lost, facts lost and re-fetches within their limits. Optuna's TPE sampler
searches it (seeded, constraint-aware); trials run in batches, in worker processes when
asked, and the study is kept in SQLite in the cache folder so a run can be extended. A trial
is priced turn by turn as it replays (``RunningCost``) and stopped once it already costs more
than the best stack within the budget so far: it cannot be the answer (the sampler learns it
as pruned). Over several sessions the cost is their total and each constraint must hold in
every one, or each loss limit in the share of them the budget's ``percentile`` names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from playground.analyses.processes import process_context
from playground.analyses.sweep import pareto_front
from playground.cache_dir import default_cache_dir
from playground.engine.replay import ReplayResult, Settings, replay
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.limits import LIMITS, LimitError
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing, RunningCost
from playground.stacks.presets import FRAMEWORK_PRESETS, available_presets
from playground.summaries.base import SummarizerError
from policies.base import Param
from policies.registry import POLICY_TYPES, PolicySpec, SpecError

# where each policy goes in a stack: per-result clipping, clearing old results, a window, compaction
ORDER = {
    "ToolOutputClipPolicy": 0,
    "ToolOutputTrimmerPolicy": 0,
    "ClearThinkingPolicy": 0,
    "ToolEvictionPolicy": 1,
    "ClearToolUsesPolicy": 1,
    "ClaudeCodeMicrocompactPolicy": 1,
    "OpencodePrunePolicy": 1,
    "TieredEvictionPolicy": 1,
    "SlidingWindowPolicy": 2,
    "TrimmingSessionPolicy": 2,
    "BufferedContextPolicy": 2,
    "HeadAndTailContextPolicy": 2,
    "TokenLimitedContextPolicy": 2,
    "ChatMemoryBufferPolicy": 2,
}
COMPACTING = 3  # every other policy: a summary or compaction, last
ANY = "any"
DEFAULT_POLICIES = (
    "ToolOutputClipPolicy",
    "ToolEvictionPolicy",
    "ClearToolUsesPolicy",
    "SlidingWindowPolicy",
    "CompactionPolicy",
)
FREE_TEXT = ("summary_prompt", "instructions", "stub", "placeholder", "suffix")  # kept as declared
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

    def excess(self, figures: Mapping[str, Any]) -> list[float]:  # in the order of LIMIT_NAMES
        """How far ``figures`` (one session's totals) are over each limit; all <= 0: within."""
        return [
            float(figures["turns_with_violations"]),  # no invalid turn
            float(figures["turns_over_window"]),
            float(figures["distinct_facts_lost"] - self.max_facts_lost),
            float(figures.get("turns_with_must_keep_lost") or 0) if self.must_keep else 0.0,
            float(figures["refetches"] - self.max_refetches) if self.max_refetches is not None else 0.0,
        ]

    def said(self) -> str:
        parts = ["no invalid turn", f"at most {self.max_facts_lost:,} facts lost"]
        if self.must_keep:
            parts.append("no must-keep fact lost")
        if self.max_refetches is not None:
            parts.append(f"at most {self.max_refetches:,} re-fetches")
        said = ", ".join(parts)
        if self.percentile < 100:
            said += f" (the losses in {self.percentile:g} % of the sessions)"
        return said

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
    def best_preset(self) -> Tried | None:
        presets = [t for t in self.tried if t.feasible and t.kind == PRESET]
        return min(presets, key=lambda t: t.total(self.objective), default=None)

    def front(self) -> list[Tried]:
        """The stacks on the Pareto front of cost against facts lost (invalid ones aside)."""
        ran = [t for t in self.tried if t.ran and not t.worst("turns_with_violations")]
        pairs = [(t.total(self.objective), t.total("distinct_facts_lost")) for t in ran]
        return [t for t, on in zip(ran, pareto_front(pairs), strict=True) if on]


RAW, PRESET, TRIAL, SIMPLER = "raw history", "preset", "trial", "simpler"


def money(value: float, objective: str) -> str:
    return f"${value:,.4f}" if objective == "cost_usd" else f"{value:,.0f} tokens"


LIMIT_NAMES = ("invalid_turns", "turns_over_window", "facts_lost", "must_keep_lost", "refetches")
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
    return tuple(sorted(names, key=lambda n: (ORDER.get(n, COMPACTING), n)))


def presets_for(framework: str) -> dict[str, list[PolicySpec]]:
    """The presets tried as they are: every one (any stack is an answer), or a framework's."""
    available = available_presets()
    names = (
        list(available) if framework == ANY else [n for n in FRAMEWORK_PRESETS[framework] if n in available]
    )
    return {name: list(available[name]) for name in names if available[name]}


def searched(param: Param) -> bool:
    """Whether the search varies this parameter (free text and lists stay as declared)."""
    if param.name in FREE_TEXT or param.type in (list, tuple):
        return False
    if param.type is str:
        return bool(param.choices)
    if param.type is bool:
        return True
    return param.minimum is not None and param.maximum is not None


def _suggest(trial: Any, key: str, param: Param) -> Any:
    if param.type is bool:
        return trial.suggest_categorical(key, [False, True])
    if param.type is str:
        return trial.suggest_categorical(key, list(param.choices))
    low, high = param.minimum, param.maximum
    log = low > 0 and high / low >= 100
    if param.type is int:
        return trial.suggest_int(key, int(low), int(high), log=log)
    return trial.suggest_float(key, float(low), float(high), log=log)


def stack_of_trial(trial: Any, policies: Sequence[str]) -> list[PolicySpec]:
    """The stack a trial proposes: for each allowed policy whether it is in, and its settings."""
    stack = []
    for name in policies:
        if not trial.suggest_categorical(f"{name}", [False, True]):
            continue
        params = {
            p.name: _suggest(trial, f"{name}.{p.name}", p) for p in POLICY_TYPES[name].params if searched(p)
        }
        stack.append(PolicySpec(name, params))
    return stack


@dataclass(frozen=True)
class _Job:
    sessions: tuple[Session, ...]
    settings: tuple[Settings, ...]
    pricing: Pricing
    must_keep: tuple[MustKeep, ...]


class _Stopped(Exception):
    """A stack's running cost passed the best one's: it cannot be the answer."""

    def __init__(self, text: str, value: float) -> None:
        super().__init__(text, value)
        self.text, self.value = text, value


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
            raise _Stopped(text, value)


def _figures(
    job: _Job, stack: Sequence[PolicySpec], counters: dict[str, TokenCounter], bound: Bound | None = None
) -> tuple[tuple, str | None, _Stopped | None]:
    """The stack's totals in each session; or why it did not run; or where it stopped, once
    over ``bound``."""
    from playground.measures.metrics import totals, turn_table

    out = []
    spent, many = 0.0, len(job.sessions) > 1
    for number, (session, settings) in enumerate(zip(job.sessions, job.settings, strict=True), start=1):
        counter = counters.setdefault(settings.model, TokenCounter(settings.model))
        watch = None
        if bound is not None:
            where = f" of session {number:,} of {len(job.sessions):,}" if many else ""
            watch = _Watch(bound, job.pricing, spent, ROUNDING * len(job.sessions), where)
        try:
            result = replay(session, list(stack), settings, counter, watch=watch)
        except _Stopped as stop:
            return (), None, stop
        except (SpecError, SummarizerError, LimitError) as error:
            return (), str(error), None
        figures = totals(turn_table(result, job.pricing, job.must_keep))
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
    budget: Budget,
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
    ``settings``): the raw history and the presets first, then ``trials`` stacks proposed by
    the sampler. ``progress(done, planned, best)`` after each; ``cancelled()`` stops it,
    keeping what ran (the study keeps it too)."""
    import optuna

    if not sessions:
        raise RecommendError("no session to recommend for")
    if not 1 <= trials <= LIMITS.max_recommend_trials:
        raise RecommendError(f"trials must be from 1 to {LIMITS.max_recommend_trials:,}")
    workers = max(1, min(workers, LIMITS.max_sweep_workers))
    policies = policies_for(framework)
    presets = presets_for(framework)
    starts = [(RAW, RAW, [])] + [(name, PRESET, stack) for name, stack in presets.items()]
    # each preset less one of its policies: a preset over the budget is often one policy from within it
    starts += [
        (f"{name}, less {stack[i].name}", SIMPLER, stack[:i] + stack[i + 1 :])
        for name, stack in presets.items()
        if len(stack) > 1
        for i in range(len(stack))
    ]
    job = _Job(tuple(sessions), tuple(settings), pricing or Pricing(), tuple(must_keep))
    cancelled = cancelled or (lambda: False)
    started = time.perf_counter()
    planned = len(starts) + trials
    tried: list[Tried] = []

    evaluate, close = _evaluator(job, workers, scheduler)
    try:
        first = evaluate([stack for _, _, stack in starts], None)
        for (origin, kind, stack), (figures, error, _) in zip(starts, first, strict=True):
            tried.append(_tried(stack, origin, kind, figures, error, budget))
        if progress:
            progress(len(tried), planned, None)
        objective = (
            "cost_usd"
            if all(s.get("cost_usd") is not None for s in tried[0].sessions)
            else "billed_context_tokens"
        )
        name = study_name(job, budget, policies, seed)
        storage = optuna.storages.RDBStorage(f"sqlite:///{study_file()}")
        if not resume:
            with contextlib.suppress(KeyError):
                optuna.delete_study(study_name=name, storage=storage)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        with warnings.catch_warnings():  # multivariate and group are marked experimental
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(
                seed=seed, multivariate=True, group=True, n_startup_trials=10
            )
        study = optuna.create_study(study_name=name, storage=storage, sampler=sampler, load_if_exists=True)
        done = 0
        while done < trials and not cancelled():
            batch = [study.ask() for _ in range(min(workers, trials - done))]
            stacks = [stack_of_trial(t, policies) for t in batch]
            best = _best(tried, objective)
            bound = None if best is None else (objective, best.total(objective) or 0.0)
            for trial, stack, (figures, error, stop) in zip(
                batch, stacks, evaluate(stacks, bound), strict=True
            ):
                one = _tried(stack, f"trial {trial.number}", TRIAL, figures, error, budget, stop)
                tried.append(one)
                if stop is not None:  # over the best already: its losses unknown, its cost higher
                    trial.report(stop.value, step=0)
                    study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                elif error is not None or one.total(objective) is None:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    for limit, excess in zip(LIMIT_NAMES, budget.over(one.sessions), strict=True):
                        trial.set_constraint(limit, excess)
                    study.tell(trial, one.total(objective))
                done += 1
            if progress:
                progress(len(tried), planned, _best(tried, objective))
        without = _descend(tried, evaluate, budget, objective, done, name)
    finally:
        close()
    return Recommendation(budget, objective, tuple(tried), done, time.perf_counter() - started, name, without)


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
    key = json.dumps(
        [
            [s.content_hash for s in job.sessions],
            [repr(s.key()) for s in job.settings],
            repr(job.pricing),
            [m.text for m in job.must_keep],
            repr(budget),
            list(policies),
            seed,
        ]
    )
    return "recommend-" + hashlib.sha256(key.encode()).hexdigest()[:24]
