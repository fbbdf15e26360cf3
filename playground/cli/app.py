"""``playground app [FILE or FOLDER ...]``: the page, started on this machine, on the sessions
named and on those the agents keep here (Claude Code, Codex CLI, Gemini CLI, Pi), newest first.

It runs the installed page (``playground/ui/page.py``) under Streamlit with the server settings a
checkout's ``.streamlit/config.toml`` holds, and tells the page it may look at this machine's
disk; a server started any other way never does."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from playground.cli.common import UsageError
from playground.formats.local import LOCAL, LOCAL_PATHS

# what .streamlit/config.toml holds for a checkout: an installed package carries no such file
SERVER_SETTINGS = (
    "--server.headless", "true",
    "--server.maxUploadSize", "50",
    "--browser.gatherUsageStats", "false",
    "--client.showErrorDetails", "none",
)  # fmt: skip


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
    page = importlib.util.find_spec("playground.ui.page").origin
    env = {
        **os.environ,
        LOCAL: "0" if args.no_agent_folders else "1",
        LOCAL_PATHS: os.pathsep.join(str(Path(p).resolve()) for p in args.paths),
    }
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        page,
        *SERVER_SETTINGS,
        "--server.port",
        str(args.port),
    ]
    print(f"playground: the page is at http://localhost:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 0
