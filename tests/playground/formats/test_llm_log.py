"""LLM completion logs: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json
import shutil

import pytest

from playground.formats import read_path
from tests.playground.formats.reading import FORMATS, replays_clean

LLM_LOG = FORMATS / "openhands-v1" / "agent-sdk_llmlog_claude-sonnet-4_1757015046.json"


def test_an_llm_completion_log_is_a_call_with_its_usage_and_a_folder_of_them_one_session(tmp_path):
    raw = json.loads(LLM_LOG.read_text())
    (session,) = read_path(LLM_LOG)
    assert session.format == "LLM completion log"
    reply = len(raw["messages"])  # the reply follows the request it answers
    assert session.messages[reply].role == "assistant"
    assert session.usage == {reply: raw["response"]["usage"]["prompt_tokens"]}
    assert session.outputs == {reply: raw["response"]["usage"]["completion_tokens"]}
    assert session.reported_cost_usd == raw["cost"]
    # one call whose request holds the history: one turn, the earlier replies its context
    assert session.turns == 1 and session.replies == (reply,)
    assert sum(m.role == "assistant" for m in session.messages) == 6
    figures = replays_clean(session)
    assert figures["turns"] == 1 and figures["recorded_calls"] == 1
    assert len(session.messages[reply].tool_calls) == len(
        raw["response"]["choices"][0]["message"]["tool_calls"]
    )
    # a folder of one conversation's calls: the earlier call's request ends where its reply is
    earlier = {
        **raw,
        "messages": raw["messages"][:4],
        "timestamp": raw["timestamp"] - 60,
        "cost": 0.01,
        "response": {**raw["response"], "usage": {"prompt_tokens": 5000, "completion_tokens": 40}},
    }
    (tmp_path / "a.json").write_text(json.dumps(earlier))
    shutil.copy(LLM_LOG, tmp_path / "b.json")
    (folder,) = read_path(tmp_path)
    assert folder.usage == {4: 5000, reply: raw["response"]["usage"]["prompt_tokens"]}
    assert folder.turns == 5 and folder.replies[0] == 4  # the calls from the first logged one
    assert folder.reported_cost_usd == pytest.approx(0.01 + raw["cost"])
    replays_clean(folder)
