"""Telling linear from quadratic time without a timed test that flakes."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_cpu_time(work: Callable[..., object], *args: object) -> float:
    """The least CPU time of three runs of ``work(*args)``: a busy machine's noise left out, so
    that a doubling test tells linear from quadratic and nothing else."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        work(*args)
        best = min(best, time.process_time() - started)
    return best


def grows_linearly(
    work: Callable[[bytes], object], make: Callable[[int], bytes], size: int
) -> tuple[float, float]:
    """CPU times of ``work`` on inputs of ``size`` and of twice that. Linear work about doubles
    (a test allows 3× and a little slack); quadratic work quadruples."""
    return best_cpu_time(work, make(size)), best_cpu_time(work, make(2 * size))
