"""Work a tab runs on a thread of its own (a sweep, a recommendation), so the page stays usable:
the job the page reads and the thread writes, its start within a server-wide cap, and the
fragment that polls its progress and offers Cancel."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st

log = logging.getLogger(__name__)


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


def start(
    job: Job,
    work: Callable[[], None],
    slots: threading.BoundedSemaphore,
    said: type[Exception],
    what: str,
) -> bool:
    """Run ``work`` on a daemon thread if one of ``slots`` is free (False: none is). An error of
    type ``said`` is shown as it is; any other is logged and shown as an internal error, never
    a traceback; the job is finished and its slot freed either way."""
    if not slots.acquire(blocking=False):
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
