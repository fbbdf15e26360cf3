import pandas as pd

from playground.charts import turns as charts
from playground.measures.metrics import EVENT_COLUMNS


def turns(n=4, **columns):
    frame = pd.DataFrame(
        {
            "turn": range(1, n + 1),
            "raw_tokens": [1000 * (k + 1) for k in range(n)],
            "context_tokens": [800, 1500, 600, 900][:n],
            "recorded_prompt_tokens": pd.array([1010, None, 3020, 4050][:n], dtype="Int64"),
            "stubs_created": [0, 1, 0, 2][:n],
            "stubs_held": [0, 1, 1, 3][:n],
            "over_window": [0, 0, 0, 0][:n],
            "removed_by_1_ToolEvictionPolicy": [0, 50, 0, 70][:n],
            "removed_by_2_CompactionPolicy": [0, 0, 900, 0][:n],
            **{f"tokens_{b}": [10] * n for b in ("system", "user", "assistant", "tool", "stub", "summary")},
        }
    )
    return frame.assign(**columns)


def compaction_events():
    return pd.DataFrame(
        [[3, 2, "CompactionPolicy", "compact", 12, 2400, 600, "12 message(s) summarized"]],
        columns=EVENT_COLUMNS,
    )


def test_tokens_chart_has_raw_context_recorded_and_a_marker_per_compaction():
    figure = charts.tokens_chart(turns(), compaction_events(), context_window=8000)
    names = [trace.name for trace in figure.data]
    assert names == ["raw history", "as recorded", "context (stack)", "compaction"]
    marker = figure.data[3]
    assert list(marker.x) == [3] and list(marker.y) == [600]
    assert marker.hoverinfo == "none"  # told on the turn's own point; a click on it still opens the turn
    context = figure.data[2]
    assert context.mode == "lines+markers"  # a click selects a point of it, which opens that turn
    assert [bool(note) for note in context.customdata] == [False, False, True, False]
    assert "12 messages" in context.customdata[2] and "2,400 → 600" in context.customdata[2]
    recorded = figure.data[1]  # a gap at the turn that records no usage
    assert list(recorded.x) == [1, 2, 3, 4] and [y == y for y in recorded.y] == [True, False, True, True]
    assert figure.layout.shapes[0].y0 == 8000  # the context window line


def test_turns_over_the_window_are_marked():
    figure = charts.tokens_chart(turns(over_window=[0, 1, 0, 0]), compaction_events(), context_window=1200)
    marker = next(t for t in figure.data if t.name == "over the context window")
    assert list(marker.x) == [2] and list(marker.y) == [1500]


def test_a_far_larger_window_is_named_not_drawn():
    figure = charts.tokens_chart(turns(), compaction_events().iloc[0:0], context_window=1_000_000)
    assert not figure.layout.shapes
    assert "1,000,000 (above the chart)" in figure.layout.annotations[0].text
    assert [t.name for t in figure.data] == ["raw history", "as recorded", "context (stack)"]


def test_stubs_composition_and_removed_charts():
    frame = turns()
    stubs = charts.stubs_chart(frame)
    assert [t.name for t in stubs.data] == ["stubs created", "stubs held (right axis)"]
    assert stubs.data[1].yaxis == "y2"  # 1 created next to 150 held stays visible
    assert list(stubs.data[1].y) == [0, 1, 1, 3]
    composition = charts.composition_chart(frame)
    assert [t.name for t in composition.data] == ["system", "user", "assistant", "tool", "stub", "summary"]
    assert all(t.stackgroup == "one" for t in composition.data)
    removed = charts.removed_chart(frame)
    assert [t.name for t in removed.data] == ["1. ToolEvictionPolicy", "2. CompactionPolicy"]
    # a policy's colour is its place in the stack, the same in either theme
    assert [t.marker.color for t in removed.data] == list(charts.POSITION_COLOURS[:2])
    none = charts.removed_chart(frame.drop(columns=[c for c in frame if c.startswith("removed_by_")]))
    assert none.data == () and "nothing is removed" in none.layout.annotations[0].text
    assert not none.layout.yaxis.visible  # no -1 to 1 axis drawn around nothing


def test_every_chart_names_its_series_in_full_and_keeps_the_legend_off_the_axis():
    figure = charts.stubs_chart(turns())
    assert figure.layout.hoverlabel.namelength == -1
    assert figure.layout.legend.yref == "container" and figure.layout.legend.y == 0
    assert figure.layout.yaxis.rangemode == "tozero"


def test_empty_frames_give_empty_figures():
    empty = turns().iloc[0:0]
    assert charts.tokens_chart(empty, compaction_events(), 1000).data == ()
    assert charts.stubs_chart(empty).data == ()


def test_the_sweep_chart_fits_its_points_and_draws_raw_and_recorded_as_reference_lines():
    from pathlib import Path

    from playground.analyses.sweep import parse_axis, run_sweep
    from playground.charts.compare import sweep_chart
    from playground.formats import read_path
    from playground.stacks.config import Config
    from playground.stacks.presets import PRESETS

    path = (
        Path(__file__).parents[3]
        / "tests"
        / "fixtures"
        / "formats"
        / "claude-code"
        / "sniffly_d3ad4cdc.jsonl"
    )
    [session] = read_path(path)
    stack = list(PRESETS["pyagentic recommended"])
    sweep = run_sweep(
        session, stack, [parse_axis("2.keep_last_n=2:6", stack)], Config().settings_for(session)
    )
    figure = sweep_chart(sweep, "distinct_facts_lost")
    low, high = figure.layout.xaxis.range
    costs = [p.totals["cost_usd"] for p in sweep.points]
    first = sweep.points[0].totals
    lines = {shape.x0 for shape in figure.layout.shapes}
    assert lines == {first["raw_cost_usd"], first["recorded_cost_usd"]}
    assert low > 0 and low <= min([*costs, *lines]) and high >= max([*costs, *lines])  # not from 0
    names = {a.text for a in figure.layout.annotations}
    assert {"raw history", "as recorded"} <= names
