"""Work a tab runs on a thread of its own (a sweep, a recommendation, a corpus replay), so the
page stays usable: the job the page reads and the thread writes, its start within its kind's
server-wide cap (one cap per kind, all browsers together), and the fragment that polls its
progress and offers Cancel."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st

from playground.limits import LIMITS

log = logging.getLogger(__name__)

# each kind of work and the limit that caps how many the server runs at once
SWEEP, SEARCH, CORPUS = "sweep", "search", "corpus replay"
CAPS = {SWEEP: "max_running_sweeps", SEARCH: "max_running_searches", CORPUS: "max_running_corpora"}


@dataclass(kw_only=True)
class Job:
    """One browser's job, running or finished; read by the page, written by its thread."""

    planned: int
    done: int = 0
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    drawn: bool = False  # a run of the whole page has drawn it finished
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        return self.finished is None

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started


@functools.cache
def _slots(kind: str) -> threading.BoundedSemaphore:
    """The server's slots for ``kind``: as many as its limit, shared by every browser."""
    return threading.BoundedSemaphore(getattr(LIMITS, CAPS[kind]))


def start(
    job: Job,
    work: Callable[[], None],
    kind: str,
    said: tuple[type[Exception], ...] = (),
) -> bool:
    """Run ``work`` on a daemon thread if a slot of ``kind`` is free; else say the server runs
    as many as it allows, and return False. An error of a type in ``said`` is shown as it is;
    any other is logged and shown as an internal error, never a traceback; the job is finished
    and its slot freed either way."""
    what = kind
    slots = _slots(kind)
    if not slots.acquire(blocking=False):
        st.warning(f"The server is running as many {kind}s as it allows; try again in a moment.")
        return False

    def run() -> None:
        try:
            work()
        except said as error:
            job.error = str(error)
        except Exception:  # never a traceback on the page; the server's log has it
            log.exception("%s failed", what)
            job.error = f"The {what} stopped on an internal error (the server log has the details)."
        finally:
            job.finished = time.monotonic()
            slots.release()

    threading.Thread(target=run, daemon=True, name=what).start()
    return True


def progress(job: Job, text: Callable[[], str], cancel_key: str) -> bool:
    """The job's progress bar and Cancel while it runs; once it finishes, the whole page is run
    again until it has drawn the result (however late the poll comes). Returns whether this run
    draws the result: the job had finished when the run reached here. A job that finishes later
    in this run is drawn by the next one, so the result never shares a run with a polling
    fragment (a browser test once saw such a run show all of the result but its first element,
    the one right after the fragment)."""
    finished = not job.running  # read once: the thread may finish while this run goes on

    @st.fragment(run_every=None if finished else 0.5)
    def poll() -> None:
        if not job.running:
            if not job.drawn:
                st.rerun(scope="app")
            return
        st.progress(min(job.done / max(job.planned, 1), 1.0), text=text())
        st.button("Cancel", on_click=job.cancel.set, key=cancel_key)

    job.drawn = finished
    poll()
    return finished
