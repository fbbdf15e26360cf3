"""A recorded session as the replay engine sees it, and the errors a transcript can raise."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from policies.messages import Message


class TranscriptError(ValueError):
    """A transcript that cannot be read. ``str()`` is one line: ``FILE: WHERE: WHAT``."""

    def __init__(self, file: str, where: str, what: str) -> None:
        self.file, self.where, self.what = file, where, what
        super().__init__(f"{file}: {where}: {what}" if where else f"{file}: {what}")


@dataclass(frozen=True)
class ReadWarning:
    """Something a reader noticed and did not change: where in the file, and what."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass(frozen=True)
class Session:
    """The raw history of one recorded session.

    ``usage`` maps the raw index of an assistant message to the prompt tokens its
    provider reported for that inference, ``cache_reads`` the part of them it read from its
    prompt cache, ``times`` when the reply was recorded (Unix seconds); ``tools`` are the tool definitions the
    session recorded (sent with every request).
    """

    name: str
    format: str
    messages: tuple[Message, ...]
    usage: dict[int, int] = field(default_factory=dict)
    cache_reads: dict[int, int] = field(default_factory=dict)
    times: dict[int, float] = field(default_factory=dict)
    tools: tuple[dict, ...] = ()
    warnings: tuple[ReadWarning, ...] = ()
    file: str = ""

    @property
    def tool_calls(self) -> int:
        return sum(len(m.tool_calls) for m in self.messages)

    @property
    def turns(self) -> int:
        return sum(1 for m in self.messages if m.role == "assistant")

    @cached_property
    def last_reply(self) -> int:
        """Raw index of the last assistant reply (-1 when none): what follows it shapes no request."""
        return max((i for i, m in enumerate(self.messages) if m.role == "assistant"), default=-1)

    @cached_property
    def content_hash(self) -> str:
        """Stable across processes; the replay cache key."""
        digest = hashlib.sha256()
        for m in self.messages:
            digest.update(repr((m.role, m.content, m.tool_calls, m.tool_call_ids, m.name)).encode())
        digest.update(repr((sorted(self.usage.items()), self.tools)).encode())
        digest.update(repr((sorted(self.cache_reads.items()), sorted(self.times.items()))).encode())
        return digest.hexdigest()[:16]
