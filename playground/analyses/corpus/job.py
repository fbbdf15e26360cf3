"""What every unit of a corpus run shares, and the figures it keeps of each session."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from playground.engine.session import Session
from playground.measures.evaluate import Scenario
from playground.stacks.candidates import Candidate

# the per-session figures a corpus report reads (metrics.totals names)
FIGURES = (
    "turns",
    "billed_raw_tokens",
    "billed_context_tokens",
    "saved_pct",
    "cost_usd",
    "raw_cost_usd",
    "saved_usd",
    "saved_cost_pct",
    "recorded_cost_usd",
    "saved_vs_recorded_usd",
    "saved_vs_recorded_pct",
    "cache_hit_pct",
    "cache_breaks",
    "distinct_facts_lost",
    "turns_with_facts_lost",
    "distinct_quotes_lost",
    "refetches",
    "turns_with_violations",
    "turns_over_window",
    "compactions",
    "stubs_created",
    "peak_context_tokens",
)


@dataclass(frozen=True)
class Job:
    """What every unit of a run shares: the stacks (named) and how to replay and price."""

    stacks: tuple[Candidate, ...]
    scenario: Scenario
    # a model was named (CLI --model, a config's model:, the app's picker): every session
    # replays as it; else each session as the model it records, where it records one
    model_given: bool = True

    @property
    def model(self) -> str:
        return self.scenario.settings.model

    def scenario_for(self, session: Session) -> Scenario:
        """The scenario ``session`` replays under: at the model it records, unless one was named."""
        return self.scenario.for_session(session, self.model_given)

    def digest(self) -> str:
        data = {
            "stacks": [[c.name, [s.key() for s in c.stack]] for c in self.stacks],
            "settings": self.scenario.settings.key(),
            "model_given": self.model_given,
            "pricing": self.scenario.pricing.to_data(),
            "must_keep": [f.text for f in self.scenario.must_keep],
        }
        return hashlib.sha256(json.dumps(data, default=str, sort_keys=True).encode()).hexdigest()
