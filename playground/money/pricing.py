"""Dollars: list prices from ``genai-prices`` (a maintained, offline price database).

No price is typed here. A model ``genai-prices`` does not know has no price: its figures
stay in tokens and the page says "no price known", never a made-up number.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
import threading
import warnings
from bisect import bisect_left
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from playground.cache_dir import default_cache_dir
from playground.money.caching import PROVIDER_RULES, CacheRule, CacheTurn, rule_for

# the providers whose cache rule we know, as genai-prices names them
PROVIDERS = ("openai", "anthropic", "google", "deepseek", "x-ai")
_STORING = threading.Lock()  # one writer of the price file at a time in this process
Rates = tuple[float, float, float, float]  # dollars per token: uncached input, cache read, write, output
# a user's own prices, dollars per million tokens, in the order of Rates (None: genai-prices')
PRICE_PARTS = ("input", "cached_input", "cache_write", "output")
Own = tuple[float | None, float | None, float | None, float | None]
NO_OWN: Own = (None, None, None, None)
MILLION = 1_000_000


@dataclass(frozen=True, eq=False)  # one object per model and provider (find_price caches)
class Price:
    """One model's prices at one provider, as genai-prices gives them: per token within each
    long-context tier (``rates``, keyed ``"<tier> <1 if one-hour writes else 0>"``)."""

    model: str  # genai-prices' id for it
    provider: str  # genai-prices' provider id
    provider_name: str
    context_window: int | None
    thresholds: tuple[int, ...]  # input sizes where a long-context tier starts (genai-prices' cliff model)
    rates: dict[str, Rates] = field(repr=False)
    own: Own = NO_OWN  # the parts the user priced, dollars per million tokens
    varies_by_hour: bool = False  # the provider charges more at some hours (DeepSeek's peak hours)

    @property
    def listed_per_million(self) -> dict[str, float]:
        """The base prices (the first tier, five-minute cache writes) per million tokens, by
        ``PRICE_PARTS``: what a user corrects."""
        base = self.rates[_tier_key(0, False)]
        return {part: rate * MILLION for part, rate in zip(PRICE_PARTS, base, strict=True)}

    @property
    def label(self) -> str:
        """Which entry of which genai-prices release priced it, and the user's own prices."""
        where = f"{self.model} at {self.provider_name}" if self.provider else self.model
        source = f"genai-prices {genai_prices_release()}" if self.provider else "no genai-prices entry"
        if self.varies_by_hour:
            source += (
                f"; its price changes with the hour of the day: the {PRICED_AT_HOUR}:00 UTC price is used"
            )
        if self.own == NO_OWN:
            return f"{where} ({source})"
        mine = ", ".join(
            f"{part.replace('_', ' ')} ${value:g}/M"
            for part, value in zip(PRICE_PARTS, self.own, strict=True)
            if value is not None
        )
        return f"{where} ({source}; your prices: {mine})"

    def with_own(self, own: Own) -> Price:
        """These prices with the user's own in place of genai-prices' (every long-context tier
        at the one price the user gives)."""
        if own == NO_OWN:
            return self
        rates = {
            key: tuple(r if o is None else o / MILLION for r, o in zip(rate, own, strict=True))
            for key, rate in self.rates.items()
        }
        return replace(self, rates=rates, own=own)

    def cost(
        self, input_tokens: int, cache_read: int, cache_write: int, output: int, write_1h: int = 0
    ) -> float:
        """Dollars for one call: ``input_tokens`` in all, of which ``cache_read`` read from the
        cache and ``cache_write`` written to it (``write_1h`` of those to the one-hour cache, at
        its own price); long-context tiers applied by genai-prices."""
        if input_tokens in self.thresholds and self.own == NO_OWN:  # on a tier's edge: genai-prices decides
            prices = _model_prices(self.model, self.provider)
            return _genai_cost(prices, input_tokens, cache_read, cache_write, output, write_1h)
        # Within a tier every price is per token (the tier is set by the whole input), so the
        # rates genai-prices gives for one request in that tier price every request in it.
        tier = bisect_left(self.thresholds, input_tokens)
        rates, hour = self.rates[_tier_key(tier, False)], self.rates[_tier_key(tier, True)]
        uncached = input_tokens - cache_read - cache_write
        writes = (cache_write - write_1h) * rates[2] + write_1h * hour[2]
        return uncached * rates[0] + cache_read * rates[1] + writes + output * rates[3]


def _tier_key(tier: int, one_hour: bool) -> str:
    return f"{tier} {int(one_hour)}"


def own_price(model: str, own: Own) -> Price | None:
    """A model genai-prices does not know, priced wholly at the user's prices (None unless all
    four are given: a bill with a part made up is not given)."""
    if any(value is None for value in own):
        return None
    rates = tuple(value / MILLION for value in own)  # type: ignore[operator]
    return Price(model, "", "", None, (), {_tier_key(0, False): rates, _tier_key(0, True): rates}, own)


def genai_prices_release() -> str:
    return metadata.version("genai-prices")


def find_price(model: str, provider: str | None = None) -> Price | None:
    """The prices of ``model`` (at ``provider`` if named), or None where none is known.

    Looked up in genai-prices once per model and genai-prices release: what it gives is kept
    in the cache folder, so a later run starts without loading its database. Claude Code's
    "[1m]" (the 1M-token window, asked for) names the same model at the same price."""
    model = model.removesuffix("[1m]")
    for name in same_model(model):
        found = _find_price(name, provider)
        if found is not None:
            return found
    return None


# Cline names Claude models family last, with underscores (claude_4_5_opus)
_FAMILY_LAST = re.compile(r"claude[_-](\d+)(?:[_-](\d+))?[_-](opus|sonnet|haiku)(.*)", re.IGNORECASE)


def same_model(model: str) -> list[str]:
    """``model`` and the names it stands for, in order: as written; a Claude name written family
    last (Cline's ``claude_4_5_opus``) as Anthropic writes it (``claude-opus-4-5``); without
    a router's or provider's prefix (``litellm_proxy/anthropic/claude-sonnet-4``, ``deepseek/deepseek-chat``)."""
    names = [model]
    bare = model.rsplit("/", 1)[-1]
    for name in (model, bare):
        match = _FAMILY_LAST.fullmatch(name)
        if match:
            major, minor, family, rest = match.groups()
            names.append(
                f"claude-{family.lower()}-{major}" + (f"-{minor}" if minor else "") + rest.replace("_", "-")
            )
    names.append(bare)
    return list(dict.fromkeys(n for n in names if n))


@lru_cache(maxsize=256)
def _find_price(model: str, provider: str | None) -> Price | None:
    stored = _stored_prices()
    key = f"{model}\n{provider or ''}"
    if key in stored:
        return stored[key] and _price_of(stored[key])
    price = _looked_up(model, provider)
    if price is None or len(key) > MAX_STORED_NAME or len(stored) >= MAX_STORED_LOOKUPS:
        # looked up, not kept: a name no price list knows (an upload's own, any text) never goes
        # into the file every user of the server shares, nor does a name of any length
        return price
    with _STORING:  # what other lookups stored meanwhile is kept: the file is read again
        stored = _stored_prices()
        stored[key] = None if price is None else {k: v for k, v in asdict(price).items() if k != "own"}
        _store_prices(stored)
    return price


def _looked_up(model: str, provider: str | None) -> Price | None:
    from genai_prices.types import TieredPrices

    found = _found(model, provider)
    if found is None:
        return None
    prices = found.model_price
    parts = (prices.input_mtok, prices.cache_read_mtok, prices.cache_write_mtok)
    parts += (prices.cache_write_1h_mtok, prices.output_mtok)
    thresholds = tuple(sorted({tier.start for p in parts if isinstance(p, TieredPrices) for tier in p.tiers}))
    rates = {
        _tier_key(tier, hour): _tier_rates(prices, thresholds, tier, hour)
        for tier in range(len(thresholds) + 1)
        for hour in (False, True)
    }
    window = getattr(found.model, "context_window", None)
    varies = _varies_by_hour(model, provider, prices)
    return Price(
        found.model.id,
        found.provider.id,
        found.provider.name,
        window,
        thresholds,
        rates,
        varies_by_hour=varies,
    )


# genai-prices gives the price at a moment: some providers' prices change with the hour (DeepSeek
# V4 costs double at its peak hours). A replay is priced at one hour of today, whatever the hour
# it runs at, so the same replay gives the same dollars all day; the label says so where it matters.
PRICED_AT_HOUR = 12


def _priced_at(hour: int = PRICED_AT_HOUR) -> datetime:
    return datetime.now(UTC).replace(hour=hour, minute=0, second=0, microsecond=0)


def _found(model: str, provider: str | None, at: datetime | None = None) -> Any:
    """genai-prices' match for a model (its price calculation of an empty call) at ``at`` (by
    default today at ``PRICED_AT_HOUR`` UTC), or None."""
    from genai_prices import Usage, calc_price

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return calc_price(
                Usage(input_tokens=0),
                model,
                provider_id=provider or None,
                genai_request_timestamp=at or _priced_at(),
            )
    except (LookupError, ValueError):
        return None


def _varies_by_hour(model: str, provider: str | None, price: Any) -> bool:
    """Whether genai-prices gives this model another price at some hour of today."""
    for hour in range(24):
        other = _found(model, provider, _priced_at(hour))
        if other is not None and other.model_price != price:
            return True
    return False


@lru_cache(maxsize=64)
def _model_prices(model_id: str, provider_id: str) -> Any:
    """genai-prices' own prices of a model it named (for a call on a tier's edge)."""
    return _found(model_id, provider_id).model_price


def _tier_rates(prices: Any, thresholds: tuple[int, ...], tier: int, one_hour: bool) -> Rates:
    """Dollars per token of uncached input, cache read, cache write and output for a request
    whose input lies in tier ``tier`` (0: under the first threshold), priced by genai-prices."""
    size = 1 if tier == 0 else thresholds[tier - 1] + 1  # one request in that tier
    million = MILLION

    def priced(read: int, write: int, output: int) -> float:
        return _genai_cost(prices, size, read, write, output, write if one_hour else 0)

    uncached = priced(0, 0, 0)
    return (
        uncached / size,
        priced(size, 0, 0) / size,
        priced(0, size, 0) / size,
        (priced(0, 0, million) - uncached) / million,
    )


def _genai_cost(
    prices: Any, input_tokens: int, cache_read: int, cache_write: int, output: int, write_1h: int
) -> float:
    """Dollars for one call by genai-prices' ``ModelPrice.calc_price``."""
    from genai_prices import Usage

    usage = Usage(
        input_tokens=input_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,  # of which written to the one-hour cache:
        cache_write_1h_tokens=write_1h,
        output_tokens=output,
    )
    return float(prices.calc_price(usage)["total_price"])


def _prices_file() -> Path:
    """The stored lookups of this genai-prices release (a new release starts a new file)."""
    # -2: the lookups are made at PRICED_AT_HOUR and say whether the price varies by hour
    return default_cache_dir() / f"prices-genai-prices-{metadata.version('genai-prices')}-2.json"


MAX_STORED_LOOKUPS = 2_000  # models and providers kept in the file
MAX_STORED_NAME = 200  # characters of a model and provider name worth keeping
MAX_PRICES_FILE = 4 * 2**20  # bytes: what 2,000 lookups take, with room


def _stored_prices() -> dict[str, Any]:
    """The lookups stored so far; none where the file is missing, too big, or not what we
    wrote (a rate that is negative, not a number or infinite; a name that is not text)."""
    try:
        with open(_prices_file(), "rb") as handle:
            data = handle.read(MAX_PRICES_FILE + 1)
        if len(data) > MAX_PRICES_FILE:
            return {}
        stored = json.loads(data)
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) and all(_well_formed(v) for v in stored.values()) else {}


def _price_of(record: dict[str, Any]) -> Price:
    rates = {key: tuple(r) for key, r in record["rates"].items()}
    return Price(**{**record, "thresholds": tuple(record["thresholds"]), "rates": rates})


def _well_formed(record: Any) -> bool:
    if record is None:
        return True
    try:
        price = _price_of(record)
    except (TypeError, KeyError, AttributeError):
        return False
    tiers = len(price.thresholds) + 1
    keys = {_tier_key(tier, hour) for tier in range(tiers) for hour in (False, True)}
    names = (price.model, price.provider, price.provider_name)
    return (
        all(isinstance(name, str) and len(name) <= MAX_STORED_NAME for name in names)
        and (price.context_window is None or type(price.context_window) is int)
        and all(type(t) is int and t > 0 for t in price.thresholds)
        and price.own == NO_OWN
        and price.rates.keys() == keys
        and all(len(r) == 4 and all(_rate(x) for x in r) for r in price.rates.values())
    )


def _rate(value: Any) -> bool:
    """A price per token: a finite number, not negative."""
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


def _store_prices(stored: dict[str, Any]) -> None:
    """Written whole or not at all, each writer (a process, an app thread) into a part file of
    its own; a folder that cannot be written leaves the lookups unstored."""
    target = _prices_file()
    part = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(dir=target.parent, prefix=f"{target.name}.", suffix=".part")
        with os.fdopen(handle, "w") as out:
            out.write(json.dumps(stored))
        os.replace(part, target)
    except OSError:
        if part is not None:
            with contextlib.suppress(OSError):  # it cannot be removed either
                os.unlink(part)


def default_cache_rule(price: Price | None, model: str) -> CacheRule:
    """The cache rule of the provider that serves ``model``; ``none`` where we know none."""
    rule = PROVIDER_RULES.get(price.provider if price else "")
    return rule_for(rule.name, rule_model(price, model)) if rule else rule_for("none")


def rule_model(price: Price | None, model: str) -> str:
    """The model name a cache rule is looked up by: genai-prices' id where it knows the model."""
    return price.model if price else model


PARTS = ("read", "write", "uncached", "output")


def request_cost(price: Price, turn: CacheTurn, output: int, rule: CacheRule) -> float:
    """Dollars for one request split by ``turn`` with ``output`` reply tokens."""
    return price.cost(
        turn.read + turn.write + turn.uncached, turn.read, turn.write, output, _hour(turn, rule)
    )


def _hour(turn: CacheTurn, rule: CacheRule) -> int:
    """The tokens of ``turn``'s writes made to the one-hour cache: as the call recorded them,
    else as ``rule`` writes."""
    if turn.write_1h is not None:
        return turn.write_1h
    return turn.write if rule.write_1h else 0


@dataclass(frozen=True)
class TurnCost:
    """One request's dollars: the whole and its parts (``PARTS``), which add up to it."""

    total: float
    read: float
    write: float
    uncached: float
    output: float

    def part(self, name: str) -> float:
        """A part by its name in ``PARTS`` (the per-turn columns are named after them)."""
        if name not in PARTS:
            raise KeyError(name)
        return getattr(self, name)


def turn_cost(price: Price, turn: CacheTurn, output: int, rule: CacheRule) -> TurnCost:
    """Dollars for one request split by ``turn`` with ``output`` reply tokens: the whole and
    its parts (cache reads, writes, uncached input, output), which add up to it (under a
    long-context tier each part is priced alone, then scaled to the whole)."""
    total = request_cost(price, turn, output, rule)
    read = price.cost(turn.read, turn.read, 0, 0)
    write = price.cost(turn.write, 0, turn.write, 0, _hour(turn, rule))
    uncached = price.cost(turn.uncached, 0, 0, 0)
    out = price.cost(0, 0, 0, output)
    whole = read + write + uncached + out
    scale = total / whole if whole else 0.0
    return TurnCost(total, read * scale, write * scale, uncached * scale, out * scale)
