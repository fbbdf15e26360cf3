"""What every reader is handed, whatever it reads: one signature for them all.

A reader is a pair of functions of a ``Given``: ``looks_like(given) -> bool`` and
``read(given) -> list[Session]``; the catalogue lists them in the order they are tried.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Given:
    """The data a reader reads and what comes with it.

    ``data`` is what the file holds as its reader takes it: parsed JSON (a whole document, the
    lines of a JSONL log, or one message list), the text of a Markdown history, the bytes of a
    zip archive, or the path of a folder. ``file`` names it in every message. A message list
    read out of a run carries the run's ``name``, ``system`` prompt and ``tools``, and the run
    itself (``container``); ``beside`` holds the files uploaded with it, by name."""

    data: Any
    file: str
    name: str = ""
    system: Any = None
    tools: Any = None
    container: dict | None = None
    beside: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def items(self) -> list:
        """The data as a list (the lines of a log, a message list); empty for any other data."""
        return self.data if isinstance(self.data, list) else []
