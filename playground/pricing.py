"""Dollars: list prices from ``genai-prices`` (a maintained, offline price database).

No price is typed here. A model ``genai-prices`` does not know has no price: its figures
stay in tokens and the page says "no price known", never a made-up number.
"""

from __future__ import annotations

import warnings
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from playground.caching import PROVIDER_RULES, CacheRule, CacheTurn, rule_for

if (
    TYPE_CHECKING
):  # genai-prices is imported where a price is looked up: the commands that price nothing start without it
    from genai_prices.types import ModelPrice

# the providers whose cache rule we know, as genai-prices names them
PROVIDERS = ("openai", "anthropic", "google", "deepseek")


@dataclass(frozen=True, eq=False)  # one object per model and provider (find_price caches)
class Price:
    """One model's prices at one provider, as genai-prices gives them."""

    model: str  # genai-prices' id for it
    provider: str  # genai-prices' provider id
    provider_name: str
    prices: ModelPrice
    context_window: int | None

    @property
    def label(self) -> str:
        return f"{self.model} at {self.provider_name}"

    def cost(
        self, input_tokens: int, cache_read: int, cache_write: int, output: int, one_hour: bool
    ) -> float:
        """Dollars for one call: ``input_tokens`` in all, of which ``cache_read`` read from the
        cache and ``cache_write`` written to it; long-context tiers applied by genai-prices."""
        if input_tokens in self.thresholds:  # on a tier's edge: let genai-prices decide
            return self._priced(input_tokens, cache_read, cache_write, output, one_hour)
        # Within a tier every price is per token (the tier is set by the whole input), so the
        # rates genai-prices gives for one request in that tier price every request in it.
        rates = _tier_rates(self, bisect_left(self.thresholds, input_tokens), one_hour)
        uncached = input_tokens - cache_read - cache_write
        return uncached * rates[0] + cache_read * rates[1] + cache_write * rates[2] + output * rates[3]

    @cached_property
    def thresholds(self) -> tuple[int, ...]:
        """Input sizes where a long-context tier starts (genai-prices' cliff model)."""
        from genai_prices.types import TieredPrices

        prices = self.prices
        parts = (prices.input_mtok, prices.cache_read_mtok, prices.cache_write_mtok)
        parts += (prices.cache_write_1h_mtok, prices.output_mtok)
        starts = {tier.start for p in parts if isinstance(p, TieredPrices) for tier in p.tiers}
        return tuple(sorted(starts))

    def _priced(
        self, input_tokens: int, cache_read: int, cache_write: int, output: int, one_hour: bool
    ) -> float:
        from genai_prices import Usage

        usage = Usage(
            input_tokens=input_tokens,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,  # of which written to the one-hour cache:
            cache_write_1h_tokens=cache_write if one_hour else 0,
            output_tokens=output,
        )
        return float(self.prices.calc_price(usage)["total_price"])


@lru_cache(maxsize=512)
def _tier_rates(price: Price, tier: int, one_hour: bool) -> tuple[float, float, float, float]:
    """Dollars per token of uncached input, cache read, cache write and output for a request
    whose input lies in tier ``tier`` (0: under the first threshold), priced by genai-prices."""
    size = 1 if tier == 0 else price.thresholds[tier - 1] + 1  # one request in that tier
    million = 1_000_000
    uncached = price._priced(size, 0, 0, 0, one_hour)
    return (
        uncached / size,
        price._priced(size, size, 0, 0, one_hour) / size,
        price._priced(size, 0, size, 0, one_hour) / size,
        (price._priced(size, 0, 0, million, one_hour) - uncached) / million,
    )


@lru_cache(maxsize=256)
def find_price(model: str, provider: str | None = None) -> Price | None:
    """The prices of ``model`` (at ``provider`` if named), or None where none is known."""
    from genai_prices import Usage, calc_price

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = calc_price(Usage(input_tokens=0), model, provider_id=provider or None)
    except (LookupError, ValueError):
        return None
    return Price(
        found.model.id,
        found.provider.id,
        found.provider.name,
        found.model_price,
        getattr(found.model, "context_window", None),
    )


def default_cache_rule(price: Price | None, model: str) -> CacheRule:
    """The cache rule of the provider that serves ``model``; ``none`` where we know none."""
    rule = PROVIDER_RULES.get(price.provider if price else "")
    return rule_for(rule.name, price.model if price else model) if rule else rule_for("none")


PARTS = ("read", "write", "uncached", "output")


def turn_cost(price: Price, turn: CacheTurn, output: int, rule: CacheRule) -> dict[str, float]:
    """Dollars for one request split by ``turn`` with ``output`` reply tokens: the whole
    (``total``) and its parts (cache reads, writes, uncached input, output), which add up to
    it (under a long-context tier each part is priced alone, then scaled to the whole)."""
    hour = rule.write_1h
    total = price.cost(turn.read + turn.write + turn.uncached, turn.read, turn.write, output, hour)
    parts = {
        "read": price.cost(turn.read, turn.read, 0, 0, hour),
        "write": price.cost(turn.write, 0, turn.write, 0, hour),
        "uncached": price.cost(turn.uncached, 0, 0, 0, hour),
        "output": price.cost(0, 0, 0, output, hour),
    }
    whole = sum(parts.values())
    scale = total / whole if whole else 0.0
    return {"total": total, **{name: value * scale for name, value in parts.items()}}
