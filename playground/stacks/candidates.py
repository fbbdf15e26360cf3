"""A candidate: a named stack, as the config's ``candidates:`` lists it for Compare, Corpus and Sweep."""

from __future__ import annotations

from dataclasses import dataclass, field

from policies.registry import PolicySpec


@dataclass(frozen=True)
class Candidate:
    """A named stack to compare with others (the config's ``candidates:`` entries)."""

    name: str
    stack: tuple[PolicySpec, ...] = field(default_factory=tuple)
