"""ClearToolUsesPolicy: Anthropic's ``clear_tool_uses_20250919`` and LangChain's ``ClearToolUsesEdit``."""

from __future__ import annotations

from fnmatch import fnmatch

from policies.base import CompileEvent, Param, Policy
from policies.messages import STUB, Message, sources_of


class ClearToolUsesPolicy(Policy):
    """Once the request is over ``trigger`` tokens, replaces the oldest tool results (all but
    the last ``keep``) with a placeholder, oldest first.

    With ``clear_at_least`` set it stops once that many tokens are freed, and clears nothing
    unless it can free that many: clearing invalidates the provider's prompt cache, so a
    small clear costs more than it saves. ``exclude_tools`` (names or glob patterns) are
    never cleared; ``clear_tool_inputs`` also blanks the arguments of the cleared call.
    """

    params = (
        Param("trigger", int, 100_000, "Input tokens above which clearing starts.", 1_000, 2_000_000),
        Param("keep", int, 3, "Most recent tool results never cleared.", 0, 100),
        Param(
            "clear_at_least",
            int,
            0,
            "Clear nothing unless at least this many tokens are freed.",
            0,
            1_000_000,
        ),
        Param("exclude_tools", list, (), "Tool names (or glob patterns) whose results are never cleared."),
        Param("clear_tool_inputs", bool, False, "Also blank the arguments of a cleared call."),
        Param("placeholder", str, "[cleared]", "Text left in place of a cleared result."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        if counter is None:
            return None
        tokens = event.given_tokens(messages)
        if tokens <= self.trigger:
            return None
        results = [i for i, m in enumerate(messages) if m.is_tool_result]
        candidates = results[: -self.keep] if self.keep else results
        owner = {c.id: (i, c) for i, m in enumerate(messages) for c in m.tool_calls}
        out = list(messages)
        cleared: list[Message] = []
        freed = 0
        for i in candidates:
            message = out[i]
            if message.kind == STUB and message.content == self.placeholder:
                continue  # already cleared
            at, call = owner.get(message.tool_call_id, (None, None))
            if call is None:
                continue  # no call in the context to pair with: leave it to the validity check
            if any(fnmatch(message.name or call.name, pattern) for pattern in self.exclude_tools):
                continue
            replacement = message.replace(content=self.placeholder, kind=STUB)
            freed += counter.count(message) - counter.count(replacement)
            out[i] = replacement
            cleared.append(message)
            if self.clear_tool_inputs:
                calls = tuple(
                    c.__class__(c.id, c.name, "{}") if c.id == call.id else c for c in out[at].tool_calls
                )
                before = out[at]
                out[at] = before.replace(tool_calls=calls)
                freed += counter.count(before) - counter.count(out[at])
            if self.clear_at_least and freed >= self.clear_at_least:
                break
        if not cleared:
            return None
        if freed < self.clear_at_least:
            event.report(
                "skip",
                (),
                f"clearing would free {freed:,} tokens, under clear_at_least {self.clear_at_least:,}",
            )
            return None
        event.report(
            "stub", sources_of(cleared), f"{len(cleared)} tool result(s) cleared, {freed:,} tokens freed"
        )
        return out
