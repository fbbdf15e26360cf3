"""Issue 56: recommend against what the agent did. On every compacting session under the shared
folder the default budget is "no more loss than your agent's own policy", no stack it names sends
a request over the window the agent had, and the answer is a cheaper stack (by how much) or the
plain word that nothing found beats the agent's own policy; never "loosen it". What it writes
replays to the dollars it reported, at the session's model and window, and the agent's own
settings file parses in the agent's format."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from playground.analyses.recommend import OWN, recommend
from playground.cli.main import main
from playground.formats import read_path
from playground.stacks.config import Config, load_config
from tests.playground.analyses.test_own_policy import CODEX, COMPACTING

ERK = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code-erk"
DEEPSEEK = Path(__file__).parents[2] / "fixtures" / "msa_astropy12907.traj.json"


@pytest.mark.parametrize("path", COMPACTING, ids=lambda p: p.name[:12])
def test_the_default_budget_is_the_agent_s_own_losses_and_the_answer_says_what_it_beats(path):
    (session, *_) = read_path(path)
    answer = recommend([session], [Config().settings_for(session)], None, trials=6, seed=0, workers=1)
    own = answer.own
    assert own is not None and own.kind == OWN and own.feasible  # within its own losses, by definition
    assert answer.budget.of_own_policy and "no more loss than your agent's own policy" in answer.budget.said()
    best = answer.best
    assert best is not None  # never "loosen it"
    for key in ("distinct_facts_lost", "distinct_quotes_lost", "refetches"):
        assert best.worst(key) <= own.worst(key)
    assert best.worst("turns_over_window") == 0
    verdict = answer.verdict()
    if (best.total("cost_usd") or 0) < (own.total("cost_usd") or 0) - 1e-6:
        assert "% cheaper than your agent's own policy" in verdict and verdict.endswith("at no more loss")
    else:
        assert verdict.startswith("nothing found beats your agent's own policy")
    assert "loosen" not in verdict


def test_the_written_config_replays_to_the_reported_dollars_at_the_session_s_model(tmp_path, capsys):
    """The DeepSeek mini-swe-agent run (the issue's case: gpt-4o and 128,000 were written) and a
    Claude Code session that compacted: the config holds the session's model and window and
    replays to the cost the answer reported."""
    for path in (DEEPSEEK, ERK / "a5c478e1-0d31-46d4-9fd6-3b6b203b3752.jsonl"):
        best, report = tmp_path / f"{path.stem}.yaml", tmp_path / f"{path.stem}.json"
        args = [
            "recommend",
            str(path),
            "--trials",
            "6",
            "--workers",
            "1",
            "-o",
            str(best),
            "--json",
            str(report),
        ]
        assert main(args) == 0
        reported = json.loads(report.read_text())["best"]["cost"]
        (session, *_) = read_path(path)
        config = load_config(str(best))
        assert config.settings.model == session.recorded_model
        assert config.settings.context_window == Config().settings_for(session).context_window
        replayed = tmp_path / f"{path.stem}-replay.json"
        assert main(["replay", str(path), "--config", str(best), "--json", str(replayed)]) == 0
        assert json.loads(replayed.read_text())["summary"]["cost_usd"] == pytest.approx(reported, abs=1e-6)
    capsys.readouterr()


def test_the_agent_settings_parse_in_the_agent_s_own_format_and_keep_its_compaction_on(tmp_path, capsys):
    claude = tmp_path / "settings.json"
    session = (
        ERK / "34748be3-5a05-4aa0-a05b-2b3b99a4674c.jsonl"
    )  # 2.0.67, compacted once, raw over the window
    args = ["recommend", str(session), "--trials", "6", "--workers", "1", "--framework", "Claude Code"]
    assert main([*args, "--agent-settings", str(claude), "--json", str(tmp_path / "c.json")]) == 0
    document = json.loads(claude.read_text())
    best = json.loads((tmp_path / "c.json").read_text())["best"]["stack"]
    compacts = any("ClaudeCodeAutoCompactPolicy" in spec for spec in best)
    assert document.get("autoCompactEnabled") is compacts  # on, unless the answer turns it off
    assert compacts  # the raw history outgrows the window: no answer turns it off here
    codex = tmp_path / "config.toml"
    rollout = next(iter(CODEX), None)
    if rollout is not None:
        assert (
            main(
                ["recommend", str(rollout), "--trials", "4", "--workers", "1", "--agent-settings", str(codex)]
            )
            == 0
        )
        tomllib.loads(codex.read_text())  # Codex's own format
    capsys.readouterr()
