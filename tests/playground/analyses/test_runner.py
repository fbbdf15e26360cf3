"""The one runner: here or in worker processes, the same results in the items' order, stopped
when cancelled, a dead worker said in a line, and each worker's counters kept for its job."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from playground.analyses.runner import Counters, RunError, Runner
from playground.limits import LIMITS
from policies.messages import Message


def square(job: int, counters: Counters, item: int) -> tuple[int, int]:
    return item * item + job, os.getpid()


def count(job: str, counters: Counters, item: str) -> tuple[int, int, int]:
    """The tokens of ``item`` under the job's model, the worker, and the counter's identity."""
    counter = counters(job)
    return counter.count(Message(role="user", content=item)), os.getpid(), id(counter)


def die(job: None, counters: Counters, item: int) -> int:
    if item == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return item


@pytest.mark.parametrize("workers", [1, 2])
def test_every_item_runs_once_and_map_keeps_their_order(workers):
    with Runner(10, square, workers=workers) as runner:
        results = runner.map(range(40))
        assert [value for value, _ in results] == [i * i + 10 for i in range(40)]
        assert runner.processes == workers
        pids = {pid for _, pid in results}
    assert (pids == {os.getpid()}) if workers == 1 else (os.getpid() not in pids and 1 <= len(pids) <= 2)


def test_a_worker_keeps_one_counter_per_model_for_its_job_and_counts_as_here():
    texts = [f"line {i} of a tool result" for i in range(30)]
    here = Runner("gpt-4o", count).map(texts)
    with Runner("gpt-4o", count, workers=2) as runner:
        there = runner.map(texts)
    assert [tokens for tokens, _, _ in there] == [tokens for tokens, _, _ in here]
    by_worker: dict[int, set[int]] = {}
    for _, pid, counter in there:
        by_worker.setdefault(pid, set()).add(counter)
    assert all(len(counters) == 1 for counters in by_worker.values())


def test_workers_learn_the_token_counts_they_are_given():
    known = Counters()
    counter = known("gpt-4o")
    message = Message(role="user", content="a message counted once, in the parent")
    counter.count(message)
    learnt = Counters(("gpt-4o", counter.known()))
    assert learnt("gpt-4o").known() == counter.known() and learnt("gpt-4.1").known() == ({}, {})


@pytest.mark.parametrize("workers", [1, 2])
def test_cancelled_hands_out_no_more_work_and_yields_what_ran(workers):
    stop = threading.Event()
    seen = []
    with Runner(0, square, workers=workers) as runner:
        for index, _ in runner.results(range(200), stop.is_set):
            seen.append(index)
            if len(seen) == 5:
                stop.set()
    assert 5 <= len(seen) < 200 and len(set(seen)) == len(seen)


def test_a_worker_that_dies_is_said_in_a_line():
    with Runner(None, die, workers=2) as runner, pytest.raises(RunError, match="a worker process stopped"):
        runner.map(range(8))


def test_a_scheduler_that_is_not_an_address_is_named():
    pytest.importorskip("distributed")
    with pytest.raises(RunError, match="not a scheduler address"):
        Runner(None, square, scheduler="localhost")


def test_the_app_runs_as_many_jobs_of_each_kind_as_its_own_cap(monkeypatch):
    from playground.ui import background

    monkeypatch.setattr(LIMITS, "max_running_sweeps", 2)
    monkeypatch.setattr(LIMITS, "max_running_searches", 1)
    background._slots.cache_clear()
    release = threading.Event()
    jobs = [background.Job(planned=1) for _ in range(5)]
    try:
        started = [background.start(jobs[i], release.wait, background.SWEEP) for i in range(3)]
        assert started == [True, True, False]  # a third sweep waits for one of the two
        assert background.start(jobs[3], release.wait, background.SEARCH)  # a search has its own cap
        assert not background.start(jobs[4], release.wait, background.SEARCH)
    finally:
        release.set()
    for job in jobs[:2] + jobs[3:4]:
        while job.running:
            threading.Event().wait(0.01)
    assert background.start(background.Job(planned=1), lambda: None, background.SWEEP)  # slots freed
    background._slots.cache_clear()
