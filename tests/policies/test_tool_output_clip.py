from policies import ToolOutputClipPolicy
from policies.base import AppendEvent
from policies.messages import CLIPPED
from tests.builders import assistant, result, user


def test_clips_a_long_tool_result_to_max_chars_plus_suffix():
    policy = ToolOutputClipPolicy(max_chars=10)
    raw = result("c1", "0123456789ABCDEF").replace(source=(4,))
    event = AppendEvent(index=4)
    clipped = policy.on_append(event, raw)
    assert clipped.content == "0123456789\n…[output clipped]"
    assert clipped.kind == CLIPPED
    assert clipped.tool_call_ids == ("c1",) and clipped.source == (4,)
    assert raw.content == "0123456789ABCDEF"  # the raw message is never edited
    assert [(a.action, a.messages) for a in event.actions] == [("clip", (4,))]


def test_leaves_short_results_and_other_roles_alone():
    policy = ToolOutputClipPolicy(max_chars=10)
    assert policy.on_append(AppendEvent(), result("c1", "0123456789")) is None
    assert policy.on_append(AppendEvent(), user("x" * 100)) is None
    assert policy.on_append(AppendEvent(), assistant("x" * 100)) is None


def test_clips_agent_results_too():
    policy = ToolOutputClipPolicy(max_chars=5, suffix="…")
    clipped = policy.on_append(AppendEvent(), result("c1", "abcdefgh", name="research_agent", agent=True))
    assert clipped.content == "abcde…"
