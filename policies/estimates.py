"""Frameworks' own token estimates: a framework decides when to fire by its count, not the bill.

Each function follows one framework's source, named with its version; they are pure and
cheap (lengths, no tokenizer), so a policy may call them for every message of every request.
"""

from __future__ import annotations

import math
from functools import lru_cache

from policies.messages import Message, ToolCall, parsed_arguments

# langchain-core==1.8.4, langchain_core/messages/utils.py::count_tokens_approximately
LANGCHAIN_CHARS_PER_TOKEN = 4.0
LANGCHAIN_EXTRA_TOKENS_PER_MESSAGE = 3
_LANGCHAIN_ROLES = {"developer": "system"}  # _get_message_openai_role: a SystemMessage says "system"


def call_args(call: ToolCall) -> dict:
    """A call's arguments as the framework parses them into a dict (empty or not an object: {})."""
    value = parsed_arguments(call.arguments) if call.arguments.strip() else {}
    return value if isinstance(value, dict) else {}


@lru_cache(maxsize=16_384)  # a session's replies; entries hold their calls' arguments (any size)
def _langchain_calls_chars(calls: tuple[ToolCall, ...]) -> int:
    # AIMessage.tool_calls holds ToolCall dicts in this key order; the estimate counts their repr
    return len(repr([{"name": c.name, "args": call_args(c), "id": c.id, "type": "tool_call"} for c in calls]))


def langchain_chars(message: Message) -> int:
    """The characters ``count_tokens_approximately`` counts: the text, the repr of an
    assistant's tool calls, a tool result's call id, the role and the name."""
    chars = len(message.content) + len(_LANGCHAIN_ROLES.get(message.role, message.role))
    if message.tool_calls and message.role == "assistant":
        chars += _langchain_calls_chars(message.tool_calls)
    if message.is_tool_result:
        chars += len(message.tool_call_id or "")
    if message.name:
        chars += len(message.name)
    return chars


def langchain_approximate_tokens(message: Message, chars_per_token: float = LANGCHAIN_CHARS_PER_TOKEN) -> int:
    """One message as ``count_tokens_approximately`` counts it (no usage scaling):
    ceil(chars / chars_per_token) + 3. The total of a list is the sum of these."""
    return math.ceil(langchain_chars(message) / chars_per_token) + LANGCHAIN_EXTRA_TOKENS_PER_MESSAGE
