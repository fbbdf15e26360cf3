"""Issue 58, 18-19: ``recommend --resume`` keeps its study in a file in the cache folder; a busy
file is said busy (never set aside as corrupt), a damaged one is set aside with one line, the
path goes into the database URL as a path, and a folder that cannot be used is refused."""

from __future__ import annotations

import sqlite3

import pytest

from playground.analyses.recommend import Budget, RecommendError
from playground.analyses.recommend import study as study_module
from playground.analyses.recommend.search import Search
from playground.analyses.recommend.study import open_study, study_file


def _search() -> Search:
    return Search(Budget(), lambda stacks, bound: [], None, lambda: False, 1)


def test_a_folder_named_with_a_question_mark_and_a_percent_holds_theopen_study(tmp_path, monkeypatch):
    folder = tmp_path / "a?b%41"
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(folder))
    study = open_study("s1", True, 0, _search(), ["ToolEvictionPolicy"])
    assert study.study_name == "s1"
    assert (folder / "recommend-studies.sqlite3").is_file()  # the literal path, not another file
    assert not (tmp_path / "aAb").exists()


def test_a_cache_folder_that_is_a_file_is_refused_in_a_line(tmp_path, monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(blocker))
    with pytest.raises(RecommendError, match="the study folder cannot be used"):
        open_study("s1", True, 0, _search(), ["ToolEvictionPolicy"])


def test_a_study_file_missing_a_table_is_set_aside_with_one_line(tmp_path, monkeypatch):
    from optuna.distributions import FloatDistribution

    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    kept = open_study("s1", True, 0, _search(), ["ToolEvictionPolicy"])
    kept.tell(kept.ask({"x": FloatDistribution(0, 1)}), 1.0)
    with sqlite3.connect(study_file()) as db:
        db.execute("DROP TABLE trial_params")
    search = _search()
    study = open_study("s1", True, 0, search, ["ToolEvictionPolicy"])
    assert study.trials == [] and len(search.notes) == 1 and "moved aside" in search.notes[0]
    assert list(tmp_path.glob("recommend-studies.sqlite3.corrupt-*"))


def test_a_study_file_another_run_holds_is_said_busy_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(study_module, "SQLITE_WAIT", 0.5)
    open_study("s1", True, 0, _search(), ["ToolEvictionPolicy"])
    holder = sqlite3.connect(study_file(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RecommendError, match="is busy"):
            open_study("s2", True, 0, _search(), ["ToolEvictionPolicy"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert not list(tmp_path.glob("*.corrupt-*"))  # never set aside for being busy
