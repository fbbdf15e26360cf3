import math

import pytest

from playground.engine.tokens import TokenCounter
from policies import ClearToolUsesPolicy
from policies.base import ParamError
from policies.estimates import langchain_approximate_tokens
from policies.messages import STUB, Message
from tests.builders import assistant, call, compile_event, numbered, result, user

COUNTER = TokenCounter("gpt-4")


def session(n=5, size=2000):
    out = [user("go")]
    for k in range(n):
        name = "read_file" if k % 2 else "search"
        out += [
            assistant(f"step {k}", call(f"c{k}", name, f'{{"q": "{k}"}}')),
            result(f"c{k}", f"{k} " + "data " * (size // 5), name=name),
        ]
    return numbered(out)


def event(**changes):
    return compile_event(counter=COUNTER, **changes)


def cleared(out):
    return [m.tool_call_id for m in out if m.kind == STUB]


def test_nothing_below_the_trigger():
    assert ClearToolUsesPolicy(trigger=100_000).on_compile(event(), session()) is None


def test_clears_oldest_results_beyond_keep_with_the_placeholder():
    ev = event()
    out = ClearToolUsesPolicy(trigger=1_000, keep=2).on_compile(ev, session())
    assert cleared(out) == ["c0", "c1", "c2"]
    assert out[2].content == "[cleared]" and out[2].tool_call_ids == ("c0",)
    assert ev.actions[0].action == "stub" and "tokens freed" in ev.actions[0].detail


def test_anthropic_clear_at_least_is_all_or_nothing():
    one = COUNTER.count(session()[2]) - COUNTER.count(session()[2].replace(content="[cleared]"))
    out = ClearToolUsesPolicy(trigger=1_000, keep=0, clear_at_least=one + 1).on_compile(event(), session())
    assert cleared(out) == ["c0", "c1", "c2", "c3", "c4"]  # enough in all: everything goes


def test_anthropic_clear_at_least_skips_when_it_cannot_free_enough():
    ev = event()
    assert (
        ClearToolUsesPolicy(trigger=1_000, keep=4, clear_at_least=1_000_000).on_compile(ev, session()) is None
    )
    assert ev.actions[0].action == "skip" and "under clear_at_least" in ev.actions[0].detail


def test_langchain_stops_once_clear_at_least_is_reclaimed_by_its_own_estimate():
    first = session()[2]
    one = langchain_approximate_tokens(first) - langchain_approximate_tokens(
        first.replace(content="[cleared]")
    )
    policy = ClearToolUsesPolicy(trigger=1_000, keep=0, clear_at_least=one + 1, flavour="langchain")
    assert cleared(policy.on_compile(event(), session())) == ["c0", "c1"]
    # never reaching it, LangChain keeps what it cleared (no all-or-nothing)
    greedy = ClearToolUsesPolicy(trigger=1_000, keep=3, clear_at_least=10**6, flavour="langchain")
    assert cleared(greedy.on_compile(event(), session())) == ["c0", "c1"]


def test_langchain_counts_the_messages_alone_anthropic_the_whole_request():
    messages = session(n=2, size=5000)
    tokens = sum(langchain_approximate_tokens(m) for m in messages)
    pinned = (Message("system", "rules " * 2_000),)
    ev = dict(pinned=pinned, context_tokens=COUNTER.total(pinned) + COUNTER.total(messages))
    langchain = ClearToolUsesPolicy(trigger=tokens + 10, keep=0, flavour="langchain")
    anthropic = ClearToolUsesPolicy(trigger=tokens + 10, keep=0)
    assert langchain.on_compile(event(**ev), messages) is None  # the system prompt is not in state
    assert cleared(anthropic.on_compile(event(**ev), messages)) == ["c0", "c1"]
    assert cleared(langchain.on_compile(event(**ev), messages * 2)) != []


def test_the_langchain_estimate_is_count_tokens_approximately():
    # by hand from langchain-core 1.8.4: ceil(chars / 4) + 3 per message
    reply = assistant("", call("c1", "search", '{"q": "x"}'))
    calls = "[{'name': 'search', 'args': {'q': 'x'}, 'id': 'c1', 'type': 'tool_call'}]"
    assert langchain_approximate_tokens(reply) == math.ceil((len(calls) + len("assistant")) / 4) + 3
    answer = result("c1", "found it", name="search")
    assert langchain_approximate_tokens(answer) == math.ceil((8 + 2 + 4 + 6) / 4) + 3


def test_a_reused_call_id_pairs_a_result_with_the_nearest_call_before_it():
    messages = numbered(
        [
            user("go"),
            assistant("a", call("c1", "search", '{"q": "first"}')),
            result("c1", "one " * 500, name="search"),
            assistant("b", call("c1", "search", '{"q": "second"}')),  # the id again
            result("c1", "two " * 500, name="search"),
            assistant("c", call("c2", "search", '{"q": "third"}')),
            result("c2", "three " * 500, name="search"),
        ]
    )
    for flavour in ("anthropic", "langchain"):
        policy = ClearToolUsesPolicy(trigger=1_000, keep=2, clear_tool_inputs=True, flavour=flavour)
        out = policy.on_compile(event(), messages)
        assert cleared(out) == ["c1"] and out[2].kind == STUB
        assert out[1].tool_calls[0].arguments == "{}"
        assert out[3].tool_calls[0].arguments == '{"q": "second"}'  # the later call keeps its arguments


def test_langchain_clears_only_where_the_nearest_assistant_message_made_the_call():
    messages = numbered(
        [
            user("go"),
            assistant("a", call("c1", "search")),
            assistant("thinking aloud"),  # nearest to the result, and it made no call
            result("c1", "one " * 800, name="search"),
            assistant("b", call("c2", "search")),
            result("c2", "two " * 800, name="search"),
        ]
    )
    assert (
        ClearToolUsesPolicy(trigger=1_000, keep=1, flavour="langchain").on_compile(event(), messages) is None
    )
    assert cleared(ClearToolUsesPolicy(trigger=1_000, keep=1).on_compile(event(), messages)) == ["c1"]


def test_a_result_another_policy_stubbed_is_left_as_it_is():
    messages = session()
    messages[2] = messages[2].replace(content="[pointer: read again]", kind=STUB)
    ev = event()
    out = ClearToolUsesPolicy(trigger=1_000, keep=2).on_compile(ev, messages)
    assert out[2].content == "[pointer: read again]" and cleared(out) == ["c0", "c1", "c2"]
    assert "2 tool result(s)" in ev.actions[0].detail


def test_it_is_ephemeral_unless_told_otherwise():
    assert ClearToolUsesPolicy().persistence == "ephemeral"
    assert ClearToolUsesPolicy(persistence="persistent").persistence == "persistent"
    with pytest.raises(ParamError, match="persistence must be one of persistent, ephemeral"):
        ClearToolUsesPolicy(persistence="sometimes")
    with pytest.raises(ParamError, match="flavour must be one of anthropic, langchain"):
        ClearToolUsesPolicy(flavour="openai")


def test_excluded_tools_are_never_cleared():
    out = ClearToolUsesPolicy(trigger=1_000, keep=0, exclude_tools=["read_*"]).on_compile(event(), session())
    assert cleared(out) == ["c0", "c2", "c4"]


def test_clear_tool_inputs_blanks_the_calls_arguments():
    out = ClearToolUsesPolicy(trigger=1_000, keep=4, clear_tool_inputs=True).on_compile(event(), session())
    assert out[1].tool_calls[0].arguments == "{}"
    assert out[3].tool_calls[0].arguments == '{"q": "1"}'


def test_custom_placeholder_and_idempotence():
    policy = ClearToolUsesPolicy(trigger=1_000, keep=1, placeholder="[gone]")
    once = policy.on_compile(event(), session())
    assert {m.content for m in once if m.kind == STUB} == {"[gone]"}
    assert policy.on_compile(event(), once) is None


def test_anthropic_can_trigger_on_the_number_of_tool_uses():
    policy = ClearToolUsesPolicy(trigger=4, trigger_type="tool_uses", keep=1)
    assert policy.on_compile(event(), session(n=4)) is None  # 4 uses: not over 4
    assert cleared(policy.on_compile(event(), session(n=5))) == ["c0", "c1", "c2", "c3"]
    with pytest.raises(ParamError, match="tool_uses is Anthropic's"):
        ClearToolUsesPolicy(trigger_type="tool_uses", flavour="langchain")


@pytest.mark.parametrize(
    "settings",
    [
        {"trigger": 3_000, "keep": 1},
        {"trigger": 3_000, "keep": 1, "clear_at_least": 900},
        {"trigger": 3, "keep": 1, "trigger_type": "tool_uses"},
        {"trigger": 2_500, "keep": 1, "flavour": "langchain", "clear_at_least": 400},
        {"trigger": 1_000, "keep": 0, "exclude_tools": ["search"]},
    ],
)
def test_a_history_another_policy_rewrote_in_place_gives_what_a_fresh_pass_gives(settings):
    # a persistent policy before this one stubs old results in the stored history, so each
    # history given holds replaced messages as well as new ones: the pass that goes on from
    # the last one must agree with one that sees the whole history for the first time
    whole = session(n=8, size=1200)
    policy = ClearToolUsesPolicy(**settings)
    history = []
    for turn, end in enumerate(range(3, len(whole) + 1, 2), start=1):
        history = history + whole[len(history) : end]
        if turn % 2 == 0:  # the other policy stubs the oldest result it has not stubbed yet
            at = next((i for i, m in enumerate(history) if m.is_tool_result and m.kind != STUB), None)
            if at is not None:
                history[at] = history[at].replace(content="[stubbed upstream]", kind=STUB)
        out = policy.on_compile(event(turn=turn), list(history))
        assert out == ClearToolUsesPolicy(**settings).on_compile(event(turn=turn), list(history)), turn


@pytest.mark.parametrize("rewrite", ["renamed", "folded"])
def test_a_result_rewritten_in_place_after_it_was_passed_over_is_looked_at_again(rewrite):
    whole = session(n=3, size=1200)
    policy = ClearToolUsesPolicy(trigger=100, keep=0, exclude_tools=["search"])
    history = whole[:5]  # two results; the first, from the excluded tool, passed over
    assert cleared(policy.on_compile(event(), list(history))) == ["c1"]
    policy = ClearToolUsesPolicy(trigger=100, keep=0, exclude_tools=["search"])
    history = whole[:3]
    assert policy.on_compile(event(), list(history)) is None  # nothing cleared yet
    if rewrite == "renamed":  # now a result of a tool it may clear
        history[2] = history[2].replace(name="read_file")
        expected = ["c0", "c1"]
    else:  # no longer a tool result at all
        history[2] = Message("user", "(an earlier result, folded)")
        expected = ["c1"]
    out = policy.on_compile(event(turn=2), history + whole[3:5])
    assert cleared(out) == expected
