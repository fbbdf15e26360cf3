"""Prompt caching: which tokens of each request a provider serves from its prefix cache.

Every major provider caches the prompt prefix: a request that starts with the tokens of an
earlier one pays a fraction for them. A policy that edits the middle of the context breaks
the prefix, and everything after the edit is paid (and, at Anthropic, written) again. Each
provider's rule lives in one ``CacheRule`` below, its source named beside it.

A request's cached prefix comes from what it keeps of the previous request: the engine
records that per turn (``Turn.shared``) as it writes each policy's result back, since it
shares unchanged ``Message`` objects between turns; ``deltas`` finds it by identity for
requests from elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import compress, count
from operator import is_not

from policies import Message


@dataclass(frozen=True)
class CacheRule:
    """How one provider caches a prompt prefix."""

    name: str
    label: str
    min_tokens: int  # a prompt shorter than this is never cached
    block: int  # hits come in whole blocks of this many tokens (1: exact)
    writes: bool  # the provider charges for writing the cache (else writes are free)
    breakpoints: bool  # hits only at an earlier request's end (Anthropic); else any prefix
    ttl_seconds: float  # idle time after which the cache is gone
    write_1h: bool = False  # Anthropic's one-hour cache, written at 2x instead of 1.25x
    lookback_blocks: int = 0  # a breakpoint finds an earlier entry at most this many blocks back (0: any)


# Each rule below was checked in its provider's documentation in December 2026.
#
# OpenAI, API docs "Prompt caching": automatic from 1,024 tokens, hits in 128-token steps.
# Retention: "in_memory" is cleared after 5-10 minutes idle (gpt-4o, the o-series); extended
# retention ("24h", up to 24 hours) is the default for the models that offer it (GPT-5 and
# later, GPT-4.1) outside zero-data-retention organisations, and the only one from GPT-5.5 on.
# "Cache writes have no additional fee on models before the GPT-5.6 family. For GPT-5.6 models
# and later model families, cache writes cost 1.25x the uncached input token rate" (the price
# of a write comes from genai-prices' cache_write figure).
OPENAI = CacheRule("openai", "OpenAI automatic, in-memory", 1024, 128, False, False, 300.0)
OPENAI_24H = replace(OPENAI, label="OpenAI automatic, 24-hour retention", ttl_seconds=86_400.0)
OPENAI_WRITES = replace(OPENAI_24H, label="OpenAI GPT-5.6+, 24-hour retention, writes billed", writes=True)
OPENAI_24H_MODELS = ("gpt-5", "gpt-4.1")  # extended retention by default (ZDR organisations aside)
# Anthropic, docs "Prompt caching": automatic caching (one cache_control at the top of the
# request) puts the breakpoint on the last cacheable block and moves it forward as the
# conversation grows, as agent frameworks and Claude Code do by hand: a breakpoint at the end
# of each request. A hit is found only at an earlier breakpoint, and "the system checks for
# cache hits at ... block boundaries, up to 20 blocks before" the breakpoint: a request that
# adds more than 20 content blocks after the last cached entry misses it. TTL 5 minutes,
# refreshed on a hit (1 hour at 2x write); writes 1.25x, reads 0.1x (prices from genai-prices).
ANTHROPIC = CacheRule(
    "anthropic", "Anthropic, 5-minute cache", 1024, 1, True, True, 300.0, lookback_blocks=20
)
ANTHROPIC_1H = replace(
    ANTHROPIC, name="anthropic-1h", label="Anthropic, 1-hour cache", ttl_seconds=3600.0, write_1h=True
)
# Google, Gemini API docs "Context caching": implicit caching on 2.5 and later, no write
# charge, minimum 1,024 tokens (Flash) / 4,096 (Pro); no TTL is promised, an hour assumed.
GOOGLE = CacheRule("google", "Google implicit", 1024, 1, False, False, 3600.0)
# DeepSeek, API docs "Context caching": on by default, stored in 64-token units; a prefix
# shorter than one unit is not cached; no write charge; kept "hours to days", an hour assumed.
DEEPSEEK = CacheRule("deepseek", "DeepSeek, 64-token blocks", 64, 64, False, False, 3600.0)
# xAI, docs "Prompt Caching" (and "Usage & Pricing"): automatic on every request, any prefix,
# no write charge, cached input billed at its own price (0.25x input for the Grok 4 models,
# from genai-prices); entries may be evicted at any time and no lifetime or minimum is stated:
# five minutes idle assumed, and best effort (the share a session records is applied).
XAI = CacheRule("xai", "xAI automatic", 1, 1, False, False, 300.0)
NONE = CacheRule("none", "No caching", 0, 1, False, False, 0.0)

RULES = {rule.name: rule for rule in (OPENAI, ANTHROPIC, ANTHROPIC_1H, GOOGLE, DEEPSEEK, XAI, NONE)}
PROVIDER_RULES = {
    "openai": OPENAI,
    "anthropic": ANTHROPIC,
    "google": GOOGLE,
    "deepseek": DEEPSEEK,
    "x-ai": XAI,
}

# Anthropic's minimum cacheable prompt per model (docs "Prompt caching", "Cache limitations");
# below it a request is silently uncached. Matched by the start of the model id.
ANTHROPIC_MINIMUMS = (
    ("claude-opus-5", 512),
    ("claude-opus-4-5", 4096),
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-7", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4-6", 2048),
    ("claude-3-haiku", 2048),
    ("claude-3-5-haiku", 2048),
)
# Google's minimum for Pro models (Flash: 1,024), same docs.
GOOGLE_PRO_MINIMUM = 4096


def rule_for(name: str, model: str = "") -> CacheRule:
    """The rule named ``name`` (``openai``, ``anthropic``, ``anthropic-1h``, ``google``,
    ``deepseek``, ``xai``, ``none``) as it applies to ``model``: its own minimum length, and
    at OpenAI its retention and whether writes are billed."""
    if name not in RULES:
        raise ValueError(f"unknown cache rule {name[:40]!r}; known: {', '.join(RULES)}")
    rule = RULES[name]
    if rule.name.startswith("anthropic"):
        minimum = next((n for prefix, n in ANTHROPIC_MINIMUMS if model.startswith(prefix)), rule.min_tokens)
        return _with_minimum(rule, minimum)
    if rule is GOOGLE and "pro" in model:
        return _with_minimum(rule, GOOGLE_PRO_MINIMUM)
    if rule is OPENAI:
        return _openai_rule(model)
    return rule


def _openai_rule(model: str) -> CacheRule:
    family = _gpt_version(model)
    if family is not None and family >= (5, 6):
        return OPENAI_WRITES
    if model.startswith(OPENAI_24H_MODELS):
        return OPENAI_24H
    return OPENAI


def _gpt_version(model: str) -> tuple[int, int] | None:
    """(5, 6) of ``gpt-5.6-sol``; None for a model not named gpt-N[.M]."""
    match = re.match(r"gpt-(\d+)(?:\.(\d+))?", model)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def _with_minimum(rule: CacheRule, minimum: int) -> CacheRule:
    return replace(rule, min_tokens=minimum)


def content_blocks(message: Message) -> int:
    """The content blocks a message takes at Anthropic (what the 20-block lookback counts):
    its thinking, its text, and one per tool call; a tool result is one."""
    if message.is_tool_result:
        return 1
    return (
        bool(message.thinking) + (bool(message.content) or not message.tool_calls) + len(message.tool_calls)
    )


# a request as what it keeps of the previous one: (messages kept in place, messages after them)
Delta = tuple[int, Sequence[Message]]


@dataclass(frozen=True)
class CacheTurn:
    """What one request pays for its input: read from the cache, written to it, or neither."""

    read: int
    write: int
    uncached: int
    broken_at: int | None  # first message of the previous request not kept in place; None: kept
    repaid: int  # tokens of the previous request re-sent after the break, paid again
    cold: bool  # the cache had expired (a gap longer than the TTL)
    # of ``write``, to the one-hour cache, where the call recorded it; None: as the rule writes
    write_1h: int | None = None


def shared_prefix(previous: Sequence[Message], request: Sequence[Message]) -> int:
    """How many messages open both requests, the same objects in the same places."""
    # the index of the first pair that differs, found at C speed
    return next(compress(count(), map(is_not, previous, request)), min(len(previous), len(request)))


def deltas(requests: Iterable[Sequence[Message]]) -> Iterator[Delta]:
    """Whole requests as deltas: what each keeps of the one before and what follows."""
    previous: Sequence[Message] = ()
    for request in requests:
        shared = shared_prefix(previous, request)
        yield shared, request[shared:]
        previous = request


def cache_turns(
    requests: Iterable[Delta],
    tokens: Callable[[Message], int],
    rule: CacheRule,
    times: Sequence[float | None] | None = None,
    replies: Sequence[Message] | None = None,
    tools: int = 0,
    priming: int = 0,
    warm_head: int = 0,
) -> list[CacheTurn]:
    """Per request, how its input tokens split under ``rule`` (a ``CacheMeter`` fed each one).

    Each request comes as a delta (``deltas``, or the engine's ``Turn.shared`` and
    ``Turn.tail``): how many messages it keeps in place from the previous request, and the
    messages after them. ``times`` (seconds, one per request, None where unknown) and
    ``replies`` (one per request) as ``CacheMeter.add`` takes them.
    """
    meter = CacheMeter(
        rule, tokens, tools=tools, priming=priming, warm_head=warm_head, replies=replies is not None
    )
    return [
        meter.add(
            kept, tail, times[number] if times else None, replies[number] if replies is not None else None
        )
        for number, (kept, tail) in enumerate(requests)
    ]


class CacheMeter:
    """How each request of a sequence splits its input tokens under ``rule``, one request at a
    time (so a replay can be priced as it runs).

    The prefix a request may find cached is what it shares with the previous request followed
    by that request's reply (where ``replies`` are given and the rule caches any prefix); at
    Anthropic only at an earlier request's end, where its breakpoint was, and no more than
    ``lookback_blocks`` content blocks before this request's end. Every request opens with
    ``tools`` tokens of tool definitions (providers put them first, so they are always shared)
    and ends with ``priming`` tokens that open the reply (never shared). Work per request is
    proportional to what changed.

    ``warm_head`` tokens opening the first request are already cached when it is sent (as the
    session records: the system prompt and tool definitions an agent sends the same in every
    session, cached by its earlier sessions). A ``pinned_head`` (the tool definitions and what
    opens every request with them: a file that starts mid-session holds the conversation before
    it there) carries a breakpoint of its own at Anthropic, so a request that breaks the cache
    after it still reads it.
    """

    def __init__(
        self,
        rule: CacheRule,
        tokens: Callable[[Message], int],
        *,
        tools: int = 0,
        priming: int = 0,
        warm_head: int = 0,
        replies: bool = False,
        pinned_head: bool = False,
    ) -> None:
        self.rule, self.tokens, self.priming, self.warm_head = rule, tokens, priming, warm_head
        self.pinned_head = pinned_head
        # prefix[k]: tokens of tools + the previous request's first k messages (then its reply)
        self.prefix: list[int] = [tools]
        self.lookback = rule.lookback_blocks if rule.breakpoints else 0
        self.blocks: list[int] = [0]  # with a lookback: content blocks of the previous request's first k
        self.length = 0  # messages in the previous request
        self.entries: list[int] = []  # Anthropic: message counts at which an earlier request ended, cached
        self.last_time: float | None = None
        self.any_prefix = replies and not rule.breakpoints
        self.last_reply: Message | None = None
        self.number = 0

    def add(
        self, kept: int, tail: Sequence[Message], now: float | None = None, reply: Message | None = None
    ) -> CacheTurn:
        """The next request, as a delta, sent at ``now`` (seconds; None where unknown: the cache
        is then assumed warm) and answered by ``reply``. An idle gap longer than the rule's TTL
        makes the cache cold."""
        rule, prefix, number, length = self.rule, self.prefix, self.number, self.length
        cold = bool(
            rule.ttl_seconds
            and now is not None
            and self.last_time is not None
            and now - self.last_time > rule.ttl_seconds
        )
        broken_at = kept if kept < length else None
        repaid = prefix[length] - prefix[kept] if broken_at is not None else 0
        shared = kept
        if self.any_prefix and number and kept == length and tail and tail[0] == self.last_reply:
            shared += 1  # the previous reply, where the provider cached it after its request
        del prefix[shared + 1 :]  # what follows the shared part is this request's own
        for message in tail[shared - kept :]:
            prefix.append(prefix[-1] + self.tokens(message))
        blocks = self.blocks
        if self.lookback:
            del blocks[shared + 1 :]
            for message in tail[shared - kept :]:
                blocks.append(blocks[-1] + content_blocks(message))
        length = self.length = kept + len(tail)
        total = prefix[length] + self.priming
        cacheable = rule.name != "none" and total >= rule.min_tokens
        read = 0
        if cacheable and not number and self.warm_head >= rule.min_tokens:
            read = min(self.warm_head, total) // rule.block * rule.block
        entries = self.entries
        if cacheable and not cold and number:
            if rule.breakpoints:
                while entries and entries[-1] > shared:  # ascending: drop those past the break
                    entries.pop()
                found = entries and (
                    not self.lookback or blocks[length] - blocks[entries[-1]] <= self.lookback
                )
                read = prefix[entries[-1]] if found else 0
                if not found and self.pinned_head:  # the head's own breakpoint, unbroken
                    read = prefix[0]
            else:
                read = prefix[shared]
            read = read // rule.block * rule.block
            if read < rule.min_tokens:
                read = 0
        if cold:
            entries.clear()
        write = total - read if cacheable and rule.writes else 0
        if cacheable:
            entries.append(length)
        if self.any_prefix and reply is not None:
            prefix.append(prefix[-1] + self.tokens(reply))
        self.last_reply = reply
        if now is not None:
            self.last_time = now
        self.number += 1
        return CacheTurn(read, write, total - read - write, broken_at, repaid, cold)
