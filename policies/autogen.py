"""AutoGen's model contexts (``autogen-core==0.7.5``, ``autogen_core/model_context/``).

A context keeps the whole list and returns a view from ``get_messages()`` before each model
call: ephemeral, per call. ``AssistantAgent`` prepends its system messages to the view, so
the pinned rules are never trimmed. AutoGen holds an assistant's tool calls as one
``AssistantMessage`` and all results of one step as one ``FunctionExecutionResultMessage``:
the sizes below count those messages, so a run of consecutive tool results is one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache

from policies.base import EPHEMERAL, WINDOW, CompileEvent, Param, Policy
from policies.messages import Message, ToolCall, sources_of

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

    place = WINDOW
    source = "`autogen-core==0.7.5`"
    summary = "ephemeral view: the last N messages (`BufferedChatCompletionContext`)"

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

    place = WINDOW
    source = "`autogen-core==0.7.5`"
    summary = (
        'ephemeral view: the first N, "Skipped N messages.", the last M (`HeadAndTailChatCompletionContext`)'
    )

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
    """``TokenLimitedChatCompletionContext(model_client, token_limit, tool_schema)``
    (experimental): while the model client counts more than ``token_limit`` tokens for the
    messages (the agent's system messages are not in the context), it pops the middle
    message (``len // 2``); then a leading function-result message is dropped. Popping the
    middle can take a call and leave its results, or the reverse (autogen #7955): the
    validity check shows the orphans AutoGen would send.

    The count is autogen-ext's OpenAI client's ``count_tokens`` (``count_tokens_openai``,
    autogen-ext 0.7.5), with tiktoken's encoding for the model (cl100k_base for a model
    tiktoken does not know, as AutoGen falls back): 3 per AutoGen message, then every field
    of the OpenAI messages it becomes, the role, a user's name (+1), a result's call id and
    an assistant's calls as JSON among them, and 3 for the reply. The tool definitions count
    only when the context is given ``tool_schema``, by AutoGen's own rule."""

    place = WINDOW
    source = "`autogen-core==0.7.5`"
    summary = "ephemeral view: messages popped from the middle until the rest counts under a token limit; orphans included, autogen #7955 (`TokenLimitedChatCompletionContext`)"

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
        Param(
            "tool_schema",
            bool,
            False,
            "Count the session's tool definitions too (AutoGen does when the context is given tool_schema).",
        ),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        self._sizes: dict[tuple[int, ...], tuple[Unit, int]] = {}

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None:
            return None
        encoder = event.counter.in_encoding(autogen_encoding(getattr(event.counter, "model", "")))
        given = units(messages)
        sizes = [self._size(unit, encoder.text_cached) for unit in given]
        tokens = sum(sizes) + REPLY_PRIMING
        if self.tool_schema:
            tokens += autogen_tools_tokens(event.tools, encoder.text_cached)
        limit = self.token_limit if self.token_limit is not None else event.context_window
        if tokens <= limit:
            return None
        view = list(zip(given, sizes, strict=True))
        while tokens > limit and view:
            tokens -= view.pop(len(view) // 2)[1]
        kept = [unit for unit, _ in view]
        if kept and _is_results(kept[0]):
            kept = kept[1:]
        _dropped(event, given, kept, f"middle messages popped to fit {limit:,} tokens")
        return _flat(kept)

    def _size(self, unit: Unit, count: Count) -> int:
        """``autogen_message_tokens`` of a unit, counted once across the turns that hold it (the
        unit is kept with its count, so its messages' ids are not reused meanwhile)."""
        key = tuple(map(id, unit))
        known = self._sizes.get(key)
        if known is None:
            known = self._sizes[key] = (unit, autogen_message_tokens(unit, count))
        return known[1]


REPLY_PRIMING = 3  # count_tokens_openai: "every reply is primed with <|start|>assistant<|message|>"
Count = Callable[[str, str], int]  # TokenCounter.text_cached: tokens of a text, cached


@lru_cache(maxsize=64)
def autogen_encoding(model: str) -> str:
    """``tiktoken.encoding_for_model(model)``'s encoding, cl100k_base where tiktoken has none."""
    from tiktoken.model import encoding_name_for_model  # a table: nothing is downloaded

    try:
        return encoding_name_for_model(model)
    except KeyError:
        return "cl100k_base"


def autogen_message_tokens(unit: Unit, count: Count) -> int:
    """``count_tokens_openai`` of one AutoGen message (its share of the sum): 3, then the
    tokens of each field of the OpenAI messages ``to_oai_type`` makes of it."""
    first = unit[0]
    tokens = 3
    if first.is_tool_result:  # one {"content", "role": "tool", "tool_call_id"} per result
        for result in unit:
            tokens += count(result.content, "") + count("tool", "") + count(result.tool_call_id or "", "")
        return tokens
    role = "system" if first.role in ("system", "developer") else first.role
    tokens += count(role, "") + count(first.content, "")
    if role == "user":  # UserMessage's source is sent as the name
        tokens += count(first.name or "user", "") + 1
    if role == "assistant" and first.tool_calls:
        tokens += count(_calls_json(first.tool_calls), "")
    return tokens


@lru_cache(maxsize=16_384)  # a session's replies; entries hold their calls' arguments (any size)
def _calls_json(calls: tuple[ToolCall, ...]) -> str:
    """An assistant's calls as ``to_oai_type`` writes them, in JSON: made once per message,
    not on every request that holds it."""
    return json.dumps(
        [
            {"id": c.id, "function": {"arguments": c.arguments, "name": c.name}, "type": "function"}
            for c in calls
        ]
    )


def autogen_tools_tokens(definitions: Sequence[dict], count: Count) -> int:
    """``count_tokens_openai``'s tool tokens for the recorded definitions (chat, Responses or
    Anthropic shape): per tool its name and description less 2, per property its name and
    fields, 11 per schema with properties (9 with none), and 12 for the list."""
    tools = [_function(d) for d in definitions if isinstance(d, dict)]
    tools = [t for t in tools if t is not None]
    tokens = 12 if tools else 0
    for name, description, parameters in tools:
        tokens += count(name, "") + count(description, "") - 2
        properties = parameters.get("properties")
        if not isinstance(properties, dict):
            continue
        for key, value in properties.items():
            tokens += count(str(key), "")
            for field in value if isinstance(value, dict) else ():
                tokens += _field_tokens(field, value[field], count)
        tokens += 11 if properties else 9
    return tokens


def _field_tokens(field: str, value: object, count: Count) -> int:
    if field in ("type", "description", "title"):
        return 2 + count(str(value), "")
    if field == "default":
        return 2 + count(json.dumps(value, default=str), "")
    if field == "anyOf" and isinstance(value, list):
        return -3 + sum(3 + count(str(o.get("type") if isinstance(o, dict) else o), "") for o in value)
    if field == "enum" and isinstance(value, list):
        return -3 + sum(3 + count(str(o), "") for o in value)
    return 0  # AutoGen logs "Not supported field" and counts nothing


def _function(definition: dict) -> tuple[str, str, dict] | None:
    function = definition.get("function", definition)
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return None
    parameters = function.get("parameters", function.get("input_schema", {}))
    description = function.get("description", "")
    return (
        function["name"],
        description if isinstance(description, str) else str(description),
        parameters if isinstance(parameters, dict) else {},
    )
