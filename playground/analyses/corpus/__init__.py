"""A corpus: every session of many files (a directory, a ``.zip``, multi-session files),
replayed under every stack, the figures streamed to Parquet as each file finishes.

The unit of work is one source (a file, or a member of a zip): a worker reads it, replays
each session in it under each stack, and hands back one figures row per (session, stack)
and the per-turn rows (``replay``). The parent holds figures, never sessions or contexts,
and writes each unit's rows to ``OUT/sessions/KEY.parquet`` and ``OUT/turns/KEY.parquet``
(whole files, renamed into place, listed in the run's ``manifest``), so an interrupted run
keeps what it finished and ``resume`` skips it (``run``). A source that cannot be read is a
row with its reason in ``error``. ``sources`` finds the transcripts; ``tables`` reads the
figures back as the reports show them.
"""

from playground.analyses.corpus.job import FIGURES, Job
from playground.analyses.corpus.manifest import Manifest, read_sessions
from playground.analyses.corpus.replay import UnitResult, replay_source, session_figures, unit_key
from playground.analyses.corpus.run import RunFigures, run_corpus
from playground.analyses.corpus.sources import CorpusError, Source, sources
from playground.analyses.corpus.tables import (
    SAVINGS,
    SESSION_COLUMNS,
    SESSION_KEY_COLUMNS,
    deltas,
    session_table,
    summary,
    summary_by_figure,
    worst,
)

__all__ = [
    "FIGURES",
    "SAVINGS",
    "SESSION_COLUMNS",
    "SESSION_KEY_COLUMNS",
    "CorpusError",
    "Job",
    "Manifest",
    "RunFigures",
    "Source",
    "UnitResult",
    "deltas",
    "read_sessions",
    "replay_source",
    "run_corpus",
    "session_figures",
    "session_table",
    "sources",
    "summary",
    "summary_by_figure",
    "unit_key",
    "worst",
]
