"""The sessions the agents keep on this machine (issue 60, 5), found as ccusage finds them."""

from __future__ import annotations

import os
from pathlib import Path

from playground.formats.local import AGENT_FOLDERS, agent_sessions, named_sessions


def _touch(path: Path, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    os.utime(path, (mtime, mtime))
    return path


def test_the_agents_folders_are_listed_newest_first_and_nothing_else(tmp_path):
    claude = _touch(tmp_path / ".claude/projects/-home-me-app/s1.jsonl", 100)
    _touch(tmp_path / ".claude/projects/-home-me-app/s1/subagents/agent-1.jsonl", 900)  # read beside its main
    codex = _touch(tmp_path / ".codex/sessions/2026/12/07/rollout-2026-12-07T10-00-00-abc.jsonl", 300)
    gemini = _touch(tmp_path / ".gemini/tmp/f00d/chats/session-2026-12-07T10-00-abc.json", 200)
    pi = _touch(tmp_path / ".pi/agent/sessions/--home-me-app--/2026-12-07_abc.jsonl", 400)
    _touch(tmp_path / "notes/todo.jsonl", 999)  # not an agent's folder
    found = agent_sessions(tmp_path)
    assert [f.path for f in found] == [pi, codex, gemini, claude]
    assert [f.tool for f in found] == ["Pi", "Codex CLI", "Gemini CLI", "Claude Code"]
    assert {a.tool for a in AGENT_FOLDERS} == {"Claude Code", "Codex CLI", "Gemini CLI", "Pi"}


def test_the_files_and_folders_named_are_listed_newest_first(tmp_path):
    one = _touch(tmp_path / "a.json", 10)
    inside = _touch(tmp_path / "runs/deep/b.traj", 20)
    _touch(tmp_path / "runs/readme.txt", 30)  # no transcript's suffix
    found = named_sessions([one, tmp_path / "runs", tmp_path / "missing"])
    assert [f.path for f in found] == [inside, one] and {f.tool for f in found} == {""}
