"""A corpus: every session of many files (a directory, a ``.zip``, multi-session files),
replayed under every stack, the figures streamed to Parquet as each file finishes.

The unit of work is one source (a file, or a member of a zip): a worker reads it, replays
each session in it under each stack, and hands back one figures row per (session, stack)
and the per-turn rows. The parent holds figures, never sessions or contexts, and writes
each unit's rows to ``OUT/sessions/KEY.parquet`` and ``OUT/turns/KEY.parquet`` (whole
files, renamed into place), so an interrupted run keeps what it finished and ``resume``
skips it. A source that cannot be read is a row with its reason in ``error``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground.analyses.processes import process_context
from playground.engine.session import Session, TranscriptError
from playground.engine.tokens import TokenCounter
from playground.formats import compressed, read_bytes
from playground.limits import LIMITS, LimitError, over, read_limited
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.figures import heading, higher_is_better
from playground.models.plausible import plausible
from playground.stacks.candidates import Candidate
from policies.base import shown

TRANSCRIPT_SUFFIXES = (".json", ".jsonl", ".ndjson", ".traj", ".eval")
AIDER_HISTORY = ".aider.chat.history.md"  # a dot file, but a transcript: read where it is found
NOT_TRANSCRIPTS = (".meta.json",)  # Claude Code's subagent descriptions, beside their transcripts
# the per-session figures a corpus report reads (metrics.totals names)
FIGURES = (
    "turns",
    "billed_raw_tokens",
    "billed_context_tokens",
    "saved_pct",
    "cost_usd",
    "raw_cost_usd",
    "saved_usd",
    "saved_cost_pct",
    "recorded_cost_usd",
    "saved_vs_recorded_usd",
    "saved_vs_recorded_pct",
    "cache_hit_pct",
    "cache_breaks",
    "distinct_facts_lost",
    "turns_with_facts_lost",
    "distinct_quotes_lost",
    "refetches",
    "turns_with_violations",
    "turns_over_window",
    "compactions",
    "stubs_created",
    "peak_context_tokens",
)


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


@dataclass(frozen=True)
class Job:
    """What every unit of a run shares: the stacks (named) and how to replay and price."""

    stacks: tuple[Candidate, ...]
    scenario: Scenario
    # a model was named (CLI --model, a config's model:, the app's picker): every session
    # replays as it; else each session as the model it records, where it records one
    model_given: bool = True

    @property
    def model(self) -> str:
        return self.scenario.settings.model

    def scenario_for(self, session: Session) -> Scenario:
        """The scenario ``session`` replays under: at the model it records, unless one was named."""
        return self.scenario.for_session(session, self.model_given)

    def digest(self) -> str:
        data = {
            "stacks": [[c.name, [s.key() for s in c.stack]] for c in self.stacks],
            "settings": self.scenario.settings.key(),
            "model_given": self.model_given,
            "pricing": self.scenario.pricing.to_data(),
            "must_keep": [f.text for f in self.scenario.must_keep],
        }
        return hashlib.sha256(json.dumps(data, default=str, sort_keys=True).encode()).hexdigest()


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
            named | {"error": "", "messages": len(session.messages)} | {k: figures.get(k) for k in FIGURES},
            evaluated.table.frame(),
        )


# a worker's share of the job, set once per process
_worker: tuple[Job, TokenCounter] | None = None


def _start_worker(job: Job) -> None:
    global _worker
    _worker = (job, TokenCounter(job.model))


def _worker_unit(source: Source, key: str) -> UnitResult:
    assert _worker is not None, "a corpus worker runs units only after _start_worker"
    job, counter = _worker
    return replay_source(source, job, key, counter)


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
        for result in _results(todo, job, workers, scheduler):
            manifest.units[result.key] = _write(root, result)
            manifest.write(root, every=5.0)
            figures.done += 1
            figures.seconds = time.monotonic() - started
            if progress:
                progress(figures)
    finally:  # an interrupted run lists what it finished, for --resume
        manifest.write(root)
    figures.seconds = time.monotonic() - started
    return figures


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


def _results(todo: list[tuple[Source, str]], job: Job, workers: int, scheduler: Any) -> Iterator[UnitResult]:
    if scheduler:
        yield from _on_dask(todo, job, scheduler)
    elif workers <= 1:
        counter = TokenCounter(job.model)
        for source, key in todo:
            yield replay_source(source, job, key, counter)
    else:
        yield from _in_pool(todo, job, workers)


def _in_pool(todo: list[tuple[Source, str]], job: Job, workers: int) -> Iterator[UnitResult]:
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(workers, process_context(), initializer=_start_worker, initargs=(job,))
    try:
        pending: set[Future] = set()
        queue = iter(todo)
        while True:
            while len(pending) < 4 * workers:  # a few units ahead of each worker, never the whole corpus
                nxt = next(queue, None)
                if nxt is None:
                    break
                pending.add(pool.submit(_worker_unit, *nxt))
            if not pending:
                return
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@functools.lru_cache(maxsize=4)
def _dask_counter(model: str) -> TokenCounter:
    """A Dask worker's counter, kept across its tasks as a pool worker keeps its own."""
    return TokenCounter(model)


def _dask_unit(source: Source, job: Job, key: str) -> UnitResult:
    return replay_source(source, job, key, _dask_counter(job.model))


def _on_dask(todo: list[tuple[Source, str]], job: Job, scheduler: Any) -> Iterator[UnitResult]:
    """The same units on a Dask cluster: ``scheduler`` is its address (tcp://HOST:PORT) or a
    ``distributed.Client`` the caller holds open."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise CorpusError("--scheduler needs Dask distributed: pip install '.[dask]'") from None
    owned = isinstance(scheduler, str)
    client = connect_scheduler(Client, scheduler) if owned else scheduler
    try:
        shared = client.scatter(job, broadcast=True)
        futures = [client.submit(_dask_unit, source, shared, key, pure=False) for source, key in todo]
        for future in as_completed(futures):
            yield future.result()
            future.release()
    finally:
        if owned:
            client.close()


SCHEDULER_SECONDS = 30.0  # connecting to a scheduler and its first answer, together
_ADDRESS = re.compile(r"(tcp|tls)://[A-Za-z0-9.\-\[\]:]+:\d{1,5}")


def connect_scheduler(client_class: Any, address: str) -> Any:
    """A client of the scheduler at ``address``, which answered within SCHEDULER_SECONDS; a
    CorpusError naming the address otherwise (a server that accepts and never answers too)."""
    import queue
    import threading

    if not _ADDRESS.fullmatch(address):
        raise CorpusError(f"--scheduler {shown(address)}: not a scheduler address; write tcp://HOST:PORT")
    answer: queue.Queue = queue.Queue(1)

    def connect() -> None:
        try:
            client = client_class(address, timeout=SCHEDULER_SECONDS)
            client.scheduler_info()  # the handshake done: the scheduler answers
            answer.put(client)
        except Exception as error:  # handed to the waiting thread, which says what it was
            answer.put(error)

    # a daemon: a scheduler that never answers keeps this thread, never the process from exiting
    threading.Thread(target=connect, daemon=True, name="dask-connect").start()
    try:
        got = answer.get(timeout=SCHEDULER_SECONDS)
    except queue.Empty:
        raise CorpusError(
            f"--scheduler {address}: no answer within {SCHEDULER_SECONDS:g} s (is it a Dask scheduler?)"
        ) from None
    if isinstance(got, OSError | ValueError | TypeError):
        reason = " ".join(str(got).split())[:200]
        raise CorpusError(f"--scheduler {address}: cannot reach the cluster ({reason})") from None
    if isinstance(got, BaseException):
        raise got
    return got


def _write(root: Path, result: UnitResult) -> dict[str, str]:
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


def summary(frame: Any, stacks: Sequence[str]) -> Any:
    """Per stack, the distribution over sessions of what it saves and what it loses."""
    import pandas as pd

    rows = []
    ran = frame[frame["error"] == ""] if "error" in frame else frame
    for name in stacks:
        own = ran[ran["stack"] == name]
        if own.empty:
            rows.append({"stack": name, "sessions": 0})
            continue
        # each session is priced at its own model: the money is over those genai-prices knows
        priced = own[own["saved_usd"].notna()]
        rows.append(
            {
                "stack": name,
                "sessions": len(own),
                "tokens saved % (median)": own["saved_pct"].median(),
                "tokens saved % (p10..p90)": _spread(own["saved_pct"]),
                "sessions priced": len(priced),
                "cost saved % (median)": priced["saved_cost_pct"].median() if len(priced) else float("nan"),
                "cost saved % (p10..p90)": _spread(priced["saved_cost_pct"]) if len(priced) else "-",
                "$ saved (total)": round(float(priced["saved_usd"].sum()), 4)
                if len(priced)
                else float("nan"),
                **_against_recorded(own),
                "sessions losing facts": int((own["distinct_facts_lost"] > 0).sum()),
                "facts lost (p90)": own["distinct_facts_lost"].quantile(0.9),
                "re-fetches": int(own["refetches"].sum()),
                "sessions with invalid turns": int((own["turns_with_violations"] > 0).sum()),
                "compactions": int(own["compactions"].sum()),
            }
        )
    return pd.DataFrame(rows)


def _against_recorded(own: Any) -> dict[str, Any]:
    """What the stack saves against what the agents actually sent, over the sessions that
    record it (and how many do: the others are against the raw history only)."""
    recorded = own[own["saved_vs_recorded_usd"].notna()] if "saved_vs_recorded_usd" in own else own[:0]
    if recorded.empty:
        return {"sessions recorded": 0}
    return {
        "sessions recorded": len(recorded),
        "$ saved vs recorded (total)": round(float(recorded["saved_vs_recorded_usd"].sum()), 4),
        "cost saved vs recorded % (median)": recorded["saved_vs_recorded_pct"].median(),
    }


def _spread(values: Any) -> str:
    return f"{values.quantile(0.1):.1f}..{values.quantile(0.9):.1f}"


def deltas(frame: Any, stacks: Sequence[str]) -> Any:
    """Per session, each stack's figures minus the first stack's (the baseline)."""
    ran = frame[frame["error"] == ""]
    keys = ["source", "session_index"]
    base = ran[ran["stack"] == stacks[0]].set_index(keys)
    out = []
    for name in stacks[1:]:
        own = ran[ran["stack"] == name].set_index(keys)
        joined = own.merge(base, left_index=True, right_index=True, suffixes=("", "_base"))
        for figure in ("cost_usd", "billed_context_tokens", "distinct_facts_lost", "refetches"):
            joined[f"delta_{figure}"] = joined[figure] - joined[f"{figure}_base"]
        out.append(
            joined.reset_index()[[*keys, "session", "stack", *(c for c in joined if c.startswith("delta_"))]]
        )
    import pandas as pd

    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


# the per-session table's columns (metrics.totals names) and short headings (measures.figures); each can order it
SESSION_COLUMNS = {
    key: heading(key)
    for key in (
        "distinct_facts_lost",
        "distinct_quotes_lost",
        "saved_cost_pct",
        "saved_usd",
        "saved_vs_recorded_pct",
        "saved_pct",
        "refetches",
        "turns_with_violations",
        "compactions",
        "turns",
    )
}
SAVINGS = tuple(
    key for key in SESSION_COLUMNS if higher_is_better(key)
)  # higher is better; for the rest lower is


# what a page-wide table of sessions shows (the rest is in the Parquet and the CLI's JSON)
SESSION_KEY_COLUMNS = ("distinct_facts_lost", "saved_cost_pct", "saved_vs_recorded_pct", "refetches")


def session_table(frame: Any, stack: str, by: str, figures: Sequence[str] = tuple(SESSION_COLUMNS)) -> Any:
    """The sessions ``stack`` ran on, worst first by ``by`` (least saved, most lost): the
    session's name (and model, with every figure), ``by``, then ``figures``, under their headings."""
    own = frame[(frame["stack"] == stack) & (frame["error"] == "")]
    ordered = own.sort_values(by, ascending=by in SAVINGS, kind="stable", na_position="last")
    whole = len(figures) == len(SESSION_COLUMNS)
    named = ["session", "model"] if "model" in ordered and whole else ["session"]  # the model it ran at
    shown = list(dict.fromkeys([by, *figures])) if not whole else list(SESSION_COLUMNS)
    return ordered[[*named, *shown]].rename(columns=SESSION_COLUMNS).reset_index(drop=True)


def summary_by_figure(frame: Any, stacks: Sequence[str]) -> Any:
    """``summary`` turned: a row per figure, a column per stack (it fits a page at any count
    of figures)."""
    table = summary(frame, stacks).set_index("stack").T
    table.index.name = "figure"
    return table.map(_cell)


def _cell(value: Any) -> str:
    """A figure as the turned table shows it: one type per column (text), numbers grouped."""
    if isinstance(value, str):
        return value
    if value is None or value != value:  # NaN: no figure (no price, no record)
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4f}".rstrip("0").rstrip(".")


def worst(frame: Any, stack: str, n: int = 5) -> list[tuple[str, Any]]:
    """The sessions where ``stack`` hurts most: most facts lost, most cost added against raw."""
    own = frame[(frame["stack"] == stack) & (frame["error"] == "")]
    if own.empty:
        return []
    lost = own[own["distinct_facts_lost"] > 0].sort_values(
        "distinct_facts_lost", ascending=False, kind="stable"
    )
    views = [("most facts lost", lost.head(n))]
    if own["saved_usd"].notna().all():
        added = own[own["saved_usd"] < 0].sort_values("saved_usd", kind="stable")
        views.append(("most cost added against raw history", added.head(n)))
    return views
