"""What a replay costs in money, the stack's requests against the raw history's.

Per turn: the input tokens read from the provider's prompt cache, written to it and paid in
full (``caching``), the recorded reply as output (the same for every stack), priced by
``genai-prices`` (``pricing``); the summaries a stack asks for are priced as calls of their
own. A request that drops or changes a message the previous one sent breaks the cached
prefix there: a *cache break*, put down to the policy that acted at that turn.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from playground.engine.replay import NO_EDIT, ReplayResult
from playground.engine.session import Session
from playground.engine.tokens import REPLY_PRIMING
from playground.money.caching import RULES, CacheMeter, CacheRule, CacheTurn, Delta, rule_for
from playground.money.pricing import (
    NO_OWN,
    PRICE_PARTS,
    PROVIDERS,
    Own,
    Price,
    TurnCost,
    default_cache_rule,
    find_price,
    own_price,
    request_cost,
    rule_model,
    turn_cost,
)
from policies.base import counted
from policies.messages import Message


class PricingError(ValueError):
    """A pricing setting that cannot be used; the message names it."""


MAX_PRICE_PER_MILLION = 100_000.0  # dollars: no model costs this; more is a typo or an attack
PRICING_KEYS = ("model", "provider", "cache", *PRICE_PARTS)


@dataclass(frozen=True)
class Pricing:
    """How a replay is priced: the config's ``pricing`` mapping. ``own`` are the user's
    prices in dollars per million tokens (input, cached input, cache write, output; None:
    genai-prices'), in place of genai-prices' for the model priced."""

    model: str = ""  # price as this model; "" is the replay's model
    provider: str = ""  # genai-prices provider id; "" is the model's own
    cache: str = "auto"  # a caching rule name; auto: the provider's rule
    own: Own = NO_OWN

    def to_data(self) -> dict[str, str | float]:
        """The settings that differ from the defaults (an all-default pricing writes nothing)."""
        data: dict[str, str | float] = {"model": self.model, "provider": self.provider, "cache": self.cache}
        data = {k: v for k, v in data.items() if v and v != getattr(Pricing, k)}
        data.update(
            {part: value for part, value in zip(PRICE_PARTS, self.own, strict=True) if value is not None}
        )
        return data

    @classmethod
    def from_data(cls, data: Any) -> Pricing:
        if not isinstance(data, dict):
            raise PricingError(f"pricing must be a mapping of {', '.join(PRICING_KEYS)}")
        unknown = [k for k in data if k not in PRICING_KEYS]
        if unknown:
            raise PricingError(
                f"pricing: unknown key {str(unknown[0])[:40]!r} (known: {', '.join(PRICING_KEYS)})"
            )
        values: dict[str, Any] = {}
        for key in ("model", "provider", "cache"):
            value = data.get(key)
            if value is None:
                continue
            if not isinstance(value, str) or len(value) > 200:
                raise PricingError(f"pricing.{key} must be a short text")
            values[key] = value
        own = tuple(price_per_million(f"pricing.{part}", data.get(part)) for part in PRICE_PARTS)
        pricing = cls(**values, own=own)  # type: ignore[arg-type]
        if pricing.provider and pricing.provider not in PROVIDERS:
            raise PricingError(f"pricing.provider {pricing.provider[:40]!r}: known: {', '.join(PROVIDERS)}")
        if pricing.cache != "auto" and pricing.cache not in RULES:
            raise PricingError(f"pricing.cache {pricing.cache[:40]!r}: known: auto, {', '.join(RULES)}")
        return pricing

    def resolve(self, model: str, session: Session | None = None) -> tuple[Price | None, CacheRule]:
        """The price and cache rule for a replay of ``model`` (of ``session``: with ``auto``,
        Anthropic's one-hour cache where the session wrote most of its cache there)."""
        priced_as = self.model or model
        found = find_price(priced_as, self.provider or None)
        price = found.with_own(self.own) if found else own_price(priced_as, self.own)
        if self.cache != "auto":
            return price, rule_for(self.cache, found.model if found else priced_as)
        rule = default_cache_rule(found, priced_as)
        if rule.name == "anthropic" and session is not None and _mostly_one_hour(session):
            rule = rule_for("anthropic-1h", rule_model(found, priced_as))
        return price, rule


def other_model(result: ReplayResult, pricing: Pricing) -> str:
    """The model the replay is priced as where the user chose another than the one that answered
    the session (``--price-as``, or ``--model`` over a recorded one); "" where it is the same."""
    priced_as = pricing.model or result.settings.model
    recorded = result.session.recorded_model
    return priced_as if pricing.model or (recorded and priced_as != recorded) else ""


def _mostly_one_hour(session: Session) -> bool:
    """Whether the session wrote most of its cache to the one-hour tier (Claude Code 2.1 does)."""
    return 2 * sum(session.cache_writes_1h.values()) > sum(session.cache_writes.values())


def price_per_million(where: str, value: Any) -> float | None:
    """A price in dollars per million tokens as a config or the command line gives it, or a
    PricingError naming ``where``; None stays None (genai-prices' price)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip().removeprefix("$"))
        except ValueError:
            raise PricingError(f"{where} must be dollars per million tokens, got {value[:40]!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PricingError(f"{where} must be dollars per million tokens, got a {type(value).__name__}")
    if not math.isfinite(value) or not 0 <= value <= MAX_PRICE_PER_MILLION:
        raise PricingError(
            f"{where} must be between 0 and {MAX_PRICE_PER_MILLION:,.0f} dollars per million tokens"
        )
    return float(value)


@dataclass(frozen=True)
class CacheBreak:
    """A request that did not keep the previous one's messages in place."""

    turn: int
    position: int  # first message of the previous request that this one does not hold in place
    repaid: int  # tokens of the previous request after that point, paid (or written) again
    policy: str  # the policies that acted at this turn, in stack order, with what they did; "" if none


@dataclass
class CostReport:
    price: Price | None
    rule: CacheRule
    stack: list[CacheTurn]
    raw: list[CacheTurn]
    output: list[int]  # reply tokens per turn
    stack_cost: list[TurnCost] | None  # dollars per turn, total and parts; None without a price
    raw_cost: list[TurnCost] | None
    summaries: list[tuple[int, int, int]]  # (turn, input, output) tokens per summary made
    summary_cost: list[float] | None  # dollars of the summaries made at each turn
    summary_priced_as: str | None  # the model the summaries are priced as
    breaks: list[CacheBreak]
    timed: bool  # the transcript recorded when each reply came
    recorded: list[RecordedCall | None]  # per turn, what the session records the call cost; None: nothing
    # the share of an ideal cache's reads the provider's cache served on the recorded calls,
    # applied to every request (best-effort caches only); None: the rule as it is
    served: float | None = None

    @property
    def served_note(self) -> str:
        if self.served is None:
            return ""
        return (
            f"{self.rule.label} caching is best effort: on the calls as recorded it served "
            f"{100 * self.served:.1f} % of the reads an ideal cache would, so every request here is "
            "read from the cache at that rate"
        )

    @property
    def timing_note(self) -> str:
        if self.rule.name == "none":
            return "no prompt caching"
        if self.timed:
            colds = sum(t.cold for t in self.stack)
            gap = f"{self.rule.ttl_seconds / 60:g}-minute"
            return (
                f"reply times recorded: the cache went cold after {colds} gaps over the {gap} lifetime"
                if colds
                else (f"reply times recorded: no gap over the {gap} cache lifetime")
            )
        return "no reply times recorded: the cache is assumed warm throughout"


def cost_report(result: ReplayResult, pricing: Pricing | None = None) -> CostReport:
    """Price ``result``: the stack's requests and the raw history's under one cache rule."""
    pricing = pricing or Pricing()
    price, rule = pricing.resolve(result.settings.model, result.session)
    session = result.session
    times = [session.times.get(t.reply_index) for t in result.turns]
    timed = any(t is not None for t in times)
    replies = [session.messages[t.reply_index] for t in result.turns]
    stack_meter, raw_meter = _meter(result, rule), _meter(result, rule)
    stack = [
        stack_meter.add(t.shared, t.tail, now, reply)
        for t, now, reply in zip(result.turns, times, replies, strict=True)
    ]
    raw = [
        raw_meter.add(kept, tail, now, reply)
        for (kept, tail), now, reply in zip(_raw_deltas(result), times, replies, strict=True)
    ]
    served = cache_served(result, raw, rule) if result.settings.calibrate else None
    if served is not None:
        stack, raw = as_served(stack, served), as_served(raw, served)
    output = replies_output(result, replies)
    # priced as another model than the one that answered (the user's choice): the calls as
    # recorded at that price too, so the two compare
    other = price if other_model(result, pricing) else None
    recorded = recorded_calls(result, output, price, other)
    # a request that is the one the agent sent paid what its call records (its cache split, its
    # tier), where the replay is priced as the agent was
    paid = as_the_agent_paid(result, pricing)
    sent = [t.as_sent and paid for t in result.turns]
    stack = [as_recorded(c, call) if s else c for c, s, call in zip(stack, sent, recorded, strict=True)]
    raw_sent = [s and paid for s in raw_as_sent(result)]
    raw = [as_recorded(c, call) if sent else c for c, sent, call in zip(raw, raw_sent, recorded, strict=True)]
    summaries = list(result.summary_stats.billed)
    stack_cost = raw_cost = summary_cost = summary_priced_as = None
    if price is not None:
        prices = [
            call_price(session, t.reply_index, price, other) or price if s else price
            for t, s in zip(result.turns, sent, strict=True)
        ]
        raw_prices = [p if sent else price for p, sent in zip(prices, raw_sent, strict=True)]
        stack_cost = [turn_cost(p, c, out, rule) for p, c, out in zip(prices, stack, output, strict=True)]
        raw_cost = [turn_cost(p, c, out, rule) for p, c, out in zip(raw_prices, raw, output, strict=True)]
        summary_price = _summary_price(result) or price
        summary_priced_as = summary_price.label
        # a summary is a fresh prompt (LangChain, ADK, Deep Agents): nothing of it cached
        summary_cost = [0.0] * len(result.turns)
        for turn, prompt, summary in summaries:
            summary_cost[turn - 1] += summary_price.cost(prompt, 0, 0, summary)
    breaks = _breaks(result, stack)
    return CostReport(
        price,
        rule,
        stack,
        raw,
        output,
        stack_cost,
        raw_cost,
        summaries,
        summary_cost,
        summary_priced_as,
        breaks,
        timed,
        recorded,
        served,
    )


def _meter(result: ReplayResult, rule: CacheRule) -> CacheMeter:
    """A cache meter for ``result``'s requests: its tool definitions open each, the reply's
    priming closes each, and what the first call found cached, as recorded, is warm: an
    agent's system prompt and tool definitions are the same in its every session, cached by
    the sessions before."""
    session, counter = result.session, result.counter
    warm_head = session.cache_reads.get(result.turns[0].reply_index, 0) if result.turns else 0
    return CacheMeter(
        rule,
        counter.count,
        tools=counter.tools(session.tools),
        priming=REPLY_PRIMING,
        warm_head=warm_head,
        replies=True,
        pinned_head=session.starts_mid_session,
    )


class RunningCost:
    """A replay's cost as it runs: pass it as ``replay(watch=...)`` and read ``spent`` after
    any turn. Dollars as ``cost_report`` bills the stack, summaries included, with the cache
    serving every read its rule allows: where a calibrated replay scales the reads down to
    what the provider served, the final figure is higher, so ``spent`` never exceeds it.
    Without a price, the tokens the requests hold (``billed_context_tokens``)."""

    def __init__(self, pricing: Pricing | None = None) -> None:
        self.pricing = pricing or Pricing()
        self.spent = 0.0
        self._meter: CacheMeter | None = None
        self._billed = 0  # summaries priced

    def __call__(self, result: ReplayResult) -> None:
        turn = result.turns[-1]
        if self._meter is None:
            self._price, self._rule = self.pricing.resolve(result.settings.model, result.session)
            self._summary_price = _summary_price(result) or self._price
            self._meter = _meter(result, self._rule)
            self._other = self._price if other_model(result, self.pricing) else None
            self._as_paid = as_the_agent_paid(result, self.pricing)
        if self._price is None:
            self.spent += turn.context_tokens
            return
        session = result.session
        reply = session.messages[turn.reply_index]
        cached = self._meter.add(turn.shared, turn.tail, session.times.get(turn.reply_index), reply)
        output = session.output_tokens(turn.reply_index, result.counter.count(reply))
        price = self._price
        if turn.as_sent and self._as_paid:  # the agent's own request: what its call records
            price = call_price(session, turn.reply_index, self._price, self._other) or self._price
            cached = as_recorded(
                cached, recorded_call(session, turn.reply_index, self._price, output, self._other)
            )
        self.spent += request_cost(price, cached, output, self._rule)
        billed = result.summary_stats.billed  # the summaries made so far, in order
        for _, prompt, summary in billed[self._billed :]:
            self.spent += self._summary_price.cost(prompt, 0, 0, summary)
        self._billed = len(billed)


MIN_SERVED_CALLS = 3


def cache_served(result: ReplayResult, raw: list[CacheTurn], rule: CacheRule) -> float | None:
    """The share of the reads a cache by ``rule`` would give that the provider's cache gave,
    on the calls the session records as the agent sent them (before its first compaction of
    its own): OpenAI's, Google's and DeepSeek's caches are best effort (a request can land on
    a machine without the prefix), so a session's own record is the best guess for the stack's.
    None for Anthropic's (breakpoints the request sets: deterministic), or without the record."""
    session = result.session
    if rule.breakpoints or rule.name == "none" or not session.cache_reads:
        return None
    stop = min((c.at for c in session.compactions), default=len(session.messages))
    pairs = [
        (session.cache_reads.get(t.reply_index, 0), turn.read)
        for t, turn in zip(result.turns, raw, strict=True)
        if t.reply_index < stop and t.reply_index in session.usage
    ]
    ideal = sum(read for _, read in pairs)
    if len(pairs) < MIN_SERVED_CALLS or not ideal:
        return None
    return min(1.0, sum(recorded for recorded, _ in pairs) / ideal)


def as_served(turns: list[CacheTurn], share: float) -> list[CacheTurn]:
    """Each request's reads scaled to what the provider's cache serves; the rest is paid in full."""
    out = []
    for turn in turns:
        read = round(turn.read * share)
        out.append(replace(turn, read=read, uncached=turn.uncached + turn.read - read))
    return out


def as_recorded(turn: CacheTurn, call: RecordedCall | None) -> CacheTurn:
    """``turn``, a request the agent sent, paid as its call records: the cache reads and writes
    (each write at its recorded tier) the provider reported, the rest uncached. As it is where
    the call records no cache split."""
    if call is None or call.cache_read is None or call.cache_write is None:
        return turn
    uncached = max(call.input - call.cache_read - call.cache_write, 0)
    return replace(
        turn, read=call.cache_read, write=call.cache_write, uncached=uncached, write_1h=call.cache_write_1h
    )


def as_the_agent_paid(result: ReplayResult, pricing: Pricing) -> bool:
    """Whether ``result`` is priced as the agent paid: at the model that answered, under its
    provider's own cache rule. Only then does a request the agent sent cost what its call records."""
    return pricing.cache == "auto" and not other_model(result, pricing)


def raw_as_sent(result: ReplayResult) -> list[bool]:
    """Per turn, whether the raw history's request is the one the agent sent: before the agent
    first changed its own requests (a compaction of its own, or a trim its usage shows)."""
    changes = [c.at for c in result.session.compactions] + [t.at for t in result.trims]
    first = min(changes, default=len(result.session.messages))
    return [t.reply_index < first for t in result.turns]


@dataclass(frozen=True)
class RecordedCall:
    """One call as the session records it: what the agent actually sent and paid."""

    input: int  # every input token, cached or not
    cache_read: int | None  # None: the session records no cache figures at all
    cache_write: int | None
    output: int | None  # as recorded; None where the file records none
    model: str  # the model that answered it, as recorded ("" where unknown)
    # dollars at that model's list price as the file records the call (ccusage's figure): each
    # cache write at its own tier, the output as recorded (our count where it records none);
    # None without a price, or without the cache split
    cost: float | None
    # the same call with the reply's output as every replay bills it (``Session.output_tokens``):
    # differs from ``cost`` where the file records a mid-stream snapshot of the output
    estimated_cost: float | None = None
    cache_write_1h: int = 0  # of ``cache_write``, to the one-hour cache


def replies_output(result: ReplayResult, replies: list[Message]) -> list[int]:
    """Each reply's output tokens, one figure for the stack, the raw history and the recorded
    call alike (the reply is the same whatever the request): ``Session.output_tokens``."""
    session, count = result.session, result.counter.count
    return [
        session.output_tokens(turn.reply_index, count(reply))
        for turn, reply in zip(result.turns, replies, strict=True)
    ]


def recorded_call(
    session: Session,
    index: int,
    fallback: Price | None = None,
    billed_output: int | None = None,
    priced_as: Price | None = None,
) -> RecordedCall | None:
    """The call the session records for its reply at raw ``index`` (None where it records no
    usage), priced at the model recorded for it (the session's, else ``fallback``: the replay's
    price) by genai-prices, or at ``priced_as`` where the user prices the replay as another
    model. ``billed_output`` is the reply's output as a replay bills it (for
    ``estimated_cost``). A session that records no cache figures at all has no recorded cost:
    what the cache served is unknown, and pricing every token in full would invent a bill."""
    tokens = session.usage.get(index)
    if tokens is None:
        return None
    model = session.models.get(index) or session.recorded_model
    price = call_price(session, index, fallback, priced_as)
    recorded_output = session.outputs.get(index)
    output = recorded_output if recorded_output is not None else (billed_output or 0)
    if not (session.cache_reads or session.cache_writes):
        return RecordedCall(tokens, None, None, recorded_output, model, None)
    read, write = session.cache_reads.get(index, 0), session.cache_writes.get(index, 0)
    hour = min(session.cache_writes_1h.get(index, 0), write)
    if price is None:
        return RecordedCall(tokens, read, write, recorded_output, model, None, None, hour)
    size = max(tokens, read + write)
    estimated = price.cost(size, read, write, output if billed_output is None else billed_output, hour)
    return RecordedCall(
        tokens,
        read,
        write,
        recorded_output,
        model,
        price.cost(size, read, write, output, hour),
        estimated,
        hour,
    )


def call_price(
    session: Session, index: int, fallback: Price | None = None, priced_as: Price | None = None
) -> Price | None:
    """The price of the call answered by the reply at raw ``index``: ``priced_as`` where the user
    prices the replay as another model, else the model recorded for it (the session's, else
    ``fallback``: the replay's price), the user's own prices holding where it is the same entry."""
    if priced_as is not None:
        return priced_as
    model = session.models.get(index) or session.recorded_model
    price = find_price(model) if model else fallback
    if price is not None and fallback is not None and price.model == fallback.model:
        price = fallback
    return price


def recorded_calls(
    result: ReplayResult, output: list[int], fallback: Price | None = None, priced_as: Price | None = None
) -> list[RecordedCall | None]:
    """Per turn, the call the session records (``recorded_call``), ``output`` being each
    reply's output as the replay bills it (``replies_output``)."""
    session = result.session
    return [
        recorded_call(session, turn.reply_index, fallback, replied, priced_as)
        for turn, replied in zip(result.turns, output, strict=True)
    ]


@dataclass(frozen=True)
class RecordedBill:
    """What every call a file records cost, over all its sessions (the main one, subagents,
    runs): the bill ccusage gives for the file's calls, at each call's own model and tier."""

    cost: float  # dollars of the calls priced
    calls: int  # calls that record usage
    priced: int  # of which priced (a model genai-prices knows, with the cache split recorded)
    sessions: int
    unpriced_models: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """The bill in words: how many calls it covers, and what it leaves out."""
        whole = f"${self.cost:,.4f} for {counted(self.calls, 'call')} in {counted(self.sessions, 'session')}"
        if self.priced == self.calls:
            return whole
        missing = ", ".join(self.unpriced_models) or "no cache figures recorded"
        return f"{whole}, of which {self.priced:,} priced ({missing}: no price)"


def recorded_bill(sessions: Sequence[Session]) -> RecordedBill:
    """The recorded bill of ``sessions`` together (``recorded_call`` for every call)."""
    cost, calls, priced, unpriced = 0.0, 0, 0, set()
    for session in sessions:
        for index in sorted(session.usage):
            call = recorded_call(session, index)
            if call is None:
                continue
            calls += 1
            if call.cost is None:
                unpriced.add(call.model or "model not recorded")
            else:
                cost, priced = cost + call.cost, priced + 1
    return RecordedBill(round(cost, 6), calls, priced, len(sessions), tuple(sorted(unpriced))[:5])


def _raw_deltas(result: ReplayResult) -> Iterator[Delta]:
    """The raw history's requests as deltas: each keeps all of the one before (a mid-session
    file's block of earlier conversation opening the first)."""
    messages, previous = result.session.messages, 0
    block = result.counter.earlier_block
    opening: tuple = () if block is None else (block,)
    for number, turn in enumerate(result.turns):
        if number == 0:
            yield 0, (*opening, *messages[: turn.reply_index])
        else:
            yield previous + len(opening), messages[previous : turn.reply_index]
        previous = turn.reply_index


def _summary_price(result: ReplayResult) -> Price | None:
    """The summarizer's own model where it names one (an endpoint's model), else the replay's."""
    model = result.settings.summarizer.given_value("model")
    return find_price(model) if isinstance(model, str) and model else None


def _breaks(result: ReplayResult, stack: list[CacheTurn]) -> list[CacheBreak]:
    """Each break with every policy that changed the request at its turn, in stack order, and
    what it did: at a compaction turn the compaction is named, not only an eviction before it."""
    acted: dict[int, dict[str, list[str]]] = {}
    for event in sorted(result.events, key=lambda e: (e.turn, e.position)):
        if event.position and event.action not in NO_EDIT:
            actions = acted.setdefault(event.turn, {}).setdefault(event.policy, [])
            if event.action not in actions:
                actions.append(event.action)
    named = {
        turn: ", ".join(f"{policy} ({', '.join(actions)})" for policy, actions in policies.items())
        for turn, policies in acted.items()
    }
    return [
        CacheBreak(turn.number, cached.broken_at, cached.repaid, named.get(turn.number, ""))
        for turn, cached in zip(result.turns, stack, strict=True)
        if cached.broken_at is not None
    ]
