"""What every summarizer shares: what a replay counts of its calls, the protocol the engine
holds it by, and the two ways a summary is not had (a bad config, a refused call)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from policies.base import Summarizer as PolicySummarizer


@dataclass
class SummaryStats:
    """What a summarizer did during one replay."""

    calls: int = 0  # summaries asked for
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0  # the summarizer's own token use, as its provider reports it
    completion_tokens: int = 0
    # per summary made, (turn, input tokens, output tokens) as a model would bill it, by our
    # counter: what the cost figures price, for the extractive stand-in as for an endpoint
    billed: list[tuple[int, int, int]] = field(default_factory=list)
    turn: int = 0  # the turn being compiled (the replay sets it)
    notes: list[str] = field(default_factory=list)  # what the user should hear once (a repaired cache)


class Summarizer(PolicySummarizer, Protocol):
    """What policies call (policies.base.Summarizer), plus what it did during a replay."""

    stats: SummaryStats


class SummarizerError(ValueError):
    """A summarizer section of a config that cannot be used."""


class SummaryRefused(RuntimeError):
    """A summary that was not asked for (a limit) or not used (too big, or it leaks a key)."""
