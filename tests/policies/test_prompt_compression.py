from policies import PromptCompressionPolicy
from policies.messages import SUMMARY, Message
from tests.builders import (
    CharCounter,
    FixedSummarizer,
    assistant,
    call,
    compile_event,
    numbered,
    result,
    system,
    tool_loop,
    user,
)


def Fixed(reply: str = "short summary") -> FixedSummarizer:
    return FixedSummarizer(reply)


def chat(turns: int, size: int = 400) -> list[Message]:
    out = []
    for k in range(turns):
        out += [user(f"q{k} " + "x" * size), assistant(f"a{k} " + "y" * size)]
    return numbered(out)


def event(window: int, summarizer=None, **changes):
    return compile_event(context_window=window, summarizer=summarizer or Fixed(), **changes)


def tokens(messages):
    """selectools' estimate with the test counter: each message's text plus 4."""
    return sum(CharCounter().content(m) + 4 for m in messages)


def test_fires_at_the_fill_rate_threshold_not_below():
    messages = chat(6)
    total = tokens(messages)
    policy = PromptCompressionPolicy(compress_threshold=0.5, compress_keep_recent=2)
    assert policy.on_compile(event(window=int(total / 0.49)), messages) is None  # fill 0.49
    out = policy.on_compile(event(window=total * 2), messages)  # fill exactly 0.5
    assert out is not None


def test_keeps_the_last_n_turns_verbatim_and_writes_one_compressed_system_message():
    messages = chat(6)
    summarizer = Fixed()
    ev = event(window=100, summarizer=summarizer)
    out = PromptCompressionPolicy(compress_threshold=0.75, compress_keep_recent=2).on_compile(ev, messages)
    assert out[0].role == "system" and out[0].kind == SUMMARY
    assert out[0].content == "[Compressed context] short summary"
    assert out[1:] == messages[-4:]  # 2 turns = 4 messages
    assert out[0].compacted_count == 8 and out[0].source == tuple(range(8))
    system_prompt, transcript = summarizer.calls[0]
    assert system_prompt == "You are a concise summarizer."
    assert transcript.startswith("Summarize the following conversation excerpt in 3-5 sentences.")
    compact = next(a for a in ev.actions if a.action == "compact")
    assert compact.detail.startswith("Compressed 8 messages: ")


def test_system_messages_are_kept_and_moved_ahead_of_the_summary():
    reminder = system("Reminder: be brief.")
    messages = numbered([*chat(3)[:4], reminder, *chat(3)[4:]])
    out = PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=1).on_compile(
        event(window=100), messages
    )
    assert out[0].content == "Reminder: be brief."
    assert out[1].content.startswith("[Compressed context]")
    assert all(m.role != "system" for m in out[2:])


def test_skips_when_fewer_than_two_messages_are_eligible():
    messages = chat(2)[:3]  # 3 non-system messages, keep 2 → 1 eligible
    ev = event(window=10)
    assert (
        PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=1).on_compile(ev, messages)
        is None
    )
    assert [a.action for a in ev.actions] == ["skip"]


def test_nothing_to_do_when_everything_is_recent():
    messages = chat(2)
    assert (
        PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=2).on_compile(
            event(window=10), messages
        )
        is None
    )


def test_keep_recent_zero_still_keeps_the_current_message():
    messages = chat(3)
    out = PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=0).on_compile(
        event(window=10), messages
    )
    assert out[-1] is messages[-1]


def test_a_failed_or_empty_summary_skips():
    messages = chat(6)
    for summarizer in (Fixed(""), None):
        ev = compile_event(context_window=10, summarizer=summarizer)
        assert (
            PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=1).on_compile(ev, messages)
            is None
        )
        assert [a.action for a in ev.actions] == ["summary_failed"]


def test_the_split_may_break_a_tool_pair_as_selectools_does():
    from playground.engine.validity import ORPHAN_RESULT, check_request

    # keep_recent=1 → 2 messages: [result(c2), assistant] — the result's call is compressed away
    messages = numbered([user("go"), *tool_loop(3, 200), assistant("done")])
    out = PromptCompressionPolicy(compress_threshold=0.1, compress_keep_recent=1).on_compile(
        event(window=10), messages
    )
    assert out[1].is_tool_result
    assert [v.rule for v in check_request(out)] == [ORPHAN_RESULT]
    assert result("c2").tool_call_ids == out[1].tool_call_ids


def test_fill_is_estimated_as_selectools_does_text_plus_four_and_tool_schemas_not_call_arguments():
    messages = numbered(
        [user("q " + "x" * 400), assistant("", call("c1", "run", '{"cmd": "' + "z" * 4000 + '"}'))]
    )
    messages += numbered([result("c1", "ok"), user("next")])
    estimate = tokens(messages)  # the 4,000-character arguments count for nothing
    policy = PromptCompressionPolicy(compress_threshold=0.5, compress_keep_recent=0)
    assert policy.on_compile(event(window=estimate * 2 + 2), messages) is None
    assert policy.on_compile(event(window=estimate * 2), messages) is not None
    schema = {"name": "run", "description": "d" * 400}
    with_tools = event(window=estimate * 2 + 2, tools=(schema,))  # the schema tips it over
    assert policy.on_compile(with_tools, messages) is not None
    pinned = event(window=estimate * 2 + 2, pinned=(system("s" * 40),))  # so does the system prompt
    assert policy.on_compile(pinned, messages) is not None


def test_the_summarizer_reads_role_content_lines_as_selectools_renders_them():
    summarizer = Fixed()
    messages = numbered([user("fix it"), assistant("looking", call("c1", "run", '{"cmd": "ls"}'))])
    messages += numbered([result("c1", "a.py"), assistant("done"), user("thanks")])
    PromptCompressionPolicy(compress_threshold=0.05, compress_keep_recent=0).on_compile(
        event(window=100, summarizer=summarizer), messages
    )
    transcript = summarizer.calls[0][1].split("\n\n", 1)[1]
    assert transcript == "USER: fix it\nASSISTANT: looking\nTOOL: a.py\nASSISTANT: done"


def test_it_runs_once_per_user_turn():
    assert PromptCompressionPolicy().timing == "per_turn"
