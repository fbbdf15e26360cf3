"""The emulations whose framework ships no pure function to run against (or not in the parity
extra): checked here against the rules their sources state."""

import pytest

from playground.engine.replay import Settings, replay
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from policies.adk import AdkSlidingWindowCompactionPolicy, AdkTokenCompactionPolicy
from policies.anthropic import AnthropicCompactionPolicy
from policies.base import ParamError
from policies.claude_code import CONTINUATION, ClaudeCodeAutoCompactPolicy, autocompact_threshold
from policies.langchain import SUMMARY_PREFIX, TOO_LONG, LangChainSummarizationPolicy
from policies.messages import CLIPPED, SUMMARY, Message
from policies.openai_agents import (
    SUMMARY_REQUEST,
    SummarizingSessionPolicy,
    ToolOutputTrimmerPolicy,
    TrimmingSessionPolicy,
)
from policies.registry import PolicySpec
from tests.builders import (
    FixedSummarizer,
    assistant,
    call,
    compile_event,
    make_session,
    numbered,
    result,
    system,
    tool_loop,
    user,
)

Fixed = FixedSummarizer


def two_tasks(size=900):
    return numbered(
        [
            user("first task"),
            assistant("", call("a1", "read")),
            result("a1", "A" * size, name=None),
            assistant("done one"),
            user("second task"),
            assistant("", call("b1", "grep")),
            result("b1", "B" * size),
            assistant("done two"),
            user("third task"),
        ]
    )


def test_tool_output_trimmer_previews_outputs_older_than_the_last_two_user_turns():
    messages = two_tasks()
    ev = compile_event()
    out = ToolOutputTrimmerPolicy().on_compile(ev, messages)
    # the boundary is the second user message from the end ("second task"): only a1 is old
    assert out[2].kind == CLIPPED and out[6] is messages[6]
    assert out[2].content == "[Trimmed: read output — 900 chars → 200 char preview]\n" + "A" * 200 + "..."
    assert ev.actions[0].action == "clip"
    # the name is the call's, whatever the result recorded; a tool not listed is left alone
    assert ToolOutputTrimmerPolicy(trimmable_tools=["grep"]).on_compile(compile_event(), messages) is None
    # a preview no shorter than the output is not worth it
    assert (
        ToolOutputTrimmerPolicy(max_output_chars=100, preview_chars=900).on_compile(compile_event(), messages)
        is None
    )


def test_tool_output_trimmer_never_trims_a_run_with_fewer_user_messages_than_recent_turns():
    single_task = numbered([user("fix it"), *tool_loop(6, 2_000)])
    assert ToolOutputTrimmerPolicy().on_compile(compile_event(), single_task) is None
    assert ToolOutputTrimmerPolicy().persistence == "ephemeral"


def test_trimming_session_keeps_the_last_turns_from_a_user_message_once_per_turn():
    messages = two_tasks()
    out = TrimmingSessionPolicy(max_turns=2).on_compile(compile_event(), messages)
    assert out == messages[4:]
    assert TrimmingSessionPolicy(max_turns=3).on_compile(compile_event(), messages) is None
    assert (
        TrimmingSessionPolicy().timing == "per_turn" and TrimmingSessionPolicy().persistence == "persistent"
    )


def test_claude_code_threshold_is_the_window_less_33000_and_the_override_only_lowers_it():
    assert autocompact_threshold(200_000) == 167_000  # 83.5% of 200K
    assert autocompact_threshold(200_000, 50) == 90_000  # half the effective 180K
    assert autocompact_threshold(200_000, 99) == 167_000  # never raised
    assert autocompact_threshold(1_000_000) == 967_000


def test_claude_code_in_a_window_too_small_for_its_formula_never_compacts_and_says_so():
    session = make_session(system("Rules."), user("go"), *tool_loop(10, 3_000), assistant("done"))
    result = replay(session, [PolicySpec("ClaudeCodeAutoCompactPolicy")], Settings(context_window=16_000))
    assert not [e for e in result.events if e.action == "compact"]
    skip = next(e for e in result.events if e.action == "skip")
    assert skip.turn == 1 and "16,000-token window leaves no room" in skip.detail


def test_claude_code_replaces_the_whole_conversation_with_a_user_summary():
    summarizer = Fixed()
    messages = numbered([user("go"), *tool_loop(4, 400)])
    policy = ClaudeCodeAutoCompactPolicy()
    low = compile_event(context_window=200_000, summarizer=summarizer, context_tokens=166_999)
    assert policy.on_compile(low, messages) is None
    ev = compile_event(
        context_window=200_000, summarizer=summarizer, context_tokens=160_000, fixed_tokens=7_000
    )
    out = policy.on_compile(ev, messages)  # 167,000 with the tools: at the threshold
    assert len(out) == 1 and out[0].role == "user" and out[0].kind == SUMMARY
    assert out[0].content == CONTINUATION + "the summary" and out[0].compacted_count == len(messages)


def timed_session(gap_minutes: float):
    """Two tasks of 8 tool calls each, replies a minute apart, and ``gap_minutes`` idle between them."""
    messages = [system("Rules."), user("first task"), *tool_loop(8, 400, "a"), assistant("done one")]
    messages += [user("second task"), *tool_loop(8, 400, "b"), assistant("done two")]
    session = make_session(*messages)
    times, clock = {}, 1_790_000_000.0
    for i, m in enumerate(session.messages):
        if m.role == "assistant":
            clock += gap_minutes * 60 if session.messages[i - 1].content == "second task" else 60
            times[i] = clock
    return Session(session.name, session.format, session.messages, times=times)


def test_claude_code_microcompact_clears_all_but_the_last_5_results_after_an_idle_hour_and_only_then():
    session = timed_session(gap_minutes=75)
    result = replay(session, [PolicySpec("ClaudeCodeMicrocompactPolicy")])
    [event] = [e for e in result.events if e.action == "stub"]
    back = next(t for t in result.turns if session.messages[t.reply_index - 1].content == "second task")
    # the first task's 8 results are all the history holds when the agent comes back: 5 stay
    assert event.turn == back.number and "3 tool result(s) cleared after 75 idle minutes" in event.detail
    cleared = [m for m in back.context if m.kind == "stub"]
    assert [m.tool_call_id for m in cleared] == ["a0", "a1", "a2"]
    assert all(m.content == "[Old tool result content cleared]" for m in cleared)
    assert result.turns[-1].stubs_held == 3  # written back; no later gap clears more
    assert (
        replay(timed_session(gap_minutes=30), [PolicySpec("ClaudeCodeMicrocompactPolicy")]).events[0].action
        == "idle"
    )


def test_claude_code_microcompact_on_a_transcript_without_times_says_it_never_fires():
    session = make_session(system("Rules."), user("go"), *tool_loop(8, 400), assistant("done"))
    result = replay(session, [PolicySpec("ClaudeCodeMicrocompactPolicy")])
    assert [e.action for e in result.events] == ["skip", "idle"]
    assert "no reply times" in result.events[0].detail and result.turns[-1].stubs_held == 0


def test_langchain_summary_is_a_user_message_and_never_fires_without_a_trigger():
    messages = numbered([user("go"), *tool_loop(12, 400)])
    assert LangChainSummarizationPolicy().on_compile(compile_event(summarizer=Fixed()), messages) is None
    out = LangChainSummarizationPolicy(trigger_messages=5, keep_value=4).on_compile(
        compile_event(summarizer=Fixed()), messages
    )
    assert out[0].role == "user" and out[0].content == SUMMARY_PREFIX + "the summary"
    assert out[1:] == messages[-4:]


def test_langchain_summarizes_nothing_too_long_to_trim_without_a_model_call():
    summarizer = Fixed()
    messages = numbered([user("go " + "x" * 40_000), *tool_loop(3, 40_000)])
    policy = LangChainSummarizationPolicy(trigger_messages=2, keep_value=1, trim_tokens_to_summarize=100)
    out = policy.on_compile(compile_event(summarizer=summarizer), messages)
    assert out[0].content == SUMMARY_PREFIX + TOO_LONG and summarizer.calls == []


def test_langchain_summarizes_the_last_lines_of_a_task_too_long_to_read_whole():
    """One request: a long task, then tool calls. LangChain's trim keeps the task's last lines
    (allow_partial) where whole messages alone leave nothing to summarize."""
    summarizer = Fixed()
    task = "\n".join(f"line {i}: check module_{i} for the regression" for i in range(2_000))
    messages = numbered([user(task), *tool_loop(3, 400)])
    policy = LangChainSummarizationPolicy(trigger_messages=2, keep_value=1, trim_tokens_to_summarize=4_000)
    out = policy.on_compile(compile_event(summarizer=summarizer), messages)
    assert out[0].content == SUMMARY_PREFIX + "the summary"
    [(_, transcript)] = summarizer.calls
    assert "line 1999: check module_1999" in transcript and "line 0:" not in transcript
    assert transcript.startswith("user: line ")


def test_langchain_reported_usage_fires_a_token_trigger_its_estimate_is_under():
    messages = numbered([user("go"), *tool_loop(3, 400)])
    policy = LangChainSummarizationPolicy(trigger_tokens=5_000, keep_value=2)
    assert policy.on_compile(compile_event(summarizer=Fixed(), last_usage=1_000), messages) is None
    assert policy.on_compile(compile_event(summarizer=Fixed(), last_usage=6_000), messages) is not None
    off = LangChainSummarizationPolicy(trigger_tokens=5_000, keep_value=2, use_reported_usage=False)
    assert off.on_compile(compile_event(summarizer=Fixed(), last_usage=6_000), messages) is None


def test_a_fraction_keep_over_one_is_refused():
    with pytest.raises(ParamError, match="at most 1 for a fraction"):
        LangChainSummarizationPolicy(keep_kind="fraction", keep_value=20)


@pytest.mark.parametrize(
    "name",
    [
        "LangChainSummarizationPolicy",
        "ClaudeCodeAutoCompactPolicy",
        "ClaudeCodeMicrocompactPolicy",
        "ToolOutputTrimmerPolicy",
        "TrimmingSessionPolicy",
        "BufferedContextPolicy",
        "HeadAndTailContextPolicy",
        "TokenLimitedContextPolicy",
        "AnthropicCompactionPolicy",
        "SummarizingSessionPolicy",
        "AdkTokenCompactionPolicy",
        "AdkSlidingWindowCompactionPolicy",
        "LettaSummarizerPolicy",
        "ClearThinkingPolicy",
    ],
)
def test_every_emulation_replays_a_session_with_its_defaults(name):
    session = make_session(system("Rules."), user("go"), *tool_loop(30, 3_000), assistant("done"))
    result = replay(session, [PolicySpec(name)], Settings(context_window=16_000))
    assert len(result.turns) == 31
    assert any(e.policy == name for e in result.events)  # it acted, or said why it never did


def test_anthropic_server_compaction_replaces_the_conversation_with_an_assistant_block():
    messages = numbered([user("go"), *tool_loop(4, 400)])
    policy = AnthropicCompactionPolicy()
    assert policy.on_compile(compile_event(summarizer=Fixed(), context_tokens=150_000), messages) is None
    out = policy.on_compile(
        compile_event(summarizer=Fixed(), context_tokens=149_000, fixed_tokens=2_000), messages
    )
    assert [(m.role, m.kind, m.content) for m in out] == [("assistant", SUMMARY, "the summary")]
    with pytest.raises(ParamError, match="at least 50000"):
        AnthropicCompactionPolicy(trigger=10_000)


def test_summarizing_session_summarizes_before_the_last_turns_into_a_synthetic_exchange():
    messages = numbered([m for k in range(5) for m in (user(f"task {k}"), assistant(f"done {k}"))])
    summarizer = Fixed()
    policy = SummarizingSessionPolicy(keep_last_n_turns=2, context_limit=3)
    out = policy.on_compile(compile_event(summarizer=summarizer), messages)
    assert [(m.role, m.content) for m in out[:2]] == [("user", SUMMARY_REQUEST), ("assistant", "the summary")]
    assert out[2:] == messages[6:]
    # the synthetic user message is not a real turn: three real ones stay under the limit
    assert policy.on_compile(compile_event(summarizer=summarizer), out) is None
    assert policy.timing == "per_turn"


def test_adk_keeps_a_kept_responses_call_and_rolls_the_previous_summary_in():
    messages = numbered([user("go"), *tool_loop(6, 4_000)])
    summarizer = Fixed()
    policy = AdkTokenCompactionPolicy(token_threshold=1_000, event_retention_size=3)
    out = policy.on_compile(compile_event(summarizer=summarizer, last_usage=5_000), messages)
    assert out[0].role == "assistant" and out[0].kind == SUMMARY
    assert out[1:] == messages[-4:]  # 3 events, moved back one to the call of the first kept result
    assert "... [truncated 2000 chars]" in summarizer.calls[0][1]
    assert policy.on_compile(compile_event(summarizer=summarizer, last_usage=500), messages) is None
    # what it would remove is no longer than the previous summary: skipped
    small = [out[0].replace(content="s" * 50_000), *out[1:]]
    assert policy.on_compile(compile_event(summarizer=summarizer, last_usage=5_000), small) is None


def thinking_session():
    """Four assistant turns with thinking (one of them in a tool loop), recorded as Anthropic sends them."""
    messages = [user("Plan the trip.")]
    for n in range(4):
        messages += [
            Message(
                "assistant",
                f"Looking up leg {n}.",
                (call(f"t{n}", "search"),),
                thinking=f"leg {n}: " + "why " * 200,
            ),
            result(f"t{n}", f"leg {n} found"),
        ]
    messages.append(Message("assistant", "Booked.", thinking="all legs " + "done " * 200))
    return make_session(system("Rules."), *messages)


def test_clear_thinking_keeps_the_last_turns_thinking_in_each_request_and_the_history_whole():
    session = thinking_session()
    result = replay(session, [PolicySpec("ClearThinkingPolicy", {"keep_turns": 1})])
    last = result.turns[-1]
    with_thinking = [m for m in last.context if m.thinking]
    assert [m.content for m in with_thinking] == ["Looking up leg 3."]
    cleared = [m for m in last.context if m.role == "assistant" and not m.thinking]
    assert [m.kind for m in cleared] == ["clipped"] * 3 and cleared[0].tool_calls  # calls stay: valid
    assert all(m.thinking for m in session.messages if m.role == "assistant")  # the history keeps it
    # each turn's thinking is reported once, when first cleared; every later request sends the
    # same cleared objects, so the cached prefix holds up to the newly cleared one
    clips = [e for e in result.events if e.action == "clip"]
    assert [len(e.messages) for e in clips] == [1, 1, 1]
    assert last.context_tokens < replay(session, []).turns[-1].context_tokens
    for before, after in zip(result.turns[1:], result.turns[2:], strict=False):
        assert after.request[: after.shared] == before.request[: after.shared]


def test_clear_thinking_counts_thinking_as_tokens_of_the_message():
    counter = TokenCounter("gpt-4o")
    plain = Message("assistant", "Booked.")
    assert counter.count(plain.replace(thinking="because " * 50)) > counter.count(plain) + 40


def invocations(n: int, size: int = 600):
    """``n`` invocations: a user task, a tool call and its result, and a final answer."""
    messages = [system("Rules.")]
    for k in range(1, n + 1):
        messages += [
            user(f"task {k}"),
            assistant("", call(f"c{k}", "search")),
            result(f"c{k}", f"result {k} " * (size // 9)),
            assistant(f"answer {k}"),
        ]
    return make_session(*messages)


def test_adk_sliding_window_summarizes_1_2_then_2_4_and_the_request_shows_both_summaries():
    """ADK's docstring example: interval 2, overlap 1."""
    session = invocations(5)
    stack = [PolicySpec("AdkSlidingWindowCompactionPolicy", {"compaction_interval": 2, "overlap_size": 1})]
    result = replay(session, stack)
    raw = session.messages
    first_of = {k: raw.index(next(m for m in raw if m.content == f"task {k}")) for k in range(1, 6)}
    compactions = [e for e in result.events if e.action == "compact"]
    assert [e.detail.split(" (")[0] for e in compactions] == ["invocations 1–2", "invocations 2–4"]
    # each summary is made after its window's last invocation, at the next one's first request
    assert [e.turn for e in compactions] == [2 * 2 + 1, 4 * 2 + 1]
    # the second one covers invocation 2 again: its raw events, which the first summary had replaced
    assert compactions[1].messages == tuple(range(first_of[2], first_of[5]))
    request = result.turns[-1].context  # invocation 5's second request
    summaries = [m for m in request if m.kind == SUMMARY]
    assert len(summaries) == 2 and all(m.role == "assistant" for m in summaries)
    assert request[:2] == tuple(summaries) and request[2].content == "task 5"  # raw 1–4 dropped
    assert result.turns[-1].violations == ()


def test_adk_sliding_window_waits_for_completed_invocations_only():
    session = invocations(3)
    stack = [PolicySpec("AdkSlidingWindowCompactionPolicy", {"compaction_interval": 3, "overlap_size": 1})]
    result = replay(session, stack)  # the third invocation never completes before a request
    assert not [e for e in result.events if e.action == "compact"]


def test_adk_sliding_window_skips_a_window_that_saves_no_more_than_the_last_summary():
    """Driven as the engine drives it (written back, a compile before each reply), with a
    summarizer whose summaries outweigh two small invocations."""
    policy = AdkSlidingWindowCompactionPolicy(compaction_interval=2, overlap_size=1)
    summarizer = Fixed("s" * 3_000)
    stored, compacted = [], []
    for message in invocations(8, size=300).messages[1:]:  # the system prompt is pinned
        if message.role == "assistant":
            event = compile_event(summarizer=summarizer)
            out = policy.on_compile(event, list(stored))
            stored = stored if out is None else out
            compacted += [a.detail for a in event.actions if a.action == "compact"]
        stored.append(message)
    # the first summary is made; every later window would save less than its 3,000 characters
    assert compacted == ["invocations 1–2 (8 event(s)) summarized"] and len(summarizer.calls) == 1
