"""Pi coding agent sessions (``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl``), read from
the agent's own source (``badlogic/pi-mono``: ``packages/ai/src/types.ts`` for the messages,
the coding agent's session manager for the entries).

A header line ``{type: "session", version, id, cwd, ...}``, then entries ``{type, id,
parentId, timestamp, ...}`` that form a tree: the session is the branch from the last entry
back to the root. ``message`` entries hold a ``user``, ``assistant`` or ``toolResult``
message; an assistant message has ``content`` blocks ``text``, ``thinking`` and ``toolCall
{id, name, arguments}``, its ``provider`` and ``model``, and ``usage {input, output,
cacheRead, cacheWrite, totalTokens, cost: {..., total}}`` (``input`` is the uncached part).
``compaction`` entries are the agent's own compactions (``summary``, ``tokensBefore``);
``model_change``, ``thinking_level_change``, ``custom``, ``label`` and ``session_info``
shape no request and are passed over.
"""

from __future__ import annotations

from collections import Counter

from playground.engine.session import RecordedCompaction, Session, TranscriptError
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    as_dict,
    as_list,
    label_of,
    reported_cost,
    summed_cost,
    uncached_plus_cache,
    version_of,
)
from playground.formats.given import Given
from policies.messages import ToolCall

FORMAT = "Pi session"


def looks_like(given: Given) -> bool:
    """A Pi session: its header first, and message entries after it."""
    items = given.items
    head = items[0] if items else None
    return (
        isinstance(head, dict)
        and head.get("type") == "session"
        and "version" in head
        and any(
            isinstance(i, dict) and i.get("type") == "message" and isinstance(i.get("message"), dict)
            for i in items[1:50]
        )
    )


def _branch(items: list) -> list[tuple[int, dict]]:
    """The entries of the branch that ends at the last entry, root first (a tree: a session
    continued from an earlier message keeps the other branch in the file, not in its requests)."""
    entries = [
        (n, i) for n, i in enumerate(items, start=1) if isinstance(i, dict) and isinstance(i.get("id"), str)
    ]
    by_id = {i["id"]: (n, i) for n, i in entries}
    if not entries:
        return []
    branch, seen = [], set()
    node: tuple[int, dict] | None = entries[-1]
    while node is not None and node[1]["id"] not in seen:  # a loop of parents ends the walk
        seen.add(node[1]["id"])
        branch.append(node)
        parent = node[1].get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    return branch[::-1]


def read(given: Given) -> list[Session]:
    items, file = given.items, given.file
    builder = SessionBuilder(file, FORMAT)
    head = as_dict(items[0])
    builder.agent_version = version_of(str(head.get("version", "")))
    passed: Counter[str] = Counter()
    costs: list[float | None] = []
    model: str | None = None
    branch = _branch(items)
    for number, entry in branch:
        builder.where = f"line {number}"
        kind = entry.get("type")
        if kind == "model_change" and isinstance(entry.get("modelId"), str):
            model = entry["modelId"]
        elif kind == "compaction":
            summary = entry.get("summary") if isinstance(entry.get("summary"), str) else ""
            before = entry.get("tokensBefore")
            builder.compactions.append(
                RecordedCompaction(
                    len(builder.messages),
                    "auto",
                    before if type(before) is int and before >= 0 else None,
                    summary,
                )
            )
        elif kind == "message" and isinstance(entry.get("message"), dict):
            model = _message(builder, entry["message"], model, costs, passed) or model
        else:
            passed[label_of(kind)] += 1
    if len(branch) < sum(1 for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)):
        builder.warn(
            "", "entries of other branches of the session tree passed over: the last entry's branch is read"
        )
    builder.warn_counts("entries passed over, not messages the model was sent", dict(passed))
    if not builder.messages:
        raise TranscriptError(file, "", "a Pi session with no message on its last branch")
    session = builder.build(str(head.get("id") or "Pi session")[:80])
    bill = summed_cost(costs) if costs else None
    return [Session(**{**session.__dict__, "reported_cost_usd": bill})]


def _message(
    builder: SessionBuilder, message: dict, model: str | None, costs: list, passed: Counter
) -> str | None:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        text = (
            content
            if isinstance(content, str)
            else "\n".join(
                b["text"] for b in as_list(content) if isinstance(b, dict) and isinstance(b.get("text"), str)
            )
        )
        builder.add("user", text)
    elif role == "toolResult":
        call_id = message.get("toolCallId")
        if not isinstance(call_id, str):
            passed["toolResult without a toolCallId"] += 1
            return None
        text = "\n".join(
            b["text"] for b in as_list(content) if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
        name = message.get("toolName") if isinstance(message.get("toolName"), str) else None
        builder.add("tool", text, tool_call_ids=(call_id,), name=name)
    elif role == "assistant":
        texts, thoughts, calls = [], [], []
        for block in as_list(content):
            block = as_dict(block)
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                thoughts.append(block["thinking"])
            elif block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                calls.append(
                    ToolCall(
                        block["id"],
                        str(block.get("name") or "")[:200],
                        arguments_text(block.get("arguments")),
                    )
                )
        usage = as_dict(message.get("usage"))
        uncached = builder.token_count(usage.get("input"), "usage.input")
        read = builder.token_count(usage.get("cacheRead"), "usage.cacheRead")
        written = builder.token_count(usage.get("cacheWrite"), "usage.cacheWrite")
        named = message.get("model") if isinstance(message.get("model"), str) else model
        builder.add(
            "assistant",
            "\n".join(texts),
            tool_calls=tuple(calls),
            thinking="\n".join(thoughts),
            prompt_tokens=uncached_plus_cache(uncached, read, written),
            cache_read=read,
            cache_write=written,
            output=builder.token_count(usage.get("output"), "usage.output"),
            model=named,
            time=builder.reply_time_ms(message.get("timestamp")),
        )
        costs.append(reported_cost(as_dict(usage.get("cost")).get("total")))
        return named
    else:
        passed[f"message/{label_of(role)}"] += 1
    return None
