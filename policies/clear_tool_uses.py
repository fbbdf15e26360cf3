"""ClearToolUsesPolicy: Anthropic's ``clear_tool_uses_20250919`` and LangChain's ``ClearToolUsesEdit``."""

from __future__ import annotations

from fnmatch import fnmatch

from policies.base import EPHEMERAL, CompileEvent, Param, ParamError, Policy, persistence_param
from policies.estimates import langchain_approximate_tokens
from policies.messages import STANDING_ROLES, STUB, Message, ToolCall, sources_of

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

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        if counter is None:
            return None
        langchain = self.flavour == LANGCHAIN
        if langchain:
            measured = sum(langchain_approximate_tokens(m) for m in messages if m.role not in STANDING_ROLES)
        elif self.trigger_type == TOOL_USES:
            measured = sum(len(m.tool_calls) for m in messages)
        else:
            measured = event.given_tokens(messages) + event.fixed_tokens
        if measured <= self.trigger:
            return None
        results = [i for i, m in enumerate(messages) if m.is_tool_result]
        candidates = results[: len(results) - self.keep] if self.keep < len(results) else []
        measure = langchain_approximate_tokens if langchain else counter.count
        out = list(messages)
        cleared: list[Message] = []
        freed = 0
        for i in candidates:
            message = out[i]
            if message.kind == STUB:
                continue  # already cleared, by this policy or another
            at, call = _call_of(out, i, assistant_only=langchain)
            if call is None:
                continue  # no call to pair with: leave it to the validity check
            if any(fnmatch(message.name or call.name, pattern) for pattern in self.exclude_tools):
                continue
            out[i] = message.replace(content=self.placeholder, kind=STUB)
            freed += measure(message) - measure(out[i])
            cleared.append(message)
            if self.clear_tool_inputs:
                before = out[at]
                calls = tuple(ToolCall(c.id, c.name, "{}") if c is call else c for c in before.tool_calls)
                out[at] = before.replace(tool_calls=calls)
                freed += measure(before) - measure(out[at])
            if langchain and self.clear_at_least and freed >= self.clear_at_least:
                break
        if not cleared:
            return None
        if not langchain and freed < self.clear_at_least:
            event.report(
                "skip",
                (),
                f"clearing would free {freed:,} tokens, under clear_at_least {self.clear_at_least:,}",
            )
            return None
        unit = "tokens (LangChain's estimate)" if langchain else "tokens"
        event.report(
            "stub", sources_of(cleared), f"{len(cleared)} tool result(s) cleared, {freed:,} {unit} freed"
        )
        return out


def _call_of(messages: list[Message], index: int, *, assistant_only: bool) -> tuple[int, ToolCall | None]:
    """The call a tool result answers: in the nearest message before it that carries its id
    (``assistant_only``: in the nearest assistant message, or none, as LangChain looks)."""
    wanted = messages[index].tool_call_id
    for at in range(index - 1, -1, -1):
        message = messages[at]
        if message.role != "assistant":
            continue
        call = next((c for c in message.tool_calls if c.id == wanted), None)
        if call is not None or assistant_only:
            return at, call
    return -1, None
