"""AutoGen's model contexts (``autogen-core==0.7.5``, ``autogen_core/model_context/``).

A context keeps the whole list and returns a view from ``get_messages()`` before each model
call: ephemeral, per call. ``AssistantAgent`` prepends its system messages to the view, so
the pinned rules are never trimmed. AutoGen holds an assistant's tool calls as one
``AssistantMessage`` and all results of one step as one ``FunctionExecutionResultMessage``:
the sizes below count those messages, so a run of consecutive tool results is one.
"""

from __future__ import annotations

from policies.base import EPHEMERAL, CompileEvent, Param, Policy
from policies.messages import Message, sources_of

Unit = list[Message]  # one AutoGen message: a message, or a run of consecutive tool results


def units(messages: list[Message]) -> list[Unit]:
    """The messages as AutoGen's context holds them."""
    out: list[Unit] = []
    for message in messages:
        if message.is_tool_result and out and out[-1][0].is_tool_result:
            out[-1].append(message)
        else:
            out.append([message])
    return out


def _flat(groups: list[Unit]) -> list[Message]:
    return [m for group in groups for m in group]


def _is_results(unit: Unit) -> bool:
    return unit[0].is_tool_result


def _is_calls(unit: Unit) -> bool:
    """An AssistantMessage whose content is a list of FunctionCalls (its text is its thought)."""
    return unit[0].role == "assistant" and bool(unit[0].tool_calls)


def _dropped(event: CompileEvent, given: list[Unit], kept: list[Unit], what: str) -> None:
    kept_ids = {id(m) for m in _flat(kept)}
    gone = [m for m in _flat(given) if id(m) not in kept_ids]
    if gone:
        event.report("drop", sources_of(gone), f"{len(gone)} message(s) left out of the view: {what}")


class BufferedContextPolicy(Policy):
    """``BufferedChatCompletionContext(buffer_size)``: the last ``buffer_size`` messages; a
    leading function-result message is dropped (no marker)."""

    persistence = EPHEMERAL
    params = (Param("buffer_size", int, 10, "Most recent AutoGen messages in the view.", 1, 10_000),)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        given = units(messages)
        view = given[-self.buffer_size :]
        if view and _is_results(view[0]):
            view = view[1:]
        if len(view) == len(given):
            return None
        _dropped(event, given, view, f"the last {self.buffer_size} kept")
        return _flat(view)


class HeadAndTailContextPolicy(Policy):
    """``HeadAndTailChatCompletionContext(head_size, tail_size)``: the first ``head_size``
    messages (less a trailing call-only assistant message), a user message "Skipped N
    messages." and the last ``tail_size`` (less a leading function-result message); all of
    them while head and tail cover the list. N counts what lies between head and tail before
    those two adjustments, as AutoGen counts it."""

    persistence = EPHEMERAL
    params = (
        Param("head_size", int, 2, "Oldest AutoGen messages kept.", 1, 10_000),
        Param("tail_size", int, 10, "Most recent AutoGen messages kept.", 1, 10_000),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        given = units(messages)
        skipped = len(given) - self.head_size - self.tail_size
        if skipped <= 0:
            return None
        head = given[: self.head_size]
        if head and _is_calls(head[-1]):
            head = head[:-1]
        tail = given[-self.tail_size :]
        if tail and _is_results(tail[0]):
            tail = tail[1:]
        marker = Message("user", f"Skipped {skipped} messages.")  # UserMessage(source="System")
        _dropped(event, given, head + tail, f"head {self.head_size}, tail {self.tail_size}")
        return [*_flat(head), marker, *_flat(tail)]


class TokenLimitedContextPolicy(Policy):
    """``TokenLimitedChatCompletionContext(model_client, token_limit)`` (experimental):
    while the model client counts more than ``token_limit`` tokens for the messages and the
    tool schemas (the agent's system messages are not in the context), it pops the middle
    message (``len // 2``); then a leading function-result message is dropped. Popping the
    middle can take a call and leave its results, or the reverse (autogen #7955): the
    validity check shows the orphans AutoGen would send."""

    persistence = EPHEMERAL
    params = (
        Param(
            "token_limit",
            int,
            None,
            "Tokens the view may hold (empty: the model's window, AutoGen's remaining_tokens).",
            100,
            10_000_000,
            optional=True,
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        if counter is None:
            return None
        given = units(messages)
        # the model client counts the context's messages and the tools: the agent's system
        # messages are prepended after this trim
        tokens = event.given_tokens(messages) - counter.total(event.pinned) + event.fixed_tokens
        limit = self.token_limit if self.token_limit is not None else event.context_window
        if tokens <= limit:
            return None
        view = list(given)
        while tokens > limit and view:
            tokens -= counter.total(view.pop(len(view) // 2))
        if view and _is_results(view[0]):
            view = view[1:]
        _dropped(event, given, view, f"middle messages popped to fit {limit:,} tokens")
        return _flat(view)
