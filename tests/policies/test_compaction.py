import pytest

from policies import CompactionPolicy
from policies.messages import SUMMARY
from tests.builders import compile_event, numbered, tool_loop, user


class Recording:
    name = "recording"

    def __init__(self, reply="the summary"):
        self.reply = reply
        self.calls = []

    def summarize(self, system_prompt, transcript):
        self.calls.append(transcript)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def test_fires_on_last_usage_over_threshold_and_keeps_recent():
    messages = numbered([user("goal"), *tool_loop(5)])  # 11 messages
    summarizer = Recording()
    event = compile_event(last_usage=2_001, summarizer=summarizer)
    out = CompactionPolicy(max_input_tokens=2_000, keep_recent=4).on_compile(event, messages)
    assert out[0].kind == SUMMARY
    assert out[0].content == "[Summary of 7 earlier messages]\nthe summary"
    assert out[0].compacted_count == 7 and out[0].source == tuple(range(7))
    assert out[1:] == messages[7:]
    assert event.actions[0].action == "compact"


def test_does_not_fire_at_or_under_threshold():
    messages = tool_loop(5)
    event = compile_event(last_usage=2_000, summarizer=Recording())
    assert CompactionPolicy(max_input_tokens=2_000, keep_recent=2).on_compile(event, messages) is None


def test_falls_back_to_chars_over_four_without_usage():
    big = [user("x" * 4_004 * 2)]  # 8008 chars = 2002 tokens by chars/4
    messages = big + tool_loop(3)
    event = compile_event(last_usage=None, summarizer=Recording())
    assert CompactionPolicy(max_input_tokens=2_000, keep_recent=2).on_compile(event, messages)
    small = compile_event(last_usage=None, summarizer=Recording())
    assert CompactionPolicy(max_input_tokens=5_000, keep_recent=2).on_compile(small, messages) is None


def test_split_is_pair_safe():
    messages = tool_loop(4)  # [a0, r0, a1, r1, a2, r2, a3, r3]
    event = compile_event(last_usage=10**6, summarizer=Recording())
    out = CompactionPolicy(max_input_tokens=1_000, keep_recent=3).on_compile(event, messages)
    # keep_recent=3 would start the tail at r2; the cut advances to a3
    assert out[0].compacted_count == 6
    assert out[1:] == messages[6:]


def test_earlier_summaries_fold_into_the_next():
    summarizer = Recording()
    policy = CompactionPolicy(max_input_tokens=1_000, keep_recent=2)
    first = policy.on_compile(compile_event(last_usage=10**6, summarizer=summarizer), numbered(tool_loop(4)))
    grown = first + tool_loop(3, prefix="d")
    second = policy.on_compile(compile_event(last_usage=10**6, summarizer=summarizer), grown)
    assert sum(m.kind == SUMMARY for m in second) == 1
    assert summarizer.calls[1].startswith("assistant: [Summary of 6 earlier messages]")


@pytest.mark.parametrize("reply", [RuntimeError("boom"), "", "   "])
def test_a_failed_summary_skips_and_loses_nothing(reply):
    messages = tool_loop(4)
    event = compile_event(last_usage=10**6, summarizer=Recording(reply))
    assert CompactionPolicy(max_input_tokens=1_000, keep_recent=2).on_compile(event, messages) is None
    assert [a.action for a in event.actions] == ["summary_failed"]


def test_pyagentic_compacts_on_reported_usage_even_when_the_summary_is_longer_than_what_it_replaces():
    """Issue 47, 1: usage 5,000 then 5,020, max_input_tokens 1,000, keep_recent 1: pyagentic
    compacts at turn 2 whatever the summary's length; it has no refusal of its own."""
    from playground.engine.replay import Settings, replay
    from policies.messages import Message
    from policies.registry import PolicySpec
    from tests.builders import make_session

    session = make_session(
        Message(role="user", content="Hi!"),
        Message(role="assistant", content="Hello."),
        Message(role="user", content="Change my flight."),
        Message(role="assistant", content="Done."),
        usage={1: 5_000, 3: 5_020},
    )
    stack = [PolicySpec("CompactionPolicy", {"max_input_tokens": 1_000, "keep_recent": 1})]
    result = replay(session, stack, Settings(calibrate=False))
    compactions = [e.turn for e in result.events if e.action == "compact"]
    assert compactions == [2]
    assert not [e for e in result.events if e.action == "summary_failed"]
    assert result.turns[1].context[-1].content == "Change my flight."
