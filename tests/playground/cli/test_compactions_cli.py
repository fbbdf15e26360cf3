"""``playground compactions FILE``: the agent's own compactions, as the CLI tables and writes them."""

from __future__ import annotations

import json
from pathlib import Path

from playground.cli.main import main

ERK = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code-erk"


def test_the_compactions_command_tables_each_compaction_and_writes_it_as_json(tmp_path, capsys):
    session = ERK / "a5c478e1-0d31-46d4-9fd6-3b6b203b3752.jsonl"
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    boundary = next(line for line in lines if line.get("subtype") == "compact_boundary")
    out = tmp_path / "c.json"
    assert main(["compactions", str(session), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "The agent compacted 1 time" in printed and "rule's call" in printed
    (document,) = json.loads(out.read_text())
    (row,) = document["compactions"]
    assert row["agent counted"] == boundary["compactMetadata"]["preTokens"] == 155_395
    assert row["trigger"] == "auto" and row["call"] == row["rule's call"] == 74


def test_a_session_without_compactions_says_so(capsys):
    assert (
        main(["compactions", str(Path(__file__).parents[2] / "fixtures" / "msa_astropy12907.traj.json")]) == 0
    )
    assert "The agent made no compaction of its own in this session." in capsys.readouterr().out
