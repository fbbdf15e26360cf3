"""The one folder where the playground keeps what it computed once (summaries, price lookups)."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$PLAYGROUND_CACHE_DIR``, else ``~/.cache/context-policy-playground``."""
    configured = os.environ.get("PLAYGROUND_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "context-policy-playground"
