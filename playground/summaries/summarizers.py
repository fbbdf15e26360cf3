"""Summarizers for compaction: ``summarize(system_prompt, transcript) -> str``.

``extractive`` is the offline, deterministic default: it keeps goals, decisions, facts
and tool calls from the transcript, bounded in length. It stands in for an LLM summary
and says so in its output.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playground.limits import LIMITS, over
from playground.summaries.base import Summarizer, SummarizerError, SummaryRefused, SummaryStats
from policies.base import Param, ParamError, shown
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


class ExtractiveSummarizer:
    """Keeps user goals, decision sentences, tool calls and facts; at most ``max_chars``."""

    name = "extractive"

    def __init__(self, max_chars: int = 2000) -> None:
        self.max_chars = max_chars
        self.stats = SummaryStats()

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


# Each summarizer's settings, declared once: the config check, the app's form and the docs read them.
SUMMARIZER_PARAMS: dict[str, tuple[Param, ...]] = {
    "extractive": (Param("max_chars", int, 2000, "Longest summary, in characters.", 200, 20_000),),
    "openai": (
        Param("model", str, "gpt-4o-mini", "Model that writes the summaries."),
        Param("base_url", str, "", "OpenAI-compatible endpoint (Ollama, vLLM, LM Studio); empty for OpenAI."),
        Param(
            "timeout", float, 60.0, "Seconds one summary call may take in all (connect, wait, read).", 1, 600
        ),
        Param("max_output_tokens", int, 800, "Longest summary, in tokens.", 16, 8000),
    ),
}


DEFAULT_KIND = "extractive"  # offline and deterministic: every replay runs without a network


@dataclass(frozen=True)
class SummarizerSpec:
    """Which summarizer a replay's compactions call, and the settings given for it (the others
    at their declared defaults, ``SUMMARIZER_PARAMS``). Never holds a key."""

    kind: str = DEFAULT_KIND
    given: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> SummarizerSpec:
        """A ``summarizer:`` section as written (``{kind: openai, model: ...}``), unchecked."""
        data = dict(data or {})
        kind = data.pop("kind", DEFAULT_KIND)
        return cls(kind, tuple(sorted(data.items(), key=lambda item: str(item[0]))))

    def setting(self, name: str) -> Any:
        """A setting as given, else its declared default (None for one the kind does not declare)."""
        given = dict(self.given)
        if name in given:
            return given[name]
        declared = {p.name: p.default for p in SUMMARIZER_PARAMS.get(self.kind, ())}
        return declared.get(name)

    def given_value(self, name: str) -> Any:
        """A setting as given (None where it was left at its default)."""
        return dict(self.given).get(name)

    @property
    def fetches(self) -> bool:
        """Whether its summaries come from an endpoint (a key may be sent, a call may be slow)."""
        return self.kind == "openai"

    def to_data(self) -> dict[str, Any]:
        """The ``summarizer:`` section a config writes."""
        return {"kind": self.kind, **dict(self.given)}


def summarizer_settings(spec: SummarizerSpec | Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The kind and every setting of a ``summarizer:`` section, checked against the declarations."""
    spec = spec.to_data() if isinstance(spec, SummarizerSpec) else dict(spec or {"kind": DEFAULT_KIND})
    kind = spec.pop("kind", DEFAULT_KIND)
    declared = SUMMARIZER_PARAMS.get(kind) if isinstance(kind, str) else None
    if declared is None:
        raise SummarizerError(
            f"summarizer: unknown kind {shown(kind)} (known: {', '.join(SUMMARIZER_PARAMS)})"
        )
    names = {p.name: p for p in declared}
    unknown = [k for k in spec if k not in names]
    if unknown:
        raise SummarizerError(
            f"summarizer: unknown setting {shown(unknown[0])} for {kind} (known: {', '.join(names)})"
        )
    try:
        values = {p.name: p.validate(spec.get(p.name, p.default)) for p in declared}
    except ParamError as error:
        raise SummarizerError(f"summarizer: {error}") from None
    if kind == "openai":
        from playground.summaries.endpoints import EndpointError, check_base_url
        from playground.summaries.secrets import secret_in

        if secret_in(values["model"]):
            raise SummarizerError("summarizer: model looks like it holds a secret (an API key)")
        try:
            check_base_url(values["base_url"])
        except EndpointError as error:
            raise SummarizerError(f"summarizer: {error}") from None
    return kind, values


def replay_deadline() -> float:
    """The monotonic time by which one replay's summaries must all be done."""
    return time.monotonic() + LIMITS.max_summarizer_seconds


class BoundedSummarizer:
    """A summarizer as a replay uses it: within the limits, every failure counted here once.

    Per replay: at most ``max_summarizer_calls`` calls and ``max_summarizer_seconds`` of
    them in all; a summary over ``max_summary_bytes`` is a failure (the compaction is skipped,
    nothing is lost). A summary longer than what it replaces is written, as the frameworks do.
    """

    def __init__(self, inner: Summarizer, counter: Any = None, deadline: float | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.stats = inner.stats
        self.counter = counter
        self.deadline = deadline or replay_deadline()

    def summarize(self, system_prompt: str, transcript: str) -> str:
        self.stats.calls += 1
        try:
            summary = self._summarize(system_prompt, transcript)
        except Exception:
            self.stats.failures += 1
            raise
        return summary

    def _summarize(self, system_prompt: str, transcript: str) -> str:
        if self.stats.calls > LIMITS.max_summarizer_calls:
            raise over("max_summarizer_calls", "this replay asked for more summaries")
        if time.monotonic() >= self.deadline:
            raise over("max_summarizer_seconds", "this replay's summaries took too long")
        summary = self.inner.summarize(system_prompt, transcript).strip()
        if not summary:
            raise SummaryRefused("the summarizer returned nothing")
        size = len(summary.encode("utf-8", "replace"))
        if size > LIMITS.max_summary_bytes:
            raise over("max_summary_bytes", f"the summary is {size:,} bytes")
        if self.counter is not None:  # what a model would bill
            # a summary longer than what it replaces is still written: no framework emulated
            # here refuses one (LangChain's middleware, pyagentic's CompactionPolicy compact anyway)
            tokens, replaced = self.counter.text(summary), self.counter.text(transcript)
            prompt = self.counter.text(system_prompt) + replaced
            self.stats.billed.append((self.stats.turn, prompt, tokens))
        return summary


def make_summarizer(
    spec: SummarizerSpec | Mapping[str, Any] | None,
    api_key: str | None = None,
    cache: Any = None,
    counter: Any = None,
    *,
    hosted: bool = False,
) -> BoundedSummarizer:
    """The summarizer a config's ``summarizer:`` section names (default: extractive), bounded.

    The API key never comes from a config: ``api_key`` is what the user gave (the app's
    field); which key an endpoint may receive is ``endpoints.choose_key``'s rule.
    """
    kind, values = summarizer_settings(spec)
    if kind == "extractive":
        return BoundedSummarizer(ExtractiveSummarizer(**values), counter)
    from playground.summaries.endpoints import EndpointError, choose_key
    from playground.summaries.llm_summarizer import OpenAISummarizer

    try:
        choice = choose_key(values["base_url"], api_key, hosted=hosted)
    except EndpointError as error:
        raise SummarizerError(f"summarizer: {error}") from None
    deadline = replay_deadline()
    inner = OpenAISummarizer(
        **values, api_key=choice.key, key_notice=choice.notice, cache=cache, deadline=deadline
    )
    return BoundedSummarizer(inner, counter, deadline)
