"""Every figure of a replay, declared once: each column of the per-turn table
(``metrics.turn_table``: the CSV, the JSON's ``turns``, the Parquet) and each of a session's
totals (``metrics.totals``), with its label, unit, which way is better and what it means. The
compare table, the corpus tables, the CLI's per-turn table, the app's help texts and the
docs' list of figures read them here (the docs' table is made from them at each build)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple


class Figure(NamedTuple):
    key: str  # the name in totals, the JSON, the CSV and the Parquet
    label: str  # how a table heads it
    unit: str  # tokens, messages, turns, events, $, %, facts, lines, calls
    meaning: str
    better: str | None = "lower"  # "lower", "higher", or None where neither way is better
    short: str = ""  # the heading of a narrow table (a table of sessions), where not the label

    @property
    def heading(self) -> str:
        """How a narrow table heads it."""
        return self.short or self.label


def _figure(
    label: str, unit: str, meaning: str, better: str | None = "lower", short: str = "", *, default: Any = 0
) -> Any:
    """A field of ``Totals`` and its declaration: the figure's heading, unit, direction and meaning."""
    return field(default=default, metadata={"figure": (label, unit, meaning, better, short)})


@dataclass(frozen=True)
class Totals:
    """A session's figures under a stack (``metrics.totals``): each declared once, here, with its
    type and what it means; read by attribute (``totals.cost_usd``), or by name where the name
    is data (a sweep's axis, a report's columns). The JSON, CSV and Parquet keep these names
    (``as_dict``). The dollars are None where no price is known; the recorded figures where the
    file records no usage."""

    turns: int = _figure("turns", "turns", "inferences replayed: each recorded reply of the model", None)
    # tokens held and sent
    peak_context_tokens: int = _figure("peak context tokens", "tokens", "the largest request the stack sends")
    final_context_tokens: int = _figure(
        "final context tokens", "tokens", "the request the stack sends at the last turn"
    )
    peak_raw_tokens: int = _figure(
        "peak raw tokens", "tokens", "the largest request the raw history (no policy) sends", None
    )
    final_raw_tokens: int = _figure(
        "final raw tokens", "tokens", "the raw history's request at the last turn", None
    )
    billed_context_tokens: int = _figure(
        "input tokens billed", "tokens", "the stack's input tokens, summed over every request"
    )
    billed_raw_tokens: int = _figure(
        "raw input tokens billed", "tokens", "the raw history's input tokens, summed over every request", None
    )
    saved_pct: float = _figure(
        "input tokens saved (%)",
        "%",
        "the share of the raw history's input tokens the stack does not send",
        "higher",
        "tokens saved %",
        default=0.0,
    )
    # what the policies did
    stubs_created: int = _figure("stubs created", "messages", "messages a policy replaced by a stub", None)
    clips: int = _figure("clips", "messages", "tool outputs a policy cut short", None)
    drops: int = _figure("drops", "messages", "messages a policy left out of the request", None)
    compactions: int = _figure("compactions", "events", "times a policy summarized earlier messages", None)
    summary_failures: int = _figure(
        "summaries failed", "events", "compactions skipped because the summarizer failed (nothing lost)"
    )
    thrash_events: int = _figure(
        "compaction thrash",
        "events",
        "compactions that left the context over the trigger, or fired on consecutive turns",
    )
    # what a provider would refuse
    turns_with_violations: int = _figure(
        "invalid turns",
        "turns",
        "turns whose request a provider would refuse: over the window, a call without its result or a result without its call, standing rules missing",
    )
    turns_over_window: int = _figure(
        "turns over the window", "turns", "turns whose request is larger than the context window"
    )
    raw_turns_over_window: int = _figure(
        "raw turns over the window",
        "turns",
        "turns where the raw history is larger than the window (the agent had to compact)",
        None,
    )
    as_sent_turns: int = _figure(
        "calls as the agent sent them",
        "turns",
        "turns whose request is the one the agent sent (its own policy followed where it acted): each costs what its call records",
        None,
        "as sent",
    )
    raw_turns_with_violations: int = _figure(
        "raw invalid turns", "turns", "turns where the raw history itself breaks a provider's rule", None
    )
    # what was lost
    refetches: int = _figure(
        "re-fetches",
        "calls",
        "tool calls repeating an earlier call whose result was no longer intact in the request",
    )
    turns_with_facts_lost: int = _figure(
        "turns with facts lost",
        "turns",
        "turns whose reply uses a fact the session held earlier but the request lacked",
    )
    distinct_facts_lost: int = _figure(
        "facts lost",
        "facts",
        "distinct facts (numbers, dates, ids, paths, quoted strings) a reply uses that its request lacked",
    )
    turns_with_quotes_lost: int = _figure(
        "turns with copied lines lost",
        "turns",
        "turns whose reply copies a line (an edit's old text) its request no longer held",
    )
    distinct_quotes_lost: int = _figure(
        "copied lines lost",
        "lines",
        "distinct lines a reply copies from an earlier message its request no longer held",
    )
    turns_standing_rules_lost: int = _figure(
        "turns without standing rules", "turns", "turns whose request lacks part of the system prompt"
    )
    turns_with_must_keep_lost: int = _figure(
        "turns with a must-keep fact lost",
        "turns",
        "turns whose request lacks a declared must-keep fact the history held",
    )
    distinct_must_keep_lost: int = _figure(
        "must-keep facts lost", "facts", "declared must-keep facts lost at some turn"
    )
    # the prompt cache
    cache_hit_pct: float = _figure(
        "prompt-cache hit rate (%)",
        "%",
        "the share of the stack's input tokens read from the provider's prompt cache",
        "higher",
        default=0.0,
    )
    raw_cache_hit_pct: float = _figure(
        "raw prompt-cache hit rate (%)", "%", "the same share for the raw history", None, default=0.0
    )
    cache_write_tokens: int = _figure(
        "cache write tokens", "tokens", "input tokens the stack writes to the prompt cache"
    )
    cache_breaks: int = _figure(
        "cache breaks",
        "turns",
        "turns whose request changed or dropped a message the previous request sent: the cached prefix ends there and all after it is paid (and written) again",
    )
    cache_break_repaid_tokens: int = _figure(
        "tokens re-paid after cache breaks",
        "tokens",
        "tokens after each break's position, paid (and written) again",
    )
    cold_cache_turns: int = _figure(
        "cold-cache turns",
        "turns",
        "turns after a gap longer than the cache's lifetime (reply times recorded)",
        None,
    )
    # summaries
    summary_calls: int = _figure(
        "summarizer calls", "calls", "calls the stack's compactions made to the summarizer"
    )
    summary_input_tokens: int = _figure("summarizer input tokens", "tokens", "tokens the summarizer was sent")
    summary_output_tokens: int = _figure(
        "summarizer output tokens", "tokens", "tokens of the summaries written"
    )
    # dollars (None where no price is known)
    cost_usd: float | None = _figure(
        "session cost ($), summaries included",
        "$",
        "every request priced with the provider's prompt cache, plus the summaries",
        default=None,
    )
    raw_cost_usd: float | None = _figure(
        "raw history cost ($)", "$", "the raw history's requests priced the same way", None, default=None
    )
    summary_cost_usd: float | None = _figure(
        "summaries ($)", "$", "the summarizer calls, priced without caching", default=None
    )
    saved_usd: float | None = _figure(
        "$ saved",
        "$",
        "the raw history's cost minus the stack's (negative: the stack costs more)",
        "higher",
        default=None,
    )
    saved_cost_pct: float = _figure(
        "cost saved against raw history (%)",
        "%",
        "saved_usd as a share of the raw history's cost",
        "higher",
        "cost saved %",
        default=0.0,
    )
    # as recorded (None where the file records no usage, or no model to price it)
    recorded_calls: int = _figure("recorded calls", "calls", "calls whose usage the file records", None)
    recorded_input_tokens: int | None = _figure(
        "recorded input tokens",
        "tokens",
        "input tokens the file records, summed over its calls",
        None,
        default=None,
    )
    recorded_cache_hit_pct: float | None = _figure(
        "recorded prompt-cache hit rate (%)",
        "%",
        "the share of recorded input read from the cache",
        None,
        default=None,
    )
    recorded_cost_usd: float | None = _figure(
        "as recorded ($)",
        "$",
        "the file's own usage priced, output as recorded (ccusage's figure)",
        None,
        default=None,
    )
    recorded_cost_counted_output_usd: float | None = _figure(
        "as recorded, output counted ($)",
        "$",
        "the recorded calls with each reply's output counted (where the file records output wrongly)",
        None,
        default=None,
    )
    saved_vs_recorded_usd: float | None = _figure(
        "$ saved vs recorded",
        "$",
        "what the agent paid minus what the stack costs, on the calls the file records",
        "higher",
        default=None,
    )
    saved_vs_recorded_pct: float | None = _figure(
        "cost saved vs recorded (%)",
        "%",
        "saved_vs_recorded_usd as a share of what the agent paid",
        "higher",
        "cost saved vs recorded %",
        default=None,
    )
    # the stack's cost minus the raw history's, part by part (they add up to it)
    difference_read_tokens: int = _figure(
        "difference: cache reads (tokens)",
        "tokens",
        "cache-read tokens, the stack's minus the raw history's",
        None,
    )
    difference_read_usd: float | None = _figure(
        "difference: cache reads ($)", "$", "their dollars", None, default=None
    )
    difference_write_tokens: int = _figure(
        "difference: cache writes (tokens)",
        "tokens",
        "cache-write tokens, the stack's minus the raw history's",
        None,
    )
    difference_write_usd: float | None = _figure(
        "difference: cache writes ($)", "$", "their dollars", None, default=None
    )
    difference_uncached_tokens: int = _figure(
        "difference: uncached input (tokens)",
        "tokens",
        "uncached input tokens, the stack's minus the raw history's",
        None,
    )
    difference_uncached_usd: float | None = _figure(
        "difference: uncached input ($)", "$", "their dollars", None, default=None
    )
    difference_output_usd: float | None = _figure("difference: output tier ($)", "$", "output priced in another long-context tier", None, default=None)  # fmt: skip

    def __getitem__(self, key: str) -> Any:
        """A figure by its name (KeyError for a name no figure has)."""
        if key not in FIGURES_BY_KEY:
            raise KeyError(key)
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        """Every figure by name, in the declared order: the JSON's ``summary``, a row of a table."""
        return {key: getattr(self, key) for key in FIGURES_BY_KEY}


TOTALS: tuple[Figure, ...] = tuple(Figure(f.name, *f.metadata["figure"]) for f in fields(Totals))

FIGURES_BY_KEY = {f.key: f for f in TOTALS}

# one row per inference; the columns of a stack's policies (``removed_by_<position>_<name>``)
# follow ``tokens_head``, and must-keep columns close each row
_PARTS = ("read", "write", "uncached", "output")
TURN: tuple[Figure, ...] = (
    Figure("turn", "turn", "turns", "the inference's number, from 1", None),
    Figure("reply_index", "reply index", "messages", "the recorded reply's position in the raw history, from 0", None),
    Figure("raw_tokens", "raw", "tokens", "the raw history's request: every message so far, no policy", None),
    Figure("context_tokens", "context", "tokens", "the stack's request"),
    Figure("saved_tokens", "saved", "tokens", "raw_tokens minus context_tokens", "higher"),
    Figure("raw_messages", "raw messages", "messages", "messages in the raw history's request", None),
    Figure("context_messages", "messages", "messages", "messages in the stack's request"),
    Figure("recorded_prompt_tokens", "recorded", "tokens", "the input the file records for this call (empty where it records none)", None),
    Figure("as_sent", "as sent", "turns", "1 where the request is the one the agent sent: it costs what its call records", None),
    Figure("stubs_created", "stubs", "messages", "messages a policy replaced by a stub at this turn", None),
    Figure("stubs_held", "stubs held", "messages", "stubs the request holds", None),
    Figure("clips", "clips", "messages", "tool outputs cut short at this turn", None),
    Figure("drops", "drops", "messages", "messages left out at this turn", None),
    Figure("compactions", "compactions", "events", "compactions at this turn", None),
    Figure("compacted_messages", "compacted", "messages", "messages those compactions summarized", None),
    Figure("summary_failures", "summaries failed", "events", "compactions skipped because the summarizer failed"),
    Figure("thrash", "thrash", "events", "compactions that left the context over the trigger, or fired on consecutive turns"),
    Figure("violations", "violations", "events", "the provider's rules the request breaks"),
    Figure("over_window", "over window", "turns", "1 where the request is larger than the context window"),
    Figure("raw_over_window", "raw over window", "turns", "1 where the raw history is larger than the window", None),
    Figure("raw_violations", "raw violations", "events", "broken call/result pairs the raw history holds before this reply", None),
    Figure("refetches", "re-fetches", "calls", "this reply's calls repeating an earlier call whose result was no longer intact"),
    Figure("facts_lost", "facts lost", "facts", "facts this reply uses that the session held earlier but the request lacked"),
    Figure("lost_facts", "which facts", "facts", "those facts, joined by '; '", None),
    Figure("quotes_lost", "lines lost", "lines", "lines this reply copies that its request no longer held"),
    Figure("lost_quotes", "which lines", "lines", "those lines, one per line", None),
    Figure("standing_rules_lost", "rules lost", "turns", "1 where the request lacks part of the system prompt"),
    Figure("cache_read_tokens", "cache read", "tokens", "input read from the prompt cache", "higher"),
    Figure("cache_write_tokens", "cache write", "tokens", "input written to the prompt cache"),
    Figure("uncached_tokens", "uncached", "tokens", "input neither read from nor written to the cache"),
    Figure("output_tokens", "output", "tokens", "the reply's tokens, as counted", None),
    Figure("raw_cache_read_tokens", "raw cache read", "tokens", "the raw history's input read from the cache", None),
    Figure("raw_cache_write_tokens", "raw cache write", "tokens", "the raw history's input written to the cache", None),
    Figure("recorded_cache_read_tokens", "recorded cache read", "tokens", "the cache read the file records for this call", None),
    Figure("recorded_cache_write_tokens", "recorded cache write", "tokens", "the cache write the file records for this call", None),
    Figure("recorded_output_tokens", "recorded output", "tokens", "the output the file records for this call", None),
    Figure("recorded_cost_usd", "recorded $", "$", "this call as the file records it, priced", None),
    Figure("recorded_counted_output_usd", "recorded $, output counted", "$", "the same with the reply's output counted", None),
    Figure("cache_break_at", "break at", "messages", "where the request first differs from the previous one's (empty: no break)", None),
    Figure("cache_break_repaid", "re-paid", "tokens", "tokens after the break, paid (and written) again"),
    Figure("cache_break_policy", "broken by", "events", "the policy that changed the message at the break", None),
    Figure("cold_cache", "cold", "turns", "1 where a gap longer than the cache's lifetime came before", None),
    Figure("cost_usd", "cost $", "$", "the stack's request priced with the prompt cache"),
    Figure("summary_cost_usd", "summaries $", "$", "the summarizer calls made at this turn"),
    Figure("summary_calls", "summarizer calls", "calls", "summarizer calls at this turn"),
    Figure("summary_input_tokens", "summarizer in", "tokens", "tokens sent to the summarizer"),
    Figure("summary_output_tokens", "summarizer out", "tokens", "tokens of the summaries"),
    Figure("raw_cost_usd", "raw $", "$", "the raw history's request priced the same way", None),
    Figure("raw_uncached_tokens", "raw uncached", "tokens", "the raw history's input neither read nor written", None),
    *(Figure(f"raw_cost_{p}_usd", f"raw {p} $", "$", f"the raw history's {p} part, in dollars", None) for p in _PARTS),
    *(Figure(f"cost_{p}_usd", f"{p} $", "$", f"the stack's {p} part, in dollars") for p in _PARTS),
    *(
        Figure(f"tokens_{kind}", kind, "tokens", f"the request's {kind} messages", None)
        for kind in ("system", "user", "assistant", "tool", "stub", "summary")
    ),
    Figure("tokens_head", "prefix", "tokens", "what opens every request besides its messages: tool definitions, the hidden prefix the calibration found, the reply's priming", None),
)  # fmt: skip
MUST_KEEP_TURN = (
    Figure("must_keep_lost", "must-keep lost", "facts", "declared must-keep facts the request lacked"),
    Figure("lost_must_keep", "which must-keep", "facts", "those facts, joined by '; '", None),
)
TURN_BY_KEY = {f.key: f for f in (*TURN, *MUST_KEEP_TURN)}


def heading(key: str) -> str:
    """How a narrow table (a table of sessions) heads the figure ``key``."""
    return FIGURES_BY_KEY[key].heading


def higher_is_better(key: str) -> bool:
    return FIGURES_BY_KEY[key].better == "higher"


def markdown_table() -> str:
    """The docs' list of a session's figures: this declaration, rendered."""
    rows = ["| figure | unit | better | what it is |", "|---|---|---|---|"]
    rows += [f"| `{f.key}` | {f.unit} | {f.better or '-'} | {f.meaning} |" for f in TOTALS]
    return "\n".join(rows)
