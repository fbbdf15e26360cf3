"""A corpus run: the units not done yet, replayed by the runner, each written as it finishes."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground.analyses.corpus.job import Job
from playground.analyses.corpus.manifest import Manifest, write_unit
from playground.analyses.corpus.replay import unit, unit_key
from playground.analyses.corpus.sources import CorpusError, Source
from playground.analyses.runner import Runner


@dataclass
class RunFigures:
    units: int
    skipped: int  # finished by an earlier run (resume)
    done: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # what the user should hear (a resume's changes)


def run_corpus(
    units: Sequence[Source],
    job: Job,
    out: str | os.PathLike,
    *,
    workers: int = 1,
    resume: bool = False,
    scheduler: Any = None,
    progress: Callable[[RunFigures], None] | None = None,
) -> RunFigures:
    """Replay every unit under every stack of ``job`` and write the rows under ``out``.

    A run lists what it wrote in ``OUT/manifest.json`` (the job, the inputs, each file with
    its hash): it deletes, resumes from and reads only those files, never another run's or
    a user's. ``resume`` with other stacks or settings is refused; with changed inputs it
    replays what changed and says so in ``notes``."""
    root = Path(out)
    for folder in ("sessions", "turns"):
        try:
            (root / folder).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CorpusError(f"{root}: cannot write results there ({error.strerror or error})") from None
    digest = job.digest()
    manifest = Manifest.read(root)
    notes: list[str] = []
    if resume and manifest.job and manifest.job != digest:
        raise CorpusError(
            f"{root}: --resume: the stacks, settings or must-keep facts differ from that run's; "
            "run without --resume (its results are replaced)"
        )
    wanted = {unit_key(source, digest): source for source in units}
    kept = {key: entry for key, entry in manifest.units.items() if resume and key in wanted}
    kept = {key: entry for key, entry in kept.items() if manifest.intact(root, key)}
    if resume and manifest.job:
        changed = len(wanted) - len(kept)
        gone = len(set(manifest.units) - set(wanted))
        if changed or gone:
            notes.append(
                f"--resume: {changed:,} input(s) new, changed or unfinished since that run are replayed"
                + (
                    f"; {gone:,} earlier result(s), of inputs changed or no longer given, dropped"
                    if gone
                    else ""
                )
            )
    for key in set(manifest.units) - set(kept):
        manifest.remove(root, key)
    manifest = Manifest(digest, kept)
    manifest.write(root)
    todo = [(source, key) for key, source in wanted.items() if key not in kept]
    figures = RunFigures(len(units), len(units) - len(todo), notes=notes)
    started = time.monotonic()
    try:
        with Runner(job, unit, workers=workers, scheduler=scheduler) as runner:
            for _, result in runner.results(todo):
                manifest.units[result.key] = write_unit(root, result)
                manifest.write(root, every=5.0)
                figures.done += 1
                figures.seconds = time.monotonic() - started
                if progress:
                    progress(figures)
    finally:  # an interrupted run lists what it finished, for --resume
        manifest.write(root)
    figures.seconds = time.monotonic() - started
    return figures
