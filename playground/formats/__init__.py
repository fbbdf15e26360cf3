"""Reading transcripts: bytes in, sessions out, or one clear error naming file and place.

``read_path`` and ``read_bytes`` check size, binary data and JSON syntax, then detect
the format from the shape of the data and hand it to the reader of that format.

May import: `policies`, the engine (the session model a reader fills; the replay a contexts
file writes), the root modules.
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from playground.engine.session import ReadWarning, Session, TranscriptError
from playground.formats import claude_code, cline, compressed, inspect_ai
from playground.formats.beside import reading_from_disk
from playground.formats.builder import check_sessions, read_time_bounded, too_many_messages
from playground.formats.catalogue import (
    ARCHIVE_READERS,
    DOCUMENT_READERS,
    FOLDER_READERS,
    LINE_LOG_READERS,
    MESSAGE_DIALECTS,
    NOT_SESSIONS,
    READABLE,
    TEXT_READERS,
    Reader,
)
from playground.formats.given import Given
from playground.formats.json_text import json_lines, parse_json
from playground.limits import LIMITS, LimitError, over, read_limited
from policies.base import shown


def read_path(path: str | os.PathLike) -> list[Session]:
    """Every session in the file at ``path`` (most files hold one), within ``max_read_seconds``."""
    with read_time_bounded(), reading_from_disk():
        return _read_path(os.fspath(path))


def _read_path(file: str) -> list[Session]:
    if os.path.isdir(file):
        return _read_folder(file)
    try:
        data = read_limited(file, "max_file_bytes")
    except LimitError as error:
        raise TranscriptError(file, "", str(error)) from None
    except OSError as error:
        raise TranscriptError(file, "", error.strerror or str(error)) from None
    sessions = read_bytes(data, file)
    if sessions[0].format == claude_code.FORMAT and not sessions[0].parent:
        sessions = [*claude_code.subagents_beside(file, sessions[0], read_path), *sessions[1:]]
    return sessions


def _read_folder(folder: str) -> list[Session]:
    """A folder that is one session: an OpenHands V1 conversation, or the LLM completion logs
    of one conversation, a file a call."""
    sessions = _first(FOLDER_READERS, Given(folder, folder))
    if sessions is None:
        raise TranscriptError(folder, "", "a folder with no .json file: name a transcript file")
    return sessions


def _first(readers: tuple[Reader, ...], given: Given) -> list[Session] | None:
    """What the first of ``readers`` the data looks like reads; None where it looks like none."""
    reader = next((r for r in readers if r.looks_like(given)), None)
    return None if reader is None else reader.read(given)


def read_bytes(data: bytes, file: str, beside: Mapping[str, bytes] | None = None) -> list[Session]:
    """Every session in ``data``, read as the contents of a file named ``file``, within
    ``max_read_seconds``; ``beside`` holds files uploaded with it, by name (Cline's
    ui_messages.json beside its history)."""
    with read_time_bounded():
        return _read_bytes(data, file, beside)


def _read_bytes(data: bytes, file: str, beside: Mapping[str, bytes] | None) -> list[Session]:
    _check_size(len(data), file)
    if not data.strip():
        raise TranscriptError(file, "", "the file is empty")
    if compressed.is_compressed(data):  # a rollout Codex compressed (.jsonl.zst), a gzipped log
        data = compressed.unpack(data, file)
    if data.startswith(inspect_ai.ZIP_MAGIC):  # a zip: Inspect AI's .eval logs, OpenHands conversations
        sessions = _first(ARCHIVE_READERS, Given(data, file)) or []
        check_sessions(len(sessions), file)
        return sessions
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or _looks_utf16(data):
        raise TranscriptError(file, "", "UTF-16 text; save the transcript as UTF-8")
    if b"\x00" in data[:8192]:
        raise TranscriptError(file, "", "binary data, not a JSON or JSONL transcript")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TranscriptError(file, f"byte {error.start}", "not UTF-8 text (binary data?)") from None
    sessions = _first(TEXT_READERS, Given(text, file))  # Markdown, not JSON
    if sessions is None:
        try:
            sessions = sessions_from_data(parse_json(text, file), file, beside)
        except TranscriptError as error:
            sessions = _agent_log_past_bad_lines(text, file, error)
    if not sessions:  # a reader that found nothing to read never passes for an empty session
        raise TranscriptError(file, "", "no session in the file: nothing of its shape holds a message")
    check_sessions(len(sessions), file)  # whatever the reader, a file's sessions are bounded
    return sessions


Files = tuple[tuple[str, bytes], ...]  # (name, contents) of files uploaded together


def with_companions(files: Files) -> list[tuple[str, bytes, Files]]:
    """Each file uploaded together with the files beside it that its reader uses (``read_bytes``'s
    ``beside``): Cline's ui_messages.json goes with the api_conversation_history.json of its task,
    and is not read on its own where that history is there."""
    names = {name for name, _ in files}
    paired = cline.HISTORY in names and cline.UI in names
    return [
        (name, data, tuple((n, d) for n, d in files if name == cline.HISTORY and n == cline.UI))
        for name, data in files
        if not (paired and name == cline.UI)
    ]


def _agent_log_past_bad_lines(text: str, file: str, error: TranscriptError) -> list[Session]:
    """An agent's JSONL log (Claude Code, Codex, Gemini CLI) with lines that do not read (cut
    off by a crash or a live session, another format's line in the middle): the rest read,
    each bad line named in the first session's warnings. Any other file: the error as it was."""
    if not error.where.startswith("line "):
        raise error
    items, bad = json_lines(text)
    if not bad or not items or not any(reader.looks_like(Given(items, file)) for reader in LINE_LOG_READERS):
        raise error
    sessions = sessions_from_data(items, file)
    notes = tuple(ReadWarning(f"line {n}", f"{why}: passed over, the rest read") for n, why in bad[:20])
    if len(bad) > 20:
        notes += (ReadWarning("", f"{len(bad) - 20:,} more lines that do not read, passed over"),)
    sessions[0] = replace(sessions[0], warnings=(*notes, *sessions[0].warnings))
    return sessions


def _check_size(size: int, file: str) -> None:
    if size > LIMITS.max_file_bytes:
        raise TranscriptError(file, "", str(over("max_file_bytes", f"{size:,} bytes")))


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: ASCII JSON with a zero byte after (or before) each character."""
    head = data[:64]
    return len(head) >= 4 and (head[1::2].count(0) > len(head) // 3 or head[0::2].count(0) > len(head) // 3)


MESSAGE_KEYS = ("messages", "history", "traj", "trajectory", "items", "input", "output")
RUN_LIST_KEYS = ("sessions", "runs", "trajectories")
NAME_KEYS = ("name", "instance_id", "session_id", "id", "title")
# what an eval's results file records about each run (tau-bench: task_id, trial, reward), to
# name a run that has no name of its own: "task 12 · trial 0 · reward 1"
RUN_FACTS = (
    ("task_id", "task"),
    ("task", "task"),
    ("trial", "trial"),
    ("reward", "reward"),
    ("score", "score"),
    ("resolved", "resolved"),
    ("success", "success"),
)


def sessions_from_data(data: Any, file: str, beside: Mapping[str, bytes] | None = None) -> list[Session]:
    """Detect the format of parsed JSON and read every session in it (``beside``: the files
    uploaded with it, by name)."""
    stem = os.path.splitext(os.path.basename(file))[0]
    given = Given(data, file, stem, beside=beside or {})
    sessions = _first(DOCUMENT_READERS, given)
    if sessions is not None:
        return sessions
    if isinstance(data, dict):
        runs = next((data[k] for k in RUN_LIST_KEYS if isinstance(data.get(k), list)), None)
        if runs is not None and runs and all(_is_run(r) for r in runs):
            return _read_runs(runs, file, stem)
        return [_read_run(data, file, _name(data, stem), "top level")]
    if isinstance(data, list):
        if not data:
            raise TranscriptError(file, "", "an empty list: no messages")
        sessions = _first((*LINE_LOG_READERS, *NOT_SESSIONS), given)
        if sessions is not None:
            return sessions
        if all(_is_run(item) for item in data):
            return _read_runs(data, file, stem)
        return [read_messages(data, file, stem, beside=beside)]
    raise TranscriptError(file, "top level", f"expected a list or an object, got {type(data).__name__}")


def _is_run(item: Any) -> bool:
    """A run object: its own message list under a known key, and not itself a message."""
    return (
        isinstance(item, dict)
        and "role" not in item
        and item.get("type") not in ("message", "human", "ai", "tool", "system")
        and any(isinstance(item.get(k), list) for k in MESSAGE_KEYS)
    )


def _read_runs(runs: list, file: str, stem: str) -> list[Session]:
    check_sessions(len(runs), file)
    sessions = []
    for i, run in enumerate(runs):
        try:
            sessions.append(
                _read_run(run, file, _name(run, _run_facts(run) or f"{stem}#{i}"), f"session {i}")
            )
        except TranscriptError as error:
            raise TranscriptError(file, f"session {i}: {error.where}".rstrip(": "), error.what) from None
    return sessions


def _name(data: dict, default: str) -> str:
    for key in NAME_KEYS:
        value = data.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)[:200]
    return default


def _run_facts(run: dict) -> str:
    """A run named by what the file records about it, or "" when it records none of it."""
    parts = [_issue(run.get("issue"))] if _issue(run.get("issue")) else []
    for key, word in RUN_FACTS:
        value = run.get(key)
        if isinstance(value, bool):
            parts.append(f"{word} {'yes' if value else 'no'}")
        elif (
            isinstance(value, int | float | str) and str(value) and word not in {p.split()[0] for p in parts}
        ):
            parts.append(f"{word} {value:g}" if isinstance(value, float) else f"{word} {str(value)[:60]}")
    return " · ".join(parts)


def _issue(value: Any) -> str:
    """The issue a resolver's run worked on, as "owner/repo#number", or ""."""
    if not isinstance(value, dict):
        return ""
    owner, repo, number = value.get("owner"), value.get("repo"), value.get("number")
    if isinstance(owner, str) and isinstance(repo, str) and isinstance(number, int):
        return f"issue {owner[:60]}/{repo[:60]}#{number}"
    return ""


def _read_run(data: dict, file: str, name: str, where: str) -> Session:
    key = next((k for k in MESSAGE_KEYS if isinstance(data.get(k), list)), None)
    if key is None:
        keys = ", ".join(k if k.isprintable() else shown(k) for k in sorted(map(str, data))[:8]) or "none"
        raise TranscriptError(
            file,
            where,
            f"no message list found (looked for {', '.join(MESSAGE_KEYS[:3])}; keys: {keys}). "
            f"Readable: {READABLE}",
        )
    if not data[key]:
        raise TranscriptError(file, key, "an empty list: no messages")
    return read_messages(
        data[key], file, name, system=data.get("system"), tools=data.get("tools"), container=data
    )


def read_messages(
    items: list,
    file: str,
    name: str,
    system: Any = None,
    tools: Any = None,
    container: dict | None = None,
    beside: Mapping[str, bytes] | None = None,
) -> Session:
    """Read one message list in whichever dialect it is written."""
    if len(items) > LIMITS.max_messages:  # before a message is built: the cost is in their number
        raise TranscriptError(file, "", too_many_messages(len(items)))
    given = Given(items, file, name, system, tools, container, beside or {})
    sessions = _first(MESSAGE_DIALECTS, given)
    if sessions is not None:
        return sessions[0]
    raise TranscriptError(
        file, "item 0", f"not a recognised message: {_preview(items[0])}. Readable: {READABLE}"
    )


def _preview(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
