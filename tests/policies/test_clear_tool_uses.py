from playground.tokens import TokenCounter
from policies import ClearToolUsesPolicy
from policies.messages import STUB
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


def test_clear_at_least_stops_once_enough_is_freed():
    one = COUNTER.count(session()[2]) - COUNTER.count(session()[2].replace(content="[cleared]"))
    out = ClearToolUsesPolicy(trigger=1_000, keep=0, clear_at_least=one + 1).on_compile(event(), session())
    assert cleared(out) == ["c0", "c1"]


def test_clear_at_least_skips_when_it_cannot_free_enough():
    ev = event()
    assert (
        ClearToolUsesPolicy(trigger=1_000, keep=4, clear_at_least=1_000_000).on_compile(ev, session()) is None
    )
    assert ev.actions[0].action == "skip" and "under clear_at_least" in ev.actions[0].detail


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
