"""The stacks a search may build: which policies, in what order, each parameter over a grid."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from playground.analyses.recommend.budget import SEARCH, RecommendError, shown_value
from playground.stacks.presets import FRAMEWORK_PRESETS, available_presets
from policies.base import Param
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.compaction import CompactionPolicy
from policies.registry import POLICY_TYPES, PolicySpec
from policies.sliding_window import SlidingWindowPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

ANY = "any"
# the general set a search builds from, where no framework is named
DEFAULT_POLICIES = tuple(
    policy.__name__
    for policy in (
        ToolOutputClipPolicy,
        ToolEvictionPolicy,
        ClearToolUsesPolicy,
        SlidingWindowPolicy,
        CompactionPolicy,
    )
)
DEFAULT_TRIALS = 60


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
    return tuple(sorted(names, key=lambda n: (place(n), n)))


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


def single_policies(policies: Sequence[str]) -> list[tuple[str, str, list[PolicySpec]]]:
    """Each allowed policy alone: at its defaults, and each parameter it searches over its grid
    (the others at their defaults)."""
    out: list[tuple[str, str, list[PolicySpec]]] = []
    seen: set[tuple] = set()
    for name in policies:
        stacks = [(f"{name} alone", {})]
        for param in POLICY_TYPES[name].params:
            if searched(param):
                stacks += [(f"{name} {param.name}={shown_value(v)}", {param.name: v}) for v in grid(param)]
        for origin, params in stacks:
            spec = PolicySpec(name, params)
            if spec.key() not in seen:
                seen.add(spec.key())
                out.append((origin, SEARCH, [spec]))
    return out


def place(name: str) -> int:
    """Where policy ``name`` goes in a stack, as it declares (``Policy.place``)."""
    return POLICY_TYPES[name].place


def place_and_name(name: str) -> tuple[int, str]:
    return place(name), name
