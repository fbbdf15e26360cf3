"""The providers' rules for a request, checked after every compile; reported, never repaired.

- every tool result follows an assistant message that carries its call id, with only
  tool results between them;
- every call of an assistant message has its result before the next non-tool message
  (calls still pending at the end are fine);
- the standing rules are all there, unchanged, at the front;
- the request fits the model's context window (else the provider refuses it outright).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from policies.messages import Message


@dataclass(frozen=True)
class Violation:
    """One broken rule: which, at which position of the compiled request, and how."""

    rule: str
    position: int | None  # None: the request as a whole (its size)
    detail: str

    def __str__(self) -> str:
        return self.detail if self.position is None else f"position {self.position}: {self.detail}"

    def shifted(self, offset: int) -> Violation:
        position = None if self.position is None else self.position + offset
        return Violation(self.rule, position, self.detail)


ORPHAN_RESULT = "orphan_result"
MISSING_RESULT = "missing_result"
STANDING_RULES = "standing_rules"
OVER_WINDOW = "over_window"


def check_window(tokens: int, context_window: int) -> list[Violation]:
    """A request of ``tokens`` over ``context_window``: the provider would reject it."""
    if tokens <= context_window:
        return []
    over = tokens - context_window
    return [
        Violation(OVER_WINDOW, None, f"{tokens:,} tokens, {over:,} over the {context_window:,}-token window")
    ]


def check_request(messages: Sequence[Message], standing: Sequence[Message] = ()) -> list[Violation]:
    """Every violation of a whole request (standing rules first, as sent)."""
    return check_calls(messages) + check_standing(messages, standing)


def check_calls(messages: Sequence[Message], start: int = 0) -> list[Violation]:
    """Call/result violations at positions ``start`` and after.

    The scan's state at a non-tool message depends on that message alone, so a caller
    that knows ``messages[:start]`` did not change may rescan from the last non-tool
    message before ``start``; ``restart_point`` finds it.
    """
    open_calls: dict[str, str] = {}  # call id -> tool name, of the latest non-tool message
    answered: set[str] = set()
    if start > 0:
        open_calls = {c.id: c.name for c in messages[start - 1].tool_calls}
    violations = []
    for position in range(start, len(messages)):
        message = messages[position]
        if message.is_tool_result:
            for call_id in message.tool_call_ids:
                if call_id not in open_calls:
                    detail = f"tool result for call {call_id} has no assistant call before it"
                    violations.append(Violation(ORPHAN_RESULT, position, detail))
                answered.add(call_id)
            continue
        for call_id, name in open_calls.items():
            if call_id not in answered:
                detail = f"call {call_id} ({name}) has no result before this message"
                violations.append(Violation(MISSING_RESULT, position, detail))
        open_calls = {c.id: c.name for c in message.tool_calls}
        answered = set()
    return violations


def restart_point(messages: Sequence[Message], changed_from: int) -> int:
    """The position to rescan from when ``messages[changed_from:]`` changed (see check_calls)."""
    position = min(changed_from, len(messages))
    while position > 0 and messages[position - 1].is_tool_result:
        position -= 1
    return position


def check_standing(messages: Sequence[Message], standing: Sequence[Message]) -> list[Violation]:
    violations = []
    for k, rule in enumerate(standing):
        sent = messages[k] if k < len(messages) else None
        if sent is None or sent.role != rule.role or sent.content != rule.content:
            detail = f"standing rule {k} ({rule.role}) is missing or changed"
            violations.append(Violation(STANDING_RULES, k, detail))
    return violations
