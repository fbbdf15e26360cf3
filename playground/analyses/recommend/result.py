"""What a search found: the best stack within the budget, and what it beats."""

from __future__ import annotations

from dataclasses import dataclass

from playground.analyses.recommend.budget import OWN, PRESET, RAW, ROUNDING, Budget, Tried, money
from playground.analyses.sweep import pareto_front


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
                within = "within its own losses" if self.budget.of_own_policy else "within the budget"
                return f"nothing found beats your agent's own policy ({money(reference, self.objective)}) {within}"
            pct = 100 * (reference - cost) / reference if reference else 0.0
            more = _lost_beyond(best, own)
            return (
                f"{pct:.1f} % cheaper than your agent's own policy ({money(cost, self.objective)} against "
                f"{money(reference, self.objective)}), "
                + (f"{self._within()}, losing more than it: {more}" if more else "at no more loss")
            )
        if not best.stack:
            return "the raw history: no stack tried is cheaper within the budget"
        return f"{best.origin}, the cheapest within the budget"

    def _within(self) -> str:
        """Which budget a stack losing more than the agent's own policy in all still keeps."""
        if self.budget.of_own_policy:  # each limit is the own policy's worst session
            return "within its losses in each session"
        return "within your budget"

    @property
    def best_preset(self) -> Tried | None:
        presets = [t for t in self.tried if t.feasible and t.kind == PRESET]
        return min(presets, key=lambda t: t.total(self.objective), default=None)

    def front(self) -> list[Tried]:
        """The stacks on the Pareto front of cost against facts lost (invalid ones aside)."""
        ran = [t for t in self.tried if t.ran and not t.worst("turns_with_violations")]
        pairs = [(t.total(self.objective), t.total("distinct_facts_lost")) for t in ran]
        return [t for t, on in zip(ran, pareto_front(pairs), strict=True) if on]


LOSSES = (
    ("facts", "distinct_facts_lost"),
    ("copied lines", "distinct_quotes_lost"),
    ("re-fetches", "refetches"),
)


def _lost_beyond(best: Tried, own: Tried) -> str:
    """What ``best`` loses beyond the agent's own policy (a budget the user set may allow it), in
    words: "4 facts against its 3"; "" where it loses no more of any."""
    more = []
    for word, key in LOSSES:
        lost, reference = best.total(key) or 0, own.total(key) or 0
        if lost > reference:
            more.append(f"{lost:,.0f} {word} against its {reference:,.0f}")
    return ", ".join(more)
