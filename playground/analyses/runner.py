"""One way to run many replays: in this process, in worker processes, or on a Dask cluster.

A sweep, a corpus and the recommender each hand a ``Runner`` their job (what every task
shares: the session or sessions, the scenario, the stacks) and a task, a module-level
function of ``(job, counters, item)``. The runner runs the items where it was told, yields
each result as it finishes (a few items ahead of each worker, never all at once), stops
handing out work once ``cancelled()`` is true, and says in one line when a worker died.

Every worker process starts the same way (forkserver: forked from a clean process, never from
the app's threads, with the engine imported once) and keeps its own token counters for the
job it serves (``Counters``): made once per worker, emptied when a new job comes.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.context import BaseContext
from typing import Any

from playground.engine.tokens import TokenCounter
from playground.limits import LIMITS
from policies.base import shown


class RunError(ValueError):
    """Replays that cannot run where they were sent: no Dask, a scheduler that does not answer,
    a worker process that stopped."""


class Counters:
    """A worker's token counters, one per model, for one job; ``known`` (a model and the counts
    another process made for it: ``TokenCounter.known()``) is learnt by that model's counter."""

    def __init__(self, known: tuple[str, tuple[dict, dict]] | None = None) -> None:
        self._known = known
        self._by_model: dict[str, TokenCounter] = {}

    def __call__(self, model: str) -> TokenCounter:
        counter = self._by_model.get(model)
        if counter is None:
            counter = self._by_model[model] = TokenCounter(model)
            if self._known is not None and self._known[0] == model:
                counter.learn(self._known[1])
        return counter

    def add(self, counter: TokenCounter) -> None:
        """Use ``counter`` for its model (one the caller has primed, or the app's shared one)."""
        self._by_model[counter.model] = counter


Task = Callable[[Any, Counters, Any], Any]  # (job, counters, item) -> result; module-level


def process_context() -> BaseContext:
    """forkserver where there is one: the server forks each worker from a clean process (never
    from the app's threads) with the engine and the main module (the app, under streamlit)
    imported once, so workers start in milliseconds; spawn elsewhere."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(
            ["__main__", "playground.analyses.runner", "playground.measures.evaluate"]
        )
    return context


class Runner:
    """Runs ``task(job, counters, item)`` over items: here (``workers`` 1), in a pool of
    ``workers`` processes, or on the Dask cluster at ``scheduler`` (its address, or a
    ``distributed.Client`` the caller holds open). ``counters`` are this process's own (the
    caller's primed counter); ``known`` token counts every worker learns up front."""

    def __init__(
        self,
        job: Any,
        task: Task,
        *,
        workers: int = 1,
        scheduler: Any = None,
        counters: Counters | None = None,
        known: tuple[str, tuple[dict, dict]] | None = None,
    ) -> None:
        self.job, self.task = job, task
        self.workers = max(1, workers)
        self._counters = counters or Counters(known)
        self._pool: Any = None
        self._client: Any = None
        self._owned = False
        if scheduler:
            self._client, self._owned = _client(scheduler)
            # one copy of the job per worker; a token that tells a worker's counters which job they serve
            self._shared = (uuid.uuid4().hex, self._client.scatter(job, broadcast=True))
        elif self.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(
                self.workers, process_context(), initializer=_start_worker, initargs=(job, known)
            )

    @property
    def processes(self) -> int:
        """How many processes run the items (1: this one)."""
        return self.workers if self._pool is not None else 1

    def results(
        self, items: Iterable[Any], cancelled: Callable[[], bool] | None = None
    ) -> Iterator[tuple[int, Any]]:
        """``(index, result)`` for each item, as each finishes; none handed out once
        ``cancelled()`` is true (what runs finishes and is yielded)."""
        cancelled = cancelled or (lambda: False)
        if self._client is not None:
            yield from self._on_dask(items, cancelled)
        elif self._pool is not None:
            yield from self._in_pool(items, cancelled)
        else:
            for index, item in enumerate(items):
                if cancelled():
                    return
                yield index, self.task(self.job, self._counters, item)

    def map(self, items: Iterable[Any]) -> list[Any]:
        """Every item's result, in the items' order."""
        done = dict(self.results(items))
        return [done[i] for i in range(len(done))]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None and self._owned:
            self._client.close()
        self._client = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _in_pool(self, items: Iterable[Any], cancelled: Callable[[], bool]) -> Iterator[tuple[int, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        queue = enumerate(items)
        pending: dict[Any, int] = {}
        while True:
            while len(pending) < AHEAD * self.workers and not cancelled():
                nxt = next(queue, None)
                if nxt is None:
                    break
                pending[self._pool.submit(_worker_task, self.task, nxt[1])] = nxt[0]
            if not pending:
                return
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                index = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool as error:  # a worker killed (out of memory, a signal)
                    raise RunError(f"a worker process stopped: {error}") from None
                yield index, result

    def _on_dask(self, items: Iterable[Any], cancelled: Callable[[], bool]) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        token, shared = self._shared
        queue = enumerate(items)
        ahead = AHEAD * max(1, len(self._client.scheduler_info().get("workers", {})))
        running = as_completed()
        indices: dict[Any, int] = {}

        def hand_out() -> None:
            while len(indices) < ahead and not cancelled():
                nxt = next(queue, None)
                if nxt is None:
                    return
                future = self._client.submit(_dask_task, token, self.task, shared, nxt[1], pure=False)
                indices[future] = nxt[0]
                running.add(future)

        hand_out()
        while indices:
            future = next(running)
            index = indices.pop(future)
            result = future.result()
            future.release()
            yield index, result
            hand_out()


AHEAD = 4  # items handed to each worker at a time: enough to keep it busy, never the whole run

# a pool worker's share: the job and its counters, set once per process by _start_worker
_worker: tuple[Any, Counters] | None = None


def _start_worker(job: Any, known: tuple[str, tuple[dict, dict]] | None) -> None:
    global _worker
    _worker = (job, Counters(known))


def _worker_task(task: Task, item: Any) -> Any:
    assert _worker is not None, "a worker runs tasks only after _start_worker"
    return task(_worker[0], _worker[1], item)


# a Dask worker serves many jobs over its life: its counters are the newest job's only
_dask_counters: tuple[str, Counters] = ("", Counters())
_dask_lock = threading.Lock()


def _dask_task(token: str, task: Task, job: Any, item: Any) -> Any:
    global _dask_counters
    with _dask_lock:
        if _dask_counters[0] != token:
            _dask_counters = (token, Counters())
        counters = _dask_counters[1]
    return task(job, counters, item)


SCHEDULER_SECONDS = 30.0  # connecting to a scheduler and its first answer, together
_ADDRESS = re.compile(r"(tcp|tls)://[A-Za-z0-9.\-\[\]:]+:\d{1,5}")


def _client(scheduler: Any) -> tuple[Any, bool]:
    """A client of ``scheduler`` and whether this runner owns it (an address: it does)."""
    if not isinstance(scheduler, str):
        return scheduler, False
    try:
        from distributed import Client
    except ImportError:
        raise RunError("--scheduler needs Dask distributed: pip install '.[dask]'") from None
    return connect_scheduler(Client, scheduler), True


def connect_scheduler(client_class: Any, address: str) -> Any:
    """A client of the scheduler at ``address``, which answered within SCHEDULER_SECONDS; a
    RunError naming the address otherwise (a server that accepts and never answers too)."""
    import queue

    if not _ADDRESS.fullmatch(address):
        raise RunError(f"--scheduler {shown(address)}: not a scheduler address; write tcp://HOST:PORT")
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
        raise RunError(
            f"--scheduler {address}: no answer within {SCHEDULER_SECONDS:g} s (is it a Dask scheduler?)"
        ) from None
    if isinstance(got, OSError | ValueError | TypeError):
        reason = " ".join(str(got).split())[:200]
        raise RunError(f"--scheduler {address}: cannot reach the cluster ({reason})") from None
    if isinstance(got, BaseException):
        raise got
    return got


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """A Dask cluster of ``workers`` processes on this machine, and a client of it (the
    benchmark's: a corpus on Dask beside the process pool)."""
    try:
        import distributed
    except ImportError:
        raise RunError("Dask distributed is not installed: pip install '.[dask]'") from None
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
    with cluster, distributed.Client(cluster) as client:
        yield client


def default_workers() -> int:
    """As many workers as cores, within the server's cap."""
    return max(1, min(os.cpu_count() or 1, LIMITS.max_sweep_workers))
