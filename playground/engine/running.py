"""The working context with its figures kept current: tokens, composition, validity.

Policies return whole new lists, but from one compile to the next most of the list is
the same messages. Figures are updated from the first position that changed, found by
identity, so a turn costs what changed rather than the length of the context.
"""

from __future__ import annotations

from collections.abc import Sequence

from playground.engine.tokens import TokenCounter
from playground.engine.validity import Violation, check_calls, restart_point
from policies.messages import DECISION_LOG, STUB, SUMMARY, Message

BUCKETS = ("system", "user", "assistant", "tool", "stub", "summary")
_INDEX = {name: i for i, name in enumerate(BUCKETS)}
_KIND_BUCKET = {STUB: "stub", SUMMARY: "summary", DECISION_LOG: "summary"}
_ROLE_BUCKET = {"developer": "system"}


def bucket(message: Message) -> str:
    """Where a message's tokens count in the composition: its kind if made, else its role."""
    made = _KIND_BUCKET.get(message.kind)
    return made or _ROLE_BUCKET.get(message.role, message.role)


def common_prefix(old: Sequence[Message], new: Sequence[Message]) -> int:
    """Length of the longest shared prefix (list comparison checks identity first, in C)."""
    n = min(len(old), len(new))
    if old[:n] == new[:n]:
        return n
    low, high = 0, n  # old[:low] == new[:low] and old[:high] != new[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle
    return low


class RunningContext:
    """A message list and its figures; ``append`` and ``replace`` keep them current."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.items: list[Message] = []
        self.tokens = 0
        self.bucket_tokens = [0] * len(BUCKETS)
        self.bucket_counts = [0] * len(BUCKETS)
        self.message_tokens: list[int] = []  # by position
        self._buckets: list[int] = []  # bucket index by position
        self._violations: list[Violation] = []
        self._checked = 0  # positions before this have current violations

    def append(self, message: Message) -> None:
        self.items.append(message)
        self._add(message)

    def replace(self, messages: Sequence[Message]) -> int:
        """Become ``messages``; only the part after the shared prefix is recounted.

        Returns the length of that shared prefix."""
        keep = common_prefix(self.items, messages)
        old, self.items = self.items, list(messages)
        self._checked = min(self._checked, keep)
        # a position holding the same message keeps its figures: a stub or a rewrite in place
        # recounts that position alone, and messages appended after it are counted once
        both = min(len(old), len(self.items))
        for position in range(keep, both):
            if old[position] is not self.items[position]:
                self._drop(position)
                self._put(position, self.items[position])
        for position in range(both, len(old)):
            self._drop(position)
        del self.message_tokens[both:], self._buckets[both:]
        for message in self.items[both:]:
            self._add(message)
        return keep

    def _drop(self, position: int) -> None:
        """Take the figures of the message at ``position`` out of the totals."""
        tokens, index = self.message_tokens[position], self._buckets[position]
        self.tokens -= tokens
        self.bucket_tokens[index] -= tokens
        self.bucket_counts[index] -= 1

    def _put(self, position: int, message: Message) -> None:
        """Count ``message`` at ``position``, whose figures were dropped."""
        tokens = self.counter.count(message)
        index = _INDEX[bucket(message)]
        self.message_tokens[position], self._buckets[position] = tokens, index
        self.tokens += tokens
        self.bucket_tokens[index] += tokens
        self.bucket_counts[index] += 1

    def _add(self, message: Message) -> None:
        tokens = self.counter.count(message)
        index = _INDEX[bucket(message)]
        self.message_tokens.append(tokens)
        self._buckets.append(index)
        self.tokens += tokens
        self.bucket_tokens[index] += tokens
        self.bucket_counts[index] += 1

    def violations(self) -> list[Violation]:
        """Call/result violations of the current list (positions within it)."""
        start = restart_point(self.items, self._checked)
        self._violations = [v for v in self._violations if v.position < start]
        self._violations += check_calls(self.items, start)
        self._checked = len(self.items)
        return list(self._violations)

    def by_bucket(self) -> dict[str, int]:
        return dict(zip(BUCKETS, self.bucket_tokens, strict=True))

    def count_of(self, name: str) -> int:
        return self.bucket_counts[_INDEX[name]]
