"""Issue 47, 2: stacks that give the same figures are drawn as one line the legend names by
all of them (the later line hid the earlier), and the four compare charts share one legend."""

from __future__ import annotations

from playground.charts.compare import COMPARE_CHARTS, merged_identical, overlay_chart, with_cumulative_cost
from playground.engine.replay import Settings, replay
from playground.measures.metrics import turns_frame
from playground.stacks.presets import PRESETS
from policies.registry import PolicySpec
from tests.builders import assistant, call, make_session, result, user


def _frames() -> dict:
    messages = [user("go")]
    for n in range(12):
        messages += [assistant("", call(f"c{n}", "read")), result(f"c{n}", f"output {n} " * 200, "read")]
    messages.append(assistant("done"))
    session = make_session(*messages)
    stacks = {
        "edited": PRESETS["pyagentic recommended"],
        "saved copy": PRESETS["pyagentic recommended"],
        "evict more": [PolicySpec("ToolEvictionPolicy", {"keep_last_n": 2})],
    }
    return {
        name: with_cumulative_cost(turns_frame(replay(session, list(stack), Settings(model="gpt-4o"))))
        for name, stack in stacks.items()
    }


def test_stacks_that_give_the_same_figures_are_one_group_and_others_stay_apart():
    frames = _frames()
    assert merged_identical(frames) == {"edited": ["edited", "saved copy"], "evict more": ["evict more"]}


def test_a_group_is_one_line_named_by_all_and_only_the_first_chart_has_a_legend():
    frames = _frames()
    same = merged_identical(frames)
    colours = {"edited": "#000", "saved copy": "#111", "evict more": "#222"}
    title, column, raw = COMPARE_CHARTS[0]
    first = overlay_chart(frames, colours, title, column, raw, dashed=("edited",), same=same)
    assert [t.name for t in first.data] == ["raw history", "edited = saved copy", "evict more"]
    assert first.data[1].line.dash == "dash" and all(t.showlegend is not False for t in first.data)
    other = overlay_chart(frames, colours, title, column, raw, same=same, legend=False)
    assert all(t.showlegend is False for t in other.data)
