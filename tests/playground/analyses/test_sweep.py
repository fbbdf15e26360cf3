"""The sweep: parameter ranges, the grid, the Pareto front, and points that match single replays."""

import pytest

from playground.analyses.sweep import SweepError, pareto_front, parse_axis, points, run_sweep, stack_at
from playground.engine.replay import Settings, replay
from playground.measures.metrics import totals, turns_frame
from playground.stacks.presets import PRESETS
from policies.registry import PolicySpec
from tests.builders import make_session, system, tool_loop, user

STACK = list(PRESETS["pyagentic recommended"])  # clip, eviction, compaction


@pytest.mark.parametrize(
    ("written", "values"),
    [
        ("2.keep_last_n=1:5", (1, 2, 3, 4, 5)),
        ("2.keep_last_n=0:30:10", (0, 10, 20, 30)),
        ("2.keep_last_n=3,1,8", (3, 1, 8)),
        ("2.keep_last_n=7", (7,)),
        ("ToolEvictionPolicy.keep_last_n=2:3", (2, 3)),
        ("1.max_chars = 1000:3000:1000", (1000, 2000, 3000)),
        ("2.include_agent_results=true,false", (True, False)),
    ],
)
def test_ranges_lists_and_single_values_parse(written, values):
    assert parse_axis(written, STACK).values == values


def test_float_ranges_step_without_drift():
    stack = [PolicySpec("PromptCompressionPolicy")]
    assert parse_axis("1.compress_threshold=0.5:0.9:0.1", stack).values == (0.5, 0.6, 0.7, 0.8, 0.9)
    assert parse_axis("1.compress_threshold=0.55,0.75", stack).values == (0.55, 0.75)


def test_choices_are_swept_by_name():
    stack = [PolicySpec("ClearToolUsesPolicy")]
    assert parse_axis("1.flavour=anthropic,langchain", stack).values == ("anthropic", "langchain")
    with pytest.raises(SweepError, match="flavour must be one of"):
        parse_axis("1.flavour=anthropic,openai", stack)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("keep_last_n=1:3", "write POSITION.PARAM=RANGE"),
        ("2.keep_last_n", "write POSITION.PARAM=RANGE"),
        ("9.keep_last_n=1:3", "no entry 9 \\(it holds 1. ToolOutputClipPolicy"),
        ("2.keep=1:3", "has no parameter 'keep' \\(its parameters: keep_last_n"),
        ("SlidingWindowPolicy.max_messages=1:3", "holds 'SlidingWindowPolicy' not"),
        ("2.keep_last_n=5:1", "ends \\(1\\) before it starts \\(5\\)"),
        ("2.keep_last_n=1:9:0", "step must be above 0"),
        ("2.keep_last_n=1:9:-1", "step must be above 0"),
        ("2.keep_last_n=1:2:3:4", "START:END or START:END:STEP"),
        ("2.keep_last_n=a:9", "'a' is not a number"),
        ("2.keep_last_n=1.5:3", "needs a step"),
        ("2.keep_last_n=1.5,2", "must be a whole number"),
        ("2.keep_last_n=-1:3", "must be at least 0"),
        ("2.keep_last_n=1,,2", "an empty value"),
        ("2.keep_last_n=1,1", "given twice"),
        ("2.keep_last_n=nan:3", "not a finite number"),
        ("3.max_input_tokens=1000:100000", "99,001 points; the limit is 400 .*give a larger step"),
        ("2.include_agent_results=yes", "takes true or false"),
        ("2.include_agent_results=true:false", "a range needs a number parameter"),
    ],
)
def test_bad_ranges_say_what_is_wrong(written, message):
    with pytest.raises(SweepError, match=message):
        parse_axis(written, STACK)


def test_a_disabled_entry_cannot_be_swept():
    stack = [PolicySpec("SlidingWindowPolicy", enabled=False)]
    with pytest.raises(SweepError, match="entry 1 \\(SlidingWindowPolicy\\) is disabled"):
        parse_axis("1.max_messages=10:20", stack)


def test_a_grid_is_every_combination_first_axis_slowest():
    first = parse_axis("2.keep_last_n=1:2", STACK)
    second = parse_axis("1.max_chars=100,200,300", STACK)
    grid = points([first, second])
    assert grid == [(1, 100), (1, 200), (1, 300), (2, 100), (2, 200), (2, 300)]
    assert stack_at(STACK, [first, second], (2, 300))[1].params["keep_last_n"] == 2
    assert stack_at(STACK, [first, second], (2, 300))[0].params["max_chars"] == 300
    assert STACK[1].params["keep_last_n"] == 5  # the stack swept is left as it was
    with pytest.raises(SweepError, match="swept twice"):
        points([first, first])


def test_the_front_keeps_what_nothing_beats():
    # (cost, loss), both minimised
    assert pareto_front([(1, 5), (2, 3), (3, 1)]) == [True, True, True]  # a trade-off curve
    assert pareto_front([(1, 5), (2, 6), (3, 1)]) == [True, False, True]  # dominated in both
    assert pareto_front([(1, 5), (1, 6)]) == [True, False]  # same cost, more loss
    assert pareto_front([(1, 5), (2, 5)]) == [True, False]  # same loss, more cost


def test_the_front_with_ties_one_point_and_all_equal():
    assert pareto_front([(1, 1), (1, 1), (2, 2)]) == [True, True, False]  # equal points share it
    assert pareto_front([(4, 4)]) == [True]
    assert pareto_front([(2, 3)] * 4) == [True] * 4
    assert pareto_front([]) == []


def test_points_that_did_not_run_are_never_on_the_front():
    assert pareto_front([None, (5, 5), (1, None)]) == [False, True, False]


def session():
    return make_session(system(), user("Fix the bug."), *tool_loop(12, size=4000))


def test_every_point_is_the_replay_of_its_stack():
    axis = parse_axis("2.keep_last_n=1:4", STACK)
    sweep = run_sweep(session(), STACK, [axis], Settings())
    assert sweep.complete and [p.values for p in sweep.points] == [(1,), (2,), (3,), (4,)]
    for point in sweep.points:
        alone = replay(session(), stack_at(STACK, [axis], point.values), Settings())
        assert point.totals == totals(turns_frame(alone))
    billed = [p.totals["billed_context_tokens"] for p in sweep.points]
    assert billed == sorted(billed) and billed[0] < billed[-1]  # keeping more results costs more


def test_workers_give_the_same_points_as_one_process(monkeypatch):
    monkeypatch.setattr("playground.analyses.sweep.WORKER_START_SECONDS", 0.0)  # always hand out to workers
    axis = parse_axis("2.keep_last_n=1:6", STACK)
    alone = run_sweep(session(), STACK, [axis], Settings(), workers=1)
    pooled = run_sweep(session(), STACK, [axis], Settings(), workers=2)
    assert pooled.points == alone.points
    assert (alone.processes, pooled.processes) == (1, 2)  # the points past the first two ran in workers


def test_a_cancelled_sweep_keeps_the_points_it_finished():
    axis = parse_axis("2.keep_last_n=1:10", STACK)
    seen = []
    sweep = run_sweep(
        session(),
        STACK,
        [axis],
        Settings(),
        progress=lambda done, planned: seen.append((done, planned)),
        cancelled=lambda: len(seen) >= 3,
    )
    assert not sweep.complete and len(sweep.points) == 3 and sweep.planned == 10
    assert seen == [(1, 10), (2, 10), (3, 10)]


def test_rows_mark_the_front_and_points_whose_requests_break_the_rules():
    # AutoGen's token-limited context pops the middle: a tight limit leaves orphaned results
    stack = [PolicySpec("TokenLimitedContextPolicy")]
    axis = parse_axis("1.token_limit=1500,3000,20000", stack)
    sweep = run_sweep(session(), stack, [axis], Settings())
    rows = sweep.rows("turns_with_violations")
    assert [r["1.token_limit"] for r in rows] == [1500, 3000, 20000]
    assert [r["invalid"] for r in rows] == [True, False, False]
    assert rows[0]["turns_with_violations"] > 0
    assert sweep.cost_axis() == "cost_usd"  # gpt-4o has a price
    assert any(r["on_front"] for r in rows)


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("2.keep_last_n=1:2:1e-320", "too small a step"),
        ("3.max_input_tokens=1:1e308:1e-10", "out of range"),
        ("2.keep_last_n=1:" + "9" * 4200, "too long for a number"),
        ("2.keep_last_n=" + ",".join(map(str, range(1, 18_001))), "the list gives 18,000 values"),
        ("3.max_input_tokens=1000:100000:0.5", "the range gives 198,001 points"),
    ],
)
def test_a_sweep_axis_that_cannot_be_counted_or_is_too_long_is_one_line(written, says):
    with pytest.raises(SweepError, match=says) as error:
        parse_axis(written, list(PRESETS["pyagentic recommended"]))
    assert "\n" not in str(error.value)


def test_a_grid_is_counted_before_it_is_built():
    import tracemalloc

    stack = list(PRESETS["pyagentic recommended"])
    first = parse_axis("3.max_input_tokens=1000:400000:1000", stack)
    second = parse_axis("1.max_chars=1000:400000:1000", stack)
    tracemalloc.start()
    with pytest.raises(SweepError, match="the grid has 160,000 points"):
        points([first, second])
    assert tracemalloc.get_traced_memory()[1] < 1_000_000
    tracemalloc.stop()


def test_every_parameter_s_suggested_range_is_a_sweep_that_runs_within_its_bounds():
    from playground.analyses.sweep import axis, suggested_range, sweepable
    from policies.registry import POLICY_TYPES

    for name, policy in POLICY_TYPES.items():
        for param in (p for p in policy.params if sweepable(p)):
            values = axis(1, name, param, suggested_range(param)).values  # SweepError if it did not parse
            assert 2 <= len(values) <= 25, (name, param.name, values)


def test_a_parameter_unset_by_default_is_swept_around_where_a_search_starts_for_it():
    """Claude Code's auto-compact override was offered 1 to 20 %: every point compacted all the time."""
    from playground.analyses.sweep import axis, suggested_range
    from policies.claude_code import ClaudeCodeAutoCompactPolicy

    param = next(p for p in ClaudeCodeAutoCompactPolicy.params if p.name == "autocompact_pct_override")
    values = axis(1, "ClaudeCodeAutoCompactPolicy", param, suggested_range(param)).values
    assert param.default is None and min(values) <= param.search_from <= max(values)
    assert min(values) >= param.search_from / 4 and max(values) == param.maximum
