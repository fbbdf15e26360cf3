import itertools
from dataclasses import replace
from typing import ClassVar

import pytest

from playground.engine.replay import Settings, moved_ahead, replay
from playground.engine.tokens import TokenCounter
from playground.engine.validity import STANDING_RULES
from playground.measures.metrics import totals, turns_frame
from playground.summaries.summarizers import SummarizerSpec
from policies import PolicySpec
from policies.base import CompileEvent, Param, ParamError, Policy
from policies.registry import register
from policies.tool_eviction import ToolEvictionPolicy
from tests.builders import assistant, call, make_session, result, system, tool_loop, user
from tests.synthetic import FOLDER as SYNTHETIC


def spec(name, **params):
    return PolicySpec(name, params)


def agentic_session(rounds=10, size=400):
    return make_session(system("Rules."), user("Fix the bug."), *tool_loop(rounds, size), assistant("Done."))


def test_one_turn_per_recorded_assistant_message():
    session = agentic_session()
    result = replay(session, [])
    assert len(result.turns) == session.turns == 11
    assert [t.reply_index for t in result.turns] == [
        i for i, m in enumerate(session.messages) if m.role == "assistant"
    ]


def test_without_policies_the_context_is_the_raw_history():
    result = replay(agentic_session(), [])
    frame = turns_frame(result)
    assert (frame["context_tokens"] == frame["raw_tokens"]).all()
    assert frame["raw_tokens"].is_monotonic_increasing


def test_compiled_context_shares_the_raw_messages_instead_of_copying():
    session = agentic_session()
    result = replay(session, [spec("ToolEvictionPolicy", keep_last_n=2)])
    last = result.turns[-1]
    intact = [m for m in last.context if m.kind == "original"]
    assert all(any(m is raw for raw in session.messages) for m in intact)


def test_raw_history_is_never_changed():
    session = agentic_session()
    before = list(session.messages)
    replay(session, [spec("ToolOutputClipPolicy", max_chars=100), spec("ToolEvictionPolicy", keep_last_n=1)])
    assert list(session.messages) == before


def test_write_back_stubs_each_result_once():
    result = replay(agentic_session(rounds=10), [spec("ToolEvictionPolicy", keep_last_n=3)])
    frame = turns_frame(result)
    assert frame["stubs_created"].sum() == 10 - 3
    assert frame["stubs_held"].iloc[-1] == 7
    assert (frame["context_tokens"] <= frame["raw_tokens"]).all()


def test_standing_rules_are_pinned_by_default():
    session = agentic_session()
    result = replay(session, [spec("SlidingWindowPolicy", max_messages=3)])
    assert all(t.request[0] is session.messages[0] for t in result.turns)
    assert not any(t.violations for t in result.turns)


def test_handed_to_the_stack_a_window_cuts_the_standing_rules_and_says_so():
    settings = Settings(pin_standing_rules=False)
    result = replay(agentic_session(), [spec("SlidingWindowPolicy", max_messages=3)], settings)
    rules = {v.rule for t in result.turns for v in t.violations}
    assert STANDING_RULES in rules


def test_compaction_fires_once_per_threshold_crossing():
    session = agentic_session(rounds=30, size=800)
    stack = [spec("CompactionPolicy", max_input_tokens=2_000, keep_recent=4)]
    result = replay(session, stack)
    frame = turns_frame(result)
    fired = frame.index[frame["compactions"] > 0].tolist()
    assert len(fired) >= 2
    # after each compaction the context is small again, so the next turn does not fire
    assert all(b - a > 1 for a, b in itertools.pairwise(fired))
    for turn in fired:
        assert frame["context_tokens"].iloc[turn - 1] > 2_000  # last_usage was over the trigger


def test_last_usage_is_the_previous_compiled_context():
    seen = []

    @register
    class RecordUsage(Policy):
        def on_compile(self, event: CompileEvent, messages):
            seen.append(event.last_usage)

    result = replay(agentic_session(rounds=3), [PolicySpec("RecordUsage")])
    assert seen == [None] + [t.context_tokens for t in result.turns[:-1]]


def test_policies_trigger_on_the_usage_the_provider_reported_while_the_request_is_as_recorded():
    """pyagentic's CompactionPolicy compares the previous inference's reported input tokens: the
    session's recorded 5,000 (not the replay's count of a few dozen) makes it compact at turn 2."""
    words = " ".join(f"step {i} of the plan is to check module_{i}." for i in range(40))
    messages = (system(), user(words), assistant("Looking. " + words), user("And now?"), assistant("Done."))
    session = replace(make_session(*messages), usage={2: 5_000, 4: 5_020})
    stack = [PolicySpec("CompactionPolicy", {"max_input_tokens": 1_000, "keep_recent": 1})]
    result = replay(session, stack, Settings(calibrate=False))
    assert [e.turn for e in result.events if e.action == "compact"] == [2]
    assert result.turns[0].context_tokens < 1_000  # the replay's own count would never fire


def test_once_the_stack_changed_the_request_the_last_usage_is_the_replay_s_count():
    seen = []

    @register
    class RecordReported(Policy):
        def on_compile(self, event: CompileEvent, messages):
            seen.append((event.last_usage, event.last_output))

    session = replace(agentic_session(rounds=4), usage={}, outputs={})
    replies = [i for i, m in enumerate(session.messages) if m.role == "assistant"]
    session = replace(session, usage={i: 9_000 + i for i in replies}, outputs={i: 700 for i in replies})
    as_sent = replay(session, [PolicySpec("RecordReported")], Settings(calibrate=False))
    assert seen == [(None, None)] + [(9_000 + i, 700) for i in replies[:-1]]
    seen.clear()
    clipped = replay(
        session,
        [PolicySpec("ToolOutputClipPolicy", {"max_chars": 100}), PolicySpec("RecordReported")],
        Settings(calibrate=False),
    )
    # the first call held no tool output yet: as recorded; the clip changed every one after
    assert seen[1:] == [(9_000 + replies[0], 700)] + [(t.context_tokens, 700) for t in clipped.turns[1:-1]]
    assert as_sent.turns[0].context_tokens != 9_000 + replies[0]
    seen.clear()  # a record shorter than the reply (a mid-stream snapshot): the reply's count
    snapshot = replay(replace(session, outputs={i: 1 for i in replies}), [PolicySpec("RecordReported")])
    assert [o for _, o in seen[1:]] == [snapshot.counter.count(session.messages[i]) for i in replies[:-1]]


def test_every_compile_is_given_the_running_token_figures_of_its_list():
    seen = []

    @register
    class RecordFigures(Policy):
        def on_compile(self, event: CompileEvent, messages):
            counter = event.counter
            recounted = counter.total(event.pinned) + counter.total(messages)
            seen.append((event.context_tokens, recounted))
            assert list(event.message_tokens) == [counter.count(m) for m in messages]

    # figures as the list stands after an earlier policy rewrote it
    replay(
        agentic_session(rounds=8), [spec("ToolEvictionPolicy", keep_last_n=1), PolicySpec("RecordFigures")]
    )
    assert len(seen) == 9 and all(given == recounted for given, recounted in seen)


class CountingCounter(TokenCounter):
    """Records the length of every list it is asked to total."""

    totalled: list[int]

    def total(self, messages):
        self.totalled.append(len(messages))
        return super().total(messages)


def test_the_policies_that_measure_the_context_never_recount_it():
    counter = CountingCounter()
    counter.totalled = []
    stack = [
        spec("ClearToolUsesPolicy", trigger=1_500, keep=2, clear_at_least=0),
        spec("TieredEvictionPolicy", budget_tokens=1_200, keep_recent=4),
        spec("PromptCompressionPolicy", compress_threshold=0.9, compress_keep_recent=2),
    ]
    result = replay(agentic_session(rounds=30, size=800), stack, Settings(context_window=4_000), counter)
    assert {e.policy for e in result.events} >= {"ClearToolUsesPolicy", "TieredEvictionPolicy"}
    longest = max(len(t.request) for t in result.turns)
    assert longest > 20
    # the engine totals the standing rules once; nothing totals a whole context
    assert max(counter.totalled) < 10


@register
class KeepLastTwo(Policy):
    """Test policy: an ephemeral view of the last two messages of whatever it is given."""

    persistence = "ephemeral"

    def on_compile(self, event, messages):
        return messages[-2:] if len(messages) > 2 else None


@register
class CountGiven(Policy):
    """Test policy: records the length of each list it is given (changes nothing)."""

    params = (Param("timing", str, "per_call", "when", choices=("per_call", "per_turn")),)
    seen: ClassVar[list] = []

    def on_compile(self, event, messages):
        CountGiven.seen.append((event.turn, len(messages)))


def test_an_ephemeral_policy_edits_each_request_and_the_history_stays_whole():
    session = agentic_session(rounds=6)
    CountGiven.seen = []
    result = replay(session, [spec("KeepLastTwo"), spec("CountGiven")])
    # every request is the last two messages of the whole history, never of the last request
    for t in result.turns[1:]:
        assert t.context == session.messages[t.reply_index - 2 : t.reply_index]
    # the persistent policy placed below it still ran on the stored history, and first
    assert [n for _, n in CountGiven.seen] == [t.reply_index - 1 for t in result.turns]
    # the shared prefix between requests is found by identity, as for written-back stacks
    assert all(t.shared == 1 for t in result.turns[1:])  # the pinned rules, then a new pair


def test_an_ephemeral_clear_sees_every_output_again_and_a_persistent_one_forgets_them():
    session = agentic_session(rounds=30, size=800)
    params = dict(trigger=3_000, keep=3)
    ephemeral = replay(session, [spec("ClearToolUsesPolicy", **params)])
    persistent = replay(session, [spec("ClearToolUsesPolicy", persistence="persistent", **params)])

    def intact(turn):
        return sum(1 for m in turn.context if m.is_tool_result and m.kind == "original")

    # over the trigger once, the whole history stays over it: every later request clears all but 3
    assert intact(ephemeral.turns[-1]) == 3
    fired = [t.number for t in ephemeral.turns if any(e.turn == t.number for e in ephemeral.events)]
    assert fired == list(range(fired[0], len(ephemeral.turns) + 1))
    # written back, the context falls under the trigger and results pile up again before the next clear
    assert intact(persistent.turns[-1]) > 3
    assert persistent.turns[-1].context_tokens > ephemeral.turns[-1].context_tokens


def test_an_ephemeral_clear_counts_each_result_once_and_sends_the_same_stubs_again():
    session = agentic_session(rounds=30, size=800)
    result = replay(session, [spec("ClearToolUsesPolicy", trigger=3_000, keep=3)])
    frame = turns_frame(result)
    stubbed = [m for m in result.turns[-1].context if m.kind == "stub"]
    # each result is counted as stubbed at the turn it was first cleared, not again at every request
    assert frame["stubs_created"].sum() == len(stubbed) == 30 - 3
    # and a later request sends the very stub objects of the earlier one: it differs from it
    # only where the result that has just left the last 3 is cleared
    for before, after in itertools.pairwise(result.turns[-5:]):
        assert after.request[after.shared].kind == "stub" and before.request[after.shared].kind == "original"
        assert after.shared > before.size - 10


def test_a_per_turn_policy_runs_once_after_each_user_message():
    session = make_session(
        system("Rules."),
        user("first task"),
        *tool_loop(3, 50, prefix="a"),
        assistant("done one"),
        user("second task"),
        *tool_loop(2, 50, prefix="b"),
        assistant("done two"),
    )
    CountGiven.seen = []
    replay(session, [spec("CountGiven", timing="per_turn")])
    assert [turn for turn, _ in CountGiven.seen] == [1, 5]
    CountGiven.seen = []
    replay(session, [spec("CountGiven")])
    assert [turn for turn, _ in CountGiven.seen] == list(range(1, 8))


def test_an_ephemeral_policy_cannot_run_once_per_turn():
    class Odd(Policy):
        persistence = "ephemeral"
        timing = "per_turn"

    with pytest.raises(ParamError, match="ephemeral policy"):
        Odd()


def test_a_tool_result_after_the_last_reply_is_shaped_for_no_turn():
    session = make_session(
        system("Rules."),
        user("go"),
        *tool_loop(2, 50),
        assistant("c9 next", call("c9")),
        result("c9", "x" * 900),
    )
    result_ = replay(session, [spec("ToolOutputClipPolicy", max_chars=100)])
    assert {e.turn for e in result_.events} <= {t.number for t in result_.turns}
    assert not [e for e in result_.events if e.action == "clip"]


@register
class Tag(Policy):
    """Test policy: appends its tag to the first message every compile (not idempotent)."""

    params = (Param("tag", str, "a", "tag"),)

    def on_compile(self, event, messages):
        return [messages[0].replace(content=messages[0].content + self.tag), *messages[1:]]


def test_policies_compose_in_declaration_order_and_results_are_written_back():
    session = agentic_session(rounds=2)  # 3 turns
    ab = replay(session, [spec("Tag", tag="a"), spec("Tag", tag="b")])
    ba = replay(session, [spec("Tag", tag="b"), spec("Tag", tag="a")])
    assert ab.turns[-1].context[0].content == "Fix the bug.ababab"
    assert ba.turns[-1].context[0].content == "Fix the bug.bababa"
    assert ab.turns[0].context[0].content == "Fix the bug.ab"


def test_compaction_summarizes_with_the_configured_extractive_summarizer():
    result = replay(
        agentic_session(rounds=20, size=800),
        [spec("CompactionPolicy", max_input_tokens=1_000, keep_recent=2)],
        Settings(summarizer=SummarizerSpec.of({"kind": "extractive", "max_chars": 200})),
    )
    assert totals(turns_frame(result))["compactions"] >= 1
    summary = next(m for t in result.turns for m in t.context if m.kind == "summary")
    assert summary.content.startswith("[Summary of ")
    assert "extractive summary" in summary.content and len(summary.content) < 300


def test_totals_summarize_the_session():
    frame = turns_frame(replay(agentic_session(), [spec("ToolEvictionPolicy", keep_last_n=2)]))
    figures = totals(frame)
    assert figures["turns"] == 11
    assert figures["billed_context_tokens"] == frame["context_tokens"].sum()
    assert 0 < figures["saved_pct"] < 100
    assert figures["peak_context_tokens"] <= figures["peak_raw_tokens"]


def test_tokens_removed_by_each_policy_are_attributed():
    frame = turns_frame(
        replay(
            agentic_session(),
            [spec("ToolOutputClipPolicy", max_chars=100), spec("ToolEvictionPolicy", keep_last_n=2)],
        )
    )
    assert frame["removed_by_1_ToolOutputClipPolicy"].sum() > 0
    assert frame["removed_by_2_ToolEvictionPolicy"].sum() > 0
    assert frame["clips"].sum() == 10


@pytest.mark.parametrize("bucket", ["system", "user", "assistant", "tool", "stub", "summary"])
def test_composition_adds_up(bucket):
    frame = turns_frame(replay(agentic_session(), [spec("ToolEvictionPolicy", keep_last_n=2)]))
    parts = frame[[f"tokens_{b}" for b in ["system", "user", "assistant", "tool", "stub", "summary"]]].sum(
        axis=1
    )
    assert ((frame["context_tokens"] - parts) == 3).all()  # the reply priming
    assert f"tokens_{bucket}" in frame


def test_thrash_is_flagged_for_a_badly_tuned_stack_and_not_for_a_good_one():

    from playground.formats import read_path

    coding = read_path(SYNTHETIC / "coding_agent_bugfix.json")[0]
    bad = totals(
        turns_frame(replay(coding, [spec("CompactionPolicy", max_input_tokens=2_000, keep_recent=30)]))
    )
    good = totals(
        turns_frame(replay(coding, [spec("CompactionPolicy", max_input_tokens=12_000, keep_recent=6)]))
    )
    assert bad["thrash_events"] > 0 and bad["compactions"] > good["compactions"]
    assert good["thrash_events"] == 0 and good["compactions"] > 0


def test_consecutive_compactions_are_thrash():
    result = replay(
        agentic_session(rounds=20, size=800),
        [spec("CompactionPolicy", max_input_tokens=1_000, keep_recent=12)],
    )
    thrash = [e for e in result.events if e.action == "thrash"]
    assert any("consecutive turns" in e.detail for e in thrash)
    assert any("over the 1,000 trigger" in e.detail for e in thrash)


@register
class EvictionWithoutHint(ToolEvictionPolicy):
    """Test policy: ToolEvictionPolicy made to rescan everything every turn."""

    def on_compile(self, event, messages):
        event.unchanged_prefix = 0
        return super().on_compile(event, messages)


@pytest.mark.parametrize("keep", [0, 1, 3, 8])
@pytest.mark.parametrize(
    "around",
    [
        [],
        [("SlidingWindowPolicy", {"max_messages": 12})],
        [("CompactionPolicy", {"max_input_tokens": 2_000, "keep_recent": 6})],
        [
            ("ToolOutputClipPolicy", {"max_chars": 300}),
            ("CompactionPolicy", {"max_input_tokens": 3_000, "keep_recent": 9}),
        ],
    ],
)
def test_the_unchanged_prefix_hint_never_changes_what_eviction_does(keep, around):

    from playground.cli.bench import synthetic_session
    from playground.formats import read_path

    samples = SYNTHETIC
    sessions = [synthetic_session(160, seed=keep), *read_path(samples / "web_research_anthropic.json")]
    others = [PolicySpec(name, params) for name, params in around]
    for session in sessions:
        for place in range(len(others) + 1):

            def stack(name, place=place):
                return [*others[:place], PolicySpec(name, {"keep_last_n": keep}), *others[place:]]

            fast = replay(session, stack("ToolEvictionPolicy"))
            full = replay(session, stack("EvictionWithoutHint"))
            assert [t.context for t in fast.turns] == [t.context for t in full.turns]


def test_a_policy_that_never_acts_and_one_that_cannot_meet_its_budget_both_say_so():
    from playground.formats import read_path
    from playground.measures.metrics import policy_notes

    session = read_path(SYNTHETIC / "leave_request_hr.json")[0]
    stack = [
        PolicySpec("TieredEvictionPolicy", {"budget_tokens": 1000}),
        PolicySpec("CompactionPolicy", {"max_input_tokens": 80000}),
    ]
    result = replay(session, stack)
    idle = [e for e in result.events if e.action == "idle"]
    assert [(e.turn, e.position, e.policy) for e in idle] == [(26, 2, "CompactionPolicy")]
    assert "never acted in 26 turns" in idle[0].detail and "max_input_tokens 80,000" in idle[0].detail
    notes = policy_notes(result.events)
    assert notes[0][0] == "warning" and notes[0][1].startswith(
        "1. TieredEvictionPolicy could not meet its budget on"
    )
    assert "over the 1,000 budget" in notes[0][1]
    assert notes[1] == ("info", f"2. CompactionPolicy {idle[0].detail}, so it changes nothing here.")
    acting = replay(session, [PolicySpec("TieredEvictionPolicy", {"budget_tokens": 6000})])
    assert not policy_notes(acting.events)  # it acts and meets its budget: nothing to say


def test_the_editor_is_told_which_persistent_policies_run_before_an_ephemeral_one_above_them():
    stack = [ToolEvictionPolicy(), KeepLastTwo(), ToolEvictionPolicy(), Policy()]
    assert moved_ahead(stack) == [2]  # a policy with no compile hook has nothing to move


class _Broken(Policy):
    """A user's policy with a bug: it raises on the third turn."""

    def on_compile(self, event: CompileEvent, messages: list) -> list | None:
        if event.turn == 3:
            return [m.missing for m in messages]  # AttributeError
        return None


@pytest.fixture
def broken_policy():
    from policies.registry import POLICY_TYPES

    register(_Broken)
    yield "_Broken"
    POLICY_TYPES.pop("_Broken")


def test_a_policy_that_raises_is_named_with_its_position_and_turn_not_a_traceback(
    broken_policy, tmp_path, capsys
):
    from playground.cli.main import main
    from playground.engine.replay import PolicyFailure

    session = make_session(user("go"), *tool_loop(4))
    stack = [PolicySpec("SlidingWindowPolicy"), PolicySpec(broken_policy)]
    with pytest.raises(PolicyFailure, match=r"^2\. _Broken failed in on_compile at turn 3: AttributeError: "):
        replay(session, stack)
    transcript = SYNTHETIC / "leave_request_hr.json"
    config = tmp_path / "broken.yaml"
    config.write_text("version: 1\nstack: [SlidingWindowPolicy, _Broken]\n")
    assert main(["replay", str(transcript), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "2. _Broken failed in on_compile at turn 3: AttributeError" in err and "Traceback" not in err
