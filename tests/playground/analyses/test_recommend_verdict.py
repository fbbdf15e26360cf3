"""The recommender's answer in one sentence says what the best stack loses beside the agent's own
policy: "at no more loss" only where it loses no more of anything."""

from __future__ import annotations

from playground.analyses.recommend import OWN, Budget, Recommendation, Tried
from playground.analyses.recommend.budget import SEARCH
from playground.measures.figures import Totals
from policies.registry import PolicySpec


def _tried(kind: str, cost: float, facts: int, refetches: int = 0) -> Tried:
    stack = (PolicySpec("SlidingWindowPolicy", {"max_messages": facts + 1}),)
    figures = Totals(turns=10, cost_usd=cost, distinct_facts_lost=facts, refetches=refetches)
    return Tried(
        stack, "your agent's own policy" if kind == OWN else "trial 1", kind, (figures,), feasible=True
    )


def test_a_cheaper_stack_a_user_s_budget_lets_lose_more_is_said_to_lose_more():
    own, best = _tried(OWN, 11.77, 3), _tried(SEARCH, 8.54, 4, refetches=2)
    verdict = Recommendation(
        Budget(max_facts_lost=5, max_refetches=2), "cost_usd", (own, best), 0, 0.0, "s"
    ).verdict()
    assert verdict.startswith("27.4 % cheaper than your agent's own policy ($8.5400 against $11.7700)")
    assert verdict.endswith(
        "within your budget, losing more than it: 4 facts against its 3, 2 re-fetches against its 0"
    )


def test_a_cheaper_stack_that_loses_no_more_is_at_no_more_loss():
    own, best = _tried(OWN, 11.77, 3), _tried(SEARCH, 8.54, 3)
    verdict = Recommendation(Budget.of(own), "cost_usd", (own, best), 0, 0.0, "s").verdict()
    assert verdict.endswith("at no more loss")


def test_nothing_beating_the_agent_s_policy_names_the_budget_it_was_held_to():
    own = _tried(OWN, 11.77, 3)
    against_own = Recommendation(Budget.of(own), "cost_usd", (own,), 0, 0.0, "s").verdict()
    against_user = Recommendation(Budget(max_facts_lost=5), "cost_usd", (own,), 0, 0.0, "s").verdict()
    assert against_own.endswith("within its own losses") and against_user.endswith("within the budget")


def test_over_several_sessions_the_own_policy_s_worst_session_is_the_limit_and_the_verdict_says_so():
    own = Tried(
        (),
        "your agent's own policy",
        OWN,
        (Totals(turns=5, cost_usd=5.0, distinct_facts_lost=3), Totals(turns=5, cost_usd=5.0)),
        feasible=True,
    )
    best = Tried(
        (),
        "trial 1",
        SEARCH,
        (
            Totals(turns=5, cost_usd=3.0, distinct_facts_lost=3),
            Totals(turns=5, cost_usd=3.0, distinct_facts_lost=2),
        ),
        feasible=True,
    )
    verdict = Recommendation(Budget.of(own), "cost_usd", (own, best), 0, 0.0, "s").verdict()
    assert verdict.endswith("within its losses in each session, losing more than it: 5 facts against its 3")
