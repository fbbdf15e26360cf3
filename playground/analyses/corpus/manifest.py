"""What a corpus run wrote under its folder, written whole and checked before it is read."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground.analyses.corpus.replay import UnitResult
from playground.analyses.corpus.sources import CorpusError

MANIFEST = "manifest.json"


@dataclass
class Manifest:
    """What one corpus run wrote under its folder: the job's digest and, per unit key, the
    files written with their SHA-256 (nothing else in the folder is this run's)."""

    job: str = ""
    units: dict[str, dict[str, str]] = field(default_factory=dict)
    written_at: float = 0.0

    @classmethod
    def read(cls, root: Path) -> Manifest:
        """The folder's manifest, or an empty one (none, or not one this code wrote)."""
        try:
            data = json.loads((root / MANIFEST).read_bytes()[: 64 * 2**20])
        except (OSError, ValueError):
            return cls()
        units = data.get("units") if isinstance(data, dict) else None
        if not isinstance(units, dict) or not isinstance(data.get("job"), str):
            return cls()
        good = {
            key: files
            for key, files in units.items()
            if _UNIT_KEY.fullmatch(str(key))
            and isinstance(files, dict)
            and all(part in ("sessions", "turns") and isinstance(h, str) for part, h in files.items())
        }
        return cls(data["job"], good)

    def intact(self, root: Path, key: str) -> bool:
        """Every file of unit ``key`` is there and is what this run wrote."""
        return all(
            _sha256(root / part / f"{key}.parquet") == hashed for part, hashed in self.units[key].items()
        )

    def remove(self, root: Path, key: str) -> None:
        for part in ("sessions", "turns"):
            (root / part / f"{key}.parquet").unlink(missing_ok=True)

    def write(self, root: Path, every: float = 0.0) -> None:
        """Written whole (a part file renamed over it); at most once per ``every`` seconds."""
        if every and time.monotonic() - self.written_at < every:
            return
        part = root / f"{MANIFEST}.part"
        part.write_text(json.dumps({"format": 1, "job": self.job, "units": self.units}), encoding="utf-8")
        os.replace(part, root / MANIFEST)
        self.written_at = time.monotonic()


_UNIT_KEY = re.compile(r"[0-9a-f]{24}")


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def write_unit(root: Path, result: UnitResult) -> dict[str, str]:
    """The unit's files, each written whole; their hashes, for the manifest."""
    import pandas as pd

    written = {}
    if result.turns is not None:
        written["turns"] = _atomic_parquet(result.turns, root / "turns" / f"{result.key}.parquet")
    written["sessions"] = _atomic_parquet(
        pd.DataFrame(result.sessions), root / "sessions" / f"{result.key}.parquet"
    )
    return written


def _atomic_parquet(frame: Any, target: Path) -> str:
    """Written whole or not at all (a full disk leaves no part file); its SHA-256."""
    part = target.with_suffix(".part")
    try:
        frame.to_parquet(part, index=False)
        os.replace(part, target)
    except OSError as error:
        part.unlink(missing_ok=True)
        raise CorpusError(f"{target}: cannot write ({error.strerror or error})") from None
    return hashlib.sha256(target.read_bytes()).hexdigest()


def read_sessions(out: str | os.PathLike) -> Any:
    """Every figures row a run wrote under ``out``, sorted by source, session and stack."""
    import pandas as pd

    root = Path(out)
    manifest = Manifest.read(root)
    for key in manifest.units:
        if not manifest.intact(root, key):
            raise CorpusError(f"{root / 'sessions' / key}.parquet: changed or gone since the run wrote it")
    files = [root / "sessions" / f"{key}.parquet" for key in sorted(manifest.units)]
    if not files:
        return pd.DataFrame(columns=["source", "session_index", "session", "stack", "stack_index", "error"])
    frame = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    return frame.sort_values(["source", "session_index", "stack_index"], kind="stable").reset_index(drop=True)
