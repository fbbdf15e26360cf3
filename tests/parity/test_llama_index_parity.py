"""LlamaIndex's own ChatMemoryBuffer, given our sessions turn by turn, against our emulation."""

from __future__ import annotations

import pytest

from playground.engine.replay import Settings, replay, standing_rules
from policies.registry import PolicySpec
from tests.parity.conftest import require
from tests.parity.test_langchain_parity import SESSIONS

pytestmark = pytest.mark.parity
require("llama-index-core")

from llama_index.core.base.llms.types import ChatMessage  # noqa: E402
from llama_index.core.memory import ChatMemoryBuffer, ChatSummaryMemoryBuffer  # noqa: E402


@pytest.mark.parametrize("token_limit", [500, 2_000])
@pytest.mark.parametrize("session", SESSIONS)
@pytest.mark.parametrize("model", ["gpt-4", "gpt-4o"])  # it counts with cl100k_base whatever the model
def test_the_view_is_the_one_chat_memory_buffer_returns_every_turn(session, token_limit, model):
    result = replay(
        session, [PolicySpec("ChatMemoryBufferPolicy", {"token_limit": token_limit})], Settings(model)
    )
    pinned = len(standing_rules(session.messages))
    cut = 0
    for turn in result.turns:
        history = session.messages[pinned : turn.reply_index]
        memory = ChatMemoryBuffer.from_defaults(
            chat_history=[ChatMessage(role=m.role, content=m.content) for m in history],
            token_limit=token_limit,
        )
        kept = len(memory.get())
        assert [id(m) for m in turn.context] == [id(m) for m in history[len(history) - kept :]], (
            f"turn {turn.number}"
        )
        cut += kept < len(history)
    assert cut > 0  # the buffer did cut something: the comparison means something


def test_texts_whose_whitespace_meets_across_the_joining_space_are_counted_as_joined():
    from tests.builders import assistant, call, make_session, result, user

    texts = ["find it \n", " \n\nlooking", "", "  ", "\tdone\n\n", "\n ok", "12", " 345 ", "'s it"]
    messages = [user(texts[0])]
    for n, text in enumerate(texts[1:]):
        messages += [assistant(text, call(f"c{n}")), result(f"c{n}", text), user(text)]
    messages.append(assistant("end"))
    session = make_session(*messages)
    history = list(session.messages[:-1])
    theirs = [ChatMessage(role=m.role, content=m.content) for m in history]
    full = len(ChatMemoryBuffer.from_defaults(chat_history=theirs, token_limit=10_000).get())
    assert full == len(history)
    for limit in range(1, 60):
        ours = replay(session, [PolicySpec("ChatMemoryBufferPolicy", {"token_limit": limit})]).turns[-1]
        kept = len(ChatMemoryBuffer.from_defaults(chat_history=theirs, token_limit=limit).get())
        assert [id(m) for m in ours.context] == [id(m) for m in history[len(history) - kept :]], limit


class _SameSummaries:
    """An LLM for LlamaIndex that answers a summary request as the replay's summarizer does,
    so both sides go on from the same summary text."""

    @staticmethod
    def make():
        from llama_index.core.base.llms.types import ChatResponse
        from llama_index.core.llms import MockLLM

        from playground.summaries.summarizers import ExtractiveSummarizer

        class SameSummaries(MockLLM):
            def chat(self, messages, **kwargs):
                system, transcript = (m.content for m in messages)
                text = ExtractiveSummarizer().summarize(system, transcript)
                return ChatResponse(message=ChatMessage(role="assistant", content=text))

        return SameSummaries()


def _theirs(message) -> ChatMessage:
    calls = [f"{c.name}({c.arguments})" for c in message.tool_calls]  # str() of each is what it quotes
    return ChatMessage(role=message.role, content=message.content, additional_kwargs={"tool_calls": calls})


@pytest.mark.parametrize("token_limit", [600, 2_000])
@pytest.mark.parametrize("session", SESSIONS)
def test_the_history_is_the_one_chat_summary_memory_buffer_keeps_every_turn(session, token_limit):
    from policies.llama_index import SUMMARY_PROMPT

    params = {"token_limit": token_limit}
    result = replay(session, [PolicySpec("ChatSummaryMemoryBufferPolicy", params)], Settings("gpt-4o"))
    memory = ChatSummaryMemoryBuffer.from_defaults(
        llm=_SameSummaries.make(), token_limit=token_limit, summarize_prompt=SUMMARY_PROMPT
    )
    seen = len(standing_rules(session.messages))
    summarized = 0
    for turn in result.turns:
        for message in session.messages[seen : turn.reply_index]:
            memory.put(_theirs(message))
        seen = turn.reply_index
        view = memory.get()
        assert [(m.role, m.content) for m in turn.context] == [
            (str(m.role.value), m.content) for m in view
        ], f"turn {turn.number}"
        summarized += any(m.kind == "summary" for m in turn.context)
    assert summarized > 0  # a summary was made: the comparison means something
