"""Hand-built messages, sessions and a deterministic token counter for tests."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from playground.engine.session import Session
from policies.base import CompileEvent
from policies.messages import Message, ToolCall
from tests.synthetic import FOLDER as SYNTHETIC


def system(text: str = "You are a careful agent.") -> Message:
    return Message("system", text)


def user(text: str = "Please help.") -> Message:
    return Message("user", text)


def assistant(text: str = "", *calls: ToolCall) -> Message:
    return Message("assistant", text, tool_calls=tuple(calls))


def call(call_id: str, name: str = "bash", arguments: str = "{}") -> ToolCall:
    return ToolCall(call_id, name, arguments)


def result(call_id: str, text: str = "ok", name: str = "bash", agent: bool = False) -> Message:
    return Message("tool", text, tool_call_ids=(call_id,), name=name, agent_result=agent)


def numbered(messages: Sequence[Message]) -> list[Message]:
    """The messages with their raw index as ``source``, as a reader makes them."""
    return [m.replace(source=(i,)) for i, m in enumerate(messages)]


def make_session(*messages: Message, usage: dict[int, int] | None = None) -> Session:
    return Session("test", "test", tuple(numbered(messages)), usage=usage or {})


def tool_loop(n: int, size: int = 100, prefix: str = "c") -> list[Message]:
    """``n`` rounds of assistant call + tool result, each result ``size`` chars."""
    out: list[Message] = []
    for i in range(n):
        out.append(assistant(f"step {i}", call(f"{prefix}{i}")))
        out.append(result(f"{prefix}{i}", _filler(f"{i}:", size)))
    return out


class CharCounter:
    """Deterministic: a message costs 1 token per 4 characters of content, plus 1."""

    def count(self, message: Message) -> int:
        return 1 + len(message.content) // 4

    def total(self, messages: Sequence[Message]) -> int:
        return sum(self.count(m) for m in messages)

    def content(self, message: Message) -> int:
        return len(message.content) // 4

    def text(self, text: str) -> int:
        return len(text) // 4


def compile_event(**changes) -> CompileEvent:
    defaults = {"turn": 1, "last_usage": None, "counter": CharCounter(), "context_window": 128_000}
    return CompileEvent(**{**defaults, **changes})


WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma", "omega"]


def _filler(head: str, size: int) -> str:
    """Text of ``size`` characters that tokenizes like prose (about 4 characters a token)."""
    words = [head]
    length = len(head)
    k = 0
    while length < size:
        word = WORDS[k % len(WORDS)] + str(k % 97)
        words.append(word)
        length += len(word) + 1
        k += 1
    return " ".join(words)[:size]


class FixedSummarizer:
    """A summarizer that always answers ``reply`` and records each (system prompt, transcript)."""

    name = "fixed"

    def __init__(self, reply: str = "the summary") -> None:
        self.reply, self.calls = reply, []

    def summarize(self, system_prompt: str, transcript: str) -> str:
        self.calls.append((system_prompt, transcript))
        return self.reply


def runs_of_samples(*names: str) -> bytes:
    """A multi-run file (a JSON list of ``{name, messages}``) holding the named sample
    sessions, every session of each, in OpenAI chat format."""
    import json

    from playground.formats import read_path
    from playground.formats.openai_chat import to_openai

    samples = SYNTHETIC
    runs = [
        {"name": s.name, "messages": [to_openai(m) for m in s.messages]}
        for name in names
        for s in read_path(samples / name)
    ]
    return json.dumps(runs).encode()


def has_module(name: str) -> bool:
    """Whether ``name`` imports here (an extra installed)."""
    import importlib

    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


# a test of a Dask cluster or address: skipped where the dask extra is not installed (CI has it)
needs_dask = pytest.mark.skipif(
    not has_module("distributed"), reason="the dask extra is not installed (pip install -e '.[dask]')"
)


def claude_code_first_line() -> dict:
    """A Claude Code session's first line: the user's "go", the chain's root."""
    return {
        "type": "user",
        "uuid": "u0",
        "parentUuid": None,
        "sessionId": "s",
        "message": {"role": "user", "content": "go"},
    }
