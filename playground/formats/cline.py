"""Cline's task history (VS Code global storage ``tasks/<id>/api_conversation_history.json``),
with the ``ui_messages.json`` beside it where there is one.

The history is Anthropic-style ``[{role, content: [blocks], ts, metrics}]``. Cline writes
its tool calls as ``tool_use`` blocks but returns their results as user ``text`` blocks
(``[read_file for 'a.py'] Result: …``): those are tool results, paired in order with the
calls of the reply before them; a call the next user message does not answer (a task resumed,
the user's feedback instead) is sent as "result missing", as Cline's ContextManager does (v3.38.0,
``ensureToolResultsFollowToolUse``). ``metrics.tokens`` is the usage Cline recorded per reply;
``ui_messages.json`` records each request (``say: api_req_started``) with its input, cache
reads and writes, which are preferred where the two files are read together.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playground.engine.session import Session, TranscriptError
from playground.formats.beside import may_look_beside
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    as_list,
    block_text,
    uncached_plus_cache,
)
from playground.formats.given import Given
from playground.formats.json_text import read_side_file
from policies.base import counted
from policies.messages import ToolCall

_RESULT = re.compile(r"^\[[^\]\n]{1,300}\] Result:")
HISTORY = "api_conversation_history.json"
MISSING_RESULT = "result missing"  # what Cline sends for a call that got no result
UI = "ui_messages.json"


def looks_like(given: Given) -> bool:
    """Messages with Cline's ``ts`` beside role and block content."""
    items = given.items
    return any(
        isinstance(m, dict)
        and "ts" in m
        and m.get("role") in ("user", "assistant")
        and isinstance(m.get("content"), list)
        for m in items[:10]
    )


def looks_like_ui_messages(given: Given) -> bool:
    """What Cline's UI showed (``ui_messages.json``), given without the conversation."""
    items = given.items
    return any(
        isinstance(m, dict) and m.get("type") in ("say", "ask") and "ts" in m for m in items[:10]
    ) and not any(isinstance(m, dict) and "role" in m for m in items[:10])


def refuse_ui_messages(given: Given) -> list[Session]:
    """The UI's messages alone are no session: said, with the file to add."""
    raise TranscriptError(
        given.file,
        "",
        f"Cline's {UI} holds what the UI showed, not the conversation: add {HISTORY} from the same task folder",
    )


def requests_beside(file: str) -> list[dict]:
    """The requests of the ui_messages.json in the history's folder, if there is one."""
    path = Path(file).with_name(UI)
    if not may_look_beside():  # an upload: its name names no file here
        return []
    try:
        if Path(file).name != HISTORY or not path.is_file() or path.stat().st_size > 50 * 2**20:
            return []
        return requests_from(path.read_bytes())
    except OSError:
        return []


def requests_from(data: bytes) -> list[dict]:
    """The ``api_req_started`` records of a ui_messages.json (none where it does not read)."""
    items = read_side_file(data)
    requests = []
    for item in items if isinstance(items, list) else []:
        if (
            isinstance(item, dict)
            and item.get("say") == "api_req_started"
            and isinstance(item.get("text"), str)
        ):
            record = read_side_file(item["text"].encode("utf-8", "surrogatepass"))
            if isinstance(record, dict):
                requests.append(record)
    return requests


def read(given: Given) -> list[Session]:
    """The task history; each call's usage from ``ui_messages.json``, uploaded with it
    (``given.beside``) or beside it on disk."""
    items, file, name = given.items, given.file, given.name
    companion = given.beside.get(UI)
    requests = requests_from(companion) if companion is not None else requests_beside(file)
    builder = SessionBuilder(file, "Cline task history")
    # calls of the last reply waiting for their results, by id, in order: each answered in O(1)
    pending: dict[str, ToolCall] = {}
    replies = missing = 0
    for n, message in enumerate(items):
        builder.where = f"message {n}"
        if not isinstance(message, dict):
            raise builder.error(builder.where, "expected a message object")
        blocks = message.get("content")
        blocks = (
            [{"type": "text", "text": blocks}]
            if isinstance(blocks, str)
            else [b for b in as_list(blocks) if isinstance(b, dict)]
        )
        if message.get("role") == "assistant":
            texts = [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
            calls = tuple(
                ToolCall(str(b.get("id")), str(b.get("name") or ""), arguments_text(b.get("input")))
                for b in blocks
                if b.get("type") == "tool_use"
            )
            usage = _usage(builder, message, requests[replies] if replies < len(requests) else None)
            time = builder.reply_time_ms(message.get("ts"))
            builder.add("assistant", "\n".join(texts), tool_calls=calls, time=time, **usage)
            pending = {call.id: call for call in calls}
            replies += 1
            continue
        texts = []
        for block in blocks:
            text = (
                block.get("text")
                if block.get("type") == "text" and isinstance(block.get("text"), str)
                else None
            )
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                builder.add("tool", block_text(block.get("content")), tool_call_ids=(block["tool_use_id"],))
                pending.pop(block["tool_use_id"], None)
            elif text is not None and pending and _RESULT.match(text):
                first = next(iter(pending))
                builder.add("tool", text, tool_call_ids=(pending.pop(first).id,))
            elif text is not None:
                texts.append(text)  # the user's words, [TASK RESUMPTION] and environment details
        # Cline sends a result for every call of the reply before (ContextManager.
        # ensureToolResultsFollowToolUse, v3.38.0): one it never got is sent as "result missing"
        for call in pending.values():
            builder.add("tool", MISSING_RESULT, tool_call_ids=(call.id,))
        missing += len(pending)
        pending = {}
        if texts:
            builder.add("user", "\n".join(texts))
    if missing:
        builder.warn(
            "",
            f"{counted(missing, 'call')} answered by no result (a task resumed, or the user's feedback instead): "
            f'sent with the result "{MISSING_RESULT}", as Cline sends them',
        )
    if requests and len(requests) != replies:
        builder.warn(
            "", f"{UI} records {len(requests)} requests for {replies} replies: usage matched in order"
        )
    return [builder.build(name)]


def _usage(builder: SessionBuilder, message: dict, request: dict | None) -> dict[str, Any]:
    if request is not None:  # the UI's record of the request: input without the cache, then the cache
        uncached = builder.token_count(request.get("tokensIn"), "tokensIn")
        read_ = builder.token_count(request.get("cacheReads"), "cacheReads")
        written = builder.token_count(request.get("cacheWrites"), "cacheWrites")
        return {
            "prompt_tokens": uncached_plus_cache(uncached, read_, written),
            "cache_read": read_,
            "cache_write": written,
            "output": builder.token_count(request.get("tokensOut"), "tokensOut"),
        }
    metrics = message.get("metrics") if isinstance(message.get("metrics"), dict) else {}
    tokens = metrics.get("tokens") if isinstance(metrics.get("tokens"), dict) else {}
    info = message.get("modelInfo") if isinstance(message.get("modelInfo"), dict) else {}
    model = info.get("modelId") if isinstance(info.get("modelId"), str) else None
    return {
        "prompt_tokens": builder.token_count(tokens.get("prompt"), "metrics.tokens.prompt"),
        "cache_read": builder.token_count(tokens.get("cached"), "metrics.tokens.cached"),
        "output": builder.token_count(tokens.get("completion"), "metrics.tokens.completion"),
        "model": model,
    }
