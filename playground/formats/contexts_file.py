"""The ``--contexts`` file: each turn's request as JSON Lines, whole or as deltas.

Full form, a line per turn: ``{"turn": N, "messages": [...]}``, the whole request in OpenAI
chat format. It repeats the history at every turn, so it grows with turns × context (2.35 GB
for a 24 MB session).

Delta form: ``{"turn": N, "shared": K, "messages": [...]}``: the request is the first K
messages of the previous line's request followed by ``messages`` (the first line has K = 0).
It grows with what changed. ``expand`` turns it back into whole requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from playground.engine.replay import ReplayResult
from playground.formats.openai_chat import to_openai

FORMS = ("auto", "full", "delta")
# auto writes deltas once the whole requests would hold more messages than this
AUTO_DELTA_MESSAGES = 100_000


def chosen_form(result: ReplayResult, form: str) -> str:
    """``full`` or ``delta``: ``auto`` is full for small sessions, delta for large ones."""
    if form != "auto":
        return form
    return "delta" if sum(t.size for t in result.turns) > AUTO_DELTA_MESSAGES else "full"


def write(result: ReplayResult, out: TextIO, form: str) -> None:
    """Each turn's request, in ``form`` (full or delta)."""
    if form == "full":
        for turn, request in zip(result.turns, result.requests(), strict=True):
            _line(out, {"turn": turn.number, "messages": [to_openai(m) for m in request]})
        return
    for turn in result.turns:
        _line(
            out, {"turn": turn.number, "shared": turn.shared, "messages": [to_openai(m) for m in turn.tail]}
        )


def expand(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The whole requests of a contexts file in either form, a ``{"turn", "messages"}`` each."""
    request: list[Any] = []
    for line in lines:
        entry = json.loads(line)
        shared = entry.get("shared")
        request = entry["messages"] if shared is None else request[:shared] + entry["messages"]
        yield {"turn": entry["turn"], "messages": request}


def _line(out: TextIO, entry: dict[str, Any]) -> None:
    out.write(json.dumps(entry, ensure_ascii=False) + "\n")
