"""The coding agents' own policies (Codex CLI, opencode, Gemini CLI, Claude Code) against
their documented behaviour, and firing on the call where a recording shows the agent did."""

from __future__ import annotations

import json

import pytest

from playground.engine.replay import Settings, replay
from playground.formats import read_bytes, read_path
from policies.claude_code import autocompact_threshold
from policies.codex import (
    SUMMARY_PREFIX,
    CodexAutoCompactPolicy,
    approx_tokens,
    recent_user_messages,
    truncate_middle,
)
from policies.gemini_cli import ACKNOWLEDGEMENT, GeminiChatCompressionPolicy, split_point, to_budget
from policies.messages import CLIPPED, STUB, SUMMARY
from policies.opencode import CONTINUE, PRUNED, QUESTION, OpencodeCompactionPolicy, OpencodePrunePolicy
from policies.registry import PolicySpec
from tests.builders import (
    FixedSummarizer,
    assistant,
    call,
    compile_event,
    numbered,
    result,
    tool_loop,
    user,
)
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = sorted(SYNTHETIC.glob("*.json"))


def first_compaction(replayed) -> int | None:
    return next((e.turn for e in replayed.events if e.action == "compact"), None)


def turn_after(replayed, raw_index: int) -> int:
    """The turn of the first inference at or after raw message ``raw_index``."""
    return next(t.number for t in replayed.turns if t.reply_index >= raw_index)


# Codex CLI


def test_codex_limit_is_90_percent_of_the_window_and_a_configured_one_is_held_under_it():
    assert CodexAutoCompactPolicy().limit(272_000) == 244_800
    assert CodexAutoCompactPolicy(auto_compact_token_limit=100_000).limit(272_000) == 100_000
    assert CodexAutoCompactPolicy(auto_compact_token_limit=900_000).limit(272_000) == 244_800


def test_codex_compacts_on_the_previous_response_s_total_input_and_output():
    policy = CodexAutoCompactPolicy(auto_compact_token_limit=10_000)
    messages = numbered([user("Fix the parser."), *tool_loop(3, 400)])
    below = compile_event(summarizer=FixedSummarizer(), last_usage=9_950, last_output=49)
    assert policy.on_compile(below, messages) is None
    at = compile_event(summarizer=FixedSummarizer(), last_usage=9_950, last_output=50)
    assert policy.on_compile(at, messages) is not None
    assert policy.on_compile(compile_event(summarizer=FixedSummarizer()), messages) is None  # no call yet


def test_codex_keeps_the_context_messages_the_user_s_words_and_the_summary_behind_its_prefix():
    messages = numbered(
        [
            user("<environment_context>cwd=/repo</environment_context>"),
            user("Fix the parser."),
            *tool_loop(3, 400),
            user("Also add a test."),
            assistant("", call("z", "shell")),
            result("z", "ok"),
        ]
    )
    out = CodexAutoCompactPolicy(auto_compact_token_limit=1_000).on_compile(
        compile_event(summarizer=FixedSummarizer(), last_usage=5_000, last_output=10), messages
    )
    assert [m.content for m in out[:3]] == [messages[0].content, "Fix the parser.", "Also add a test."]
    assert out[3].role == "user" and out[3].kind == SUMMARY
    assert out[3].content == f"{SUMMARY_PREFIX}\nthe summary"
    assert len(out) == 4 and not any(m.tool_calls or m.is_tool_result for m in out)


def test_codex_keeps_recent_user_messages_up_to_its_budget_and_truncates_the_one_that_overflows():
    """codex's own test (build_token_limited_compacted_history_truncates_overlong_user_messages):
    "word " × 200 at 16 tokens is cut in the middle, with the count it removed."""
    big = "word " * 200
    [cut] = recent_user_messages([user(big)], 16)
    assert "tokens truncated" in cut.content and big not in cut.content and cut.kind == CLIPPED
    assert truncate_middle(big, 16).startswith("word word ") and approx_tokens(big) == 250
    older, newer = user("a" * 40_000), user("b" * 40_000)  # 10,000 tokens each at 4 bytes a token
    kept = recent_user_messages([user("c" * 400), older, newer], 20_000)
    assert [m.content for m in kept] == [older.content, newer.content]


def codex_rollout(inputs: list[int], compacted_after: int, window: int) -> bytes:
    """A Codex rollout of one task: a shell call per step, each step's token_count recording
    ``inputs[k]`` input and 50 output tokens, and the agent's own compaction after step
    ``compacted_after``."""
    lines = [
        {"type": "session_meta", "payload": {"id": "rollout-1", "cwd": "/repo", "cli_version": "0.58.0"}},
        {"type": "turn_context", "payload": {"model": "gpt-5.1-codex", "cwd": "/repo"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Fix the failing parser test."}]}},
    ]  # fmt: skip
    total = 0
    for k, prompt in enumerate(inputs):
        total += prompt + 50
        usage = {"input_tokens": prompt, "cached_input_tokens": 0, "output_tokens": 50,
                 "total_tokens": prompt + 50}  # fmt: skip
        cumulative = {**usage, "total_tokens": total}
        lines += [
            {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
             "arguments": json.dumps({"command": ["pytest", f"-k{k}"]}), "call_id": f"c{k}"}},
            {"type": "event_msg", "payload": {"type": "token_count", "info": {
                "last_token_usage": usage, "total_token_usage": cumulative, "model_context_window": window}}},
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{k}",
             "output": f"step {k}: " + "log line\n" * 300}},
        ]  # fmt: skip
        if k == compacted_after:
            summary = f"{SUMMARY_PREFIX}\nThe parser test fails on nested lists."
            lines.append({"type": "compacted", "payload": {"message": summary, "replacement_history": [
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "Fix the failing parser test."}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]},
            ]}})  # fmt: skip
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_codex_emulation_fires_on_the_call_after_the_one_whose_recorded_total_reached_the_limit():
    """At a 200,000-token window Codex compacts once a response's total reaches 180,000: the
    fourth call's 180,000 + 50. The emulation, replayed on the recording, compacts before
    the fifth call, where the rollout records the agent's own compaction."""
    inputs = [150_000, 160_000, 170_000, 180_000, 60_000, 70_000]
    [session] = read_bytes(codex_rollout(inputs, compacted_after=3, window=200_000), "rollout.jsonl")
    [recorded] = session.compactions
    replayed = replay(
        session,
        [PolicySpec("CodexAutoCompactPolicy")],
        Settings(model="gpt-5.1-codex", context_window=200_000),
    )
    assert first_compaction(replayed) == turn_after(replayed, recorded.at) == 5


# opencode


def test_opencode_usable_window_and_overflow_on_the_step_s_reported_tokens():
    policy = OpencodeCompactionPolicy()
    assert policy.usable(200_000) == 200_000 - 32_000 - 20_000  # output cap, then min(20,000, cap)
    assert OpencodeCompactionPolicy(reserved=5_000).usable(200_000) == 163_000
    messages = numbered([user("Add a flag."), *tool_loop(6, 400)])
    below = compile_event(
        summarizer=FixedSummarizer(), context_window=200_000, last_usage=147_000, last_output=999
    )
    assert policy.on_compile(below, messages) is None
    over = compile_event(
        summarizer=FixedSummarizer(), context_window=200_000, last_usage=147_000, last_output=1_000
    )
    assert policy.on_compile(over, messages) is not None


def test_opencode_summary_follows_its_question_keeps_a_recent_tail_and_asks_to_continue():
    messages = numbered(
        [
            user("First task."),
            *tool_loop(6, 2_000, "a"),
            assistant("done"),
            user("Second task."),
            *tool_loop(2, 400, "b"),
        ]
    )
    policy = OpencodeCompactionPolicy(preserve_recent_tokens=1_000)
    out = policy.on_compile(
        compile_event(summarizer=FixedSummarizer(), context_window=200_000, last_usage=190_000), messages
    )
    assert (out[0].role, out[0].content) == ("user", QUESTION)
    assert (out[1].role, out[1].kind, out[1].content) == ("assistant", SUMMARY, "the summary")
    second = next(i for i, m in enumerate(messages) if m.content == "Second task.")
    tail = out[2:-1]
    # the newest turn fits the 1,000-token tail whole; what is left of it takes the last step
    # of the turn before (split at its assistant message, never at a tool result)
    assert tail[-(len(messages) - second) :] == messages[second:] and len(tail) > len(messages) - second
    assert tail[0].role == "assistant" and tail == messages[len(messages) - len(tail) :]
    assert (out[-1].role, out[-1].content) == ("user", CONTINUE)


def test_opencode_splits_a_turn_that_does_not_fit_at_a_later_message_never_at_a_tool_result():
    messages = numbered([user("One long task."), *tool_loop(10, 2_000)])
    policy = OpencodeCompactionPolicy(preserve_recent_tokens=1_200)
    start = policy.tail_start(messages, 100_000)
    assert 1 < start < len(messages) and messages[start].role == "assistant"
    assert round(sum(len(m.content) + sum(len(c.name) + len(c.arguments) for c in m.tool_calls)
                     for m in messages[start:]) / 4) <= 1_200  # fmt: skip
    assert OpencodeCompactionPolicy(tail_turns=0).tail_start(messages, 100_000) == len(messages)


def test_opencode_prune_protects_the_newest_40000_tokens_of_outputs_and_the_last_two_turns():
    """Outputs of 20,000 tokens (80,000 characters): walking back from the turn before the
    last, two are protected (40,000) and the older ones cleared, as they free over 20,000."""
    big = "x" * 80_000
    turns = []
    for t in range(6):
        turns += [
            user(f"task {t}"),
            assistant("", call(f"t{t}", "bash")),
            result(f"t{t}", big),
            assistant("ok"),
        ]
    messages = numbered([*turns, user("task 6")])
    out = OpencodePrunePolicy().on_compile(compile_event(), messages)
    cleared = [m.tool_call_id for m in out if m.kind == STUB]
    # t5 (just answered) and t4 are the two turns it skips; t3 and t2 fill the 40,000 protected
    assert cleared == ["t0", "t1"] and all(m.content == PRUNED for m in out if m.kind == STUB)
    # five turns: t0 alone would be cleared, 20,000 tokens, not over PRUNE_MINIMUM
    assert OpencodePrunePolicy().on_compile(compile_event(), numbered([*turns[:20], user("task 5")])) is None


def test_opencode_prune_never_touches_skill_outputs_and_stops_at_an_output_pruned_before():
    big = "x" * 80_000
    messages = numbered(
        [
            user("a"), assistant("", call("s", "skill")), result("s", big, name="skill"), assistant("ok"),
            user("b"), assistant("", call("p", "bash")), result("p", PRUNED), assistant("ok"),
            user("c"), *[m for k in range(4) for m in (assistant("", call(f"k{k}", "bash")), result(f"k{k}", big))],
            assistant("ok"), user("d"), assistant("", call("z", "bash")), result("z", "ok"), assistant("ok"),
            user("e"), assistant("ok"), user("f"),
        ]
    )  # fmt: skip
    pruned_before = next(i for i, m in enumerate(messages) if m.tool_call_id == "p")
    messages[pruned_before] = messages[pruned_before].replace(kind=STUB)
    out = OpencodePrunePolicy().on_compile(compile_event(), messages)
    cleared = [m.tool_call_id for m in out if m.kind == STUB and m.tool_call_id != "p"]
    assert cleared == ["k0", "k1"]  # k3, k2 protected; the walk stops at p, so s is never reached


# Gemini CLI


def test_gemini_compresses_once_the_last_prompt_reaches_its_threshold_of_the_token_limit():
    policy = GeminiChatCompressionPolicy(token_limit=100_000)
    messages = numbered([user("Refactor."), *tool_loop(6, 800), assistant("done"), user("Now the docs.")])
    assert policy.on_compile(compile_event(summarizer=FixedSummarizer(), last_usage=49_999), messages) is None
    out = policy.on_compile(compile_event(summarizer=FixedSummarizer(), last_usage=50_000), messages)
    assert out[0].role == "user" and out[0].kind == SUMMARY
    assert (out[1].role, out[1].content) == ("assistant", ACKNOWLEDGEMENT)
    assert out[-1].content == "Now the docs."  # the pending message goes after the history


def test_gemini_splits_at_a_user_message_past_70_percent_of_the_characters():
    history = numbered(
        [user("a" * 100), assistant("b" * 100), user("c" * 500), assistant("d" * 100), user("e" * 100),
         assistant("", call("x")), result("x", "f" * 100)]
    )  # fmt: skip
    # characters (+20 each): 120, 120, 520, 120, 120, 21, 120 = 1,141; 70 % is 799: the user at 4
    assert split_point(history, 0.7) == 4
    ended = [*history, assistant("all done")]
    assert split_point(ended[:2], 0.7) == 2  # no user message after 70 %, ends on a reply: all


def test_gemini_cuts_tool_outputs_past_its_50000_token_budget_newest_first():
    """Newest first: c (30,000 tokens) fits, b (30,000) does not and is cut to 40,000
    characters (its head 20 %, its tail 80 %), then a is over the budget too."""
    outputs = {"a": "a" * 240_000, "b": "b" * 120_000, "c": "c" * 120_000}
    history = numbered(
        [
            m
            for k, text in outputs.items()
            for m in (user(f"run {k}"), assistant("", call(k)), result(k, text))
        ]
    )
    out = to_budget(history)
    cut = {m.tool_call_id: m.content for m in out if m.kind == CLIPPED}
    assert sorted(cut) == ["a", "b"] and out[-1] is history[-1]
    assert cut["b"].startswith("Output too large. Showing first 8,000 and last 32,000 characters.")
    assert "... [80,000 characters omitted] ..." in cut["b"] and cut["b"].endswith("b" * 32_000)


# Claude Code, on a recording of its own auto-compact


def claude_code_log(prompts: list[int], compacted_after: int) -> bytes:
    lines, parent = [], None

    def line(kind: str, message: dict, **extra) -> None:
        nonlocal parent
        uuid = f"u{len(lines)}"
        lines.append({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "message": message,
                      "timestamp": f"2026-11-02T10:{len(lines) // 60:02d}:{len(lines) % 60:02d}Z", **extra})  # fmt: skip
        parent = uuid

    line("user", {"role": "user", "content": "Make the build pass."})
    for k, prompt in enumerate(prompts):
        usage = {"input_tokens": 4, "cache_creation_input_tokens": 1_000, "cache_read_input_tokens": prompt - 1_004,
                 "output_tokens": 60}  # fmt: skip
        line("assistant", {"id": f"msg_{k}", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
                           "content": [{"type": "tool_use", "id": f"t{k}", "name": "Bash",
                                        "input": {"command": f"make step{k}"}}]})  # fmt: skip
        line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                   "content": f"step {k} " + "ok\n" * 200}]})  # fmt: skip
        if k == compacted_after:
            lines.append({"type": "system", "subtype": "compact_boundary", "uuid": "b", "parentUuid": None,
                          "compactMetadata": {"trigger": "auto", "preTokens": prompt + 600}})  # fmt: skip
            line("user", {"role": "user", "content": "This session is being continued... summary"},
                 isCompactSummary=True)  # fmt: skip
    return "\n".join(json.dumps(x) for x in lines).encode()


def test_claude_code_emulation_fires_where_the_recording_shows_its_auto_compact():
    """At 200,000 tokens Claude Code compacts at 167,000 by its estimate (the last reply's
    usage plus what arrived since): the call recorded at 166,900 (+60 output + the tool
    output after it) crosses, and the agent compacted before the next one."""
    assert autocompact_threshold(200_000) == 167_000
    prompts = [150_000, 160_000, 166_900, 60_000, 70_000]
    [session] = read_bytes(claude_code_log(prompts, compacted_after=2), "session.jsonl")
    [recorded] = session.compactions
    replayed = replay(
        session,
        [PolicySpec("ClaudeCodeAutoCompactPolicy")],
        Settings(model="claude-sonnet-4-5", context_window=200_000),
    )
    assert first_compaction(replayed) == turn_after(replayed, recorded.at) == 4


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("CodexAutoCompactPolicy", {"auto_compact_token_limit": 2_000}),
        ("OpencodeCompactionPolicy", {"max_output_tokens": 4_096, "reserved": 10_000}),
        ("OpencodePrunePolicy", {"protect_tokens": 500, "minimum_tokens": 200}),
        ("GeminiChatCompressionPolicy", {}),
    ],
)
def test_each_acts_on_the_sample_sessions_without_breaking_a_request(name, params):
    acted = 0
    for session in (s for path in SAMPLES for s in read_path(path)):
        replayed = replay(session, [PolicySpec(name, params)], Settings(context_window=32_000))
        assert all(not t.violations for t in replayed.turns), (name, session.name)
        acted += any(e.action in ("compact", "stub") for e in replayed.events)
    assert acted
