"""JSON as a transcript is read: nesting bounded before parsing, numbers refused that the
playground cannot compute with, a JSONL file as the list of its records, errors naming the place."""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from playground.engine.session import TranscriptError
from playground.limits import LIMITS, LimitError, over, read_limited

_STRUCTURE = b'"[]{},\n'  # what tells a JSON text's shape: quotes, brackets, commas, lines
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _STRUCTURE)
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}  # a bracket's change in depth
_CHUNK = 1 << 20


def shape(data: bytes) -> tuple[int, int]:
    """How deep the brackets of a JSON (or JSONL) text nest, and about how many values it
    holds (each comma, opening bracket or line starts one), strings left out (an unterminated
    one runs to the end of a truncated file): what parsing the text would cost, known before
    paying it. No recursion, no parse, and memory in proportion to the file, not its values."""
    # escapes gone (an escaped backslash first, as a parser reads them), every quote left
    # opens or closes a string; a megabyte at a time, its strings dropped by quote parity
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, delete=_NOT_STRUCTURE)
    structure, inside = bytearray(), False
    for start in range(0, len(plain), _CHUNK):
        pieces = plain[start : start + _CHUNK].split(b'"')
        structure += b"".join(pieces[inside::2])
        inside ^= len(pieces) % 2 == 0
    values = sum(structure.count(mark) for mark in (b",", b"[", b"{", b"\n"))
    brackets = structure.translate(None, delete=_NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0), values


def bounds_error(data: bytes, what: str = "") -> str | None:
    """Why a JSON text is too costly to parse (nested too deep, too many values), or None."""
    depth, values = shape(data)
    if depth > LIMITS.max_nesting:
        return str(over("max_nesting", f"{what}brackets nested {depth:,} deep"))
    if values > LIMITS.max_json_values:
        return str(over("max_json_values", f"{what}about {values:,} JSON values"))
    return None


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def parse_json(text: str, file: str) -> Any:
    """A JSON document, or the list of the objects of a JSONL file."""
    refused = bounds_error(text.encode("utf-8", "surrogatepass"))
    if refused:
        raise TranscriptError(file, "", refused)
    try:
        return loads(text)
    except NotANumber as error:
        raise TranscriptError(file, "", str(error)) from None
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            raise TranscriptError(
                file, f"line {error.lineno} column {error.colno}", f"invalid JSON: {_reason(error)}"
            ) from None
    items, bad = json_lines(text)
    if bad:
        raise TranscriptError(file, f"line {bad[0][0]}", bad[0][1])
    return items


def json_file(path: str) -> Any:
    """A JSON file of a folder read as one session (a file an event or a call), parsed."""
    try:
        text = read_limited(path, "max_file_bytes").decode("utf-8-sig")
    except (LimitError, OSError, UnicodeDecodeError) as error:
        raise TranscriptError(path, "", str(error)) from None
    return parse_json(text, path)


def json_files(folder: str) -> list[tuple[str, Any]]:
    """The .json files of a folder in name order (as many as a session may hold messages), parsed."""
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))[: LIMITS.max_messages]
    return [(name, json_file(os.path.join(folder, name))) for name in names]


def read_side_file(data: bytes) -> Any:
    """A file read beside a transcript (Cline's ui_messages.json, a subagent's .meta.json) under
    the transcript's bounds; None where it does not read (too deep or too large, not UTF-8,
    not JSON): it adds to a session, never stops one from reading."""
    try:
        return parse_json(data.decode("utf-8"), "")
    except (TranscriptError, UnicodeDecodeError):
        return None


def json_lines(text: str) -> tuple[list[Any], list[tuple[int, str]]]:
    """Every record of a JSONL text that reads, and (line number, reason) for each that does
    not: an agent's log cut mid-line (a crash, a live session) keeps what it recorded."""
    items, bad = [], []
    for number, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        try:
            items.append(loads(line))
        except NotANumber as error:
            bad.append((number, str(error)))
        except json.JSONDecodeError as error:
            bad.append((number, f"invalid JSON Lines record: {_reason(error)}"))
    return items, bad


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time (``splitlines`` holds a million of them at once)."""
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop
        yield text[start:stop]
        start = stop + 1


class NotANumber(ValueError):
    """A number JSON may hold but we refuse where it is read: NaN, Infinity, or too many digits."""


def _constant(name: str) -> float:
    raise NotANumber(f"{name} is not a number this playground accepts")


MAX_DIGITS = 40  # a 128-bit trace id written as a JSON integer is 39 digits: an id, read as one


def _integer(digits: str) -> int:
    """An integer of at most MAX_DIGITS digits: ids come that long; a count or a time that
    large is refused where it is read as one (token counts, times)."""
    if len(digits) > MAX_DIGITS:
        raise NotANumber(f"an integer of {len(digits):,} digits is not a number this playground accepts")
    return int(digits)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotANumber(f"{text[:40]} is out of range for a number")
    return value


# one decoder for every document and line: ``json.loads`` with hooks builds a new one per call
_DECODER = json.JSONDecoder(parse_constant=_constant, parse_int=_integer, parse_float=_real)


def loads(text: str) -> Any:
    return _DECODER.decode(text)


def _reason(error: json.JSONDecodeError) -> str:
    reason = error.msg.lower().removesuffix(" starting at")
    if error.pos >= len(error.doc.rstrip()) or error.msg.startswith("Unterminated"):
        return f"{reason} (the file looks truncated)"
    return reason


class MemberBudget:
    """One transcript's bounds spread over the members of an archive that hold it together (an
    OpenHands V1 conversation's event files): its text under ``max_file_bytes`` and its values
    under ``max_json_values``, counted on the bytes each member inflates to as it is read, so
    no member is parsed past what the whole may hold."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.bytes_left = LIMITS.max_file_bytes
        self.values_left = LIMITS.max_json_values

    def read(self, archive: zipfile.ZipFile, name: str) -> Any:
        with archive.open(name) as handle:
            raw = handle.read(self.bytes_left + 1)
        self.bytes_left -= len(raw)
        if self.bytes_left < 0:
            raise TranscriptError(
                self.file, name, str(over("max_file_bytes", "the conversation's files inflate past it"))
            )
        depth, values = shape(raw)
        self.values_left -= values
        if depth > LIMITS.max_nesting or self.values_left < 0:
            refused = bounds_error(raw) or str(
                over("max_json_values", "the conversation's files hold more values together")
            )
            raise TranscriptError(self.file, name, refused)
        return _member_json(raw, self.file, name)


def _member_json(raw: bytes, file: str, name: str) -> Any:
    try:
        return parse_json(raw.decode("utf-8"), f"{file}:{name}")
    except UnicodeDecodeError:
        raise TranscriptError(file, name, "not UTF-8 text") from None


def zip_member(archive: zipfile.ZipFile, name: str, file: str) -> Any:
    """A JSON file inside a zip archive, read under the same bounds as a file on its own."""
    info = archive.getinfo(name)
    if info.file_size > LIMITS.max_file_bytes:
        raise TranscriptError(file, name, str(over("max_file_bytes", f"{info.file_size:,} bytes")))
    with archive.open(name) as handle:
        raw = handle.read(LIMITS.max_file_bytes + 1)
    if len(raw) > LIMITS.max_file_bytes:  # the size its header claims is the archive's word
        raise TranscriptError(file, name, str(over("max_file_bytes", "it inflates past it")))
    return _member_json(raw, file, name)
