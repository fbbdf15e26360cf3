"""``playground compactions FILE``: each compaction the recording agent made, what it cost, what
it dropped and what the agent fetched again after it (``measures.compactions``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from playground.cli.common import pick_session, sessions_in, write_json, write_whole
from playground.cli.text_table import text_table
from playground.engine.tokens import TokenCounter
from playground.measures.compactions import COLUMNS, LISTS, compaction_report, report_words, table_rows
from playground.measures.evaluate import Scenario
from policies.base import visible


def add_command(commands: Any) -> None:
    parser = commands.add_parser(
        "compactions",
        help="each compaction the agent made: where, tokens before and after, its cost, what it "
        "dropped, what was fetched again",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--session", help="which session of a multi-session file: index from 0, or name")
    parser.add_argument("--json", metavar="OUT", help="write the report as JSON ('-' for stdout)")


def run(args: argparse.Namespace) -> int:
    documents = []
    out = sys.stderr if args.json == "-" else sys.stdout
    for file in args.files:
        session = pick_session(sessions_in(file), args.session, file)
        settings = Scenario().for_session(session, False).settings
        rows = compaction_report(session, TokenCounter(settings.model), settings.context_window)
        table = table_rows(rows)
        print(
            visible(f"{session.name} ({session.file}): {session.format}, {session.turns:,} calls"), file=out
        )
        print(visible(report_words(rows)), file=out)
        if table:
            print(text_table(table, COLUMNS), file=out)
            for row in table:
                for key in LISTS:
                    if row[key]:
                        print(visible(f"  {row['compaction']}. {key}: {row[key]}"), file=out)
        documents.append({"session": session.name, "file": session.file, "compactions": table})
    if args.json:
        write_whole(args.json, lambda target: write_json(target, documents))
    return 0
