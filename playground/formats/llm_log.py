"""LLM completion logs, one API call a file (OpenHands' ``llm-logs/*.json``, written through
LiteLLM): ``{messages, tools, kwargs, context_window, response, cost, timestamp}``.

``messages`` is the whole request, ``response`` the provider's completion (its ``model``, the
reply in ``choices[0].message``, ``usage``), ``cost`` what the agent paid for it. A file is one
call: its request and reply, the usage on the reply. Several logs of one conversation (a list
of them, or the files of a folder, in time order) are one session: each call's request goes on
from the one before, and each call's usage goes on the reply at the place where its request
ends, so every call is a turn with its own usage. The replies before the first call's are
history its request already held: context, not calls (``Session.held_replies``).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from playground.engine.session import ReadWarning, Session, TranscriptError
from playground.formats import openai_chat
from playground.formats.builder import MAX_RECORDED_TOKENS, as_dict, as_list, reported_cost, summed_cost
from playground.formats.given import Given
from playground.formats.json_text import json_files

FORMAT = "LLM completion log"


def looks_like(given: Given) -> bool:
    data = given.data
    logs = data if isinstance(data, list) else [data]
    return bool(logs) and all(_is_log(log) for log in logs)


def _is_log(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("messages"), list)
        and isinstance(item.get("response"), dict)
        and isinstance(item["response"].get("choices"), list)
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    logs = sorted(data if isinstance(data, list) else [data], key=_when)
    last = logs[-1]
    reply = as_dict(
        as_dict(as_list(last["response"]["choices"])[0] if last["response"]["choices"] else {}).get("message")
    )
    messages = [m for m in last["messages"] if isinstance(m, dict)] + [{**reply, "role": "assistant"}]
    notes = []
    calls: dict[int, dict] = {}  # the raw index of each call's reply -> the call's log
    for n, log in enumerate(logs):
        end = len(log["messages"])
        if end >= len(messages) or as_dict(messages[end]).get("role") != "assistant":
            notes.append(
                ReadWarning(
                    f"call {n + 1}", "its request does not lead to the last one's: its usage is left out"
                )
            )
            continue
        calls[end] = log
    for index, log in calls.items():
        response = log["response"]
        messages[index] = {**messages[index], "usage": response.get("usage"), "model": response.get("model")}
        if isinstance(log.get("timestamp"), int | float):
            messages[index]["extra"] = {"timestamp": log["timestamp"]}
    session = openai_chat.session_of(messages, file, _name(last, file), tools=last.get("tools"))
    costs = [log.get("cost") for log in calls.values()]
    reported = summed_cost([reported_cost(c) for c in costs])
    return [
        replace(
            session,
            format=FORMAT,
            reported_cost_usd=reported,
            warnings=(*session.warnings, *notes),
            cache_writes=_writes(session, calls),
            held_replies=frozenset(
                i for i, m in enumerate(session.messages[: min(calls, default=0)]) if m.role == "assistant"
            ),
        )
    ]


def _writes(session: Session, calls: dict[int, dict]) -> dict[int, int]:
    """Anthropic's cache writes, which LiteLLM passes on beside the reads."""
    writes = {}
    for index, log in calls.items():
        value = as_dict(log["response"].get("usage")).get("cache_creation_input_tokens")
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_RECORDED_TOKENS:
            writes[index] = value
    return writes or session.cache_writes


def looks_like_folder(given: Given) -> bool:
    """A folder of JSON files (one session's completion logs, a file a call)."""
    return any(name.endswith(".json") for name in os.listdir(given.data))


def read_folder(given: Given) -> list[Session]:
    """The logs of a folder, each file one call, as one session."""
    folder = given.data
    logs = json_files(folder)
    bad = [name for name, data in logs if not _is_log(data)]
    if bad:
        raise TranscriptError(folder, bad[0], "not an LLM completion log like the others in its folder")
    return read(Given([data for _, data in logs], folder))


def _when(log: dict) -> float:
    stamp = log.get("timestamp")
    return float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0


def _name(log: dict, file: str) -> str:
    model = as_dict(log.get("response")).get("model")
    stem = file.rsplit("/", 1)[-1] or "LLM calls"
    return f"{stem} · {model}"[:200] if isinstance(model, str) else stem[:200]
