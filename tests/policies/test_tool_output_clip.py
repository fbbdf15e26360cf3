from policies import ToolOutputClipPolicy
from policies.base import AppendEvent
from policies.messages import CLIPPED
from tests.builders import assistant, result, user

LONG = "0123456789" * 15  # 150 chars


def test_clips_a_long_tool_result_to_max_chars_plus_suffix():
    policy = ToolOutputClipPolicy(max_chars=100)
    raw = result("c1", LONG).replace(source=(4,))
    event = AppendEvent(index=4)
    clipped = policy.on_append(event, raw)
    assert clipped.content == LONG[:100] + "\n…[output clipped]"
    assert clipped.kind == CLIPPED
    assert clipped.tool_call_ids == ("c1",) and clipped.source == (4,)
    assert raw.content == LONG  # the raw message is never edited
    assert [(a.action, a.messages) for a in event.actions] == [("clip", (4,))]


def test_leaves_short_results_and_other_roles_alone():
    policy = ToolOutputClipPolicy(max_chars=100)
    assert policy.on_append(AppendEvent(), result("c1", LONG[:100])) is None
    assert policy.on_append(AppendEvent(), user(LONG)) is None
    assert policy.on_append(AppendEvent(), assistant(LONG)) is None


def test_clips_agent_results_too():
    policy = ToolOutputClipPolicy(max_chars=100, suffix="…")
    clipped = policy.on_append(AppendEvent(), result("c1", LONG, name="research_agent", agent=True))
    assert clipped.content == LONG[:100] + "…"
