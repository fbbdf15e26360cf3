"""LangChain's own ClearToolUsesEdit, count_tokens_approximately and cut-point search, run on
our sessions turn by turn, against ClearToolUsesPolicy(flavour="langchain") and
LangChainSummarizationPolicy."""

from __future__ import annotations

import pytest

from playground.engine.replay import Settings, replay, standing_rules
from playground.formats import read_path
from policies.estimates import call_args, langchain_approximate_tokens
from policies.langchain import langchain_safe_cutoff, langchain_scaled_count, langchain_trim_last
from policies.messages import Message
from policies.registry import PolicySpec
from tests.parity.conftest import require
from tests.playground.measures.test_quality import SAMPLES

pytestmark = pytest.mark.parity
VERSION = require("langchain")
require("langchain-core")

from langchain.agents.middleware.context_editing import ClearToolUsesEdit  # noqa: E402
from langchain.agents.middleware.summarization import SummarizationMiddleware  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.messages.utils import count_tokens_approximately, trim_messages  # noqa: E402


def to_langchain(message: Message):
    if message.role in ("system", "developer"):
        return SystemMessage(message.content)
    if message.role == "user":
        return HumanMessage(message.content, name=message.name)
    if message.role == "assistant":
        calls = [{"name": c.name, "args": call_args(c), "id": c.id} for c in message.tool_calls]
        return AIMessage(message.content, tool_calls=calls, name=message.name)
    return ToolMessage(message.content, tool_call_id=message.tool_call_id or "", name=message.name)


def _sessions():
    for path in SAMPLES:
        for session in read_path(path)[:3]:
            yield pytest.param(session, id=f"{path.name}:{session.name}"[:80])


SESSIONS = list(_sessions())


@pytest.mark.parametrize("session", SESSIONS)
def test_the_approximate_count_is_langchains_to_the_token(session):
    messages = [to_langchain(m) for m in session.messages]
    assert sum(langchain_approximate_tokens(m) for m in session.messages) == count_tokens_approximately(
        messages
    )
    assert [langchain_approximate_tokens(m) for m in session.messages] == [
        count_tokens_approximately([m]) for m in messages
    ]


SETTINGS = [
    dict(trigger=1_000, keep=3, clear_at_least=0, clear_tool_inputs=False),
    dict(trigger=1_000, keep=0, clear_at_least=0, clear_tool_inputs=True),
    dict(trigger=2_000, keep=1, clear_at_least=600, clear_tool_inputs=False),
    dict(trigger=1_500, keep=2, clear_at_least=10**6, clear_tool_inputs=True, exclude_tools=["bash"]),
]


def sent(message) -> tuple:
    """What a request carries of a LangChain message (content, and a call's arguments)."""
    calls = tuple((c["id"], c["name"], c["args"]) for c in getattr(message, "tool_calls", []))
    return (type(message).__name__, message.content, calls)


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("session", SESSIONS)
def test_context_editing_sends_what_langchain_sends_every_turn(session, settings):
    """ContextEditingMiddleware(edits=[ClearToolUsesEdit(...)]) of the pinned langchain."""
    result = replay(session, [PolicySpec("ClearToolUsesPolicy", {**settings, "flavour": "langchain"})])
    pinned = len(standing_rules(session.messages))
    edit = ClearToolUsesEdit(**settings)
    cleared = 0
    for turn in result.turns:
        # the agent's state at this call: the whole history (the edit is ephemeral)
        state = [to_langchain(m) for m in session.messages[pinned : turn.reply_index]]
        edit.apply(state, count_tokens=count_tokens_approximately)
        ours = [sent(to_langchain(m)) for m in turn.context]
        assert ours == [sent(m) for m in state], f"turn {turn.number}"
        cleared += sum(m.content == "[cleared]" for m in state)
    if settings["trigger"] <= 1_000:
        assert cleared > 0 or len(result.turns) < 3 or session.tool_calls < 4


@pytest.mark.parametrize("session", SESSIONS)
def test_the_cut_point_search_is_langchains(session):
    messages = list(session.messages)
    converted = [to_langchain(m) for m in messages]
    for cut in range(len(messages) + 1):
        assert langchain_safe_cutoff(messages, cut) == SummarizationMiddleware._find_safe_cutoff_point(
            converted, cut
        ), f"cut {cut}"


SUMMARIZATION = [
    ({"trigger_tokens": 3_000, "keep_value": 6}, {"trigger": ("tokens", 3_000), "keep": ("messages", 6)}),
    ({"trigger_messages": 12, "keep_value": 4}, {"trigger": ("messages", 12), "keep": ("messages", 4)}),
    (
        {"trigger_tokens": 2_500, "keep_kind": "tokens", "keep_value": 1_200},
        {"trigger": ("tokens", 2_500), "keep": ("tokens", 1_200)},
    ),
    (
        {
            "trigger_tokens": 2_000,
            "trigger_messages": 10,
            "trigger_mode": "all",
            "keep_kind": "fraction",
            "keep_value": 0.01,
        },
        {"trigger": {"tokens": 2_000, "messages": 10}, "keep": ("fraction", 0.01)},
    ),
    (
        {"trigger_fraction": 0.02, "trigger_messages": 30, "keep_value": 8},
        {"trigger": [("fraction", 0.02), ("messages", 30)], "keep": ("messages", 8)},
    ),
]


@pytest.mark.parametrize(("ours", "theirs"), SUMMARIZATION, ids=lambda s: str(s)[:60])
@pytest.mark.parametrize("session", SESSIONS)
def test_summarization_fires_and_cuts_where_langchain_does_every_turn(session, ours, theirs):
    """SummarizationMiddleware's trigger and cut, on the state as it stands before each call
    (the previous request, written back, and what arrived since); its usage scaling needs a
    provider's reply metadata, which a replay has not, so both run without it."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    settings = Settings()
    model = FakeListChatModel(responses=["unused"], profile={"max_input_tokens": settings.context_window})
    middleware = SummarizationMiddleware(model=model, **theirs)
    stack = [PolicySpec("LangChainSummarizationPolicy", {**ours, "use_reported_usage": False})]
    result = replay(session, stack, settings)
    # where the playground refused a summary (longer than what it replaces), nothing changed
    refused = {e.turn for e in result.events if e.action == "summary_failed"}
    pinned = len(standing_rules(session.messages))
    before: list[Message] = []
    last = pinned
    fired = 0
    for turn in result.turns:
        before = [*before, *session.messages[last : turn.reply_index]]
        last = turn.reply_index
        state = [to_langchain(m) for m in before]
        cutoff = 0
        if middleware._should_summarize(state, middleware.token_counter(state)):
            cutoff = middleware._determine_cutoff_index(state)
        if cutoff > 0 and turn.number in refused:
            assert list(turn.context) == before
        elif cutoff > 0:
            fired += 1
            summary = turn.context[0]
            assert summary.content.startswith("Here is a summary of the conversation to date:\n\n")
            assert summary.compacted_count == cutoff, f"turn {turn.number}"
            assert list(turn.context[1:]) == before[cutoff:], f"turn {turn.number}"
        else:
            assert list(turn.context) == before, f"turn {turn.number}: we summarized, LangChain did not"
        before = list(turn.context)
    if len(session.messages) > 40:
        assert fired > 0


def with_usage(message, total: int | None):
    """A LangChain message as an agent's state holds it: each reply with its call's usage."""
    if total is None:
        return message
    usage = {"input_tokens": total - 10, "output_tokens": 10, "total_tokens": total}
    return message.model_copy(
        update={"usage_metadata": usage, "response_metadata": {"model_provider": "openai"}}
    )


def reported_totals(messages: list[Message]) -> list[int | None]:
    """A reported total for every reply, growing as a conversation's would, and above the estimate."""
    totals, running = [], 0
    for i, message in enumerate(messages):
        running += langchain_approximate_tokens(message)
        totals.append(int(running * 1.4) + 7 * i if message.role == "assistant" else None)
    return totals


@pytest.mark.parametrize("budget", [1, 60, 400, 1_000, 4_000])
@pytest.mark.parametrize("session", SESSIONS)
def test_the_summary_trim_keeps_what_langchain_keeps(session, budget):
    """_trim_messages_for_summary's trim_messages(strategy="last", allow_partial=True,
    start_on="human", include_system=True) with the usage-scaled counter, on every head."""
    counter = __import__("functools").partial(count_tokens_approximately, use_usage_metadata_scaling=True)
    messages = list(session.messages)
    totals = reported_totals(messages)
    partial = 0
    for cut in range(1, len(messages) + 1):
        head = messages[:cut]
        theirs = trim_messages(
            [with_usage(to_langchain(m), t) for m, t in zip(head, totals[:cut], strict=True)],
            max_tokens=budget,
            token_counter=counter,
            start_on="human",
            strategy="last",
            allow_partial=True,
            include_system=True,
        )
        ours = langchain_trim_last(
            head, budget, [langchain_approximate_tokens(m) for m in head], totals[:cut]
        )
        assert [sent(to_langchain(m)) for m in ours] == [sent(m) for m in theirs], f"cut {cut}"
        whole = {id(m) for m in head}
        partial += any(id(m) not in whole for m in ours)
    long_tasks = [
        m
        for m in messages
        if m.role == "user"
        and langchain_approximate_tokens(m) > budget
        and len(m.content.split("\n")[-1]) < budget
    ]
    if long_tasks:  # a task too long to read whole is read in part
        assert partial > 0


@pytest.mark.parametrize("session", SESSIONS)
def test_the_scaled_count_is_langchains(session):
    messages = list(session.messages)
    totals = reported_totals(messages)
    converted = [with_usage(to_langchain(m), t) for m, t in zip(messages, totals, strict=True)]
    counts = [langchain_approximate_tokens(m) for m in messages]
    for end in range(len(messages) + 1):
        assert langchain_scaled_count(counts[:end], totals[:end]) == count_tokens_approximately(
            converted[:end], use_usage_metadata_scaling=True
        ), f"first {end}"
        reversed_part = slice(None, None, -1)
        assert langchain_scaled_count(counts[:end][reversed_part], totals[:end][reversed_part]) == (
            count_tokens_approximately(converted[:end][::-1], use_usage_metadata_scaling=True)
        )


def test_a_summary_longer_than_what_it_replaces_is_written_as_langchain_writes_it():
    """Issue 47, 1: system, "Hi!", "Hello.", "Change my flight.", "Done." with a trigger of 3
    messages and 1 kept: LangChain summarizes before "Done." and sends the summary then "Change
    my flight."; the playground did not (its summary was longer than the two messages it replaced)."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from tests.builders import make_session

    session = make_session(
        Message(role="system", content="You are a travel agent."),
        Message(role="user", content="Hi!"),
        Message(role="assistant", content="Hello."),
        Message(role="user", content="Change my flight."),
        Message(role="assistant", content="Done."),
    )
    stack = [PolicySpec("LangChainSummarizationPolicy", {"trigger_messages": 3, "keep_value": 1})]
    result = replay(session, stack, Settings())
    assert not [e for e in result.events if e.action == "summary_failed"]
    last = result.turns[-1].context  # the working context: the system prompt is pinned apart
    assert last[0].content.startswith("Here is a summary of the conversation to date:\n\n")
    assert [m.content for m in last[1:]] == ["Change my flight."]
    pinned = len(standing_rules(session.messages))
    # LangChain's own middleware on the same state cuts at the same message
    model = FakeListChatModel(responses=["unused"], profile={"max_input_tokens": 128_000})
    middleware = SummarizationMiddleware(model=model, trigger=("messages", 3), keep=("messages", 1))
    state = [to_langchain(m) for m in session.messages[pinned:4]]
    assert middleware._should_summarize(state, middleware.token_counter(state))
    assert middleware._determine_cutoff_index(state) == last[0].compacted_count == 2
