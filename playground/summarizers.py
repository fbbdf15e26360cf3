"""Summarizers for compaction: ``summarize(system_prompt, transcript) -> str``.

``extractive`` is the offline, deterministic default: it keeps goals, decisions, facts
and tool calls from the transcript, bounded in length. It stands in for an LLM summary
and says so in its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from policies.base import Param, ParamError
from policies.base import Summarizer as PolicySummarizer
from policies.facts import iter_facts

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


@dataclass
class SummaryStats:
    """What a summarizer did during one replay."""

    calls: int = 0  # summaries asked for
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0  # the summarizer's own token use, as its provider reports it
    completion_tokens: int = 0


class Summarizer(PolicySummarizer, Protocol):
    """What policies call (policies.base.Summarizer), plus what it did during a replay."""

    stats: SummaryStats


class ExtractiveSummarizer:
    """Keeps user goals, decision sentences, tool calls and facts; at most ``max_chars``."""

    name = "extractive"

    def __init__(self, max_chars: int = 2000) -> None:
        self.max_chars = max_chars
        self.stats = SummaryStats()

    def summarize(self, system_prompt: str, transcript: str) -> str:
        self.stats.calls += 1
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


class SummarizerError(ValueError):
    """A summarizer section of a config that cannot be used."""


# Each summarizer's settings, declared once: the config check, the app's form and the docs read them.
SUMMARIZER_PARAMS: dict[str, tuple[Param, ...]] = {
    "extractive": (Param("max_chars", int, 2000, "Longest summary, in characters.", 200, 20_000),),
    "openai": (
        Param("model", str, "gpt-4o-mini", "Model that writes the summaries."),
        Param("base_url", str, "", "OpenAI-compatible endpoint (Ollama, vLLM, LM Studio); empty for OpenAI."),
        Param("timeout", float, 60.0, "Seconds before a summary call is given up.", 1, 600),
        Param("max_output_tokens", int, 800, "Longest summary, in tokens.", 16, 8000),
    ),
}


def summarizer_settings(spec: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The kind and every setting of a ``summarizer:`` section, checked against the declarations."""
    spec = dict(spec or {"kind": "extractive"})
    kind = spec.pop("kind", "extractive")
    declared = SUMMARIZER_PARAMS.get(kind) if isinstance(kind, str) else None
    if declared is None:
        raise SummarizerError(f"summarizer: unknown kind {kind!r} (known: {', '.join(SUMMARIZER_PARAMS)})")
    names = {p.name: p for p in declared}
    unknown = sorted(set(spec) - set(names))
    if unknown:
        raise SummarizerError(
            f"summarizer: unknown setting {unknown[0]!r} for {kind} (known: {', '.join(names)})"
        )
    try:
        values = {p.name: p.validate(spec.get(p.name, p.default)) for p in declared}
    except ParamError as error:
        raise SummarizerError(f"summarizer: {error}") from None
    return kind, values


def make_summarizer(spec: dict[str, Any] | None, api_key: str | None = None, cache: Any = None) -> Summarizer:
    """The summarizer a config's ``summarizer:`` section names (default: extractive).

    The API key never comes from a config: it is ``api_key`` or ``OPENAI_API_KEY``.
    """
    kind, values = summarizer_settings(spec)
    if kind == "extractive":
        return ExtractiveSummarizer(**values)
    from playground.llm_summarizer import OpenAISummarizer

    return OpenAISummarizer(**values, api_key=api_key, cache=cache)
