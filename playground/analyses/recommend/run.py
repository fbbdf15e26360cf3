"""``recommend``: the search from the raw history and the agent's own policy to the sampler."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from playground.analyses.own_policy import needs_reference, own_stack
from playground.analyses.recommend.budget import OWN, PRESET, RAW, SIMPLER, Budget, RecommendError
from playground.analyses.recommend.replays import Job, evaluator, stack_figures
from playground.analyses.recommend.result import Recommendation
from playground.analyses.recommend.search import (
    COMBINATIONS,
    LOCAL_ROUNDS,
    Progress,
    Search,
    combinations,
    descend,
)
from playground.analyses.recommend.space import (
    ANY,
    DEFAULT_TRIALS,
    place_and_name,
    policies_for,
    presets_for,
    single_policies,
)
from playground.analyses.recommend.study import open_study, study_name
from playground.analyses.runner import Runner
from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.limits import LIMITS
from playground.measures.evaluate import Scenario
from playground.measures.figures import Totals
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing


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
    job = Job(tuple(sessions), tuple(shared.at(s) for s in settings))
    runner = Runner(job, stack_figures, workers=workers, scheduler=scheduler)
    evaluate = evaluator(runner)
    search = Search(budget or Budget(), evaluate, progress, cancelled or (lambda: False), workers)
    search.planned = len(starts) + 2 + COMBINATIONS + LOCAL_ROUNDS + trials
    done, name = 0, ""
    try:
        search.report()  # progress from the first moment: nothing tried yet, and how much is planned
        search.run([(RAW, RAW, [])], bounded=False)  # the raw history: whether there are dollars at all
        search.objective = (
            "cost_usd"
            if all(s.cost_usd is not None for s in search.tried[0].sessions)
            else "billed_context_tokens"
        )
        own = agent_policy(sessions, search.tried[0].sessions)
        if own is not None:
            preset, stack = own
            search.run([(f"{OWN} ({preset})", OWN, stack)], bounded=False)
            if budget is None and search.tried[-1].ran:
                search.rejudge(Budget.of(search.tried[-1]))
            if framework == ANY:  # the agent's own knobs are searched too
                policies = tuple(sorted({*policies, *(s.name for s in stack)}, key=place_and_name))
        singles = single_policies(policies)
        search.planned = len(search.tried) + len(starts) + len(singles) + COMBINATIONS + LOCAL_ROUNDS + trials
        name = study_name(job, search.budget, policies, seed)
        search.run(starts, bounded=False)
        search.run(singles)
        search.run(combinations(search, policies))
        search.refine()
        done = search.sample(open_study(name, resume, seed, search, policies), policies, trials)
        search.refine()
        without = descend(search.tried, evaluate, search.budget, search.objective, done, name)
    finally:
        runner.close()
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


def agent_policy(sessions: Sequence[Session], raw: Sequence[Totals]) -> tuple[str, list] | None:
    """The agent's own policy (its preset and stack) where it is the reference for these
    sessions: one agent recorded them all, and one of them compacted or outgrew its window
    (``raw``: the raw history's totals in each)."""
    found = {own_stack(s)[0] if own_stack(s) else "" for s in sessions}
    if len(found) != 1 or "" in found:
        return None
    if not any(needs_reference(s, f) for s, f in zip(sessions, raw, strict=True)):
        return None
    return own_stack(sessions[0])
