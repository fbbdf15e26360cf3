import pytest

from policies import POLICY_TYPES, Policy, PolicySpec, SpecError, build_stack
from policies.base import Param, ParamError
from policies.registry import register


def test_every_builtin_is_registered_by_class_name():
    for name in ("ToolOutputClipPolicy", "ToolEvictionPolicy", "SlidingWindowPolicy", "CompactionPolicy"):
        assert POLICY_TYPES[name].__name__ == name


def test_every_parameter_declares_default_and_help_and_its_default_validates():
    for cls in POLICY_TYPES.values():
        for param in cls.params:
            assert param.help
            assert param.validate(param.default) == (
                tuple(param.default) if isinstance(param.default, list) else param.default
            )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"max_messages": 0}, "max_messages must be at least 2, got 0"),
        ({"max_messages": "ten"}, "max_messages must be a number, got 'ten'"),
        ({"max_messages": 2.5}, "max_messages must be a whole number, got 2.5"),
        ({"max_messages": True}, "max_messages must be a number, got True"),
        ({"window": 3}, "unknown parameter 'window' (known: max_messages)"),
    ],
)
def test_bad_parameters_are_refused_with_the_entry_named(params, message):
    with pytest.raises(SpecError) as error:
        build_stack([PolicySpec("SlidingWindowPolicy", params)])
    assert str(error.value) == f"stack entry 1: SlidingWindowPolicy: {message}"


def test_unknown_policy_is_refused():
    with pytest.raises(SpecError, match="stack entry 2: unknown policy 'Nope'"):
        build_stack([PolicySpec("SlidingWindowPolicy"), PolicySpec("Nope")])


def test_disabled_entries_are_skipped():
    stack = build_stack([PolicySpec("SlidingWindowPolicy", enabled=False), PolicySpec("ToolEvictionPolicy")])
    assert [p.name() for p in stack] == ["ToolEvictionPolicy"]


def test_a_different_class_with_a_taken_name_is_refused():
    class SlidingWindowPolicy(Policy):
        params = (Param("n", int, 1, "n"),)

    with pytest.raises(SpecError, match="already registered"):
        register(SlidingWindowPolicy)


def test_param_bounds_are_checked_directly():
    with pytest.raises(ParamError):
        Param("x", float, 0.5, "x", 0, 1).validate(1.5)


def test_a_count_is_said_in_the_singular_for_one():
    """Issue 47, 2: "on 1 turns"."""
    from policies.base import counted

    assert [counted(n, "turn") for n in (0, 1, 2, 1204)] == ["0 turns", "1 turn", "2 turns", "1,204 turns"]


def test_a_policy_declares_its_place_in_a_searched_stack_and_the_recommender_reads_it(monkeypatch):
    """Issue 59, 3: the recommender kept its own table of where each policy goes, by class name
    (a policy missing from it silently became "a compaction, placed last"); each declares it now."""
    from playground.analyses.recommend import policies_for
    from policies.base import CLEARING, CLIPPING, COMPACTING, PLACES, WINDOW, Policy
    from policies.registry import BUILTINS, POLICY_TYPES

    assert {cls.place for cls in BUILTINS} == set(PLACES) == {CLIPPING, CLEARING, WINDOW, COMPACTING}
    order = [POLICY_TYPES[name].place for name in policies_for("any")]
    assert order == sorted(order) and order[0] == CLIPPING and order[-1] == COMPACTING

    class EarlyPolicy(Policy):
        place = CLIPPING

    monkeypatch.setitem(POLICY_TYPES, "EarlyPolicy", EarlyPolicy)
    from playground.analyses.recommend import space

    assert space.place("EarlyPolicy") == CLIPPING  # read from the class, not a table
