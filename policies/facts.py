"""Facts a reply can depend on: numbers, dates, identifiers, file paths and quoted values.

One extractor serves the extractive summarizer and the reference-loss measure, so what
a summary keeps and what counts as lost are the same kind of thing. A fact is a value,
never a key: ``"cabin": "economy"`` holds the fact ``economy``, and a quoted value is the
bare value (``"EQ1G6C"`` is ``EQ1G6C``), so it is found wherever the value sits, quoted or not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Set

_PATTERNS = (
    r"\b\d{4}-\d{2}-\d{2}\b",  # ISO dates
    r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b",
    # paths with at least two parts, and file names. The lookahead and the possessive runs
    # (``++``) stop a word without a slash from being retried at every length; a name or the
    # part before a path's first slash runs to 255 characters at most (the longest name a file
    # system takes), so a long run with no slash or dot in it (a base64 blob, ``a-a-a-…``) is
    # not read again from each of its characters
    r"(?=[~\w.\-]{0,255}+/)(?:~|\.{1,2}|[\w.\-]++)?/[\w.\-]++(?:/[\w.\-]++)+",
    r"\b[\w\-]{1,255}+\.(?:py|js|ts|json|yaml|yml|toml|md|txt|csv|html|cfg|ini|rs|go|sql|log)\b",
    r"\b[A-Z]{2,}[-_]?\d+[A-Z0-9\-]*\b",  # ticket and record ids: INV-2041, PR123
    r"\b[a-z]++_[a-z0-9_]+\b",  # snake_case identifiers
    r"\$?\b\d[\d,]*(?:\.\d+)?%?",  # amounts and figures
    # short quoted values, without their quotes; a single quote only where no word touches it
    # from outside, so the apostrophes of "it's ... don't" quote nothing
    r"\"(?P<quoted>[^\"\n]{3,60})\"|(?<!\w)'(?P<single>[^'\n]{3,60})'(?!\w)",
)
# A quoted mapping key (JSON's "key": and a Python repr's 'key':) names a field, not a fact;
# matched first so that nothing inside it is taken for one.
_KEY = r"(?P<key>\"[^\"\n]{1,60}\"|'[^'\n]{1,60}')\s*:"
# No fact starts with a character other than these, none starts inside a word (a word
# character after a letter or a digit after a digit; an amount can end before a letter,
# ``12px``, and a path start right there), and none at a word of letters alone that no path,
# file name or identifier goes on from. The guard skips those places before trying every
# alternative at each, which is most of the text: the same matches, in a third of the time.
_START = r"(?=[\w\"'~./$\-])(?!(?<=[^\W\d])\w|(?<=\d)\d|[^\W\d_]++(?![\w.\-/~]))"
_FACT = re.compile(_START + "(?:" + "|".join(f"(?:{p})" for p in (_KEY, *_PATTERNS)) + ")")
_TRIVIAL = re.compile(r"^\d{1,2}$")  # a bare number below 100: a count, an index, a line
# a code keyword with its punctuation (`else:`) is syntax, not a value
_KEYWORDS = frozenset(
    {
        *("if", "else", "elif", "for", "while", "return", "def", "class", "try", "except", "finally"),
        *("with", "import", "from", "as", "pass", "break", "continue", "lambda", "yield", "raise"),
        *("assert", "async", "await", "not", "and", "or", "in", "is", "None", "True", "False", "null"),
        *("true", "false", "function", "const", "let", "var", "new", "this", "self"),
    }
)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_SYNTAX = _KEYWORDS | {
    "nil",
    "end",
    "then",
    "do",
    "fi",
    "case",
    "switch",
    "default",
    "func",
    "fn",
    "pub",
    "else if",
}


def syntax_only(line: str) -> bool:
    """Whether a line of code is its language's syntax alone (``else:``, ``} else {``, ``return
    None``): punctuation and keywords, no name, path, number or message a reader could need."""
    return all(word in _SYNTAX for word in _WORD.findall(line))


def iter_facts(text: str) -> Iterator[str]:
    """Distinct facts in order of first appearance; bare numbers below 100, labels and code
    keywords are too common to count."""
    seen: set[str] = set()
    for match in _FACT.finditer(text):
        if match.group("key"):
            continue
        fact = (match.group("quoted") or match.group("single") or match.group(0)).strip().rstrip(".,")
        if fact and fact not in seen and _is_fact(fact):
            seen.add(fact)
            yield fact


def _is_fact(fact: str) -> bool:
    """Not a bare small number, not a label (``Fixed result:``), not a keyword of code."""
    if _TRIVIAL.match(fact) or fact.endswith(":"):
        return False
    return fact.strip(":;,.(){}[] ") not in _KEYWORDS


def extract_facts(text: str) -> list[str]:
    return list(facts_of_text(text))


# the one way a match spans a line break: a quoted key whose colon sits on a later line
_KEY_ACROSS_LINES = re.compile(r"[\"'][^\S\n]*\n\s*:")
_FEW = 16  # wanted facts for which substring searches beat one pass of the pattern


def facts_among(text: str, wanted: Set[str]) -> list[str]:
    """``[f for f in facts_of_text(text) if f in wanted]``, reading only the lines of ``text``
    that hold one of ``wanted``: a fact lies within its line and the pattern reads a line the
    same alone (a break and a text's ends are alike to it), so a large tool output costs a
    substring search, not a pass of the pattern."""
    if len(wanted) > _FEW:  # the text would be searched once per wanted fact
        return [f for f in facts_of_text(text) if f in wanted]
    present = [f for f in wanted if f in text]
    if not present:
        return []
    if _KEY_ACROSS_LINES.search(text):
        return [f for f in facts_of_text(text) if f in wanted]
    lines = (line for line in text.split("\n") if any(f in line for f in present))
    return list(dict.fromkeys(f for line in lines for f in iter_facts(line) if f in wanted))


class _FactsKept:
    """The facts of texts read lately, for at most ``MAX_CHARS`` characters of text: past that
    they are let go of and found again when next asked (a server replays many uploads; an
    entry count alone would keep 65,536 tool outputs of any size for the server's life)."""

    MAX_CHARS = 32 * 2**20

    def __init__(self) -> None:
        self.facts: dict[str, tuple[str, ...]] = {}
        self.chars = 0

    def of(self, text: str) -> tuple[str, ...]:
        found = self.facts.get(text)
        if found is None:
            found = tuple(iter_facts(text))
            self.chars += len(text)
            if self.chars > self.MAX_CHARS:
                self.facts.clear()
                self.chars = len(text)
            self.facts[text] = found
        return found


_KEPT = _FactsKept()


def facts_of_text(text: str) -> tuple[str, ...]:
    """``iter_facts`` of a text, kept: a reply's facts are read by the policies that cut by them
    and again by the quality pass, and a session is replayed under many stacks."""
    return _KEPT.of(text)


def forget_facts() -> None:
    """Let go of every text's facts (a benchmark's cold start)."""
    _KEPT.facts.clear()
    _KEPT.chars = 0
