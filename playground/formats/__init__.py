"""Reading transcripts: bytes in, sessions out, or one clear error naming file and place.

``read_path`` and ``read_bytes`` check size, binary data and JSON syntax, then detect
the format from the shape of the data and hand it to the reader of that format.
"""

from __future__ import annotations

import json
import os
from typing import Any

from playground.formats import openai_chat
from playground.session import Session, TranscriptError

MAX_BYTES = 50 * 1024 * 1024  # a recorded session is megabytes; anything bigger is a mistake


def read_path(path: str | os.PathLike) -> list[Session]:
    """Every session in the file at ``path`` (most files hold one)."""
    file = os.fspath(path)
    try:
        size = os.path.getsize(file)
        if size > MAX_BYTES:
            raise TranscriptError(
                file, "", f"{size / 2**20:.0f} MiB is over the {MAX_BYTES // 2**20} MiB limit"
            )
        with open(file, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise TranscriptError(file, "", error.strerror or str(error)) from None
    return read_bytes(data, file)


def read_bytes(data: bytes, file: str) -> list[Session]:
    """Every session in ``data``, read as the contents of a file named ``file``."""
    if len(data) > MAX_BYTES:
        raise TranscriptError(
            file, "", f"{len(data) / 2**20:.0f} MiB is over the {MAX_BYTES // 2**20} MiB limit"
        )
    if not data.strip():
        raise TranscriptError(file, "", "the file is empty")
    if b"\x00" in data[:8192]:
        raise TranscriptError(file, "", "binary data, not a JSON or JSONL transcript")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TranscriptError(file, f"byte {error.start}", "not UTF-8 text (binary data?)") from None
    return sessions_from_data(parse_json(text, file), file)


def parse_json(text: str, file: str) -> Any:
    """A JSON document, or the list of the objects of a JSONL file."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            raise TranscriptError(
                file, f"line {error.lineno} column {error.colno}", f"invalid JSON: {_reason(error)}"
            ) from None
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise TranscriptError(
                file, f"line {number}", f"invalid JSON Lines record: {_reason(error)}"
            ) from None
    return items


def _reason(error: json.JSONDecodeError) -> str:
    if error.pos >= len(error.doc.rstrip()) or error.msg.startswith("Unterminated"):
        return f"{error.msg.lower()} (the file looks truncated)"
    return error.msg.lower()


def sessions_from_data(data: Any, file: str) -> list[Session]:
    """Detect the format of parsed JSON and read it."""
    stem = os.path.splitext(os.path.basename(file))[0]
    if isinstance(data, list):
        if not data:
            raise TranscriptError(file, "", "an empty list: no messages")
        if openai_chat.looks_like(data[0]):
            return [openai_chat.read(data, file, stem)]
        raise TranscriptError(file, "item 0", f"not a recognised message: {_preview(data[0])}")
    if isinstance(data, dict):
        messages = data.get("messages")
        if isinstance(messages, list):
            if not messages:
                raise TranscriptError(file, "messages", "an empty list: no messages")
            name = str(data.get("instance_id") or data.get("name") or data.get("id") or stem)
            return [openai_chat.read(messages, file, name, tools=data.get("tools"))]
        keys = ", ".join(sorted(map(str, data))[:8]) or "none"
        raise TranscriptError(file, "top level", f"no message list found (keys: {keys})")
    raise TranscriptError(file, "top level", f"expected a list or an object, got {type(data).__name__}")


def _preview(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
