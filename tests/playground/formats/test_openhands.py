"""OpenHands trajectories, eval and resolver output: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, lines_of


def test_openhands_turns_are_model_responses_with_their_usage():
    runs = lines_of(FORMATS / "openhands" / "multi_swe_bench_output.jsonl")
    sessions = read_path(FORMATS / "openhands" / "multi_swe_bench_output.jsonl")
    assert [s.turns for s in sessions] == [len(r["metrics"]["token_usages"]) for r in runs]
    assert [sum(s.usage.values()) for s in sessions] == [
        sum(u["prompt_tokens"] for u in r["metrics"]["token_usages"]) for r in runs
    ]
    events = json.loads((FORMATS / "openhands" / "basic_gui_mode.json").read_text())
    responses = {
        e["tool_call_metadata"]["model_response"]["id"] for e in events if e.get("tool_call_metadata")
    }
    (session,) = read_path(FORMATS / "openhands" / "basic_gui_mode.json")
    assert len(session.usage) == len(responses) and session.turns == len(responses) + 1  # + the final message


def test_an_openhands_resolver_output_of_action_observation_pairs_reads_as_the_events():
    """The resolver's output.jsonl (before OpenHands 0.10) holds its history as [action,
    observation] pairs: read as the same events, the same calls and usage."""
    line = json.loads((FORMATS / "openhands" / "multi_swe_bench_output.jsonl").read_text().splitlines()[0])
    events = line["history"]
    pairs, i = [], 0
    while i < len(events):
        if i + 1 < len(events) and "action" in events[i] and "observation" in events[i + 1]:
            pairs.append([events[i], events[i + 1]])
            i += 2
        else:
            pairs.append([events[i], {}])
            i += 1
    resolver = {
        "number": 12,
        "issue": {"title": "t"},
        "git_patch": "",
        "history": pairs,
        "metrics": line["metrics"],
    }
    (paired,) = read_bytes(json.dumps(resolver).encode(), "output.jsonl")
    (flat,) = read_bytes(json.dumps(line).encode(), "output.jsonl")
    assert paired.turns == flat.turns == len(line["metrics"]["token_usages"])
    assert paired.usage == flat.usage


RESOLVER = Path(__file__).parents[2] / "fixtures" / "formats" / "openhands" / "resolver_output.jsonl"


def test_an_openhands_resolver_output_is_read_a_call_per_agent_action_with_its_own_bill():
    """The resolver's ``output.jsonl`` (OpenHands' own mock output, bare events with no source or
    ids): one session per issue, one call per action of the agent (``metrics.costs`` holds a cost
    per call), each observation the result of the action before it. It was refused."""
    lines = [json.loads(line) for line in RESOLVER.read_text().splitlines()]
    sessions = read_bytes(RESOLVER.read_bytes(), "output.jsonl")
    assert len(sessions) == len(lines) == 2
    for session, line in zip(sessions, lines, strict=True):
        agent_actions = [e for e in line["history"] if e.get("action") not in (None, "message")]
        observations = [e for e in line["history"] if "observation" in e]
        assert session.turns == len(agent_actions) == len(line["metrics"]["costs"])
        assert session.reported_cost_usd == pytest.approx(line["metrics"]["accumulated_cost"])
        results = [m for m in session.messages if m.role == "tool"]
        assert len(results) == len(observations)
        calls = {c.id: c.name for m in session.messages for c in m.tool_calls}
        assert all(calls[r.tool_call_ids[0]] in ("run", "run_ipython") for r in results)
        assert session.messages[0].role == "user" and "Problem Statement" in session.messages[0].content
        assert not session.warnings
    assert sessions[0].name.startswith("issue neubig/pr-viewer#5")
