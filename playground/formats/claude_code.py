"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON object per line. ``user`` and ``assistant`` lines carry an Anthropic Messages
``message``; an API response is written one content block per line, each line repeating the
call's ``usage``, so lines sharing a ``message.id`` are one call (the last line's
``output_tokens`` is final). Tool results come back as ``tool_result`` blocks in user lines.
Subagents run in side chains (``isSidechain``, a chain per task, in the main file up to 1.x
and in ``subagents/agent-*.jsonl`` files from 2.x): each becomes a session of its own,
after the main one. ``compact_boundary`` lines and the ``isCompactSummary`` line after them
are the agent's own compactions. Every other line type is passed over and counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from playground.engine.session import ReadWarning, RecordedCompaction, Session, TranscriptError
from playground.formats.beside import may_look_beside
from playground.formats.builder import (
    MAX_RECORDED_TOKENS,
    SessionBuilder,
    arguments_text,
    as_dict,
    block_text,
    check_sessions,
    label_of,
    uncached_plus_cache,
    version_of,
)
from playground.formats.given import Given
from playground.formats.json_text import read_side_file
from playground.limits import LIMITS
from policies.base import counted
from policies.messages import ToolCall

MESSAGE_TYPES = ("user", "assistant")
FORMAT = "Claude Code session"
SYNTHETIC_MODEL = "<synthetic>"  # Claude Code's own error replies: no API call was made


def looks_like(given: Given) -> bool:
    """A list of Claude Code lines: objects with a line ``type`` and a ``sessionId`` or ``uuid``."""
    items = given.items
    return any(
        isinstance(item, dict)
        and item.get("type") in MESSAGE_TYPES
        and isinstance(item.get("message"), dict)
        and ("sessionId" in item or "uuid" in item)
        for item in items[:50]
    )


def read(given: Given) -> list[Session]:
    """The main session, then one session per subagent chain (in the order they started)."""
    items, file = given.items, given.file
    beside = _agents_beside(file)
    lines = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, dict):
            nested = _nested(item)
            if nested is None or nested["agentId"] not in beside:  # its own file is read instead
                lines.append((number, nested or item))
    titles = [
        i["summary"] for _, i in lines if i.get("type") == "summary" and isinstance(i.get("summary"), str)
    ]
    root_of = _chain_roots(lines)
    # a compaction's summary belongs with its boundary, in the main chain, whatever it is flagged
    main = [(n, i) for n, i in lines if not i.get("isSidechain") or i.get("isCompactSummary")]
    chains: dict[str, list[tuple[int, dict]]] = {}
    for n, item in lines:
        if item.get("isCompactSummary"):
            continue
        if item.get("isSidechain") and item.get("type") in (*MESSAGE_TYPES, "system"):
            chains.setdefault(_id(item.get("agentId")) or root_of.get(_id(item.get("uuid")), ""), []).append(
                (n, item)
            )
    check_sessions(1 + len(chains), file)  # before any is built: each chain is a session
    sessions = []
    main_name = ""
    if any(i.get("type") in MESSAGE_TYPES for _, i in main):
        session = _read_chain(main, file, titles[0] if titles else "", tail=_starts_mid_session(main))
        main_name = session.name
        sessions.append(session)
    for chain in chains.values():
        if any(i.get("type") in MESSAGE_TYPES for _, i in chain):
            sessions.append(_read_chain(chain, file, "", parent=main_name))
    return sessions


def _nested(item: dict) -> dict | None:
    """A subagent's message that Claude Code 2.x keeps inside a ``progress`` line of type
    ``agent_progress`` (the subagent's own file may be absent), as a side-chain line of that
    agent: its calls are billed like any other. None for any other line."""
    data = item.get("data")
    if item.get("type") != "progress" or not isinstance(data, dict) or data.get("type") != "agent_progress":
        return None
    inner, agent = data.get("message"), _id(data.get("agentId"))
    if not isinstance(inner, dict) or inner.get("type") not in MESSAGE_TYPES or agent is None:
        return None
    return {**inner, "isSidechain": True, "agentId": agent}


def _subagent_files(file: str) -> list[Path]:
    """The subagent files Claude Code 2.x keeps beside a session, ``<session>/subagents/agent-*.jsonl``."""
    folder = Path(file).with_suffix("") / "subagents"
    if not file or not may_look_beside() or not folder.is_dir():
        return []
    return sorted(folder.glob("agent-*.jsonl"))[: LIMITS.max_sessions]


def _agents_beside(file: str) -> set[str]:
    """The agent ids whose subagent file lies beside the session (``subagents_beside`` reads them)."""
    return {path.stem.removeprefix("agent-") for path in _subagent_files(file)}


def _id(value: Any) -> str | None:
    """An id as the file gives it, where it is text (a hostile file may hold anything)."""
    return value if isinstance(value, str) else None


def subagents_beside(file: str, main: Session, read_path: Callable[[Path], list[Session]]) -> list[Session]:
    """Claude Code 2.x keeps a session's subagents in ``<session>/subagents/agent-*.jsonl``
    beside it: each is read (by ``read_path``, as any file is) as a session of its own, named
    by the task its ``.meta.json`` describes, after the main one. One that does not read is
    said in the main session's warnings (the main session is returned first, with them)."""
    files = _subagent_files(file)
    if not files:
        return [main]
    sessions, problems = [], []
    for path in files:
        try:
            found = read_path(path)
        except TranscriptError as error:
            problems.append(ReadWarning(path.name, error.what))
            continue
        task = _meta_description(path.with_name(path.stem + ".meta.json"))
        sessions += [replace(s, parent=main.name, name=task or s.name) for s in found]
    return [replace(main, warnings=(*main.warnings, *problems)), *sessions]


def _meta_description(path: Path) -> str:
    try:
        meta = read_side_file(path.read_bytes()[: 2**20])
    except OSError:
        return ""
    description = meta.get("description") if isinstance(meta, dict) else None
    return description[:200] if isinstance(description, str) else ""


def _chain_roots(lines: list[tuple[int, dict]]) -> dict[str, str]:
    """Each line's uuid -> the uuid of the first line of its chain (``parentUuid`` followed up)."""
    parent = {i["uuid"]: _id(i.get("parentUuid")) for _, i in lines if isinstance(i.get("uuid"), str)}
    roots: dict[str, str] = {}
    for uuid in parent:
        trail, on_trail, node = [], set(), uuid
        # a walk stops at a line already placed, or where the chain loops (a line its own parent):
        # each line is walked once, so a file reads in time linear in its lines
        while node in parent and parent[node] and node not in roots and node not in on_trail:
            trail.append(node)
            on_trail.add(node)
            node = parent[node]
        root = roots.get(node, node)
        for seen in trail:
            roots[seen] = root
        roots[uuid] = root
    return roots


def _starts_mid_session(lines: list[tuple[int, dict]]) -> int:
    """The line number of the main chain's first message where its ``parentUuid`` names a line
    the file does not hold (the file is the tail of a session: a resumed session's copy, a
    file cut at the front); 0 where it starts the session."""
    uuids = {i["uuid"] for _, i in lines if isinstance(i.get("uuid"), str)}
    first = next(((n, i) for n, i in lines if i.get("type") in MESSAGE_TYPES), None)
    if first is None:
        return 0
    parent = _id(first[1].get("parentUuid"))
    return first[0] if parent is not None and parent not in uuids else 0


def _read_chain(
    lines: list[tuple[int, dict]], file: str, title: str, parent: str = "", tail: int = 0
) -> Session:
    builder = SessionBuilder(file, FORMAT)
    builder.parent = parent
    if tail:
        builder.starts_mid_session = True
        builder.warn(
            f"line {tail}",
            "the file starts mid-session: its first message answers a line the file does not hold, so "
            "each request opens with the earlier conversation (kept as one block no policy can touch)",
        )
    passed: Counter[str] = Counter()
    unread: Counter[str] = Counter()  # content blocks of kinds not read, by role and kind
    open_call: str | None = None  # the message.id of the call whose lines are being joined
    open_index = -1  # and the raw index of its message
    pending: RecordedCompaction | None = None
    first_request = ""
    unbilled = 0  # replies whose usage is all zero: no call was billed
    for number, item in lines:
        builder.where = f"line {number}"
        kind = item.get("type")
        if version_of(item.get("version")):
            builder.agent_version = item["version"]  # the release that wrote the latest line
        if kind == "system" and item.get("subtype") == "compact_boundary":
            meta = item.get("compactMetadata") if isinstance(item.get("compactMetadata"), dict) else {}
            trigger = label_of(meta.get("trigger")) if isinstance(meta.get("trigger"), str) else ""
            pre = meta.get("preTokens")
            bounded = (
                pre if type(pre) is int and 0 <= pre <= MAX_RECORDED_TOKENS else None
            )  # no window holds more
            pending = RecordedCompaction(len(builder.messages), trigger, bounded)
            builder.compactions.append(pending)
            open_call = None
            continue
        if kind not in MESSAGE_TYPES:
            subtype = item.get("subtype") if kind == "system" else None
            passed[label_of(kind) + (f"/{label_of(subtype)}" if subtype else "")] += 1
            continue
        message = item.get("message")
        if not isinstance(message, dict):
            passed[f"{label_of(kind)} without a message"] += 1
            continue
        time = builder.reply_time(item.get("timestamp"))
        if kind == "user":
            if item.get("isCompactSummary"):
                text = block_text(message.get("content"))
                if pending is not None:
                    builder.compactions[-1] = RecordedCompaction(
                        pending.at, pending.trigger, pending.pre_tokens, text
                    )
                    pending = None
                else:
                    builder.warn(builder.where, "a compaction summary with no compact_boundary before it")
                continue
            if item.get("isMeta"):
                passed["user/meta (caveats, command output)"] += 1
                continue
            text, results = _user(message.get("content"), builder, unread)
            for call_id, result in results:
                builder.add("tool", result, tool_call_ids=(call_id,))
            if text:
                builder.add("user", text)
                open_call = None
                first_request = first_request or text
            continue
        model = message.get("model") if isinstance(message.get("model"), str) else None
        if model == SYNTHETIC_MODEL:
            passed["assistant/synthetic (Claude Code's own error text, no API call)"] += 1
            continue
        call_id = message.get("id") if isinstance(message.get("id"), str) else None
        text, thinking, calls = _blocks(message.get("content"), unread)
        usage = _with_iterations(message.get("usage") if isinstance(message.get("usage"), dict) else {})
        # a call's later lines, after the results of its first tool uses where those came first
        if open_call is not None and call_id == open_call and model == builder.models.get(open_index, model):
            builder.join_last(text, calls, thinking, index=open_index)
            output = builder.token_count(usage.get("output_tokens"), "output_tokens")
            if output is not None:
                builder.outputs[open_index] = output
            continue
        uncached = builder.token_count(usage.get("input_tokens"), "input_tokens")
        written = builder.token_count(usage.get("cache_creation_input_tokens"), "cache_creation_input_tokens")
        read_ = builder.token_count(usage.get("cache_read_input_tokens"), "cache_read_input_tokens")
        output = builder.token_count(usage.get("output_tokens"), "output_tokens")
        tiers = as_dict(usage.get("cache_creation"))
        hour = builder.token_count(
            tiers.get("ephemeral_1h_input_tokens"), "cache_creation.ephemeral_1h_input_tokens"
        )
        if not any((uncached, written, read_, output)):  # all zero: no request was billed
            unbilled += bool(usage)
            uncached = written = read_ = output = hour = None
        builder.add(
            "assistant",
            text,
            tool_calls=calls,
            thinking=thinking,
            prompt_tokens=uncached_plus_cache(uncached, read_, written),
            cache_read=read_,
            cache_write=written,
            cache_write_1h=hour,
            output=output,
            model=model,
            time=time,
        )
        open_call, open_index = call_id, len(builder.messages) - 1
    builder.warn_counts("lines passed over, not messages the model was sent", dict(passed))
    builder.warn_counts("content blocks of kinds not read, their tokens not counted", dict(unread))
    if unbilled:
        builder.warn(
            "",
            f"all-zero usage in {counted(unbilled, 'assistant message')}: no API call was billed, none is counted",
        )
    name = title or _first_line(first_request) or "Claude Code session"
    return builder.build(name)


USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


def _with_iterations(usage: dict) -> dict:
    """A call's usage: where its top-level figures are all zero and ``usage.iterations`` holds
    the real ones (an Agent tool call in 2.1.226), their sums; as it is otherwise."""
    iterations = usage.get("iterations")
    if any(usage.get(f) for f in USAGE_FIELDS) or not isinstance(iterations, list):
        return usage
    parts = [i for i in iterations[:1_000] if isinstance(i, dict)]
    summed = {f: sum(p[f] for p in parts if type(p.get(f)) is int and p[f] >= 0) for f in USAGE_FIELDS}
    return {**usage, **summed} if any(summed.values()) else usage


def _user(content: Any, builder: SessionBuilder, unread: Counter[str]) -> tuple[str, list[tuple[str, str]]]:
    """A user line's own text, and the tool results it carries (call id, text)."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return "", []
    texts, results = [], []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            if isinstance(call_id, str):
                results.append((call_id, block_text(block.get("content"))))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "image":
            builder.warn(builder.where, "an image the user sent is not counted (only text is)")
        else:
            unread[f"user/{label_of(block.get('type'))}"] += 1
    return "\n".join(texts), results


def _blocks(content: Any, unread: Counter[str]) -> tuple[str, str, tuple[ToolCall, ...]]:
    """An assistant line's text, thinking and tool calls; blocks of other kinds (a server tool's
    use and result, redacted thinking) counted in ``unread``."""
    if isinstance(content, str):
        return content, "", ()
    texts, thoughts, calls = [], [], []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thoughts.append(block["thinking"])
        elif kind == "tool_use" and isinstance(block.get("id"), str):
            name = block.get("name") if isinstance(block.get("name"), str) else ""
            calls.append(ToolCall(block["id"], name, arguments_text(block.get("input"))))
        else:
            unread[f"assistant/{label_of(kind)}"] += 1
    return "\n".join(texts), "\n".join(thoughts), tuple(calls)


_MARKUP = re.compile(r"</?[a-z][a-z0-9_-]*>")  # Claude Code's <command-message>, <command-name>, …


def _first_line(text: str) -> str:
    """A session's name from its first request: its first line of plain text (Claude Code's
    markup around a slash command taken off), at most 80 characters."""
    plain = [line.strip() for line in _MARKUP.sub("\n", text).splitlines() if line.strip()]
    line = plain[0] if plain else ""
    return line if len(line) <= 80 else line[:79] + "…"
