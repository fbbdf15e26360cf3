"""Every turn's request, stored as what changed since the turn before.

From one inference to the next a request mostly repeats the previous one: the agent appends
a reply and a tool result, and a policy rewrites now and then. Keeping each request whole
makes memory grow with turns × context (a 20,000-message session held ~100 M references).
The log keeps, per turn, how many messages open the previous request in place and the new
tail; a request is rebuilt by walking back to the nearest turn stored whole.

A turn is stored whole (a *keyframe*) once the walk back to the last keyframe would cost
more than the request itself. Rebuilding a request then costs at most about twice its
length, and keyframes take no more memory than the tails they stand in for: memory grows
with what changed, not with turns × context.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain

from policies.messages import Message


class RequestLog:
    """Append-only; shared by a replay's turns, each of which knows its index here."""

    def __init__(self) -> None:
        self._pinned: list[tuple[Message, ...]] = []
        self._from_previous: list[int] = []  # messages taken from the previous request; -1: whole
        self._stored: list[tuple[Message, ...]] = []  # the tail, or the context after pinned
        self._sizes: list[int] = []
        self._walk = 0  # what rebuilding the newest request costs past its last keyframe

    def __len__(self) -> int:
        return len(self._sizes)

    def add(self, pinned: tuple[Message, ...], shared: int, context: Sequence[Message]) -> int:
        """Log a request (``pinned`` + ``context``) whose first ``shared`` messages stand where
        the previous request had them; returns its index."""
        size = len(pinned) + len(context)
        start = shared - len(pinned)  # where the tail starts in the context
        tail = len(context) - start
        if not self._sizes or start < 0 or self._walk + 1 + tail > size:
            self._from_previous.append(-1)
            self._stored.append(tuple(context))
            self._walk = 0
        else:
            self._from_previous.append(shared)
            self._stored.append(tuple(context[start:]))
            self._walk += 1 + tail
        self._pinned.append(pinned)
        self._sizes.append(size)
        return len(self._sizes) - 1

    def size(self, index: int) -> int:
        return self._sizes[index]

    def request(self, index: int, limit: int | None = None) -> tuple[Message, ...]:
        """The first ``limit`` messages (all by default) of request ``index``."""
        limit = self._sizes[index] if limit is None else min(limit, self._sizes[index])
        pieces = []
        while True:
            taken = self._from_previous[index]
            if taken < 0:
                pieces.append((self._pinned[index] + self._stored[index])[:limit])
                break
            if limit > taken:
                pieces.append(self._stored[index][: limit - taken])
                limit = taken
            index -= 1
        return tuple(chain.from_iterable(reversed(pieces)))

    def tail(self, index: int, shared: int) -> tuple[Message, ...]:
        """The messages of request ``index`` after its first ``shared``."""
        taken = self._from_previous[index]
        if taken == shared:
            return self._stored[index]
        return self.request(index)[shared:]

    def requests(self) -> Iterator[tuple[Message, ...]]:
        """Every request in order, each built from the one before rather than walked back to."""
        previous: tuple[Message, ...] = ()
        for index, taken in enumerate(self._from_previous):
            if taken < 0:
                previous = self._pinned[index] + self._stored[index]
            else:
                previous = previous[:taken] + self._stored[index]
            yield previous

    def references(self) -> int:
        """Message references held: what the log costs beyond the messages themselves."""
        return sum(map(len, self._stored))
