"""The policy protocol: parameter declarations, the append and compile events, and actions.

A policy is config only (its parameters) and stateless: one instance may serve many
replays. ``on_append`` sees each message as it arrives; ``on_compile`` sees the working
context right before an inference. Both return ``None`` for "unchanged".
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from policies.agent_record import AgentRecord
from policies.messages import Message


class TokenCounter(Protocol):
    def count(self, message: Message) -> int: ...

    def content(self, message: Message) -> int: ...

    def text(self, text: str) -> int: ...

    def total(self, messages: Sequence[Message]) -> int: ...


class Summarizer(Protocol):
    name: str

    def summarize(self, system_prompt: str, transcript: str) -> str: ...


class ParamError(ValueError):
    """A parameter value that its declaration refuses."""


MAX_NUMBER = 10**15  # no parameter means anything beyond this; bigger is a mistake or an attack
_SHOWN = reprlib.Repr()
_SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlevel = 120, 60, 2
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = 6
_PLAIN_TYPES = (str, int, float, bool, type(None), list, tuple, dict)


def counted(number: int, noun: str) -> str:
    """``number`` ``noun`` in words: "1 turn", "2 turns", "1,204 turns"."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def visible(text: str) -> str:
    """Text as one line of a page or a terminal shows it: what does not print (a newline that
    would forge a line, an escape sequence, a bidi override, a lone surrogate) as its escape."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown(value: Any) -> str:
    """A refused value as an error message may echo it: plain data only, a few hundred
    characters at most, and any other object by its type alone (never its contents)."""
    if type(value) not in _PLAIN_TYPES:
        return f"a {type(value).__name__} object"
    if type(value) is int and value.bit_length() > 200:
        return f"a {len(str(value)) if value.bit_length() < 13_000 else 'very'} digit number"
    return _SHOWN.repr(value)[:300]


@dataclass(frozen=True)
class Param:
    """One policy parameter: the single place its type, default, bounds and help live.

    The UI builds its widget from this, the config file validates against it and the
    docs print it. ``type`` is one of int, float, bool, str, list (a list of strings).
    ``optional`` allows ``None`` ("not set").
    """

    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False
    choices: tuple[str, ...] = ()  # for text: the only values allowed (the UI offers them)
    search: bool = True  # whether a search (sweep, recommend) may tune it: not a replay's own switches
    search_from: float | None = None  # where a search's grid centres when the default is unset

    def validate(self, value: Any) -> Any:
        """The value, checked and normalised; raises ParamError naming the parameter."""
        if value is None:
            if self.optional:
                return None
            raise ParamError(f"{self.name} must be set")
        if self.type is bool:
            if not isinstance(value, bool):
                raise ParamError(f"{self.name} must be true or false, got {shown(value)}")
            return value
        if self.type in (int, float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ParamError(f"{self.name} must be a number, got {shown(value)}")
            if isinstance(value, float) and not math.isfinite(value):
                raise ParamError(f"{self.name} must be a finite number, got {value}")
            if abs(value) > MAX_NUMBER:
                raise ParamError(f"{self.name} is out of range, got {shown(value)}")
            if self.type is int and value != int(value):
                raise ParamError(f"{self.name} must be a whole number, got {shown(value)}")
            value = self.type(value)
            if self.minimum is not None and value < self.minimum:
                raise ParamError(f"{self.name} must be at least {_plain(self.minimum)}, got {value}")
            if self.maximum is not None and value > self.maximum:
                raise ParamError(f"{self.name} must be at most {_plain(self.maximum)}, got {value}")
            return value
        if self.type is str:
            if not isinstance(value, str):
                raise ParamError(f"{self.name} must be text, got {shown(value)}")
            if self.choices and value not in self.choices:
                raise ParamError(f"{self.name} must be one of {', '.join(self.choices)}, got {shown(value)}")
            return self._text(value)
        if self.type is list:
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ParamError(f"{self.name} must be a list of text, got {shown(value)}")
            return tuple(self._text(v) for v in value)
        raise TypeError(f"unsupported parameter type {self.type.__name__}")  # a bug in a declaration

    def _text(self, value: str) -> str:
        """Text that can be shown, written and sent: a lone surrogate (half of a character, which
        no UTF-8 file, page or request can carry) is refused, not mended."""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ParamError(
                f"{self.name} holds a lone surrogate (\\u{ord(value[error.start]):04x}) at character "
                f"{error.start}: not text any file or page can carry"
            ) from None
        return value


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


@dataclass(frozen=True)
class Action:
    """What one policy did, as the policy reports it (the engine adds turn and tokens)."""

    action: str
    messages: tuple[int, ...] = ()
    detail: str = ""


@dataclass
class _Reporting:
    actions: list[Action] = field(default_factory=list)

    def report(self, action: str, messages: Sequence[int] = (), detail: str = "") -> None:
        """Record an action on raw messages ``messages`` (their raw-history indices)."""
        self.actions.append(Action(action, tuple(messages), detail))


@dataclass
class AppendEvent(_Reporting):
    """Given to ``on_append``: the raw index of the arriving message and the turn so far."""

    index: int = 0
    turn: int = 0


@dataclass
class CompileEvent(_Reporting):
    """Given to ``on_compile`` right before inference ``turn``.

    ``last_usage`` is the previous inference's input tokens (None at the first): what its
    provider reported while the stack's requests are still those the agent sent (the
    session records it), else the replay's count of what the stack sent. ``last_output`` is
    that inference's reply tokens (the larger of the record and the count). Agents that trigger on
    reported usage read ``reported_tokens``; ``pinned`` are the standing rules sent ahead
    of the context.

    ``unchanged_prefix`` is a hint: ``messages[:unchanged_prefix]`` are the very objects,
    in order, of the list this policy returned at the previous compile. A policy whose
    output is a fixed point of itself may skip re-examining them; ignoring it is correct.

    ``context_tokens`` and ``message_tokens`` are the engine's running figures for the list
    given (``message_tokens[i]`` counts ``messages[i]``; read it, never change it), so a
    policy measures the context without recounting it; ``given_tokens`` reads them.
    ``given_tokens(messages) + fixed_tokens`` is the whole request as a provider bills it.

    ``time`` and ``previous_time`` are when the reply to this request and the previous reply
    were recorded (Unix seconds; None where the transcript has no times): their gap is how
    long the agent was idle, what time-based policies and cache lifetimes go by.

    ``record`` is what the recording agent did to its own context (None where the session
    records nothing of it); an agent's own policy that does what the record says calls
    ``follow_record`` so the engine knows its change is the agent's, not a departure from it.
    """

    turn: int = 1
    last_usage: int | None = None
    last_output: int | None = None
    counter: TokenCounter | None = None
    context_window: int = 128_000
    summarizer: Summarizer | None = None
    pinned: tuple[Message, ...] = ()
    unchanged_prefix: int = 0
    context_tokens: int | None = None  # the pinned rules and the messages given, with framing
    message_tokens: Sequence[int] = ()
    fixed_tokens: int = 0  # paid by every request besides its messages: tool definitions, reply priming
    tools: tuple[dict, ...] = ()  # the tool definitions the session recorded, as recorded
    time: float | None = None
    previous_time: float | None = None
    record: AgentRecord | None = None
    reply_index: int = 0  # the raw index of the reply this request gets
    previous_reply: int = -1  # and of the reply before it (-1: none)
    following_record: bool = False  # every change made so far is the agent's own, as its record has it
    followed: bool = False  # the change returned is the agent's own, as the record has it

    def follow_record(self) -> None:
        """Say that the change this policy returns is what the recording agent did here."""
        self.followed = True

    def given_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens of the pinned rules and ``messages``, the list this event came with: the
        engine's running total, or (an event built without one) a sum of cached counts."""
        if self.context_tokens is not None:
            return self.context_tokens
        if self.counter is None:
            return 0
        return self.counter.total(self.pinned) + self.counter.total(messages)

    def reported_tokens(self, messages: Sequence[Message]) -> int | None:
        """The previous inference's total as a provider reports it (input + reply), the figure
        agents that trigger on usage compare; None before the first inference. The reply is
        counted where the session does not record its size."""
        if self.last_usage is None:
            return None
        if self.last_output is not None:
            return self.last_usage + self.last_output
        last = _last_reply(messages)
        if last is None or self.counter is None:
            return self.last_usage
        return self.last_usage + self.counter.count(messages[last])

    def estimated_tokens(self, messages: Sequence[Message]) -> int:
        """The whole request as an agent estimates it before sending: the previous inference's
        reported total plus a count of what arrived since (Claude Code's way); the request's
        own count before the first inference."""
        reported = self.reported_tokens(messages)
        if reported is None:
            return self.given_tokens(messages) + self.fixed_tokens
        last = _last_reply(messages)
        start = 0 if last is None else last + 1
        if len(self.message_tokens) == len(messages):
            return reported + sum(self.message_tokens[start:])
        if self.counter is None:
            return reported
        return reported + self.counter.total(messages[start:])


def _last_reply(messages: Sequence[Message]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None)


# How a policy's compile result lives on (see DESIGN.md, "Persistence and timing"):
PERSISTENT = "persistent"  # written back: the stored history becomes what was sent
EPHEMERAL = "ephemeral"  # a copy edited for one request: the stored history stays whole
# When it runs:
PER_CALL = "per_call"  # before every inference, tool-loop steps included
PER_TURN = "per_turn"  # once, before the first inference after a user message
PERSISTENCES = (PERSISTENT, EPHEMERAL)
TIMINGS = (PER_CALL, PER_TURN)


LIFECYCLE_TEXT = {
    PERSISTENT: "persistent: rewrites the stored history",
    EPHEMERAL: "ephemeral: edits each request, the history stays whole",
    PER_CALL: "runs before every call",
    PER_TURN: "runs once per user turn",
}


def persistence_param(default: str, why: str) -> Param:
    """The declaration that lets a user choose persistence, where the framework allows both."""
    return Param("persistence", str, default, why, choices=PERSISTENCES)


# where a policy goes in a stack a search builds, in the order a request is shaped: each result
# clipped as it arrives, old results cleared, a window kept, the rest compacted
CLIPPING, CLEARING, WINDOW, COMPACTING = 0, 1, 2, 3
PLACES = {
    CLIPPING: "clips each result",
    CLEARING: "clears old results",
    WINDOW: "keeps a window",
    COMPACTING: "compacts",
}


class Policy:
    """Base class: declare ``params`` and override ``on_append`` and/or ``on_compile``.

    ``persistence`` and ``timing`` are declared on the class; a parameter of the same name
    (``persistence_param``) makes one the user's choice.
    """

    params: ClassVar[tuple[Param, ...]] = ()
    persistence: str = PERSISTENT
    timing: str = PER_CALL
    place: ClassVar[int] = COMPACTING  # where it goes in a stack a search builds (PLACES)
    source: ClassVar[str] = ""  # the system it comes from, with the version and file it follows
    summary: ClassVar[str] = ""  # what it does, in a line a user reads (the docs' policy table)

    def __init__(self, **values: Any) -> None:
        declared = {p.name: p for p in self.params}
        unknown = [name for name in values if name not in declared]
        if unknown:
            known = ", ".join(declared) or "none"
            raise ParamError(f"unknown parameter {shown(unknown[0])} (known: {known})")
        self.given = {name: declared[name].validate(v) for name, v in values.items()}
        for param in self.params:
            setattr(self, param.name, self.given.get(param.name, param.default))
        if self.persistence == EPHEMERAL and self.timing == PER_TURN:
            raise ParamError("an ephemeral policy edits each request, so it runs before every call")

    @classmethod
    def name(cls) -> str:
        return cls.__name__

    def lifecycle(self) -> str:
        """Its persistence and timing in words, as the stack editor shows them."""
        return f"{LIFECYCLE_TEXT[self.persistence]}; {LIFECYCLE_TEXT[self.timing]}"

    def on_append(self, event: AppendEvent, message: Message) -> Message | None:
        return None

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        return None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.given.items())
        return f"{self.name()}({args})"
