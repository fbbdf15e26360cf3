"""Summaries cached on disk (sqlite), keyed by model, prompt and transcript: paid for once.

The folder is ``$PLAYGROUND_CACHE_DIR`` or ``~/.cache/context-policy-playground``; the app
shows it and can clear it. Every summary is committed as soon as it arrives, so an
interrupted replay keeps what it fetched.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from playground.cache_dir import default_cache_dir

T = TypeVar("T")


def summary_key(model: str, base_url: str, system_prompt: str, transcript: str) -> str:
    digest = hashlib.sha256()
    for part in (model, base_url, system_prompt, transcript):
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


class SummaryCache:
    """A small sqlite table of summaries; safe to share between replays and threads.

    A file that is not a readable database (a crash, a disk error, someone else's file) is
    moved aside as ``summaries.sqlite.corrupt-<time>`` and a new one started; ``notice``
    then says so, naming both, so the app and the CLI can tell the user once.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else default_cache_dir()
        self.path = self.folder / "summaries.sqlite"
        self.notice: str | None = None

    def _connect(self) -> sqlite3.Connection:
        self.folder.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=10)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, model TEXT, summary TEXT, created REAL)"
        )
        return connection

    def _run(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """``query`` on a connection; a corrupt file is moved aside and the query run on a new one."""
        try:
            return self._query(query)
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
                raise
            aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
            self.path.replace(aside)
            self.notice = f"the summary cache {self.path} could not be read ({error}); moved it to {aside.name} and started a new one"
            return self._query(query)

    def _query(self, query: Callable[[sqlite3.Connection], T]) -> T:
        connection = self._connect()
        try:
            with connection:
                return query(connection)
        finally:
            connection.close()

    def get(self, key: str) -> str | None:
        row = self._run(lambda c: c.execute("SELECT summary FROM summaries WHERE key = ?", (key,)).fetchone())
        return row[0] if row else None

    def put(self, key: str, model: str, summary: str) -> None:
        self._run(
            lambda c: c.execute(
                "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", (key, model, summary, time.time())
            )
        )

    def size(self) -> int:
        if not self.path.exists():
            return 0
        return self._run(lambda c: c.execute("SELECT COUNT(*) FROM summaries").fetchone()[0])

    def clear(self) -> int:
        """Delete every cached summary; returns how many there were."""
        return self._run(lambda c: c.execute("DELETE FROM summaries").rowcount)
