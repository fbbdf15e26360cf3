"""SWE-agent trajectories: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json
import shutil

import pytest

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, replays_clean

SWE_RUN = (
    FORMATS / "swe-agent" / "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1"
)


SWE_AGENT = SWE_RUN / "pydicom__pydicom-1458.traj"


def test_an_older_swe_agent_trajectory_names_its_model_from_its_run_and_keeps_its_totals():
    raw = json.loads(SWE_AGENT.read_text())
    stats = raw["info"]["model_stats"]
    (session,) = read_path(SWE_AGENT)
    assert session.format == "SWE-agent trajectory"
    assert session.turns == stats["api_calls"] == sum(h["role"] == "assistant" for h in raw["history"]) == 12
    assert session.recorded_model == "gpt-4-1106-preview"  # the run folder's "gpt4", as SWE-agent names it
    assert session.reported_cost_usd == stats["instance_cost"]
    assert any(f"{stats['tokens_sent']:,} tokens sent" in str(w) for w in session.warnings)
    figures = replays_clean(session)
    # the run's own total of tokens sent is what the raw history's requests hold, counted
    assert figures["billed_raw_tokens"] == pytest.approx(stats["tokens_sent"], rel=0.02)
    # its own bill: those tokens at gpt-4-1106-preview's $10/M in and $30/M out
    assert stats["instance_cost"] == pytest.approx(
        (stats["tokens_sent"] * 10 + stats["tokens_received"] * 30) / 1e6
    )


def test_an_swe_agent_trajectory_outside_its_run_folder_says_the_model_is_not_named(tmp_path):
    copy = tmp_path / "pydicom.traj"
    shutil.copy(SWE_AGENT, copy)
    (session,) = read_path(copy)
    assert not session.models and any("the model is not named" in str(w) for w in session.warnings)
    (tmp_path / "args.yaml").write_text("agent:\n  model:\n    model_name: gpt4o\n")
    (session,) = read_path(copy)
    assert session.recorded_model == "gpt-4o-2024-05-13"


def test_an_old_swe_agent_trajectory_with_observations_of_no_call_is_read_again():
    """A regression: a ``.traj`` whose observations have role ``tool`` but no ``tool_call_id``
    (SWE-agent's text-only history) was refused; they are what the model read, as text."""
    history = [
        {"role": "system", "content": "You are an agent.", "agent": "primary"},
        {"role": "user", "content": "Fix the bug.", "agent": "primary"},
        {"role": "assistant", "content": "ls", "agent": "primary", "thought": "look", "action": "ls"},
        {"role": "tool", "content": "a.py b.py", "agent": "primary", "message_type": "observation"},
        {"role": "assistant", "content": "submit", "agent": "primary", "thought": "done", "action": "submit"},
    ]
    traj = {
        "history": history,
        "trajectory": [],
        "info": {"model_stats": {"api_calls": 2, "tokens_sent": 100, "tokens_received": 10}},
    }
    (session,) = read_bytes(json.dumps(traj).encode(), "run.traj")
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert session.turns == 2
    assert any("answer no tool call" in str(w) for w in session.warnings)
