"""The sessions the agents keep on this machine, newest first, as ccusage finds them: where the
app runs on the user's own machine (``playground app``), it offers them; a hosted server never
looks at its own disk (``playground.ui.local_sessions`` asks here only when told it may)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

# what ``playground app`` tells the page it starts (a page started any other way has neither)
LOCAL = "PLAYGROUND_LOCAL"  # "1": offer the sessions in the agents' own folders
LOCAL_PATHS = "PLAYGROUND_LOCAL_PATHS"  # the files and folders the user named, os.pathsep between
MAX_LISTED = 500  # sessions offered: the newest; a folder of thousands is a corpus run


class AgentFolder(NamedTuple):
    tool: str
    folder: str  # under the user's home
    pattern: str  # the session files in it (glob)


AGENT_FOLDERS = (
    AgentFolder("Claude Code", ".claude/projects", "*/*.jsonl"),  # subagents are read beside their main file
    AgentFolder("Codex CLI", ".codex/sessions", "**/rollout-*.jsonl*"),
    AgentFolder("Gemini CLI", ".gemini/tmp", "*/chats/session-*.json*"),
    AgentFolder("Pi", ".pi/agent/sessions", "*/*.jsonl"),
)
SUFFIXES = (".json", ".jsonl", ".jsonl.zst", ".json.zst", ".jsonl.gz", ".json.gz", ".traj", ".eval", ".md")


class Found(NamedTuple):
    path: Path
    tool: str  # the agent whose folder holds it, or "" for a path the user named
    mtime: float


def agent_sessions(home: Path | None = None) -> list[Found]:
    """The session files of the agents' own folders under ``home``, newest first."""
    home = home or Path.home()
    found = []
    for agent in AGENT_FOLDERS:
        root = home / agent.folder
        if root.is_dir():
            found += [_found(p, agent.tool) for p in root.glob(agent.pattern) if p.is_file()]
    return _newest(found)


def named_sessions(paths: list[Path]) -> list[Found]:
    """The files the user named: each file, and the transcripts under each folder, newest first."""
    found = []
    for path in paths:
        if path.is_file():
            found.append(_found(path, ""))
        elif path.is_dir():
            for folder, _, names in os.walk(path):
                found += [_found(Path(folder, n), "") for n in names if n.endswith(SUFFIXES)]
                if len(found) > 20 * MAX_LISTED:  # a home folder named by mistake: enough to choose from
                    break
    return _newest(found)


def _found(path: Path, tool: str) -> Found:
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = 0.0
    return Found(path, tool, mtime)


def _newest(found: list[Found]) -> list[Found]:
    return sorted(found, key=lambda f: -f.mtime)[:MAX_LISTED]
