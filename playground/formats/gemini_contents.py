"""Gemini's history as ``Content[]``: what Gemini CLI's ``/chat share`` and its chat's
``getHistory()`` write, and what the Gemini API takes as ``contents``.

``[{role: "user" | "model", parts: [...]}]``; a part is ``{text}``, ``{thought: true, text}`` (the
model's thinking, kept apart), ``{functionCall: {name, args, id?}}``, ``{functionResponse: {name,
response, id?}}`` or ``{thoughtSignature}`` (opaque, passed over). A run of ``model`` entries is one
call; a response answers the call of its ``id``, else the oldest open call of its name.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict, deque

from playground.engine.session import Session
from playground.formats.builder import SessionBuilder, arguments_text, as_dict, as_list, label_of
from playground.formats.given import Given
from policies.messages import ToolCall

FORMAT = "Gemini Content[] history"
ROLES = ("user", "model")


def looks_like(given: Given) -> bool:
    """Every item a ``{role: user|model, parts: [...]}`` and at least one the model's."""
    items = given.items
    return (
        bool(items)
        and all(
            isinstance(i, dict) and i.get("role") in ROLES and isinstance(i.get("parts"), list) for i in items
        )
        and any(i.get("role") == "model" for i in items)
    )


def read(given: Given) -> list[Session]:
    items, file, name = given.items, given.file, given.name
    builder = SessionBuilder(file, FORMAT)
    passed: Counter[str] = Counter()
    open_calls: dict[str, deque[str]] = defaultdict(deque)  # by function name: ids not answered yet
    previous_role, calls = "", 0
    for number, content in enumerate(items):
        builder.where = f"item {number}"
        role, parts = content["role"], [p for p in as_list(content.get("parts")) if isinstance(p, dict)]
        texts, thoughts, requests = [], [], []
        for part in parts:
            if isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                tool = str(call.get("name") or "")[:200]
                call_id = call.get("id") if isinstance(call.get("id"), str) else f"{tool}-{calls}"
                calls += 1
                open_calls[tool].append(call_id)
                requests.append(ToolCall(call_id, tool, arguments_text(call.get("args"))))
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                tool = str(response.get("name") or "")[:200]
                call_id = response.get("id") if isinstance(response.get("id"), str) else None
                waiting = open_calls.get(tool)
                if call_id is None and waiting:
                    call_id = waiting.popleft()
                elif call_id is not None and waiting and call_id in waiting:
                    waiting.remove(call_id)
                if call_id is None:
                    passed[f"a response of {label_of(tool)} to no call"] += 1
                    continue
                body = response.get("response")
                text = (
                    body if isinstance(body, str) else json.dumps(as_dict(body) or body, ensure_ascii=False)
                )
                builder.add("tool", text, tool_call_ids=(call_id,), name=tool or None)
            elif isinstance(part.get("text"), str):
                (thoughts if part.get("thought") is True else texts).append(part["text"])
            else:
                passed[f"{role} part {label_of(next(iter(part), 'empty'))}"] += 1
        if role == "user":
            if texts:
                builder.add("user", "\n".join(texts))
        elif previous_role == "model" and builder.last_is_open_assistant():  # the same call, continued
            builder.join_last("\n".join(texts), tuple(requests), "\n".join(thoughts))
        else:
            builder.add(
                "assistant", "\n".join(texts), tool_calls=tuple(requests), thinking="\n".join(thoughts)
            )
        previous_role = role
    builder.warn_counts("parts passed over", dict(passed))
    return [builder.build(name or "Gemini history")]
