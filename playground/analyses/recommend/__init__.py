"""Recommend a stack: the cheapest one that loses nothing the user cares about.

The search space is stacks built from a set of policies in an order that makes sense
(clipping each result, then clearing or evicting old ones, then a window, then compaction),
each parameter over a grid (``space``: a log scale from its default, 0 its own value). The
objective is the session's dollars with prompt caching, summaries included (input tokens
billed where no price is known); the constraints are the budget (``budget``): no invalid
turn, no must-keep fact lost, facts lost, copied lines lost and re-fetches within their limits.

The search (``search``, driven by ``run``) is deterministic first (the raw history, the
presets, each policy alone over its grid, pairs and triples of the best, a local search by
halving and doubling each value), then Optuna's TPE sampler (seeded, constraint-aware) is told
all of that and proposes more; its study lives in memory, or in SQLite with ``resume``
(``study``). A stack is priced turn by turn as it replays (``replays``) and stopped once it
already costs more than the best stack within the budget so far: it cannot be the answer (the
sampler learns it as pruned, at its projected cost). Over several sessions the cost is their
total and each constraint must hold in every one, or each loss limit in the share of them the
budget's ``percentile`` names. The stacks run on the one runner (``analyses.runner``).
"""

from playground.analyses.recommend.budget import (
    OWN,
    PRESET,
    RAW,
    Budget,
    RecommendError,
    Tried,
    money,
    stack_said,
)
from playground.analyses.recommend.result import Recommendation
from playground.analyses.recommend.run import agent_policy, recommend
from playground.analyses.recommend.space import ANY, DEFAULT_TRIALS, grid, neighbours, policies_for
from playground.analyses.recommend.study import study_file

__all__ = [
    "ANY",
    "DEFAULT_TRIALS",
    "OWN",
    "PRESET",
    "RAW",
    "Budget",
    "RecommendError",
    "Recommendation",
    "Tried",
    "agent_policy",
    "grid",
    "money",
    "neighbours",
    "policies_for",
    "recommend",
    "stack_said",
    "study_file",
]
