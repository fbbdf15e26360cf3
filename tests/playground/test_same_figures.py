"""Issue 48: the replay pipeline moved into one evaluate step and one model catalogue with
every figure unchanged. The JSON the CLI writes for a replay, a compare and a recommend on the
samples (and two real agent logs) is kept from before the move; each run must give it again.

``REGENERATE_FIGURES=1 pytest tests/playground/test_same_figures.py`` writes them anew, for a
change that means to move a figure (say which in the commit)."""

from __future__ import annotations

import gzip
import json
import math
import os
from pathlib import Path

import pytest

from playground.cli.main import main
from tests.synthetic import FOLDER as SYNTHETIC

ROOT = Path(__file__).parents[2]
SAMPLES = sorted(SYNTHETIC.glob("*.json*"))
FIXTURES = ROOT / "tests" / "fixtures"
KEPT = FIXTURES / "figures"
VOLATILE = {"seconds", "study"}  # a run's time, the study's name (a digest of the job's key)

CASES = {
    **{f"replay {p.name}": ["replay", str(p)] for p in SAMPLES},
    "replay leave_request batched": ["replay", str(SYNTHETIC / "leave_request_hr.json"), "--preset", "Cache-friendly (batched eviction)"],
    "replay claude code": ["replay", str(FIXTURES / "formats/claude-code/sniffly_d3ad4cdc.jsonl")],
    **{f"replay sample {p.name}": ["replay", str(p)] for p in sorted((ROOT / "sample_sessions").glob("*.json*"))},
    "replay mini-swe-agent": ["replay", str(FIXTURES / "msa_astropy12907.traj.json")],
    "replay anthropic priced as sonnet": ["replay", str(SYNTHETIC / "coding_agent_bugfix.json"), "--model", "claude-sonnet-4-5"],
    "compare leave_request": ["compare", str(SYNTHETIC / "leave_request_hr.json"), "pyagentic recommended", "Sliding window of 50", "Cache-friendly (batched eviction)"],
    "compare claude code": ["compare", str(FIXTURES / "formats/claude-code/sniffly_d3ad4cdc.jsonl"), "pyagentic recommended", "Cache-friendly (batched eviction)"],
    "recommend leave_request": ["recommend", str(SYNTHETIC / "leave_request_hr.json"), "--trials", "8", "--seed", "0", "--workers", "1"],
}  # fmt: skip


def _figures(args: list[str], out: Path) -> object:
    assert main([*args, "--json", str(out)]) == 0
    return _steady(json.loads(out.read_text()))


def _steady(value: object) -> object:
    """The JSON without what changes from run to run, its paths relative to the repository."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, str):  # the synthetic sessions were the app's samples when these were kept
        return value.replace(str(SYNTHETIC) + "/", "sample_sessions/").replace(str(ROOT) + "/", "")
    return value


def _same(got: object, kept: object, where: str = "") -> list[str]:
    if isinstance(kept, dict) and isinstance(got, dict):
        differ = [f"{where}.{k}: only {'before' if k in kept else 'now'}" for k in kept.keys() ^ got.keys()]
        return differ + [d for k in kept.keys() & got.keys() for d in _same(got[k], kept[k], f"{where}.{k}")]
    if isinstance(kept, list) and isinstance(got, list) and len(kept) == len(got):
        return [
            d for i, (g, k) in enumerate(zip(got, kept, strict=True)) for d in _same(g, k, f"{where}[{i}]")
        ]
    if (
        isinstance(kept, float)
        and isinstance(got, float)
        and math.isclose(got, kept, rel_tol=1e-9, abs_tol=1e-12)
    ):
        return []
    return [] if got == kept else [f"{where}: {kept!r} before, {got!r} now"]


@pytest.mark.parametrize("case", CASES)
def test_every_figure_is_what_it_was_before_the_move(case, tmp_path):
    got = _figures(CASES[case], tmp_path / "out.json")
    kept_file = KEPT / (case.replace(" ", "_") + ".json.gz")
    if os.environ.get("REGENERATE_FIGURES"):
        kept_file.write_bytes(gzip.compress(json.dumps(got, indent=1, sort_keys=True).encode(), mtime=0))
    kept = json.loads(gzip.decompress(kept_file.read_bytes()))
    differ = _same(got, kept)
    assert not differ, f"{len(differ)} figures moved:\n" + "\n".join(differ[:30])
