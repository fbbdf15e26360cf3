"""AutoGen's own model contexts, given our sessions turn by turn, against our emulations."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from playground.engine.replay import Settings, replay, standing_rules
from playground.engine.tokens import TokenCounter
from policies.autogen import units
from policies.registry import PolicySpec
from tests.parity.conftest import require
from tests.parity.test_langchain_parity import SESSIONS

pytestmark = pytest.mark.parity
require("autogen-core")
require("autogen-ext")

from autogen_core import FunctionCall  # noqa: E402
from autogen_core.model_context import (  # noqa: E402
    BufferedChatCompletionContext,
    HeadAndTailChatCompletionContext,
    TokenLimitedChatCompletionContext,
)
from autogen_core.models import (  # noqa: E402
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    SystemMessage,
    UserMessage,
)


def to_autogen(unit):
    first = unit[0]
    if first.is_tool_result:
        results = [
            FunctionExecutionResult(
                content=m.content, call_id=m.tool_call_id or "", name=m.name or "", is_error=False
            )
            for m in unit
        ]
        return FunctionExecutionResultMessage(content=results)
    if first.role == "assistant" and first.tool_calls:
        calls = [FunctionCall(id=c.id, arguments=c.arguments, name=c.name) for c in first.tool_calls]
        return AssistantMessage(content=calls, thought=first.content or None, source="assistant")
    if first.role == "assistant":
        return AssistantMessage(content=first.content, source="assistant")
    if first.role in ("system", "developer"):
        return SystemMessage(content=first.content)
    return UserMessage(content=first.content, source=first.name or "user")


class Encoding:
    """tiktoken's encoding as toktok-rs counts it (the same ids, offline): what
    ``count_tokens_openai`` asks of it is ``len(encode(text))``."""

    def __init__(self, name: str) -> None:
        self.counter = TokenCounter("gpt-4o").in_encoding(name)
        assert self.counter.encoder.exact, "toktok-rs counts this encoding exactly"

    def encode(self, text: str) -> range:
        return range(self.counter.text(text))


@pytest.fixture
def offline_tiktoken(monkeypatch):
    """tiktoken's model table, with encodings that need no download."""
    import tiktoken
    from tiktoken.model import encoding_name_for_model

    monkeypatch.setattr(tiktoken, "get_encoding", Encoding)
    monkeypatch.setattr(
        tiktoken, "encoding_for_model", lambda model: Encoding(encoding_name_for_model(model))
    )


def openai_client(model: str):
    """autogen-ext's OpenAI model client, whose count_tokens AutoGen's token-limited context
    calls (it is never asked for a completion here)."""
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    info = {"vision": False, "function_calling": True, "json_output": True, "family": "unknown"}
    info["structured_output"] = True
    return OpenAIChatCompletionClient(model=model, api_key="unused", model_info=info)


async def fill_and_view(context, messages):
    for message in messages:
        await context.add_message(message)
    return await context.get_messages()


def run(coroutine):
    """The coroutine's result, on a thread of its own: a browser test's sync Playwright may
    hold this thread's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


CONTEXTS = [
    ("BufferedContextPolicy", {"buffer_size": 3}, lambda c, p: BufferedChatCompletionContext(**p)),
    ("BufferedContextPolicy", {"buffer_size": 8}, lambda c, p: BufferedChatCompletionContext(**p)),
    (
        "HeadAndTailContextPolicy",
        {"head_size": 2, "tail_size": 5},
        lambda c, p: HeadAndTailChatCompletionContext(**p),
    ),
    (
        "HeadAndTailContextPolicy",
        {"head_size": 3, "tail_size": 2},
        lambda c, p: HeadAndTailChatCompletionContext(**p),
    ),
    (
        "TokenLimitedContextPolicy",
        {"token_limit": 1_500},
        lambda c, p: TokenLimitedChatCompletionContext(c, **p),
    ),
    (
        "TokenLimitedContextPolicy",
        {"token_limit": 4_000},
        lambda c, p: TokenLimitedChatCompletionContext(c, **p),
    ),
    (
        "TokenLimitedContextPolicy",
        {"token_limit": 4_000, "tool_schema": True},
        lambda c, p, tools: TokenLimitedChatCompletionContext(
            c, token_limit=p["token_limit"], tool_schema=tools
        ),
    ),
]
MODELS = ["gpt-4o", "claude-sonnet-4-5"]  # o200k_base, and a model tiktoken does not know: cl100k_base


def sent(view, theirs, history) -> list:
    """AutoGen's view as the messages it sends: each of its messages back to ours (by
    identity), a marker by its text."""
    ours = {id(a): u for a, u in zip(theirs, history, strict=True)}
    out: list = []
    for message in view:
        out += [id(m) for m in ours[id(message)]] if id(message) in ours else [("marker", message.content)]
    return out


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("name", "params", "make"), CONTEXTS, ids=lambda x: str(x)[:40])
@pytest.mark.parametrize("session", SESSIONS)
def test_the_view_is_the_one_autogen_returns_every_turn(session, name, params, make, model, offline_tiktoken):
    result = replay(session, [PolicySpec(name, params)], Settings(model=model))
    client = openai_client(model)
    schemas = [schema_of(d) for d in session.tools]
    pinned = len(standing_rules(session.messages))
    differed = 0
    for turn in result.turns:
        history = units(list(session.messages[pinned : turn.reply_index]))
        theirs = [to_autogen(u) for u in history]
        context = make(client, params, schemas) if params.get("tool_schema") else make(client, params)
        view = run(fill_and_view(context, theirs))
        ours = [id(m) if m.source else ("marker", m.content) for m in turn.context]
        assert ours == sent(view, theirs, history), f"turn {turn.number}"
        differed += len(view) != len(theirs)
    if len(session.messages) > 40:
        assert differed > 0  # the context did cut something: the comparison means something


def schema_of(definition: dict) -> dict:
    """A recorded tool definition as AutoGen's ToolSchema."""
    function = definition.get("function", definition)
    parameters = function.get("parameters", function.get("input_schema", {}))
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "parameters": parameters,
    }


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("session", SESSIONS)
def test_each_message_counts_what_the_openai_client_counts(session, model, offline_tiktoken):
    """count_tokens_openai, message by message and for the tools, against autogen_message_tokens."""
    from policies.autogen import autogen_encoding, autogen_message_tokens, autogen_tools_tokens

    client = openai_client(model)
    counter = TokenCounter(model).in_encoding(autogen_encoding(model))
    empty = client.count_tokens([])
    for unit in units(list(session.messages)):
        ours = autogen_message_tokens(unit, counter.text_cached)
        assert ours == client.count_tokens([to_autogen(unit)]) - empty, unit[0]
    schemas = [schema_of(d) for d in session.tools]
    assert autogen_tools_tokens(session.tools, counter.text_cached) == (
        client.count_tokens([], tools=schemas) - empty
    )
