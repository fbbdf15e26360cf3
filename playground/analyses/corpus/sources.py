"""What a corpus reads: the transcripts under files, folders and zip archives, each a ``Source``."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from playground.formats import compressed
from playground.limits import LIMITS, over, read_limited

TRANSCRIPT_SUFFIXES = (".json", ".jsonl", ".ndjson", ".traj", ".eval")
AIDER_HISTORY = ".aider.chat.history.md"  # a dot file, but a transcript: read where it is found
NOT_TRANSCRIPTS = (".meta.json",)  # Claude Code's subagent descriptions, beside their transcripts


class CorpusError(ValueError):
    """A corpus run that cannot start: no input, an output directory that cannot be written."""


@dataclass(frozen=True)
class Source:
    """One file to read: a path, or a member of a zip archive."""

    path: str
    member: str | None = None
    stamp: str = ""  # size and modification time (or the member's CRC): changes when the file does

    @property
    def label(self) -> str:
        return f"{self.path}:{self.member}" if self.member else self.path

    def read(self) -> bytes:
        if self.member is None:
            return read_limited(self.path, "max_file_bytes")
        with zipfile.ZipFile(self.path) as archive, archive.open(self.member) as handle:
            return handle.read(LIMITS.max_file_bytes + 1)


def sources(paths: Sequence[str]) -> tuple[list[Source], list[tuple[str, str]]]:
    """The transcripts under ``paths`` (files, directories recursively, zip archives), and
    what was passed over with the reason (files of other kinds are not listed)."""
    found: list[Source] = []
    passed: list[tuple[str, str]] = []
    for written in paths:
        path = Path(written)
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file() or p.is_symlink()):
                parts = file.relative_to(path).parts
                if any(part.startswith(".") for part in parts[:-1]) or (
                    parts[-1].startswith(".") and parts[-1] != AIDER_HISTORY
                ):
                    continue
                if file.name.endswith(NOT_TRANSCRIPTS):
                    continue
                if file.is_symlink():  # rglob leaves linked folders alone; linked files too
                    passed.append((str(file), "a link: not followed out of the folder"))
                    continue
                _add(file, found, passed, listed=False)
        elif path.is_file():
            _add(path, found, passed, listed=True)
        else:
            passed.append((written, "no such file or directory"))
    return found, passed


def _add(file: Path, found: list[Source], passed: list[tuple[str, str]], listed: bool) -> None:
    suffix = file.suffix.lower()
    stat = file.stat()
    if suffix == ".zip":
        try:
            with zipfile.ZipFile(file) as archive:
                inflated = 0
                for info in archive.infolist():
                    if info.is_dir() or not info.filename.lower().endswith(TRANSCRIPT_SUFFIXES):
                        continue
                    inflated += info.file_size  # as the archive says: a member reads no further
                    if inflated > LIMITS.max_archive_bytes:
                        passed.append(
                            (
                                f"{file}:{info.filename}",
                                str(over("max_archive_bytes", "the archive's transcripts inflate past it")),
                            )
                        )
                        continue
                    if info.file_size > LIMITS.max_file_bytes:
                        passed.append(
                            (f"{file}:{info.filename}", f"{info.file_size:,} bytes, over max_file_bytes")
                        )
                        continue
                    found.append(Source(str(file), info.filename, f"{info.file_size}:{info.CRC}"))
        except (zipfile.BadZipFile, OSError) as error:
            passed.append((str(file), f"not a readable zip archive ({error})"))
    elif (
        suffix in TRANSCRIPT_SUFFIXES
        or file.name.lower().endswith(compressed.SUFFIXES)
        or file.name == AIDER_HISTORY
        or listed
    ):
        found.append(Source(str(file), None, f"{stat.st_size}:{stat.st_mtime_ns}"))
    if len(found) > LIMITS.max_corpus_files:
        raise CorpusError(f"more than {LIMITS.max_corpus_files:,} transcripts (PLAYGROUND_MAX_CORPUS_FILES)")
