"""The sampler's study: in memory, or kept in SQLite between runs of the same search."""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from playground.analyses.recommend.budget import Budget, RecommendError
from playground.analyses.recommend.replays import Job
from playground.analyses.recommend.search import Search
from playground.cache_dir import default_cache_dir


def open_study(name: str, resume: bool, seed: int, search: Search, policies: Sequence[str]) -> Any:
    """The sampler's study: in memory, or with ``resume`` kept in SQLite under a name made of
    every argument of the search (two runs of the same search share it; no run deletes one)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # multivariate and group are marked experimental
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True, n_startup_trials=10)
    if not resume:
        return optuna.create_study(study_name=name, sampler=sampler)
    try:
        with _study_lock():  # two runs creating the file's tables at once would collide
            return _open_kept(name, sampler, search)
    except OSError as error:  # the cache folder is a file, or cannot be written
        raise RecommendError(
            f"--resume: the study folder cannot be used ({error.strerror or error})"
        ) from None


def _open_kept(name: str, sampler: Any, search: Search) -> Any:
    """The kept study; a damaged file (not a busy one) set aside with one line, and a new one."""
    try:
        return _kept_study(name, sampler)
    except Exception as error:  # whatever SQLite or Optuna says of the file
        path = study_file()
        if _busy(error):  # another run holds it: say so, never set it aside
            raise RecommendError(
                f"--resume: {path.name} is busy (another search holds it for over {SQLITE_WAIT} s); "
                "try again when it is done"
            ) from None
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        path.replace(aside)
        search.notes.append(
            f"{path.name} could not be opened ({type(error).__name__}): moved aside as {aside.name}; "
            "the search starts a new one"
        )
        return _kept_study(name, sampler)


def _busy(error: BaseException) -> bool:
    """Whether opening the study file failed because another process held it (not a damaged file)."""
    text = " ".join(str(e) for e in (error, error.__cause__, error.__context__) if e is not None).lower()
    return "database is locked" in text or "database is busy" in text


def _kept_study(name: str, sampler: Any) -> Any:
    import optuna
    from sqlalchemy.engine import URL

    # built from the path, never pasted into it: a "?" or "%41" in a folder's name is a name
    _check_tables(study_file())  # before Optuna opens it: it would make a missing table anew, empty
    url = URL.create("sqlite", database=str(study_file())).render_as_string(hide_password=False)
    storage = optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": SQLITE_WAIT}})
    return optuna.create_study(study_name=name, storage=storage, sampler=sampler, load_if_exists=True)


STUDY_TABLES = ("studies", "trials", "trial_params", "trial_values", "version_info")  # Optuna's own


def _check_tables(path: Any) -> None:
    """A study file that has Optuna's tables but lacks one of them is damaged: said here, where
    it is set aside, not at the search's first trial ("no such table: trial_params")."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(path, timeout=SQLITE_WAIT)) as db:
        found = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [t for t in STUDY_TABLES if t not in found]
    if found and missing:
        raise sqlite3.DatabaseError(f"the study file lacks the table {missing[0]}")


SQLITE_WAIT = 60  # seconds a run waits for another's write to the study file


@contextlib.contextmanager
def _study_lock() -> Iterator[None]:
    """The study file to this process alone while it is opened (an advisory lock beside it)."""
    import fcntl

    with open(study_file().with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def study_file() -> Any:
    folder = default_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "recommend-studies.sqlite3"


def study_name(job: Job, budget: Budget, policies: Sequence[str], seed: int) -> str:
    """One study per sessions, settings, pricing, budget, space and seed."""
    shared = job.scenarios[0]  # every session's scenario prices and keeps the same: their settings differ
    key = json.dumps(
        [
            [s.content_hash for s in job.sessions],
            [repr(s.settings.key()) for s in job.scenarios],
            repr(shared.pricing),
            [m.text for m in shared.must_keep],
            repr(budget),
            list(policies),
            seed,
        ]
    )
    return "recommend-" + hashlib.sha256(key.encode()).hexdigest()[:24]
