"""Summaries cached on disk (sqlite), keyed by model, prompt and transcript: paid for once.

The folder is ``$PLAYGROUND_CACHE_DIR`` or ``~/.cache/context-policy-playground``; the app
shows it and can clear it. Every summary is committed as soon as it arrives, so an
interrupted replay keeps what it fetched.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path


def default_cache_dir() -> Path:
    configured = os.environ.get("PLAYGROUND_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "context-policy-playground"


def summary_key(model: str, base_url: str, system_prompt: str, transcript: str) -> str:
    digest = hashlib.sha256()
    for part in (model, base_url, system_prompt, transcript):
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


class SummaryCache:
    """A small sqlite table of summaries; safe to share between replays and threads."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else default_cache_dir()
        self.path = self.folder / "summaries.sqlite"

    def _connect(self) -> sqlite3.Connection:
        self.folder.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=10)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, model TEXT, summary TEXT, created REAL)"
        )
        return connection

    def get(self, key: str) -> str | None:
        with self._connect() as connection:
            row = connection.execute("SELECT summary FROM summaries WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, model: str, summary: str) -> None:
        with self._connect() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", (key, model, summary, time.time())
            )

    def size(self) -> int:
        if not self.path.exists():
            return 0
        with self._connect() as connection:
            return connection.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]

    def clear(self) -> int:
        """Delete every cached summary; returns how many there were."""
        count = self.size()
        if count:
            with self._connect() as connection:
                connection.execute("DELETE FROM summaries")
        return count
