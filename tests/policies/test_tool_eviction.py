from policies import ToolEvictionPolicy
from policies.messages import STUB
from tests.builders import compile_event, numbered, result, tool_loop, user


def test_stubs_all_but_the_last_n_results_and_never_deletes():
    messages = numbered([user(), *tool_loop(4)])
    event = compile_event()
    out = ToolEvictionPolicy(keep_last_n=2).on_compile(event, messages)
    assert len(out) == len(messages)
    results = [m for m in out if m.role == "tool"]
    assert [m.kind for m in results] == [STUB, STUB, "original", "original"]
    assert results[0].content == "[tool result evicted to save context]"
    assert [m.tool_call_ids for m in results] == [("c0",), ("c1",), ("c2",), ("c3",)]
    assert event.actions[0].action == "stub" and event.actions[0].messages == (2, 4)


def test_input_list_and_messages_are_left_unchanged():
    messages = numbered(tool_loop(3))
    before = list(messages)
    ToolEvictionPolicy(keep_last_n=1).on_compile(compile_event(), messages)
    assert messages == before and messages[1].content.startswith("0:")


def test_is_idempotent():
    policy = ToolEvictionPolicy(keep_last_n=1)
    once = policy.on_compile(compile_event(), numbered(tool_loop(3)))
    event = compile_event()
    assert policy.on_compile(event, once) is None
    assert event.actions == []


def test_keep_last_zero_stubs_every_result():
    out = ToolEvictionPolicy(keep_last_n=0).on_compile(compile_event(), tool_loop(2))
    assert all(m.kind == STUB for m in out if m.role == "tool")


def test_agent_results_are_kept_when_excluded():
    long = "a result longer than the stub that would replace it, " * 3
    messages = [result("a", long, name="research_agent", agent=True), result("b", long), result("c", long)]
    kept = ToolEvictionPolicy(keep_last_n=1, include_agent_results=False).on_compile(
        compile_event(), messages
    )
    assert [m.kind for m in kept] == ["original", STUB, "original"]
    evicted = ToolEvictionPolicy(keep_last_n=1).on_compile(compile_event(), messages)
    assert [m.kind for m in evicted] == [STUB, STUB, "original"]


def test_a_result_no_longer_than_the_stub_is_not_stubbed():
    """Issue 47, 5: stubbing "ok" with a 37-character stub would add tokens to the request."""
    long = "a result longer than the stub that would replace it, " * 3
    messages = [result("a", "ok"), result("b", long), result("c", long)]
    out = ToolEvictionPolicy(keep_last_n=1).on_compile(compile_event(), messages)
    assert [m.kind for m in out] == ["original", STUB, "original"]
    assert out[0] is messages[0]
