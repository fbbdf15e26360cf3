"""What the command families share: the usage error, the default stack, picking a session,
writing a whole file or nothing, and text fit for a terminal."""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any, TextIO

from playground.engine.session import Session
from playground.formats import read_path
from playground.models.plausible import plausible
from playground.stacks.config import Config
from playground.stacks.presets import DEFAULT_PRESET, PRESETS
from policies.base import shown


class UsageError(ValueError):
    """A command line that names something that does not exist (e.g. --session 7)."""


def default_config() -> Config:
    """pyagentic's recommended stack: clip at 8,000 chars, keep 5 tool results, compact at 80,000."""
    return Config(stack=list(PRESETS[DEFAULT_PRESET]))


def sessions_in(path: str) -> list[Session]:
    """The sessions of a file or folder named on the command line, each call's usage held to
    what its model could have recorded."""
    return plausible(read_path(path))


def pick_session(sessions: list[Session], wanted: str | None, file: str) -> Session:
    """``--session N`` (from 0, as validate lists them) or ``--session NAME``; default the first."""
    if wanted is None:
        return sessions[0]
    if wanted.isdigit():
        if int(wanted) < len(sessions):
            return sessions[int(wanted)]
        raise UsageError(
            f"{file}: --session {wanted}: the file holds {len(sessions)} session(s), 0 to {len(sessions) - 1}"
        )
    for session in sessions:
        if session.name == wanted:
            return session
    names = ", ".join(s.name for s in sessions[:10])
    raise UsageError(f"{file}: --session {wanted!r}: no session of that name (sessions: {names})")


def preset_config(name: str) -> Config:
    if name not in PRESETS:
        raise UsageError(f"no preset named {shown(name)}; `playground presets` lists them")
    return Config(stack=list(PRESETS[name]))


def plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def write_whole(target: str, write: Any) -> None:
    """Write a whole file or nothing: into ``TARGET.part``, renamed over ``target`` when complete."""
    if target == "-":
        write(sys.stdout)
        return
    part = f"{target}.part"
    try:
        with open(part, "w", encoding="utf-8", newline="") as out:
            write(out)
        os.replace(part, target)
    except OSError as error:
        raise UsageError(f"{target}: cannot write: {error.strerror or error}") from None
    finally:
        if os.path.exists(part):
            os.remove(part)


def write_json(out: TextIO, document: Any) -> None:
    """``document`` as JSON that reads well and writes fast: mappings indented, each item of a
    list on one line of its own (a turn, an event). Each line is one call of the C encoder;
    ``json.dump(indent=2)`` runs the pure-Python one, several times slower on a long replay."""
    out.write(_readable(document, ""))
    out.write("\n")


def _readable(value: Any, pad: str) -> str:
    inner = pad + "  "
    if isinstance(value, dict) and value:
        items = (f"{inner}{_key(key)}: {_readable(item, inner)}" for key, item in value.items())
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list | tuple) and value:
        return "[\n" + ",\n".join(inner + _compact(item) for item in value) + f"\n{pad}]"
    return _compact(value)


def _key(key: Any) -> str:
    """A mapping key as JSON writes it: a string, or the JSON of a number, boolean or null as one."""
    return json.dumps(key if isinstance(key, str) else json.dumps(key))


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), default=plain)


def shell_word(text: str) -> str:
    """``text`` as one word a POSIX shell reads back unchanged, whatever it holds: quoted
    with shlex, or as ``$'...'`` with escapes where it holds what does not print."""
    if text.isprintable():
        return shlex.quote(text)
    escaped = "".join(
        c if c.isprintable() and c not in "'\\" else "\\" + c if c in "'\\" else _c_escape(c) for c in text
    )
    return f"$'{escaped}'"


def _c_escape(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:  # half a character: no shell word can carry it; say so visibly
        return f"\\u{{{code:04x}}}"
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def add_price_argument(parser: Any) -> None:
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="PART=DOLLARS",
        help="your price per million tokens in place of genai-prices': input, cached_input, cache_write "
        "or output (input=2.5); repeat for more",
    )


def with_prices(config: Config, given: list[str]) -> None:
    """``--price PART=DOLLARS`` onto the config's pricing (a UsageError names a bad one)."""
    from dataclasses import replace

    from playground.money.cost import PricingError, price_per_million
    from playground.money.pricing import PRICE_PARTS

    own = list(config.pricing.own)
    for text in given:
        part, _, value = text.partition("=")
        part = part.strip()
        if part not in PRICE_PARTS or not value:
            raise UsageError(
                f"--price {shown(text)}: expected PART=DOLLARS with PART one of {', '.join(PRICE_PARTS)}"
            )
        try:
            own[PRICE_PARTS.index(part)] = price_per_million(f"--price {part}", value)
        except PricingError as error:
            raise UsageError(str(error)) from None
    config.pricing = replace(config.pricing, own=tuple(own))
