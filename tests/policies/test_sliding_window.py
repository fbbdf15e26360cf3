from policies import SlidingWindowPolicy
from policies.messages import Message
from policies.pairs import safe_cut
from tests.builders import assistant, call, compile_event, numbered, result, tool_loop, user


def test_keeps_the_last_max_messages():
    messages = numbered([user(str(i)) for i in range(10)])
    event = compile_event()
    out = SlidingWindowPolicy(max_messages=3).on_compile(event, messages)
    assert [m.content for m in out] == ["7", "8", "9"]
    assert event.actions[0].action == "drop" and event.actions[0].messages == tuple(range(7))


def test_unchanged_when_it_fits():
    assert SlidingWindowPolicy(max_messages=3).on_compile(compile_event(), [user(), user()]) is None


def test_window_never_leaves_a_result_without_its_call():
    # assistant with two parallel calls, then their two results, then more
    messages = [
        user(),
        assistant("", call("a"), call("b")),
        result("a"),
        result("b"),
        user("next"),
        assistant("done"),
    ]
    for max_messages in range(2, len(messages) + 1):
        out = SlidingWindowPolicy(max_messages=max_messages).on_compile(compile_event(), messages)
        window = out if out is not None else messages
        assert len(window) <= max_messages
        assert not window or not window[0].is_tool_result


def test_safe_cut_advances_past_leading_results():
    messages: list[Message] = tool_loop(2)
    assert safe_cut(messages, 1) == 2
    assert safe_cut(messages, 2) == 2
    assert safe_cut(messages, 4) == 4
