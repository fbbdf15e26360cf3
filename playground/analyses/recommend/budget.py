"""What the user cares about (the budget) and each stack tried, judged by it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playground.measures.figures import Totals
from policies.registry import PolicySpec


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

    def excess(self, figures: Totals) -> list[float]:  # in the order of LIMIT_NAMES
        """How far ``figures`` (one session's totals) are over each limit; all <= 0: within."""
        return [
            float(figures.turns_with_violations - self.max_invalid_turns),
            float(figures.turns_over_window),
            float(figures.distinct_facts_lost - self.max_facts_lost),
            float(figures.turns_with_must_keep_lost) if self.must_keep else 0.0,
            float(figures.refetches - self.max_refetches) if self.max_refetches is not None else 0.0,
            float(figures.distinct_quotes_lost - self.max_quotes_lost),
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

    def over(self, sessions: Sequence[Totals]) -> list[float]:
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
    sessions: tuple[Totals, ...] = ()
    error: str | None = None
    feasible: bool = False
    stopped: str | None = None  # stopped early, already costing more than the best: how far it got

    @property
    def ran(self) -> bool:
        """Whether it ran to the end: its figures are whole."""
        return self.error is None and self.stopped is None

    def total(self, key: str) -> float | None:
        values = [s[key] for s in self.sessions]
        return None if not values or any(v is None for v in values) else float(sum(values))

    def worst(self, key: str) -> float:
        return max((float(s[key] or 0) for s in self.sessions), default=0.0)


RAW, PRESET, TRIAL, SIMPLER, SEARCH = "raw history", "preset", "trial", "simpler", "search"
OWN = "your agent's own policy"


def stack_said(stack: Sequence[PolicySpec]) -> str:
    """A stack with every value it sets: ``ToolOutputClipPolicy(max_chars=595) → …``."""
    if not stack:
        return "no policy (the raw history)"
    return " → ".join(
        f"{spec.name}({', '.join(f'{k}={shown_value(v)}' for k, v in spec.params.items())})" for spec in stack
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


ROUNDING = 1e-6  # a session's dollars are rounded to this


def shown_value(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
