from playground.engine.tokens import TokenCounter
from playground.engine.validity import check_request
from policies import TieredEvictionPolicy
from policies.messages import DECISION_LOG, STUB
from tests.builders import assistant, call, compile_event, numbered, result, system, user

COUNTER = TokenCounter("gpt-4")
TABLE = "\n".join(
    f"| 2026-12-{d:02d} | holiday {d} | office closed | notes about the day {d} |" for d in range(1, 32)
)


def session():
    """A user goal, a consumed calendar lookup, a consumed search, prose, and a fresh result."""
    return numbered(
        [
            user("I am on a fixed-term contract ending 2027-02-26. Plan my leave."),
            assistant("Noted: your contract ends on 2027-02-26, so leave must be taken before then."),
            assistant("", call("c1", "holiday_calendar", '{"region": "UK", "year": 2026}')),
            result("c1", TABLE, name="holiday_calendar"),
            assistant("Bank holidays: 2026-12-25 and 2026-12-28."),
            assistant("", call("c2", "search_policy", '{"query": "carry over"}')),
            result(
                "c2",
                "Policy HR-POL-07 section 4.2: fixed-term staff cannot carry leave. " * 20,
                name="search_policy",
            ),
            assistant("Section 4.2 says no carry-over."),
            user("Thanks. What about March?"),
            assistant("", call("c3", "team_calendar", '{"week": "2027-03-01"}')),
            result("c3", "Nobody else is off that week. " * 80, name="team_calendar"),
        ]
    )


def event(**changes):
    return compile_event(counter=COUNTER, turn=7, summarizer=None, **changes)


def request_tokens(messages):
    return COUNTER.total(messages)


def answering(messages, call_id):
    return next(m for m in messages if m.tool_call_id == call_id)


def test_under_budget_nothing_changes():
    messages = session()
    assert TieredEvictionPolicy(budget_tokens=100_000).on_compile(event(), messages) is None


def test_tier_one_turns_consumed_output_into_a_result_line_and_stops_when_it_fits():
    messages = session()
    total = request_tokens(messages)
    calendar = COUNTER.count(messages[3])
    budget = total - calendar + 60  # room for the result line only
    ev = event()
    out = TieredEvictionPolicy(budget_tokens=budget, keep_recent=2).on_compile(ev, messages)
    assert out[3].kind == STUB
    assert out[3].content == (
        "[tool holiday_calendar(region=UK, year=2026) -> used 2026-12-25, 2026-12-28; full output dropped at turn 7]"
    )
    assert out[6] is messages[6]  # the search result was not needed: cutting stopped once it fit
    assert out[3].tool_call_ids == ("c1",) and check_request(out) == []
    assert [a.action for a in ev.actions] == ["stub"]


def test_unconsumed_and_recent_results_are_never_cut():
    messages = session()
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=2).on_compile(event(), messages)
    assert out[-1] is messages[-1]  # the latest result: not consumed yet, and recent
    assert out[-2] is messages[-2]


def test_tier_two_points_to_the_call_that_fetches_it_again():
    messages = session()
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=2, retrieval_tools=["search_*"]).on_compile(
        event(), messages
    )
    pointer = "[pointer] result dropped at turn 7; fetch it again with search_policy(query=carry over)"
    assert answering(out, "c2").content == pointer
    assert answering(out, "c1").content.startswith("[tool holiday_calendar")  # not a retrieval tool


def test_tier_three_folds_old_prose_into_a_running_decision_log():
    messages = session()
    ev = event()
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=2, retrieval_tools=[]).on_compile(ev, messages)
    logs = [m for m in out if m.kind == DECISION_LOG]
    assert len(logs) == 1
    log = logs[0]
    assert "2027-02-26" in log.content and "fixed-term" in log.content
    assert log.content.startswith("[Decision log: conclusions of earlier turns]")
    assert set(log.source) >= {0, 1}
    assert all(m.tool_calls or m.role != "assistant" or m.kind != "original" for m in out[: out.index(log)])
    assert check_request(out) == []
    assert "fold" in [a.action for a in ev.actions]
    # running: a later fold extends the same log
    grown = [*out, user("And April?"), assistant("April is after the contract ends on 2027-02-26.")]
    again = TieredEvictionPolicy(budget_tokens=500, keep_recent=1, retrieval_tools=[]).on_compile(
        event(), grown
    )
    assert sum(m.kind == DECISION_LOG for m in again) == 1


def test_idempotent_once_it_fits():
    policy = TieredEvictionPolicy(budget_tokens=600, keep_recent=2)
    once = policy.on_compile(event(), session())
    assert policy.on_compile(event(), once) is None


def test_standing_rules_are_never_cut_and_an_unreachable_budget_says_so():
    messages = numbered([system("You are LeaveBot. " * 40), *session()])
    ev = event()
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=2).on_compile(ev, messages)
    assert out[0] is messages[0]
    unmet = [a for a in ev.actions if a.action == "budget_unmet"]
    assert unmet and "over the 500 budget" in unmet[0].detail and "never cut" in unmet[0].detail


def test_budget_fraction_of_the_context_window():
    policy = TieredEvictionPolicy(budget_fraction=0.5)
    assert policy.budget(event(context_window=10_000)) == 5_000
    assert (
        TieredEvictionPolicy(budget_tokens=700, budget_fraction=0.5).budget(event(context_window=10_000))
        == 700
    )


class Failing:
    name = "openai"

    def summarize(self, system_prompt, transcript):
        raise TimeoutError("endpoint timed out")


def test_a_failed_llm_decision_log_folds_nothing_and_says_why():
    ev = compile_event(counter=COUNTER, turn=7, summarizer=Failing())
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=2, retrieval_tools=[]).on_compile(ev, session())
    assert not any(m.kind == DECISION_LOG for m in out)
    failed = [a for a in ev.actions if a.action == "summary_failed"]
    assert failed and failed[0].detail == "decision log: TimeoutError: endpoint timed out; skipped"
    assert out[0].content.startswith("I am on a fixed-term contract")  # the prose is still there


def test_a_result_the_agent_has_not_read_yet_is_never_cut_even_unprotected():
    messages = session()
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=0, retrieval_tools=["*"]).on_compile(
        event(), messages
    )
    assert answering(out, "c3") is messages[-1]


def test_a_reused_call_id_pairs_each_result_with_the_nearest_call_before_it():
    messages = numbered(
        [
            user("Read both files."),
            assistant("", call("c1", "read_file", '{"path": "a.py"}')),
            result("c1", "alpha = 1\n" * 300, name="read_file"),
            assistant("a.py sets alpha."),
            assistant("", call("c1", "read_file", '{"path": "b.py"}')),  # the id again
            result("c1", "beta = 2\n" * 300, name="read_file"),
            assistant("b.py sets beta."),
            user("Thanks."),
        ]
    )
    out = TieredEvictionPolicy(budget_tokens=500, keep_recent=1, retrieval_tools=[]).on_compile(
        event(), messages
    )
    assert "read_file(path=a.py)" in out[2].content and "read_file(path=b.py)" in out[5].content


def test_over_budget_at_every_compile_it_goes_on_from_its_own_output_with_the_same_result():
    """Given back its own output plus new messages (the engine's unchanged prefix), it cuts
    what a policy seeing the list for the first time would."""
    messages = session()
    budget = request_tokens(messages) - COUNTER.count(messages[3]) + 60
    going_on = TieredEvictionPolicy(budget_tokens=budget, keep_recent=2)
    first = going_on.on_compile(event(), messages[:8])
    grown = [*(first or messages[:8]), *messages[8:]]
    again = going_on.on_compile(event(unchanged_prefix=8), grown)
    fresh = TieredEvictionPolicy(budget_tokens=budget, keep_recent=2).on_compile(event(), grown)
    assert [m.content for m in again or grown] == [m.content for m in fresh or grown]
