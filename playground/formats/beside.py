"""Whether a reader may look beside the file it reads (Claude Code's subagent files, Cline's
ui_messages.json, SWE-agent's args.yaml): only for a path named on the command line or a folder
read from disk, never for an upload, whose name is anyone's text and names no file of ours."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_ON_DISK: ContextVar[bool] = ContextVar("on_disk", default=False)


@contextmanager
def reading_from_disk() -> Iterator[None]:
    """Within it, the file being read is one on this machine's disk, named by its user."""
    token = _ON_DISK.set(True)
    try:
        yield
    finally:
        _ON_DISK.reset(token)


def may_look_beside() -> bool:
    """Whether the file being read lies on disk (``reading_from_disk``): else nothing beside it is read."""
    return _ON_DISK.get()
