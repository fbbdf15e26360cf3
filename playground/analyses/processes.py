"""Worker processes for sweeps and corpora, started the one safe way from a threaded server."""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext


def process_context() -> BaseContext:
    """forkserver where there is one: the server forks each worker from a clean process (never
    from the app's threads) with the engine and the main module (the app, under streamlit)
    imported once, so workers start in milliseconds; spawn elsewhere."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(
            [
                "__main__",
                "playground.analyses.sweep",
                "playground.analyses.corpus",
                "playground.measures.metrics",
            ]
        )
    return context
