"""What one upload may cost: every bound in one place, each with a safe default.

A hosted playground replays files from strangers, so each resource an input can make us
spend has a ceiling, and hitting one gives a message that names the limit and its
setting. Whoever starts the server (or runs the CLI) can move any of them with an
environment variable, ``PLAYGROUND_<NAME>`` in capitals, e.g.
``PLAYGROUND_MAX_MESSAGES=50000``. The docs list them (``markdown_table``); ``limits_table`` prints them.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field, fields

ENV_PREFIX = "PLAYGROUND_"


def _limit(default: float, about: str):
    return field(default=default, metadata={"about": about})


@dataclass
class Limits:  # one instance, LIMITS, read at start; tests move a limit with monkeypatch
    # transcripts
    max_file_bytes: int = _limit(50 * 2**20, "one uploaded or read file")
    max_messages: int = _limit(20_000, "messages per session (memory and time grow with messages)")
    max_nesting: int = _limit(200, "JSON nesting depth of a transcript, refused before parsing")
    max_json_values: int = _limit(
        2_000_000,
        "values in one JSON or JSONL file (a comma, bracket or line starts one), counted before parsing",
    )
    max_read_seconds: float = _limit(60.0, "reading one file (a folder or an archive: all of it)")
    max_sessions: int = _limit(1_000, "sessions (runs, samples, subagents) in one file")
    max_counted_chars: int = _limit(
        64 * 2**20,
        "characters of text a token counter keeps counts for (the app keeps one per model, a corpus "
        "run one per worker); past it they are counted again when next seen",
    )
    # configs and stacks
    max_config_bytes: int = _limit(2**20, "one config file")
    max_config_nesting: int = _limit(32, "nesting depth of a config file")
    max_stack: int = _limit(50, "entries in one stack (each may call the summarizer)")
    max_must_keep: int = _limit(50, "must-keep facts declared for one replay")
    max_must_keep_seconds: float = _limit(5.0, "matching every must-keep fact against one replay")
    # the summarizer, per replay
    max_summarizer_calls: int = _limit(200, "summarizer calls in one replay")
    max_summarizer_seconds: float = _limit(600.0, "every summarizer call of one replay together")
    max_summary_bytes: int = _limit(64 * 2**10, "one summary")
    max_response_bytes: int = _limit(4 * 2**20, "one endpoint reply, read no further")
    # the app
    max_store_bytes: int = _limit(
        512 * 2**20,
        "replays the app keeps, all browsers together, with the sessions they replayed (each counted once)",
    )
    max_replays_per_browser: int = _limit(
        12, "replays one browser session may keep in that store (the stack, 6 candidates, spares)"
    )
    # comparing and sweeping
    max_candidates: int = _limit(
        6,
        "candidate stacks compared side by side in the app, and in an uploaded config's `candidates:` "
        "(the CLI's `compare` and `corpus` take as many as given)",
    )
    max_sweep_points: int = _limit(400, "points in one sweep (each is a whole replay)")
    max_sweep_workers: int = _limit(8, "worker processes one sweep may start")
    max_running_sweeps: int = _limit(2, "sweeps the app runs at once, all browsers together")
    max_running_searches: int = _limit(
        2, "recommendation searches the app runs at once, all browsers together"
    )
    max_recommend_trials: int = _limit(
        2_000, "stacks one recommendation search proposes (each is a whole replay)"
    )
    max_running_corpora: int = _limit(2, "corpus replays the app runs at once, all browsers together")
    max_corpus_files: int = _limit(100_000, "transcripts in one corpus run (files and zip members)")
    max_archive_bytes: int = _limit(2**30, "what the transcripts of one zip archive inflate to, together")
    max_app_corpus_messages: int = _limit(
        500_000, "messages the app's Corpus tab replays, counted once per stack (more: playground corpus)"
    )
    max_app_corpus_sessions: int = _limit(
        500, "sessions the app's Corpus tab replays (more: playground corpus)"
    )

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Limits:
        """Defaults, overridden by ``PLAYGROUND_<NAME>``; a bad value stops the start with its name."""
        environ = os.environ if environ is None else environ
        values = {}
        for spec in fields(cls):
            variable = ENV_PREFIX + spec.name.upper()
            raw = environ.get(variable)
            if raw is None:
                continue
            kind = float if spec.type == "float" else int
            try:
                value = kind(raw.replace("_", ""))
            except ValueError:
                raise SystemExit(f"{variable}={raw[:40]!r}: expected a number") from None
            if not value > 0:
                raise SystemExit(f"{variable}={raw[:40]!r}: must be above 0")
            values[spec.name] = value
        return cls(**values)

    def setting(self, name: str) -> str:
        """How a message names the setting that moves limit ``name``."""
        return ENV_PREFIX + name.upper()


LIMITS = Limits.from_environment()


class LimitError(ValueError):
    """An input over one of the limits; the message names the limit and its setting."""


def over(name: str, what: str) -> LimitError:
    """The error for limit ``name`` hit by ``what`` ("the session holds 30,000 messages")."""
    return LimitError(f"{what}; the limit is {_value(name)} ({LIMITS.setting(name)})")


def _value(name: str, limits: Limits | None = None) -> str:
    """Limit ``name`` (of ``limits``, the server's by default) as a reader wants it:
    ``52,428,800 bytes (50 MiB)``, ``600 s``."""
    limit = getattr(limits or LIMITS, name)
    shown = f"{limit:,}" if isinstance(limit, int) else f"{limit:g}"
    if name.endswith("_bytes"):
        scale, unit = next(
            (2**p, u) for p, u in ((30, "GiB"), (20, "MiB"), (10, "KiB"), (0, "B")) if limit >= 2**p
        )
        shown += f" bytes ({limit / scale:.3g} {unit})"
    elif name.endswith("_seconds"):
        shown += " s"
    return shown


def check_stack_size(entries: int) -> None:
    if entries > LIMITS.max_stack:
        raise over("max_stack", f"the stack holds {entries:,} entries")


def limits_table(limits: Limits | None = None) -> list[tuple[str, str, str]]:
    """Every limit's setting, value (the server's, or of ``limits``) and meaning, for
    ``playground limits`` and the docs."""
    return [(LIMITS.setting(f.name), _value(f.name, limits), f.metadata["about"]) for f in fields(Limits)]


def markdown_table() -> str:
    """The limits with their defaults, as the docs' hosting page shows them."""
    rows = [f"| `{setting}` | {value} | {about} |" for setting, value, about in limits_table(Limits())]
    return "\n".join(["| Setting | Default | Bounds |", "|---|---|---|", *rows]) + "\n"


def read_limited(file: str, limit: str) -> bytes:
    """A regular file's bytes, refused past limit ``limit`` (an attribute of LIMITS): read at most
    the limit and one byte more, whatever the file system says of its size. A device
    (``/dev/zero``), a FIFO or a folder is refused before anything is read: OSError."""
    most = getattr(LIMITS, limit)
    descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without waiting
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device, a pipe or a folder)")
        if status.st_size > most:
            raise over(limit, f"{status.st_size:,} bytes")
        data = handle.read(most + 1)  # a file that grew since, or a size the system got wrong
    if len(data) > most:
        raise over(limit, f"over {most:,} bytes")
    return data
