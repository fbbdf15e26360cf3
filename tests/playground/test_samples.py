"""The app's samples (issue 60, 1): real sessions with their sources, and one synthetic for
teaching that says so and is what the tests' generator writes."""

from __future__ import annotations

from pathlib import Path

import yaml

from playground.formats import read_path
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = Path(__file__).parents[2] / "sample_sessions"


def test_each_sample_names_its_source_and_the_real_ones_their_licence():
    entries = {e["file"]: e for e in yaml.safe_load((SAMPLES / "SOURCES.yaml").read_text())}
    files = {p.name for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl")}
    assert set(entries) == files
    real = [e for e in entries.values() if e["real"]]
    assert len(real) == 3 and len(entries) - len(real) == 1  # at most one synthetic, for teaching
    for entry in real:
        assert entry["repository"] and entry["commit"] and entry["licence"].startswith("MIT")
        owner = entry["licence"].split("Copyright (c) ")[1]
        assert any(owner in p.read_text() for p in (SAMPLES / "LICENSES").iterdir()), entry["file"]
    (synthetic,) = [e for e in entries.values() if not e["real"]]
    assert "SYNTHETIC" in synthetic["what"]
    agents = {read_path(SAMPLES / e["file"])[0].format for e in real}
    assert agents == {"Claude Code session", "Codex CLI rollout", "mini-swe-agent trajectory"}


def test_the_teaching_sample_is_the_one_the_generator_writes():
    assert (SAMPLES / "leave_request_hr.json").read_bytes() == (
        SYNTHETIC / "leave_request_hr.json"
    ).read_bytes()


def test_the_samples_that_compacted_hold_the_agents_own_compactions():
    (claude, *_subagents) = read_path(SAMPLES / "claude_code_compacted.jsonl")
    (codex,) = read_path(SAMPLES / "codex_compacted.jsonl")
    assert len(claude.compactions) == 2 and len(codex.compactions) == 1
