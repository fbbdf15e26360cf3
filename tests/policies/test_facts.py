"""The fact pattern's fast form finds exactly what its plain form finds."""

import re
import signal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies import facts

# the patterns as first written, without the start guard and the possessive runs
PLAIN = re.compile(
    "|".join(
        f"(?:{p})"
        for p in (
            facts._KEY,
            r"\b\d{4}-\d{2}-\d{2}\b",
            r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b",
            r"(?:~|\.{1,2}|[\w.\-]+)?/[\w.\-]+(?:/[\w.\-]+)+",
            r"\b[\w\-]+\.(?:py|js|ts|json|yaml|yml|toml|md|txt|csv|html|cfg|ini|rs|go|sql|log)\b",
            r"\b[A-Z]{2,}[-_]?\d+[A-Z0-9\-]*\b",
            r"\b[a-z]+_[a-z0-9_]+\b",
            r"\$?\b\d[\d,]*(?:\.\d+)?%?",
            r"\"(?P<quoted>[^\"\n]{3,60})\"|(?<!\w)'(?P<single>[^'\n]{3,60})'(?!\w)",
        )
    )
)
# pieces that make the alternatives meet: amounts running into words and paths, dates, ids,
# quotes, keys, separators, a letter and a digit outside ASCII
PIECES = st.sampled_from(
    [
        *"ab_Z9 0-./~\"':$%,\n\tA",
        "deploy",
        "Deploy",
        "2024-01-02",
        "INV-2041",
        "foo/bar",
        " 3 Jan 2024",
        ".py",
        "12px",
        "é",
        "٣",
    ]
)


def found(pattern: re.Pattern, text: str) -> list[tuple[str, str | None]]:
    return [(m.group(0), m.lastgroup) for m in pattern.finditer(text)]


@settings(max_examples=5000, deadline=None)
@given(st.lists(PIECES, max_size=24).map("".join))  # under 256 characters: no name is too long
def test_the_guarded_pattern_matches_what_the_plain_one_matches(text):
    assert found(facts._FACT, text) == found(PLAIN, text)


@pytest.mark.parametrize("run", ["a-", "a.", "a~", "-", "ab.cd"])
def test_a_long_run_without_a_slash_is_read_in_linear_time(run):
    # the plain pattern reads "a-a-…" again from each character: 80 KB took 100 s; a name or
    # a path's first part is bounded at 255 characters, so 400 KB takes about a second
    text = run * (200_000 // len(run)) + " /x/y 2041"

    def too_long(*_):
        raise TimeoutError(f"the facts of {len(text):,} characters of {run!r} took over 30 s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(30)
    try:
        assert facts.extract_facts(text)[-2:] == ["/x/y", "2041"]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_name_longer_than_a_file_system_takes_is_no_file_name():
    assert facts.extract_facts("x" * 255 + ".py") == ["x" * 255 + ".py"]
    assert facts.extract_facts("x" * 256 + ".py") == []


def test_an_amount_running_into_a_path_leaves_the_path_whole():
    # the one place a fact starts inside a word: right after an amount that ends before a letter
    assert found(facts._FACT, "1,2abc/def/x") == [("1,2", None), ("abc/def/x", None)]
    assert facts.extract_facts("see 1,2abc/def/x") == ["1,2", "abc/def/x"]


LINES = st.lists(st.one_of(PIECES, st.sampled_from(["\n", '"key"\n:', "'k' :", "\n  \n"])), max_size=40).map(
    "".join
)


@settings(max_examples=2000, deadline=None)
@given(LINES, st.data())
def test_facts_among_reads_the_lines_holding_a_wanted_fact_and_finds_what_the_whole_text_holds(text, data):
    everything = facts.extract_facts(text)
    wanted = data.draw(st.sets(st.sampled_from([*everything, "foo", "2041", "Jan"])))
    assert facts.facts_among(text, wanted) == [f for f in everything if f in wanted]


def test_a_key_whose_colon_is_on_the_next_line_is_still_a_key():
    text = 'x "EQ1G6C"\n: 500\n"EQ1G6C" again'
    assert facts.extract_facts(text) == ["500", "EQ1G6C"]
    assert facts.facts_among(text, {"EQ1G6C", "500"}) == ["500", "EQ1G6C"]


def test_the_facts_kept_are_bounded_by_the_text_they_were_read_from(monkeypatch):
    """Issue 49, 3: 65,536 texts of any size were kept for the server's life."""
    from policies import facts

    kept = facts._FactsKept()
    monkeypatch.setattr(kept, "MAX_CHARS", 10_000)
    texts = [f"release v{n}.2.{n} on 2026-01-{n % 28 + 1:02d} " + "x" * 1_000 for n in range(50)]
    found = [kept.of(t) for t in texts]
    assert kept.chars <= 10_000 + 1_100 and len(kept.facts) <= 10
    assert found == [tuple(facts.iter_facts(t)) for t in texts] == [kept.of(t) for t in texts]


def test_a_line_of_syntax_alone_is_no_fact_and_no_copied_line():
    """Issue 55, 11: ``else:`` and ``} else {`` are a language's syntax, not something a reader
    could need; a line with a name in it is."""
    from playground.measures.quality import quotes_of_reply
    from policies.facts import iter_facts, syntax_only

    assert syntax_only("else:") and syntax_only("} else {") and syntax_only("            return None")
    assert not syntax_only("} else if (err != nil) {") and not syntax_only("x = foo.bar(baz)")
    assert list(iter_facts("    else:\n        pass\n")) == []
    reply = [
        "                        } else {  // -------------\n    value = compute_total(items)  # the total"
    ]
    assert quotes_of_reply(reply) == ["value = compute_total(items)  # the total"]
