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
    return UserMessage(content=first.content, source="user")


class Client:
    """The model client's count as the replay counts: each message's tokens, and the tools."""

    def __init__(self, by_message: dict[int, int], tools: int) -> None:
        self.by_message, self.tools = by_message, tools

    def count_tokens(self, messages, tools=()) -> int:
        return sum(self.by_message[id(m)] for m in messages) + self.tools


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
]


def sent(view, theirs, history) -> list:
    """AutoGen's view as the messages it sends: each of its messages back to ours (by
    identity), a marker by its text."""
    ours = {id(a): u for a, u in zip(theirs, history, strict=True)}
    out: list = []
    for message in view:
        out += [id(m) for m in ours[id(message)]] if id(message) in ours else [("marker", message.content)]
    return out


@pytest.mark.parametrize(("name", "params", "make"), CONTEXTS, ids=lambda x: str(x)[:40])
@pytest.mark.parametrize("session", SESSIONS)
def test_the_view_is_the_one_autogen_returns_every_turn(session, name, params, make):
    result = replay(session, [PolicySpec(name, params)], counter=TokenCounter(Settings().model))
    counter = result.counter  # calibrated to the recorded usage where the session records it
    pinned = len(standing_rules(session.messages))
    tools = counter.request((), counter.tools(session.tools))
    differed = 0
    for turn in result.turns:
        history = units(list(session.messages[pinned : turn.reply_index]))
        theirs = [to_autogen(u) for u in history]
        client = Client({id(a): counter.total(u) for a, u in zip(theirs, history, strict=True)}, tools)
        context = make(client, params)
        view = run(fill_and_view(context, theirs))
        ours = [id(m) if m.source else ("marker", m.content) for m in turn.context]
        assert ours == sent(view, theirs, history), f"turn {turn.number}"
        differed += len(view) != len(theirs)
    if len(session.messages) > 40:
        assert differed > 0  # the context did cut something: the comparison means something
