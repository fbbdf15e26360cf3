"""Letta's server summarizer, against letta==0.16.8's sliding-window and fallback code."""

import json

from playground.engine.replay import Settings, replay
from playground.engine.tokens import TokenCounter
from policies.letta import LettaSummarizerPolicy, letta_approximate_tokens
from policies.messages import SUMMARY
from policies.registry import PolicySpec
from tests.builders import (
    FixedSummarizer,
    assistant,
    compile_event,
    make_session,
    numbered,
    system,
    tool_loop,
    user,
)

SYSTEM = system("You are a helpful agent.")


def conversation(rounds=10, size=2_000):
    """A request, ``rounds`` tool calls of ``size`` characters each (assistant call, result)."""
    return numbered([user("Find the bug."), *tool_loop(rounds, size)])


def event(last_usage, window=20_000, **changes):
    return compile_event(
        counter=TokenCounter("gpt-4o"),
        last_usage=last_usage,
        context_window=window,
        pinned=(SYSTEM,),
        summarizer=changes.pop("summarizer", FixedSummarizer("what happened")),
        **changes,
    )


def test_it_waits_for_a_step_over_90_percent_of_the_window():
    assert LettaSummarizerPolicy().on_compile(event(18_000), conversation()) is None  # 90% exactly
    assert LettaSummarizerPolicy().on_compile(event(18_001), conversation()) is not None


def test_the_sliding_window_evicts_from_40_percent_snapped_back_to_an_assistant_message():
    messages = conversation(rounds=10, size=2_000)  # 21 messages; Letta's list has 22 with the system
    out = LettaSummarizerPolicy().on_compile(event(18_001), messages)
    # 0.3 + 0.1 of 22 is 8.8, rounded 9: Letta's index 9 is messages[8], a tool result; index 8
    # (messages[7]) is the nearest assistant message at or before it, and what follows fits
    assert out[1:] == messages[7:]
    kept = letta_approximate_tokens([SYSTEM, *messages[7:]])
    assert kept < 0.7 * 20_000  # the goal
    summary = out[0]
    assert summary.role == "user" and summary.kind == SUMMARY and summary.source == tuple(range(7))
    alert = json.loads(summary.content)
    assert alert["type"] == "system_alert"
    # Letta counts the summary among the kept messages: 22 before, 14 + 2 after, "6 hidden" of 7
    assert alert["message"] == (
        "Note: 6 messages from the beginning of the conversation have been hidden from view due to "
        "memory constraints.\nThe following is a summary of the previous messages:\n what happened"
    )
    assert alert["compaction_stats"] == {
        "trigger": "post_step_context_check",
        "context_tokens_before": 18_001,
        "context_tokens_after": kept,
        "context_window": 20_000,
        "messages_count_before": 22,
        "messages_count_after": 16,
    }


def test_the_cut_grows_by_tenths_until_what_is_kept_counts_under_the_goal():
    messages = conversation(rounds=10, size=5_000)
    out = LettaSummarizerPolicy().on_compile(event(9_001, window=10_000), messages)
    # 0.4, 0.5 and 0.6 keep messages[7:], [9:] and [11:]: over 7,000; 0.7 of 22 is 15.4, rounded
    # 15, snapped back to index 14 (messages[13], an assistant message)
    assert out[1:] == messages[13:]
    assert (
        letta_approximate_tokens([SYSTEM, *messages[13:]])
        < 7_000
        <= letta_approximate_tokens([SYSTEM, *messages[11:]])
    )


def test_a_last_message_too_big_to_keep_under_the_goal_is_summarized_with_everything():
    summarizer = FixedSummarizer("s")
    messages = numbered([user("Go."), *tool_loop(4, 500), assistant("Reading the log."), user("x" * 80_000)])
    out = LettaSummarizerPolicy().on_compile(event(18_001, summarizer=summarizer), messages)
    assert len(out) == 1 and out[0].source == tuple(range(len(messages)))
    assert json.loads(out[0].content)["message"].startswith(
        "Note: prior messages have been hidden from view due to conversation memory constraints."
    )
    assert len(summarizer.calls) == 1


def test_kept_messages_over_the_trigger_with_the_tools_are_summarized_too_and_the_first_summary_is_lost():
    summarizer = FixedSummarizer("s")
    tools = ({"name": "search", "description": "d" * 60_000, "parameters": {}},)  # ~19,500 tokens
    ev = event(18_001, summarizer=summarizer, tools=tools)
    messages = conversation(rounds=10, size=2_000)
    out = LettaSummarizerPolicy().on_compile(ev, messages)
    # the cut search counts the messages alone and stops at 0.4 (about 4,600, under the goal of
    # 14,000); with the tools what it keeps counts over the 18,000 trigger, so Letta summarizes
    # that as well and keeps only the second summary
    assert len(out) == 1 and len(summarizer.calls) == 2
    assert summarizer.calls[0][1] != summarizer.calls[1][1] and "step 3" in summarizer.calls[1][1]
    assert "first summary was dropped" in ev.actions[-1].detail


def test_with_its_defaults_on_a_long_session_it_compacts_and_the_context_falls_under_the_trigger():
    session = make_session(system("Rules."), user("go"), *tool_loop(40, 3_000), assistant("done"))
    result = replay(session, [PolicySpec("LettaSummarizerPolicy")], Settings(context_window=16_000))
    compactions = [e for e in result.events if e.action == "compact"]
    assert compactions and all("sliding_window" in e.detail for e in compactions)
    for e in compactions:  # each follows a step over 90% of the window and brings the next under it
        before = result.turns[e.turn - 2].context_tokens
        assert before > 14_400 and result.turns[e.turn - 1].context_tokens < before
