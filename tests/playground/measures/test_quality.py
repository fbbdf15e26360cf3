"""Re-fetch, reference loss and standing rules lost, on sessions with known answers."""

import json
import re
from pathlib import Path

import pytest

from playground.engine.replay import Settings, replay
from playground.formats import read_path
from playground.measures import quality
from playground.measures.fact_index import FactFinder
from playground.measures.metrics import totals, turns_frame
from playground.stacks.presets import PRESETS
from policies import PolicySpec
from tests.builders import assistant, call, make_session, result, system, user
from tests.playground import reference_quality
from tests.synthetic import FOLDER as SYNTHETIC

LEAVE = SYNTHETIC / "leave_request_hr.json"


def spec(name, **params):
    return PolicySpec(name, params)


def refetch_session():
    return make_session(
        system("Rules."),
        user("Look up INV-2041."),
        assistant("", call("a", "get_invoice", '{"id": "INV-2041"}')),
        result("a", "INV-2041: amount 310.50, due 2026-12-31", name="get_invoice"),
        assistant("It is 310.50, due 2026-12-31."),
        user("Other things."),
        assistant("", call("b", "list_dir", '{"path": "/srv"}')),
        result("b", "a b c", name="list_dir"),
        assistant("", call("c", "get_invoice", '{ "id":"INV-2041" }')),  # the same call again
        result("c", "INV-2041: amount 310.50, due 2026-12-31", name="get_invoice"),
        assistant("Again: INV-2041 is 310.50, due 2026-12-31."),
    )


def test_a_repeated_call_counts_as_a_refetch_only_when_its_result_was_gone():
    session = refetch_session()
    kept = turns_frame(replay(session, []))
    assert kept["refetches"].sum() == 0
    evicted = turns_frame(replay(session, [spec("ToolEvictionPolicy", keep_last_n=1)]))
    assert evicted["refetches"].tolist() == [0, 0, 0, 1, 0]
    assert totals(evicted)["refetches"] == 1


def test_reference_loss_lists_the_facts_used_seen_earlier_and_missing():
    session = refetch_session()
    frame = turns_frame(replay(session, [spec("SlidingWindowPolicy", max_messages=2)]))
    # the last reply repeats INV-2041, 310.50 and 2026-12-31, all in the fresh result: nothing lost
    assert frame["facts_lost"].iloc[-1] == 0
    # turn 2 (reply "It is 310.50 ...") saw the result: nothing lost; no policy, no loss anywhere
    assert turns_frame(replay(session, []))["facts_lost"].sum() == 0
    lossy = make_session(
        user("My order is ORD-7781, shipped to /srv/data/out.csv."),
        assistant("Noted ORD-7781."),
        user("Unrelated chat one."),
        assistant("Sure."),
        user("Unrelated chat two."),
        assistant("Your order ORD-7781 went to /srv/data/out.csv, and 99 new things."),
    )
    frame = turns_frame(replay(lossy, [spec("SlidingWindowPolicy", max_messages=2)]))
    assert frame["lost_facts"].iloc[-1] == "ORD-7781; /srv/data/out.csv"  # 99 never appeared before
    assert totals(frame)["distinct_facts_lost"] == 2


def test_standing_rules_lost_when_a_window_is_handed_the_system_prompt():
    session = refetch_session()
    frame = turns_frame(
        replay(session, [spec("SlidingWindowPolicy", max_messages=2)], Settings(pin_standing_rules=False))
    )
    assert frame["standing_rules_lost"].sum() > 0
    pinned = turns_frame(replay(session, [spec("SlidingWindowPolicy", max_messages=2)]))
    assert pinned["standing_rules_lost"].sum() == 0


def test_leave_request_tiered_keeps_the_contract_a_window_of_similar_size_loses_it():
    session = read_path(LEAVE)[0]
    tiered = replay(session, [spec("TieredEvictionPolicy", budget_tokens=3000, keep_recent=6)])
    window = replay(session, [spec("SlidingWindowPolicy", max_messages=30)])
    tiered_frame, window_frame = turns_frame(tiered), turns_frame(window)
    # comparable size: the window ends smaller than the tiered stack
    assert window_frame["context_tokens"].iloc[-1] <= tiered_frame["context_tokens"].iloc[-1]
    last = tiered.turns[-1].request
    text = "\n".join(m.content for m in last)
    assert "fixed-term contract that ends on 2027-02-26" in text  # kept in the decision log
    calendar = next(m for m in last if m.content.startswith("[tool holiday_calendar"))
    assert re.fullmatch(
        r"\[tool holiday_calendar\(region=UK, year=2026\) -> used 2026-12-25, 2026-12-28, 2026-12-29, "
        r"2026-12-30, 2026-12-31; full output dropped at turn \d+\]",
        calendar.content,
    )
    assert "2027-02-26" not in tiered_frame["lost_facts"].iloc[-1]
    folded = sum(len(e.messages) for e in tiered.events if e.action == "fold")
    assert folded > 0 and tiered_frame["compacted_messages"].sum() == folded
    assert "2027-02-26" in window_frame["lost_facts"].iloc[-1].split("; ")
    window_text = "\n".join(m.content for m in window.turns[-1].request)
    assert "fixed-term" not in window_text


def test_a_fact_is_a_value_never_a_key_and_a_quoted_value_is_found_bare():
    from policies.facts import extract_facts

    record = '{"reservation_id": "EQ1G6C", "cabin": "economy", "payment_id": "credit_card_7815826"}'
    assert extract_facts(record) == ["EQ1G6C", "economy", "credit_card_7815826"]
    assert extract_facts("{'employee_id': 'E-2208', 'days': 120} it's what we don't know") == [
        "E-2208",
        "120",
    ]
    session = make_session(
        user("Cancel my booking."),
        assistant("", call("a", "get_reservation_details", '{"reservation_id": "EQ1G6C"}')),
        result("a", record, name="get_reservation_details"),
        user("Which cabin and which booking?"),
        assistant('Booking "EQ1G6C" is in "economy" and was paid with "credit_card_7815826".'),
    )
    # the tau-bench case: the reply quotes values the context holds quoted as JSON: nothing is lost
    assert turns_frame(replay(session, []))["lost_facts"].tolist() == ["", ""]
    # a window that drops the record loses the values; the field names were never facts
    window = turns_frame(replay(session, [spec("SlidingWindowPolicy", max_messages=2)]))
    assert window["lost_facts"].iloc[-1] == "EQ1G6C; economy; credit_card_7815826"


def test_a_quoted_value_is_not_lost_while_the_bare_value_is_in_the_context():
    session = make_session(
        user("Find my booking."),
        assistant("", call("a", "get_reservation_details", '{"user_id": "mia_li_3668"}')),
        result("a", '{"reservation_id": "EQ1G6C", "cabin": "economy"}', name="get_reservation_details"),
        user("Yes, cancel EQ1G6C please."),
        assistant('Cancelling reservation "EQ1G6C" now.'),
    )
    window = turns_frame(replay(session, [spec("SlidingWindowPolicy", max_messages=2)]))
    assert window["lost_facts"].iloc[-1] == ""  # EQ1G6C is held, bare, in the user's message


REAL = Path(__file__).parents[2] / "fixtures" / "msa_astropy12907.traj.json"
SAMPLES = [*sorted(LEAVE.parent.glob("*.json*")), REAL]
LOSSY = {
    **PRESETS,
    "window of 2": [spec("SlidingWindowPolicy", max_messages=2)],
    "evict all but 1": [spec("ToolEvictionPolicy", keep_last_n=1)],
}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_linear_pass_finds_what_searching_the_transcript_per_fact_finds(path):
    lost = 0
    for session in read_path(path)[:3]:
        for stack in LOSSY.values():
            result = replay(session, stack)
            fast = quality.per_turn(result)
            assert fast == reference_quality.per_turn(result)
            lost += sum(len(q.lost_facts) + len(q.refetched) for q in fast)
    assert lost > 0  # the stacks lose something on every file: the comparison means something


def test_a_fact_inside_a_longer_token_or_a_longer_fact_is_held():
    finder = FactFinder(["123", "1234", "23", "ab c", "b", "x.y"])
    for text in ("a1234", "zab c", "x.y 23", "nothing here", "ab cd 9123"):
        assert {finder.facts[i] for i in finder.held(text)} == {f for f in finder.facts if f in text}


def test_facts_are_read_from_what_a_message_says_not_from_its_escaping_or_syntax():
    """The precision cases of the issue "figures a user can trust": an escaped line break in a
    call's JSON is a line break (not the letter n), a quote inside an argument ends nothing,
    and labels, code keywords and bare small numbers are not facts."""
    from policies.facts import extract_facts
    from policies.messages import said

    reply = assistant(
        "",
        call("a", "bash", json.dumps({"command": 'cd /testbed && grep -n "def _cstack" separable.py'})),
        call("b", "edit", json.dumps({"new": "x = 1\ninitial_state = compute()\nelse:\n    pass"})),
    )
    facts = extract_facts(said(reply))
    assert "initial_state" in facts and "ninitial_state" not in facts
    assert "separable.py" in facts and not any(f.endswith("\\") for f in facts)
    assert not {"else:", "else", "command", "new"} & set(facts)  # syntax and keys are not facts
    text = "Buggy result: 'Fixed result:' took 42 ms at 17:05, 'else:' 'None' but 420 rows and 'pass_rate'"
    assert extract_facts(text) == ["420", "pass_rate"]
    # arguments that are not JSON are what they say, as recorded
    assert said(assistant("", call("c", "apply_patch", "*** Begin Patch\n+x"))) == " *** Begin Patch\n+x"


def test_on_the_astropy_session_decoding_and_precision_remove_artefacts_from_facts_lost():
    [session] = read_path(REAL)
    stack = PRESETS["Cut in this order (tiered eviction)"]
    lost = {
        f
        for t in quality.per_turn(replay(session, stack, Settings(context_window=20_000)))
        for f in t.lost_facts
    }
    assert not any(f.endswith("\\") or f.startswith("ninitial") or f.endswith(":") for f in lost)


def _facts_from_four_threads() -> int:
    """A session of its own, its facts asked for by four threads at once: all get one object,
    the one kept; returns the session's id (the session goes with this call)."""
    import threading

    from playground.measures import quality

    session = read_path(SYNTHETIC / "leave_request_hr.json")[0]
    got, start = [], threading.Barrier(4)

    def compute() -> None:
        start.wait()
        got.append(quality._session_facts(session))

    threads = [threading.Thread(target=compute) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(facts is got[0] for facts in got) and quality._SESSIONS[id(session)] is got[0]
    return id(session)


def test_a_session_s_facts_are_kept_once_for_every_thread_and_let_go_with_it():
    """Issue 59, 5: the facts of a session were kept in a module dict keyed by id() with no lock:
    threads of a server computing them at once each wrote their own."""
    import gc

    from playground.measures import quality

    key = _facts_from_four_threads()
    gc.collect()
    assert key not in quality._SESSIONS
