"""What every reader shares: building a Session message by message, with its warnings."""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playground.engine.session import ReadWarning, RecordedCompaction, Session, TranscriptError
from playground.formats.json_text import NotANumber, loads, shape
from playground.limits import LIMITS, over
from policies.base import counted, shown, visible
from policies.messages import Message, ToolCall


def is_agent_tool(name: str | None) -> bool:
    """Whether a tool name calls a sub-agent (Claude Code's Task/Agent, `*_agent`, `agent_*`)."""
    if not name:
        return False
    lowered = name.lower()
    return lowered in ("task", "agent") or lowered.endswith("_agent") or lowered.startswith("agent_")


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}")


def version_of(value: Any) -> str:
    """An agent's release as its file writes it ("2.1.37", "0.144.0-alpha.4"); "" for anything
    else (a version is a name shown in sentences and rules: never free text from a file)."""
    return value if isinstance(value, str) and _VERSION.fullmatch(value) else ""


def label_of(value: Any) -> str:
    """A record's kind as a warning counts it: a text as it reads (cut at 60 characters), a
    number as written, anything else (an object or a list where a kind should be) by its JSON
    type alone (``kind_of``), never its contents."""
    if isinstance(value, str):
        return visible(value if len(value) <= 60 else value[:59] + "…")
    if value is None or isinstance(value, bool | int | float):
        return shown(value)
    return kind_of(value)


MAX_REPORTED_USD = 1_000_000.0  # no session costs this; a bigger figure is an error or an attack


def reported_cost(value: Any) -> float | None:
    """A bill a file records in dollars (an agent's own ``cost``): a finite number, not
    negative, under ``MAX_REPORTED_USD``; None for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value) if 0 <= value <= MAX_REPORTED_USD else None
    return None


def summed_cost(amounts: list[float | None]) -> float | None:
    """The agent's own bill of a session from its calls' (``reported_cost`` each): None where a
    call has none, or where finite parts add up past ``MAX_REPORTED_USD`` (to infinity, even)."""
    if not amounts or any(a is None for a in amounts):
        return None
    return reported_cost(math.fsum(a for a in amounts if a is not None))


def as_list(value: Any) -> list:
    """A field a reader iterates: the list, or nothing when a file holds anything else there."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict:
    """A field a reader looks into: the object, or nothing when a file holds anything else there."""
    return value if isinstance(value, dict) else {}


def block_text(content: Any) -> str:
    """A message's text: a string, or the text of its content blocks (``{"text": ...}``)."""
    if isinstance(content, str):
        return content
    return "\n".join(
        b["text"] for b in as_list(content) if isinstance(b, dict) and isinstance(b.get("text"), str)
    )


def uncached_plus_cache(uncached: int | None, read: int | None, written: int | None) -> int | None:
    """The prompt tokens of a call whose input count leaves the cache out (Anthropic and the
    logs that follow it): the uncached input, the cache reads and the cache writes."""
    return None if uncached is None else uncached + (read or 0) + (written or 0)


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text, whether recorded as text or as an object."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


_READ_DEADLINE: ContextVar[float | None] = ContextVar("read_deadline", default=None)


@contextmanager
def read_time_bounded() -> Iterator[None]:
    """A read of one file (and whatever it opens) ends within ``max_read_seconds``: a file
    read in pieces (a folder, an archive) shares the outermost read's time."""
    if _READ_DEADLINE.get() is not None:
        yield
        return
    token = _READ_DEADLINE.set(time.monotonic() + LIMITS.max_read_seconds)
    try:
        yield
    finally:
        _READ_DEADLINE.reset(token)


def check_read_time(file: str, where: str) -> None:
    """Stop a read that has run past its time, naming where it had got to."""
    deadline = _READ_DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise TranscriptError(file, where, str(over("max_read_seconds", "reading the file took longer")))


@dataclass
class _Join:
    """The parts of one assistant message that later lines add to it, joined at the end."""

    content: list[tuple[str, str]]  # (separator before it, text)
    thinking: list[str]
    calls: list[ToolCall]
    seen: set[str] = field(default_factory=set)

    def text(self) -> str:
        parts: list[str] = []
        for separator, text in self.content:
            if text:
                parts += [separator, text] if parts else [text]
        return "".join(parts)


MAX_NAME = 200  # characters of a session's or a model's name kept: a name, not a payload
MAX_MODELS = 32  # distinct models one session may name (a /model switch is a few)
MAX_COMPACTIONS = 1_000  # compactions one session may record (the longest real ones make a few)


def check_sessions(count: int, file: str) -> None:
    """Refuse a file of more sessions than ``max_sessions``: checked as they are found, before
    they are built (a file of many small chains built them all first)."""
    if count > LIMITS.max_sessions:
        raise TranscriptError(file, "", str(over("max_sessions", f"the file holds {count:,} sessions")))


class SessionBuilder:
    """Collects messages in raw order; each gets its raw index as ``source``."""

    def __init__(self, file: str, format: str) -> None:
        self.file = file
        self.format = format
        self.messages: list[Message] = []
        self.usage: dict[int, int] = {}
        self.cache_reads: dict[int, int] = {}
        self.times: dict[int, float] = {}
        self.cache_writes: dict[int, int] = {}
        self.cache_writes_1h: dict[int, int] = {}
        self.outputs: dict[int, int] = {}
        self.models: dict[int, str] = {}
        self._model_names: set[str] = set()  # the distinct names read, held to MAX_MODELS
        self._models_cut = False
        self.compactions: list[RecordedCompaction] = []
        self.parent = ""
        self.starts_mid_session = False
        self.agent_version = ""
        self.recorded_window: int | None = None
        self.unreadable_times = 0
        self.warnings: list[ReadWarning] = []
        self.tools: tuple[dict, ...] = ()
        self._where = ""
        self._steps = 0
        self.more_warnings = 0  # warnings past MAX_WARNINGS, counted
        self._call_names: dict[str, str] = {}
        self.text_chars = 0  # the session's text as read, references resolved: held to the file limit
        self.last_reply: int | None = None  # the index of the last assistant message
        self._joins: dict[int, _Join] = {}  # index -> parts still to join onto that message
        self.held_replies: set[int] = set()  # replies in the history that are no call of the file
        self.tool_call_count = 0  # held to max_messages: each call's result is a message
        self.inner_values = 0  # of the JSON texts inside the file's fields, together

    @property
    def where(self) -> str:
        """The item being read: readers set it, so a checked field can name its place. Each
        1,024th item set checks the read's time (``max_read_seconds``)."""
        return self._where

    @where.setter
    def where(self, place: str) -> None:
        self._where = place
        self._steps += 1
        if not self._steps & 1023:
            check_read_time(self.file, place)

    def error(self, where: str, what: str) -> TranscriptError:
        return TranscriptError(self.file, where, what)

    def warn(self, where: str, what: str) -> None:
        """A warning of the file; past ``MAX_WARNINGS`` only counted (said once at the end)."""
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(ReadWarning(where, what))
        else:
            self.more_warnings += 1

    def add(
        self,
        role: str,
        content: str = "",
        *,
        tool_calls: tuple[ToolCall, ...] = (),
        tool_call_ids: tuple[str, ...] = (),
        name: str | None = None,
        prompt_tokens: int | None = None,
        cache_read: int | None = None,
        time: float | None = None,
        thinking: str = "",
        cache_write: int | None = None,
        output: int | None = None,
        model: str | None = None,
        cache_write_1h: int | None = None,
    ) -> None:
        index = len(self.messages)
        if index == LIMITS.max_messages:  # refused as the limit is passed, not after the whole file
            raise self.error(self.where, too_many_messages(index + 1))
        if name is not None and not isinstance(name, str):
            raise self.error(self.where, f"name must be text, got {kind_of(name)}")
        content = self._valid_text(content, "content")
        thinking = self._valid_text(thinking, "thinking")
        name = None if name is None else self._valid_text(name, "name")
        tool_call_ids = tuple(self._valid_text(i, "tool_call_id") for i in tool_call_ids)
        tool_calls = self._note_calls(tool_calls)
        self._hold(len(content) + len(thinking) + sum(len(c.arguments) for c in tool_calls))
        # a result that recorded no name keeps none (it is counted and sent as recorded); whether
        # it is an agent's result is read from the call it answers
        called = self._call_names.get(tool_call_ids[0]) if tool_call_ids else None
        agent_result = role == "tool" and is_agent_tool(name or called)
        self.messages.append(
            Message(
                role=role,
                content=content,
                tool_calls=tool_calls,
                tool_call_ids=tool_call_ids,
                name=name,
                source=(index,),
                agent_result=agent_result,
                thinking=thinking,
            )
        )
        if role == "assistant":
            self.last_reply = index
        if prompt_tokens is not None:
            self.usage[index] = prompt_tokens
        if cache_read is not None:
            self.cache_reads[index] = cache_read
        if time is not None:
            self.times[index] = time
        if cache_write is not None:
            self.cache_writes[index] = cache_write
        if cache_write_1h:
            self.cache_writes_1h[index] = cache_write_1h
        if output is not None:
            self.outputs[index] = output
        if model:
            name = self._valid_text(model, "model")[:MAX_NAME]
            if name in self._model_names or len(self._model_names) < MAX_MODELS:
                self._model_names.add(name)
                self.models[index] = name
            elif not self._models_cut:  # a new name on every reply: each would be looked up and priced
                self._models_cut = True
                self.warn(self.where, f"more than {MAX_MODELS} model names: the later ones are not read")

    def last_is_open_assistant(self) -> bool:
        """Whether the last message is an assistant reply that more calls may still join."""
        return bool(self.messages) and self.messages[-1].role == "assistant"

    def join_last(
        self,
        content: str = "",
        tool_calls: tuple[ToolCall, ...] = (),
        thinking: str = "",
        index: int = -1,
        *,
        separator: str = "\n",
        once: bool = False,
    ) -> None:
        """Add text, calls and thinking to an assistant message (the last, or the one at
        ``index`` when results of its first calls were written before its later ones): one
        inference, several items. The parts are joined once, at ``build``, so a reply of many
        lines or stream deltas reads in time linear in its length; until then the message's
        role and source hold, its text and calls do not. ``separator`` goes between texts
        ("" for stream deltas); ``once`` leaves out a text this message already holds (a
        thought each event of one response repeats)."""
        index = index % len(self.messages)
        join = self._joins.get(index)
        if join is None:
            last = self.messages[index]
            join = self._joins[index] = _Join(
                [("", last.content)], [last.thinking], list(last.tool_calls), {last.content}
            )
        content = self._valid_text(content, "content")
        if content and not (once and content in join.seen):
            join.content.append((separator, content))
            join.seen.add(content)
        if thinking := self._valid_text(thinking, "thinking"):
            join.thinking.append(thinking)
        tool_calls = self._note_calls(tool_calls)
        join.calls.extend(tool_calls)
        self._hold(len(content) + len(thinking) + sum(len(c.arguments) for c in tool_calls))

    def _hold(self, chars: int) -> None:
        """Count text the session now holds. A reference a format resolves (an Inspect
        ``attachment://``) can make a small file stand for far more text than it holds, so the
        text itself is held to the limit on a file's size."""
        self.text_chars += chars
        if self.text_chars > LIMITS.max_file_bytes:
            raise self.error(
                self.where,
                str(
                    over(
                        "max_file_bytes",
                        f"the session's text, references resolved, reaches {self.text_chars:,} characters",
                    )
                ),
            )

    def _apply_joins(self) -> None:
        for index, join in self._joins.items():
            self.messages[index] = self.messages[index].replace(
                content=join.text(),
                thinking="\n".join(t for t in join.thinking if t),
                tool_calls=tuple(join.calls),
            )
        self._joins.clear()

    def _note_calls(self, calls: tuple[ToolCall, ...]) -> tuple[ToolCall, ...]:
        """The calls, their text checked; a call id used before gets a warning. A session makes
        as many calls, in one reply or all, as it may hold messages (each call's result is one):
        a 96 KB file of calls in an attribute's JSON made 1.8 million."""
        self.tool_call_count += len(calls)
        if self.tool_call_count > LIMITS.max_messages:
            raise self.error(
                self.where,
                str(over("max_messages", f"{self.tool_call_count:,} tool calls, each answered by a message")),
            )
        checked = []
        for call in calls:
            call = ToolCall(
                *(self._valid_text(t, "a tool call") for t in (call.id, call.name, call.arguments))
            )
            if call.id in self._call_names:
                self.warn(
                    self.where,
                    f"tool call id {call.id[:80]!r} is used twice: its results may be matched to the wrong call",
                )
            self._call_names[call.id] = call.name
            checked.append(call)
        return tuple(checked)

    def inner_json(self, text: str, what: str) -> Any:
        """JSON text inside a field (an OpenTelemetry attribute), parsed under the file's bounds:
        its nesting, and the values of every such text of the file together, which the file's own
        count never saw inside its strings. JSONDecodeError where the text is not JSON."""
        depth, values = shape(text.encode("utf-8", "surrogatepass"))
        self.inner_values += values
        if depth > LIMITS.max_nesting:
            raise self.error(self.where, str(over("max_nesting", f"{what}: brackets nested {depth:,} deep")))
        if self.inner_values > LIMITS.max_json_values:
            raise self.error(
                self.where,
                str(
                    over(
                        "max_json_values",
                        f"{what}: the JSON inside the file's fields holds about {self.inner_values:,} values",
                    )
                ),
            )
        try:
            return loads(text)
        except NotANumber as error:
            raise self.error(self.where, f"{what}: {error}") from None

    def _valid_text(self, text: str, field: str) -> str:
        """Text as read; a lone surrogate (a string cut mid-character) shown as U+FFFD, with a warning."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            self.warn(self.where, f"{field} holds invalid Unicode (a lone surrogate): shown as \ufffd")
            return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return text

    def token_count(self, value: Any, field: str) -> int | None:
        """A recorded token count: absent is None; anything but a plausible whole number is refused."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(self.where, f"usage.{field} must be a number, got {kind_of(value)}")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise self.error(self.where, f"usage.{field} must be a whole number of tokens, got {value}")
        if not 0 <= value <= MAX_RECORDED_TOKENS:
            shown = f"{value:.3g}" if abs(value) > 1e15 else f"{value:,}"
            raise self.error(
                self.where, f"usage.{field} must be from 0 to {MAX_RECORDED_TOKENS:,}, got {shown}"
            )
        return int(value)

    def cache_read(self, usage: Any) -> int | None:
        """The prompt tokens a provider recorded as read from its prompt cache, in whichever of
        the providers' fields ``usage`` carries them."""
        if not isinstance(usage, dict):
            return None
        for outer, inner in CACHE_READ_FIELDS:
            value = usage.get(outer)
            if inner is not None:
                value = value.get(inner) if isinstance(value, dict) else None
            if value is not None:
                return self.token_count(value, outer if inner is None else f"{outer}.{inner}")
        return None

    def timestamp(self, value: Any, field: str) -> float | None:
        """When a reply was recorded, in seconds: a Unix time or an ISO 8601 text; absent is None."""
        if value is None:
            return None
        if isinstance(value, str):
            try:
                stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise self.error(self.where, f"{field} must be a time, got {shown(value)}") from None
            if stamp.tzinfo is None:
                stamp = stamp.replace(tzinfo=UTC)
            return stamp.timestamp()
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e11:
            raise self.error(self.where, f"{field} must be a Unix time in seconds, got {shown(value)}")
        return float(value)

    def reply_time(self, value: Any) -> float | None:
        """An agent log's time for a reply: a time that does not read is left out, counted in one
        warning (``unreadable_times``), the rest of the line still read."""
        try:
            return self.timestamp(value, "timestamp")
        except TranscriptError:
            self.unreadable_times += 1
            return None

    def reply_time_ms(self, value: Any) -> float | None:
        """``reply_time`` of a Unix time in milliseconds (Cline's ``ts``, opencode's ``time``)."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = value / 1000
        return self.reply_time(value)

    def text_or_none(self, value: Any, field: str) -> str | None:
        if value is None or isinstance(value, str):
            return value
        raise self.error(self.where, f"{field} must be text, got {kind_of(value)}")

    def build(self, name: str) -> Session:
        self._apply_joins()
        if self.unreadable_times:
            self.warn("", f"{self.unreadable_times:,} time(s) that do not read: those replies have no time")
        if self.more_warnings:
            self.warnings.append(
                ReadWarning(
                    "",
                    f"{counted(self.more_warnings, 'more warning')}, not listed (the first {MAX_WARNINGS} are)",
                )
            )
        if len(self.compactions) > MAX_COMPACTIONS:  # an event a message is no agent's compactions
            self.warn(
                "", f"{len(self.compactions):,} compactions recorded: the first {MAX_COMPACTIONS:,} are read"
            )
            del self.compactions[MAX_COMPACTIONS:]
        if not self.messages:
            raise self.error("", "the session holds no messages")
        if len(self.messages) > LIMITS.max_messages:
            raise self.error("", too_many_messages(len(self.messages)))
        return Session(
            name=visible(name[:MAX_NAME]),  # a 20 MB model name in a name goes in no row whole
            format=self.format,
            messages=tuple(self.messages),
            usage=self.usage,
            cache_reads=self.cache_reads,
            times=self.times,
            tools=self.tools,
            warnings=tuple(self.warnings),
            file=self.file,
            cache_writes=self.cache_writes,
            outputs=self.outputs,
            models=self.models,
            compactions=tuple(self.compactions),
            parent=self.parent,
            cache_writes_1h=self.cache_writes_1h,
            starts_mid_session=self.starts_mid_session,
            agent_version=version_of(self.agent_version),
            recorded_window=self.recorded_window,
            held_replies=frozenset(self.held_replies),
        )

    def warn_counts(self, what: str, counts: dict[str, int]) -> None:
        """One warning for many lines passed over: ``what`` and each kind's count."""
        if counts:
            listed = ", ".join(f"{kind} {n:,}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))
            self.warn("", f"{what} ({sum(counts.values()):,}): {listed}")


# (field, subfield) of a usage object that holds cached prompt tokens, by provider
CACHE_READ_FIELDS = (
    ("prompt_tokens_details", "cached_tokens"),  # OpenAI chat completions
    ("prompt_cache_hit_tokens", None),  # DeepSeek
    ("cache_read_input_tokens", None),  # Anthropic Messages
    ("input_tokens_details", "cached_tokens"),  # OpenAI Responses
    ("input_token_details", "cache_read"),  # LangChain usage_metadata
)


def digest(value: Any) -> bytes:
    """A JSON value known by all of it, in 16 bytes: how a reader tells a message it read
    before from a new one that shares a long beginning with it."""
    return hashlib.blake2b(json.dumps(value, sort_keys=True, default=str).encode(), digest_size=16).digest()


def kind_of(value: Any) -> str:
    """How an error names the JSON type it found."""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "text", bool: "true/false"}.get(type(value), "a number")


MAX_RECORDED_TOKENS = 100_000_000  # no context window comes near; a bigger count is not one
MAX_WARNINGS = 50  # warnings a session lists; the rest are counted in one


def too_many_messages(count: int) -> str:
    return str(over("max_messages", f"{count:,} messages in one session"))
