"""Must-keep facts: declared by the user, checked at every turn, refused when unusable."""

import json

import pytest

from playground.cli.main import main as cli
from playground.engine.replay import replay
from playground.formats import read_path
from playground.limits import LIMITS
from playground.measures import must_keep
from playground.measures.metrics import totals, turns_frame
from playground.stacks.config import ConfigError, parse_config
from policies import PolicySpec
from tests.builders import assistant, make_session, system, user
from tests.synthetic import FOLDER as SYNTHETIC

LEAVE = SYNTHETIC / "leave_request_hr.json"


def window(n):
    return [PolicySpec("SlidingWindowPolicy", {"max_messages": n})]


def test_a_fact_is_unseen_then_held_then_lost_when_the_window_drops_it():
    session = make_session(
        system("Rules."),
        user("Hi."),
        assistant("Hello."),
        user("My contract is Fixed-Term until 2027."),
        assistant("Noted."),
        user("One."),
        assistant("Two."),
        user("Three."),
        assistant("Four."),
    )
    facts = must_keep.parse(["fixed-term", "/until [0-9]{4}/"])
    states = must_keep.states(replay(session, window(3)), facts)
    by_fact = {fact: list(group["state"]) for fact, group in states.groupby("fact", sort=False)}
    assert by_fact["fixed-term"] == ["unseen", "held", "held", "lost"]  # text matches in any case
    assert by_fact["/until [0-9]{4}/"] == ["unseen", "held", "held", "lost"]
    frame = turns_frame(replay(session, window(3)), must_keep=facts)
    assert frame["must_keep_lost"].tolist() == [0, 0, 0, 2]
    assert frame["lost_must_keep"].iloc[-1] == "fixed-term; /until [0-9]{4}/"
    assert totals(frame)["turns_with_must_keep_lost"] == 1
    assert turns_frame(replay(session, []), must_keep=facts)["must_keep_lost"].sum() == 0


def test_leave_request_a_window_loses_the_declared_contract_and_the_tiered_stack_keeps_it():
    session = read_path(LEAVE)[0]
    facts = must_keep.parse(["fixed-term contract"])
    lost = turns_frame(replay(session, window(30)), must_keep=facts)
    kept = turns_frame(
        replay(session, [PolicySpec("TieredEvictionPolicy", {"budget_tokens": 3000, "keep_recent": 6})]),
        must_keep=facts,
    )
    assert lost["must_keep_lost"].iloc[-1] == 1 and totals(lost)["distinct_must_keep_lost"] == 1
    assert kept["must_keep_lost"].sum() == 0


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (["ok", "/[/"], "entry 2 ('/[/'): not a valid regular expression"),
        (["ok", 7], "entry 2: expected text or /regex/, got 7"),
        (["ok", "  "], "entry 2: empty"),
        (["ok", "OK"], None),  # different text, though it matches the same: allowed
        (["ok", "ok"], "entry 2 ('ok'): declared twice"),
        (["x" * 501], "entry 1: longer than 500 characters"),
    ],
)
def test_a_declared_fact_that_cannot_be_used_is_named(declared, message):
    if message is None:
        assert len(must_keep.parse(declared)) == 2
        return
    with pytest.raises(
        must_keep.MustKeepError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")
    ):
        must_keep.parse(declared)


def test_too_many_facts_name_the_limit(monkeypatch):
    monkeypatch.setattr(LIMITS, "max_must_keep", 2)
    with pytest.raises(must_keep.MustKeepError, match="PLAYGROUND_MAX_MUST_KEEP"):
        must_keep.parse(["a", "b", "c"])


def test_a_pattern_that_backtracks_without_end_is_stopped_and_named(monkeypatch):
    monkeypatch.setattr(LIMITS, "max_must_keep_seconds", 0.2)
    session = make_session(user("a" * 5000), assistant("b"), user("c"), assistant("d"))
    facts = must_keep.parse([r"/(\w*a\w*){30}x/"])
    with pytest.raises(must_keep.MustKeepError, match=r"PLAYGROUND_MAX_MUST_KEEP_SECONDS"):
        must_keep.states(replay(session, []), facts)


def test_the_config_carries_must_keep_both_ways_and_refuses_a_bad_one():
    config = parse_config('version: 1\nstack: []\nmust_keep: ["fixed-term contract", "/INV-[0-9]+/"]\n')
    assert [f.text for f in config.must_keep] == ["fixed-term contract", "/INV-[0-9]+/"]
    assert parse_config(config.to_yaml()).to_data() == config.to_data()
    assert "must_keep" not in parse_config("version: 1\nstack: []\n").to_data()
    with pytest.raises(ConfigError, match=r"cfg: must_keep entry 1 \('/\(/'\): not a valid regular"):
        parse_config('version: 1\nmust_keep: ["/(/"]\n', "cfg")
    with pytest.raises(ConfigError, match="must_keep must be a list"):
        parse_config("version: 1\nmust_keep: fixed-term\n", "cfg")
    with pytest.raises(ConfigError, match="looks like a secret"):
        parse_config('version: 1\nmust_keep: ["sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"]\n', "cfg")


def test_cli_must_keep_counts_per_turn_and_names_a_bad_pattern(tmp_path, capsys):
    config = tmp_path / "window.yaml"
    config.write_text("version: 1\nstack: [SlidingWindowPolicy: {max_messages: 30}]\n")
    out = tmp_path / "out.json"
    assert (
        cli(
            [
                "replay",
                str(LEAVE),
                "--config",
                str(config),
                "--must-keep",
                "fixed-term contract",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    assert data["summary"]["distinct_must_keep_lost"] == 1
    assert data["turns"][-1]["lost_must_keep"] == "fixed-term contract"
    assert data["settings"]["must_keep"] == ["fixed-term contract"]
    assert "must_keep_lost" in capsys.readouterr().out  # a column of the table once facts are declared
    assert cli(["replay", str(LEAVE), "--must-keep", "/(/"]) == 2
    assert "--must-keep entry 1 ('/(/'): not a valid regular expression" in capsys.readouterr().err


@pytest.mark.parametrize(
    "pattern", ["/x{100000000}/", "/(x{1000}){1000}/", "/((a{50}){50}){50}/", "/[ab]{5000,}/", "/x{,99999}/"]
)
def test_a_pattern_whose_repeats_would_exhaust_memory_is_refused_before_compiling(pattern):
    import tracemalloc

    tracemalloc.start()
    with pytest.raises(
        must_keep.MustKeepError, match=r"copies \(at most 1,000, nested repeats multiplied\)"
    ) as error:
        must_keep.parse([pattern])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert pattern in str(error.value) and peak < 5_000_000


def test_patterns_with_modest_or_literal_braces_still_compile():
    facts = must_keep.parse(["/EQ[0-9A-Z]{4}/", r"/\{99999}/", "/(ab){3}c{4}/", "/[{]{2}/", "x{100000000}"])
    assert [f.text for f in facts][-1] == "x{100000000}"  # plain text: braces are literal


def test_facts_checked_on_a_replay_give_the_figures_of_a_replay_told_them():
    """The app checks the facts on a replay evaluated without them (one replay serves every set
    of facts); the CLI evaluates with them: the same per-turn columns and totals either way."""
    from playground.engine.tokens import TokenCounter
    from playground.measures.evaluate import Scenario, check_must_keep, evaluate

    (session,) = read_path(LEAVE)
    facts = must_keep.parse(["fixed-term contract", "/INV-[0-9]+/", "annual leave"])
    stack = window(4)
    told = evaluate(session, stack, Scenario(must_keep=facts), TokenCounter("gpt-4o"))
    plain = evaluate(session, stack, Scenario(), TokenCounter("gpt-4o"))
    check = check_must_keep(plain.result, plain.table.frame(), facts)
    assert check.totals == told.totals and told.totals.distinct_must_keep_lost > 0
    frame = told.table.frame()
    assert check.turns["lost_must_keep"].tolist() == frame["lost_must_keep"].tolist()
    assert set(check.states["fact"]) == {fact.text for fact in facts}
