"""A recorded session as the replay engine sees it, and the errors a transcript can raise."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

from policies.agent_record import RecordedCompaction
from policies.messages import Message

__all__ = ["ReadWarning", "RecordedCompaction", "Session", "TranscriptError"]


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
        return f"{self.where}: {self.what}" if self.where else self.what


@dataclass(frozen=True)
class Session:
    """The raw history of one recorded session.

    ``usage`` maps the raw index of an assistant message to the prompt tokens its
    provider reported for that inference, ``cache_reads`` the part of them it read from its
    prompt cache, ``times`` when the reply was recorded (Unix seconds); ``tools`` are the tool definitions the
    session recorded (sent with every request). Where the file records them, ``cache_writes``
    (prompt tokens written to the cache), ``outputs`` (reply tokens) and ``models`` (the model
    that answered) are kept per reply too, and ``cache_writes_1h`` the part of the writes made to
    the one-hour cache (Anthropic bills it at 2x, the 5-minute one at 1.25x); ``compactions``
    are the agent's own, and ``parent`` names the session a subagent's session was started from.
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
    cache_writes: dict[int, int] = field(default_factory=dict)
    outputs: dict[int, int] = field(default_factory=dict)
    models: dict[int, str] = field(default_factory=dict)
    compactions: tuple[RecordedCompaction, ...] = ()
    parent: str = ""
    cache_writes_1h: dict[int, int] = field(default_factory=dict)  # of ``cache_writes``, at the 1-hour tier
    reported_cost_usd: float | None = None  # the agent's own bill of the session, where it writes one
    # the file is the tail of a session: what came before its first line opens every request
    starts_mid_session: bool = False
    agent_version: str = ""  # the recording agent's release, where the file names it
    # the context window the agent recorded having (Codex's model_context_window), where it did
    recorded_window: int | None = None
    # replies the history holds that are no call of this file, replayed as context, not as turns:
    # the earlier replies an LLM log's first request already held, a step opencode aborted
    held_replies: frozenset[int] = frozenset()

    @property
    def recorded_model(self) -> str:
        """The model that answered most of the replies, where the file records it."""
        if not self.models:
            return ""
        counts: dict[str, int] = {}
        for model in self.models.values():
            counts[model] = counts.get(model, 0) + 1
        return max(counts, key=counts.__getitem__)

    def output_tokens(self, index: int, counted: int) -> int:
        """The reply at raw ``index``'s output tokens, one figure wherever it is billed or
        compared: the larger of the record and ``counted`` (our count of the reply). A record
        can be short (Claude Code logs a mid-stream snapshot of output_tokens, claude-code
        #22671, #27361) or long (reasoning tokens no line holds)."""
        return max(counted, self.outputs.get(index, 0))

    @property
    def tool_calls(self) -> int:
        return sum(len(m.tool_calls) for m in self.messages)

    @property
    def turns(self) -> int:
        return len(self.replies)

    @cached_property
    def replies(self) -> tuple[int, ...]:
        """The raw indexes of the replies this file records as calls: a replay turn each."""
        return tuple(
            i for i, m in enumerate(self.messages) if m.role == "assistant" and i not in self.held_replies
        )

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
        recorded = (self.cache_writes, self.outputs, self.models, self.cache_writes_1h)
        figures = [sorted(d.items()) for d in recorded] + [
            self.compactions,
            self.parent,
            self.reported_cost_usd,
            self.agent_version,
            self.recorded_window,
            self.starts_mid_session,
            sorted(self.held_replies),
        ]
        digest.update(repr(figures).encode())
        return digest.hexdigest()[:16]
