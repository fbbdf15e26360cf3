"""Summarizers for compaction: ``summarize(system_prompt, transcript) -> str``.

``extractive`` is the offline, deterministic default: it keeps goals, decisions, facts
and tool calls from the transcript, bounded in length. It stands in for an LLM summary
and says so in its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playground.facts import iter_facts

EXTRACTIVE_LABEL = "(extractive summary: a stand-in for an LLM summary)"
_DECISION = re.compile(
    r"\b(decid|conclu|will |plan|agreed|confirm|approv|because|so we|the fix|root cause|"
    r"must|should|need to|found|result)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _first_sentence(text: str, limit: int = 200) -> str:
    sentence = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


@dataclass(frozen=True)
class ExtractiveSummarizer:
    """Keeps user goals, decision sentences, tool calls and facts; at most ``max_chars``."""

    max_chars: int = 2000
    name: str = "extractive"

    def summarize(self, system_prompt: str, transcript: str) -> str:
        goals: list[str] = []
        decisions: list[str] = []
        calls: list[str] = []
        for line in transcript.splitlines():
            if line.startswith("user: "):
                goals.append(_first_sentence(line[6:]))
            elif line.startswith("assistant: "):
                decisions.extend(
                    _first_sentence(s) for s in _SENTENCE_END.split(line[11:]) if _DECISION.search(s)
                )
            elif line.startswith("[tool call] "):
                calls.append(_first_sentence(line[12:], 120))
        lines = [EXTRACTIVE_LABEL]
        budget = self.max_chars - len(EXTRACTIVE_LABEL)
        for title, items in (("Goal", goals), ("Decision", decisions), ("Tool call", calls)):
            for item in dict.fromkeys(items):
                line = f"{title}: {item}"
                if len(line) + 1 > budget:
                    break
                lines.append(line)
                budget -= len(line) + 1
        facts: list[str] = []
        budget -= len("Facts: ")
        for fact in iter_facts(transcript):  # lazily: the budget fills long before a big transcript ends
            if len(fact) + 2 > budget:
                break
            facts.append(fact)
            budget -= len(fact) + 2
        if facts:
            lines.append("Facts: " + ", ".join(facts))
        return "\n".join(lines)


SUMMARIZER_KINDS = ("extractive",)


class SummarizerError(ValueError):
    """A summarizer section of a config that cannot be used."""


def make_summarizer(spec: dict[str, Any] | None) -> ExtractiveSummarizer:
    """The summarizer a config's ``summarizer:`` section names (default: extractive)."""
    spec = dict(spec or {"kind": "extractive"})
    kind = spec.pop("kind", "extractive")
    if kind == "extractive":
        max_chars = spec.pop("max_chars", 2000)
        if spec:
            raise SummarizerError(f"summarizer: unknown setting {sorted(spec)[0]!r} for extractive")
        if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 200:
            raise SummarizerError(f"summarizer: max_chars must be a whole number ≥ 200, got {max_chars!r}")
        return ExtractiveSummarizer(max_chars=max_chars)
    raise SummarizerError(f"summarizer: unknown kind {kind!r} (known: {', '.join(SUMMARIZER_KINDS)})")
