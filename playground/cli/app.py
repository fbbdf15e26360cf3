"""``playground app [FILE or FOLDER ...]``: the page, started on this machine, on the sessions
named and on those the agents keep here (Claude Code, Codex CLI, Gemini CLI, Pi), newest first.

It runs the installed page (``playground/ui/page.py``) through ``playground.ui.serve``, which
gives Streamlit the settings a checkout's ``.streamlit/config.toml`` holds and runs the page once
before it listens, and tells the page it may look at this machine's disk; a server started any
other way never does."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from playground.cli.common import UsageError
from playground.formats.local import LOCAL, LOCAL_PATHS


def add_command(commands: argparse._SubParsersAction) -> None:
    app = commands.add_parser(
        "app", help="start the page on this machine, on the sessions named and those the agents keep here"
    )
    app.add_argument("paths", nargs="*", metavar="FILE_OR_FOLDER", help="sessions to open first")
    app.add_argument("--port", type=int, default=8501, help="the port the page is served on")
    app.add_argument(
        "--no-agent-folders",
        action="store_true",
        help="offer only the sessions named, not those in the agents' own folders",
    )


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise UsageError(f"no such file or folder: {missing[0]}")
    env = {
        **os.environ,
        LOCAL: "0" if args.no_agent_folders else "1",
        LOCAL_PATHS: os.pathsep.join(str(Path(p).resolve()) for p in args.paths),
    }
    # the page's server, with the settings a checkout's .streamlit/config.toml holds; it runs the
    # page once before it listens, so that the first visit finds what it needs loaded
    command = [sys.executable, "-m", "playground.ui.serve", str(args.port)]
    print(f"playground: the page is at http://localhost:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    sys.stderr.flush()
    # this process becomes the server: a signal that stops it stops the server, no child is left
    os.execve(sys.executable, command, env)
