"""JSON as a transcript is read: nesting bounded before parsing, numbers refused that the
playground cannot compute with, a JSONL file as the list of its records, errors naming the place."""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from playground.engine.session import TranscriptError
from playground.limits import LIMITS, over

# a string, or an unterminated one running to the end of a truncated file: possessive and
# anchored at the end, so the scan is linear whatever the quotes (an unterminated string
# would otherwise be searched for its end again from every quote after it)
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}  # a bracket's change in depth


def nesting_depth(data: bytes) -> int:
    """How deep the brackets of a JSON (or JSONL) text nest, strings left out; no recursion."""
    brackets = _STRING.sub(b"", data).translate(None, delete=_NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def parse_json(text: str, file: str) -> Any:
    """A JSON document, or the list of the objects of a JSONL file."""
    depth = nesting_depth(text.encode("utf-8", "surrogatepass"))
    if depth > LIMITS.max_nesting:
        raise TranscriptError(file, "", str(over("max_nesting", f"brackets nested {depth:,} deep")))
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


def json_lines(text: str) -> tuple[list[Any], list[tuple[int, str]]]:
    """Every record of a JSONL text that reads, and (line number, reason) for each that does
    not: an agent's log cut mid-line (a crash, a live session) keeps what it recorded."""
    items, bad = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(loads(line))
        except NotANumber as error:
            bad.append((number, str(error)))
        except json.JSONDecodeError as error:
            bad.append((number, f"invalid JSON Lines record: {_reason(error)}"))
    return items, bad


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


def loads(text: str) -> Any:
    return json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_real)


def _reason(error: json.JSONDecodeError) -> str:
    reason = error.msg.lower().removesuffix(" starting at")
    if error.pos >= len(error.doc.rstrip()) or error.msg.startswith("Unterminated"):
        return f"{reason} (the file looks truncated)"
    return reason
