"""Which facts a text holds, for many facts and many texts: one regular-expression pass per text.

The quality pass asks, per turn, whether each fact of the reply was seen earlier and whether
the request still holds it. Searching the transcript once per fact and reply is quadratic;
here every fact joins one prefix tree, compiled to a single pattern that reports, at every
position of a text, the longest fact starting there. Every shorter fact starting there is a
prefix of that one, so a pass finds each fact the text holds as a substring: exactly what
``fact in text`` says, for all facts at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


class FactFinder:
    """The facts of a fixed list that a text holds, as indices into that list."""

    def __init__(self, facts: Iterable[str]) -> None:
        self.facts: list[str] = list(dict.fromkeys(f for f in facts if f))
        tree = _prefix_tree(self.facts)
        # every fact's own prefixes that are facts too (itself included): found along with it
        self._with_prefixes = {fact: _ends_along(tree, fact) for fact in self.facts}
        self._pattern: re.Pattern[str] | None = None
        if self.facts:
            try:
                self._pattern = re.compile(f"(?=({_node_pattern(tree)}))")
            except (RecursionError, re.error, OverflowError, MemoryError):
                self._pattern = None  # a pathological set of facts: searched one by one below

    def held(self, text: str) -> frozenset[int]:
        if not self.facts:
            return frozenset()
        if self._pattern is None:
            return frozenset(i for i, fact in enumerate(self.facts) if fact in text)
        found: set[int] = set()
        for longest in set(self._pattern.findall(text)):
            found.update(self._with_prefixes[longest])
        return frozenset(found)


def _prefix_tree(facts: list[str]) -> dict:
    """Nested dicts by character; ``""`` marks where a fact ends and holds its index."""
    root: dict = {}
    for i, fact in enumerate(facts):
        node = root
        for char in fact:
            node = node.setdefault(char, {})
        node[""] = i
    return root


def _ends_along(tree: dict, fact: str) -> tuple[int, ...]:
    ends, node = [], tree
    for char in fact:
        node = node[char]
        if "" in node:
            ends.append(node[""])
    return tuple(ends)


def _node_pattern(node: dict) -> str:
    """A pattern matching the longest fact below ``node`` (edges merged where a node has one
    child, so the nesting follows branch points, not the length of the facts)."""
    branches = []
    for char, child in sorted(node.items()):
        if not char:
            continue
        edge = char
        while len(child) == 1 and "" not in child:  # one way on: part of the same edge
            [(char, child)] = child.items()
            edge += char
        branches.append(re.escape(edge) + _node_pattern(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    # a fact ends here: the longer ones are tried first, greedily, then this one
    return f"(?:{body})?" if "" in node else body
