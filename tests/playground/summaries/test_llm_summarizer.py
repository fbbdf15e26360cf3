"""The OpenAI-compatible summarizer, driving the real openai client against a local server."""

import json
import logging

import pytest

from playground.cli.main import main
from playground.engine.replay import Settings, replay
from playground.measures.metrics import totals, turns_frame
from playground.stacks.config import Config, parse_config
from playground.summaries.summarizers import SummarizerSpec
from playground.summaries.summary_cache import SummaryCache
from policies import PolicySpec
from tests.builders import assistant, make_session, system, tool_loop, user
from tests.playground.openai_stub import ChatStub

SECRET = "sk-test-do-not-leak-1234567890"
STACK = [PolicySpec("CompactionPolicy", {"max_input_tokens": 1_000, "keep_recent": 4})]


@pytest.fixture
def stub():
    with ChatStub() as server:
        yield server


@pytest.fixture
def cache(tmp_path):
    return SummaryCache(tmp_path / "cache")


def session():
    return make_session(system("Rules."), user("Fix INV-2041."), *tool_loop(12, 600), assistant("Done."))


def settings(stub, **extra):
    spec = {"kind": "openai", "model": "summarizer-test", "base_url": stub.base_url, **extra}
    return Settings(summarizer=SummarizerSpec.of(spec))


def summaries(result):
    return [m.content for t in result.turns for m in t.context if m.kind == "summary"]


def test_a_summary_from_the_endpoint_arrives_in_the_compiled_context(stub, cache):
    result = replay(session(), STACK, settings(stub), api_key=SECRET, summary_cache=cache)
    assert stub.requests, "the summarizer made no call"
    first = stub.requests[0]
    assert first["model"] == "summarizer-test" and first["messages"][0]["role"] == "system"
    assert "[tool call] bash" in first["messages"][1]["content"]
    assert any("LLM summary #1: the agent fixed INV-2041." in s for s in summaries(result))
    assert result.summary_stats.calls == len(
        stub.requests
    ) and result.summary_stats.prompt_tokens == 120 * len(stub.requests)
    assert stub.headers[0]["authorization"] == f"Bearer {SECRET}"


def test_a_second_replay_makes_no_call(stub, cache):
    first = replay(session(), STACK, settings(stub), api_key=SECRET, summary_cache=cache)
    calls = len(stub.requests)
    second = replay(session(), STACK, settings(stub), api_key=SECRET, summary_cache=cache)
    assert len(stub.requests) == calls
    assert second.summary_stats.cache_hits == second.summary_stats.calls == first.summary_stats.calls
    assert summaries(second) == summaries(first)
    assert cache.size() == calls
    assert cache.clear() == calls and cache.size() == 0


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("error500", "InternalServerError"),
        ("slow", "no complete reply from 127.0.0.1 within 1 s"),
        ("empty", "empty summary"),
        ("refusal", "refused"),
    ],
)
def test_a_failed_summary_skips_the_compaction_and_loses_nothing(stub, cache, mode, reason):
    stub.mode = mode
    extra = {"timeout": 1.0} if mode == "slow" else {}
    result = replay(session(), STACK, settings(stub, **extra), api_key=SECRET, summary_cache=cache)
    failed = [e for e in result.events if e.action == "summary_failed"]
    assert failed and reason in failed[0].detail
    assert not any(e.action == "compact" for e in result.events)
    untouched = replay(session(), [], Settings())
    assert [t.context for t in result.turns] == [t.context for t in untouched.turns]
    assert totals(turns_frame(result))["summary_failures"] == len(failed)
    assert cache.size() == 0  # a failure is never cached as a summary


def test_no_key_anywhere_in_exports_or_logs(stub, tmp_path, monkeypatch, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path / "cache"))
    config = Config(settings(stub), stack=STACK)
    config_path = tmp_path / "stack.yaml"
    config_path.write_text(config.to_yaml())
    session_path = tmp_path / "session.json"
    from playground.formats.openai_chat import to_openai

    session_path.write_text(json.dumps([to_openai(m) for m in session().messages]))
    out = tmp_path / "out.json"
    assert main(["replay", str(session_path), "--config", str(config_path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["summarizer"]["summarizer_calls"] > 0
    assert stub.headers[0]["authorization"] == f"Bearer {SECRET}"  # the key did reach the endpoint
    captured = capsys.readouterr()
    for text in (config_path.read_text(), out.read_text(), captured.out, captured.err, caplog.text):
        assert SECRET not in text
    assert "api_key" not in config_path.read_text()
    assert parse_config(config_path.read_text()).settings.summarizer.kind == "openai"


def test_openai_settings_are_checked_like_policy_parameters():
    from playground.summaries.base import SummarizerError
    from playground.summaries.summarizers import make_summarizer

    with pytest.raises(SummarizerError, match="summarizer: timeout must be at least 1, got 0"):
        make_summarizer({"kind": "openai", "model": "m", "timeout": 0})
    with pytest.raises(SummarizerError, match="unknown setting 'temperature' for openai"):
        make_summarizer({"kind": "openai", "temperature": 0.2})


def test_an_interrupted_replay_keeps_what_it_fetched(stub, cache):
    seen = []

    def interrupt(turn, turns, stats):
        seen.append((turn, turns))
        if stats.calls - stats.cache_hits >= 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replay(session(), STACK, settings(stub), api_key=SECRET, summary_cache=cache, progress=interrupt)
    assert cache.size() == 1 and len(stub.requests) == 1
    assert seen[0] == (1, session().turns)
    resumed = replay(session(), STACK, settings(stub), api_key=SECRET, summary_cache=cache)
    assert resumed.summary_stats.cache_hits == 1  # the one fetched before the interruption
    assert resumed.summary_stats.calls > 1 and len(stub.requests) == resumed.summary_stats.calls
