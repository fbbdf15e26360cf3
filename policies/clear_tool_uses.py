"""ClearToolUsesPolicy: Anthropic's ``clear_tool_uses_20250919`` and LangChain's ``ClearToolUsesEdit``."""

from __future__ import annotations

import operator
from bisect import bisect_left, insort
from dataclasses import dataclass, field
from fnmatch import fnmatch
from itertools import compress

from policies.base import CLEARING, EPHEMERAL, CompileEvent, Param, ParamError, Policy, persistence_param
from policies.estimates import langchain_approximate_tokens
from policies.messages import STANDING_ROLES, STUB, Message, ToolCall, sources_of
from policies.pairs import call_of

ANTHROPIC = "anthropic"
LANGCHAIN = "langchain"
INPUT_TOKENS, TOOL_USES = "input_tokens", "tool_uses"  # Anthropic's trigger types


class ClearToolUsesPolicy(Policy):
    """Once the request is over ``trigger`` tokens, replaces the oldest tool results (all but
    the last ``keep``) with a placeholder, oldest first, on a copy sent with each request.

    Two flavours, which differ in what they count and in what ``clear_at_least`` means:

    - ``anthropic`` (``clear_tool_uses_20250919``, the Messages API's context editing): the
      trigger reads the request's input tokens (system, tools and messages); ``keep`` counts
      tool uses, each a call with its result; ``clear_at_least`` is all or nothing: every
      candidate is cleared, or none if that frees fewer tokens.
    - ``langchain`` (``langchain==1.5.2``, ``ClearToolUsesEdit`` in ``ContextEditingMiddleware``
      with ``token_count_method="approximate"``): the trigger reads
      ``count_tokens_approximately`` of the messages alone (no system prompt, no tools);
      ``keep`` counts tool results; with ``clear_at_least`` it recounts after each result
      and stops once that many are reclaimed, keeping what it cleared if it never gets there.
      A result is cleared only when the nearest assistant message before it made its call.

    Either way a result is paired with the nearest call before it that carries its id (ids
    may repeat), a result already stubbed (by this or another policy) is left as it is,
    ``exclude_tools`` (names or glob patterns) are never cleared, and ``clear_tool_inputs``
    also blanks the cleared call's arguments. Both frameworks edit the request, never the
    stored history, so by default it is ephemeral: it sees every output again each call.
    """

    place = CLEARING
    source = "Anthropic context editing, LangChain `ContextEditingMiddleware`"
    summary = "ephemeral; clears the oldest tool results beyond `keep`; `flavour: anthropic` counts the whole request and treats `clear_at_least` as all or nothing, `langchain` counts the messages with LangChain's estimate and stops once it is reached"

    persistence = EPHEMERAL
    params = (
        Param(
            "trigger", int, 100_000, "Input tokens (or tool uses) above which clearing starts.", 1, 10_000_000
        ),
        Param(
            "trigger_type",
            str,
            INPUT_TOKENS,
            "What trigger counts: input_tokens, or tool_uses (Anthropic's flavour only).",
            choices=(INPUT_TOKENS, TOOL_USES),
        ),
        Param("keep", int, 3, "Most recent tool results never cleared.", 0, 100),
        Param(
            "clear_at_least",
            int,
            0,
            "Tokens to reclaim when it fires (see flavour for what falling short does).",
            0,
            1_000_000,
        ),
        Param("exclude_tools", list, (), "Tool names (or glob patterns) whose results are never cleared."),
        Param("clear_tool_inputs", bool, False, "Also blank the arguments of a cleared call."),
        Param("placeholder", str, "[cleared]", "Text left in place of a cleared result."),
        Param(
            "flavour",
            str,
            ANTHROPIC,
            "anthropic: real input tokens, clear_at_least all or nothing; "
            "langchain: its approximate count of the messages, stop once clear_at_least is reached.",
            choices=(ANTHROPIC, LANGCHAIN),
        ),
        persistence_param(
            EPHEMERAL,
            "ephemeral: each request is cleared anew from the whole history, as both frameworks do; "
            "persistent: the cleared context is written back.",
        ),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        if self.flavour == LANGCHAIN and self.trigger_type == TOOL_USES:
            raise ParamError("trigger_type tool_uses is Anthropic's: LangChain's trigger counts tokens")
        self._pass = _Pass()

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None:
            return None
        done = self._pass
        if not self._follow(done, messages):
            done = self._pass = _Pass()
        self._extend(done, messages)
        if self.flavour == LANGCHAIN or self.trigger_type == TOOL_USES:
            measured = done.measured
        else:
            measured = event.given_tokens(messages) + event.fixed_tokens
        if measured <= self.trigger:
            return None
        self._clear(done, event)
        if not done.cleared:
            return None
        langchain = self.flavour == LANGCHAIN
        if not langchain and done.freed < self.clear_at_least:
            event.report(
                "skip",
                (),
                f"clearing would free {done.freed:,} tokens, under clear_at_least {self.clear_at_least:,}",
            )
            return None
        new = done.cleared[done.reported :]  # what the previous request sent uncleared
        if new:
            unit = "tokens (LangChain's estimate)" if langchain else "tokens"
            if len(new) == len(done.cleared):
                detail = f"{len(new)} tool result(s) cleared, {done.freed:,} {unit} freed"
            else:
                detail = (
                    f"{len(new)} more tool result(s) cleared ({len(done.cleared)} in all), "
                    f"{done.freed:,} {unit} freed in all"
                )
            event.report("stub", sources_of(new), detail)
            done.reported = len(done.cleared)
        return list(done.out)

    def _follow(self, done: _Pass, messages: list[Message]) -> bool:
        """Bring the pass up to the history given, messages added after it aside, or say it
        must start over. A message an earlier policy replaced in place (a persistent stub) is
        taken in where it stands while the pass has cleared nothing: until then its copy is
        the history itself, so updating its tool results and measure, and looking again at
        the candidates from the first rewritten message on (what decides a candidate is the
        candidate and the call before it), gives what a pass over the whole history would."""
        n = len(done.given)
        if n > len(messages):
            return False
        replaced = list(compress(range(n), map(operator.is_not, done.given, messages)))
        if replaced and done.cleared:
            return False
        for i in replaced:
            old, new = done.given[i], messages[i]
            done.given[i] = done.out[i] = new
            if old.is_tool_result != new.is_tool_result:
                if new.is_tool_result:
                    insort(done.results, i)
                else:
                    done.results.remove(i)
            done.measured += self._measure(new) - self._measure(old)
        if replaced:  # the candidates from the first rewritten message on are looked at again
            done.looked = min(done.looked, bisect_left(done.results, replaced[0]))
        return True

    def _extend(self, done: _Pass, messages: list[Message]) -> None:
        """Take in the messages the history gained since the pass last saw it."""
        start = len(done.given)
        new = messages[start:]
        done.given.extend(new)
        done.out.extend(new)
        for i, m in enumerate(new, start=start):
            if m.is_tool_result:
                done.results.append(i)
            done.measured += self._measure(m)

    def _measure(self, message: Message) -> int:
        """What the trigger counts of a message: tool uses, or LangChain's token estimate."""
        if self.flavour == LANGCHAIN:
            return langchain_approximate_tokens(message) if message.role not in STANDING_ROLES else 0
        return len(message.tool_calls)

    def _clear(self, done: _Pass, event: CompileEvent) -> None:
        """Clear the candidates the pass has not looked at yet, oldest first.

        The history only grows while the pass goes on, so what it cleared of the older
        candidates is what clearing the whole history anew would clear of them."""
        langchain = self.flavour == LANGCHAIN
        measure = langchain_approximate_tokens if langchain else event.counter.count
        out = done.out
        candidates = max(len(done.results) - self.keep, 0)
        while done.looked < candidates and not done.reached:
            i = done.results[done.looked]
            done.looked += 1
            message = out[i]
            if message.kind == STUB:
                continue  # already cleared, by this policy or another
            at, call = call_of(out, i, assistant_only=langchain)
            if call is None:
                continue  # no call to pair with: leave it to the validity check
            if any(fnmatch(message.name or call.name, pattern) for pattern in self.exclude_tools):
                continue
            out[i] = message.replace(content=self.placeholder, kind=STUB)
            done.freed += measure(message) - measure(out[i])
            done.cleared.append(message)
            if self.clear_tool_inputs:
                before = out[at]
                calls = tuple(ToolCall(c.id, c.name, "{}") if c is call else c for c in before.tool_calls)
                out[at] = before.replace(tool_calls=calls)
                done.freed += measure(before) - measure(out[at])
            if langchain and self.clear_at_least and done.freed >= self.clear_at_least:
                done.reached = True


@dataclass
class _Pass:
    """What clearing the history has found so far: the history as given, the cleared copy,
    and where the tool results are. Both frameworks clear each request anew from the whole
    history; the history only grows between rewrites, so the pass goes on from where it
    stopped, and the replacements it made before stand (the same objects, which the engine
    finds in place)."""

    given: list[Message] = field(default_factory=list)
    out: list[Message] = field(default_factory=list)
    results: list[int] = field(default_factory=list)  # positions of tool results
    measured: int = 0  # tool uses, or LangChain's estimate of the messages
    looked: int = 0  # candidates looked at
    freed: int = 0
    cleared: list[Message] = field(default_factory=list)
    reported: int = 0  # of those cleared, how many a request sent cleared already
    reached: bool = False  # LangChain's clear_at_least reached: it stops there
