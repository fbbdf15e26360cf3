from playground.engine.validity import MISSING_RESULT, ORPHAN_RESULT, STANDING_RULES, check_request
from tests.builders import assistant, call, result, system, user


def test_a_well_formed_request_passes():
    messages = [
        system(),
        user(),
        assistant("", call("a"), call("b")),
        result("a"),
        result("b"),
        assistant("ok"),
    ]
    assert check_request(messages, [messages[0]]) == []


def test_a_pending_last_call_is_fine():
    assert check_request([user(), assistant("", call("a"))]) == []


def test_an_orphaned_result_is_reported_with_its_position():
    violations = check_request([user(), result("a"), assistant("ok")])
    assert [(v.rule, v.position) for v in violations] == [(ORPHAN_RESULT, 1)]
    assert "call a" in violations[0].detail


def test_a_result_after_a_later_message_is_orphaned():
    messages = [assistant("", call("a")), user("interrupt"), result("a")]
    rules = [(v.rule, v.position) for v in check_request(messages)]
    assert rules == [(MISSING_RESULT, 1), (ORPHAN_RESULT, 2)]


def test_a_call_without_result_before_the_next_message_is_reported():
    violations = check_request([assistant("", call("a"), call("b")), result("a"), assistant("next")])
    assert [(v.rule, v.position) for v in violations] == [(MISSING_RESULT, 2)]
    assert "call b (bash)" in violations[0].detail


def test_standing_rules_must_be_intact():
    rules = [system("Rule one."), system("Rule two.")]
    assert check_request([rules[0], user()], rules)[0].rule == STANDING_RULES
    assert check_request([system("Rule one!"), rules[1], user()], rules)[0].position == 0


def test_a_request_over_the_context_window_is_a_violation_on_every_turn_it_happens(real_session_path):
    from playground.engine.replay import Settings, replay
    from playground.formats import read_path
    from playground.measures.metrics import events_frame, totals, turns_frame

    session = read_path(real_session_path)[0]
    result = replay(session, [], Settings(model="gpt-3.5-turbo", context_window=16_385))
    frame = turns_frame(result)
    over = frame[frame["context_tokens"] > 16_385]
    assert len(over) > 10
    figures = totals(frame)
    assert figures["turns_over_window"] == len(over) == figures["turns_with_violations"]
    events = events_frame(result)
    rows = events[events["action"] == "over_window"]
    assert rows["turn"].tolist() == over["turn"].tolist()
    peak = int(over["context_tokens"].max())
    # the request as a whole is too big: no message position in what the page shows
    assert f"{peak:,} tokens, {peak - 16_385:,} over the 16,385-token window" in rows["detail"].tolist()
    roomy = totals(turns_frame(replay(session, [], Settings(model="gpt-3.5-turbo", context_window=200_000))))
    assert roomy["turns_over_window"] == 0
