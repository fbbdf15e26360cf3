"""One unit of a corpus: every session of one source under every stack, as figures rows
and per-turn rows. A task of the runner (``unit``), in this process or in a worker."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from playground.analyses.corpus.job import FIGURES, Job
from playground.analyses.corpus.sources import Source
from playground.analyses.runner import Counters
from playground.engine.session import Session, TranscriptError
from playground.engine.tokens import TokenCounter
from playground.formats import read_bytes
from playground.limits import LimitError
from playground.measures.evaluate import evaluate
from playground.models.plausible import plausible


def _storable(name: str) -> str:
    """A name as Parquet can hold it (UTF-8): a byte of a non-UTF-8 file name, or half a
    character in a session's name, is written as its escape (``\\udcff``), visibly."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def unit_key(source: Source, job_digest: str) -> str:
    return hashlib.sha256(
        f"{source.label}\0{source.stamp}\0{job_digest}".encode("utf-8", "surrogatepass")
    ).hexdigest()[:24]


@dataclass
class UnitResult:
    key: str
    sessions: list[dict[str, Any]]
    turns: Any  # a pandas DataFrame (None when the source could not be read)


def replay_source(source: Source, job: Job, key: str, counter: TokenCounter | None = None) -> UnitResult:
    """Every session of ``source`` under every stack of ``job``: figures and per-turn rows."""
    import pandas as pd

    label = _storable(source.label)
    base = {"source": label, "session_index": -1, "session": "", "stack": "", "stack_index": -1}
    try:
        data = source.read()
        sessions = plausible(read_bytes(data, label))
    except TranscriptError as error:
        return UnitResult(key, [base | {"error": str(error)}], None)
    except LimitError as error:
        return UnitResult(key, [base | {"error": f"{label}: {error}"}], None)
    except (OSError, zipfile.BadZipFile) as error:
        return UnitResult(key, [base | {"error": f"{label}: cannot read: {error}"}], None)
    except Exception as error:  # a reader's fault: this file listed with it, the rest go on
        return UnitResult(
            key, [base | {"error": f"{label}: the reader failed: {type(error).__name__}"}], None
        )
    counter = counter or TokenCounter(job.model)
    rows, frames = [], []
    try:
        for index, session in enumerate(sessions):
            named = {"source": label, "session_index": index, "session": _storable(session.name)}
            for row, frame in session_figures(session, job, counter):
                rows.append(named | row)
                if frame is not None:
                    frames.append(frame.assign(**named, stack=row["stack"]))
    finally:
        counter.forget()  # a worker's counter keeps nothing of this file for the next
    turns = pd.concat(frames, ignore_index=True) if frames else None
    return UnitResult(key, rows, turns)


def unit(job: Job, counters: Counters, item: tuple[Source, str]) -> UnitResult:
    """The runner's task: one source (and its key) replayed with the worker's counter."""
    source, key = item
    return replay_source(source, job, key, counters(job.model))


def session_figures(
    session: Session,
    job: Job,
    counter: TokenCounter,
    *,
    api_key: str | None = None,
    hosted: bool = False,
) -> Iterator[tuple[dict[str, Any], Any]]:
    """One session under each stack of ``job``: its figures row and its turns frame (None,
    and the reason in ``error``, for a stack that cannot run on it). ``api_key`` and
    ``hosted`` as for ``replay`` (the app passes hosted=True)."""
    scenario = job.scenario_for(session)
    settings = scenario.settings
    if settings.model != job.model:  # its recorded model: that model's tokenizer
        counter = TokenCounter(settings.model)
    for stack_index, stack in enumerate(job.stacks):
        named = {"stack": stack.name, "stack_index": stack_index, "model": settings.model}
        try:
            evaluated = evaluate(session, stack.stack, scenario, counter, api_key=api_key, hosted=hosted)
        except Exception as error:  # a stack that cannot run on this session: its row says why
            yield named | {"error": f"{type(error).__name__}: {error}"}, None
            continue
        figures = evaluated.totals
        yield (
            named | {"error": "", "messages": len(session.messages)} | {k: figures[k] for k in FIGURES},
            evaluated.table.frame(),
        )


# a worker's share of the job, set once per process
_worker: tuple[Job, TokenCounter] | None = None
