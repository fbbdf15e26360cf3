"""Issue "Safe to host": every attack the pass found, refused with one line naming the place.

Each test is one finding: what an upload (or an endpoint it names) tried, and what the user
sees instead. The numbers are the issue's.
"""

import dataclasses
import json
import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground import limits
from playground.analyses.replay_store import ReplayStore
from playground.cli.main import main
from playground.engine.replay import Settings, replay
from playground.engine.session import TranscriptError
from playground.formats import read_bytes
from playground.measures.metrics import totals, turns_frame
from playground.stacks.config import ConfigError, parse_config
from playground.summaries.base import SummarizerError
from playground.summaries.summarizers import SummarizerSpec
from playground.summaries.summary_cache import SummaryCache
from policies import PolicySpec
from policies.registry import POLICY_TYPES, SpecError, load_policy_class
from tests.builders import assistant, make_session, system, tool_loop, user
from tests.playground.openai_stub import ChatStub
from tests.synthetic import FOLDER as SYNTHETIC

SERVER_KEY = "sk-server-environment-key-0123456789"
PASTED = "sk-pasted-by-the-user-9876543210"
SAMPLE = SYNTHETIC / "leave_request_hr.json"
STACK = [PolicySpec("CompactionPolicy", {"max_input_tokens": 1_000, "keep_recent": 4})]


@pytest.fixture
def stub():
    with ChatStub() as server:
        yield server


@pytest.fixture
def server_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return SERVER_KEY


@pytest.fixture
def cache(tmp_path):
    return SummaryCache(tmp_path / "cache")


def long_session():
    return make_session(system("Rules."), user("Fix INV-2041."), *tool_loop(12, 600), assistant("Done."))


def openai(stub, **extra):
    return Settings(
        summarizer=SummarizerSpec.of({"kind": "openai", "model": "m", "base_url": stub.base_url, **extra})
    )


def failures(result):
    return [e.detail for e in result.events if e.action == "summary_failed"]


def config_error(text: str) -> str:
    with pytest.raises(ConfigError) as error:
        parse_config(text, "up.yaml", allow_plugins=False)
    message = str(error.value)
    assert message.startswith("up.yaml: ") and "\n" not in message and len(message) < 600
    return message


def transcript_error(data: bytes) -> str:
    with pytest.raises(TranscriptError) as error:
        read_bytes(data, "up.json")
    message = str(error.value)
    assert message.startswith("up.json: ") and "\n" not in message and len(message) < 600
    return message


# 1. a config that prints the server's environment


def test_a_refused_plugin_is_named_by_type_never_printed(server_key):
    with pytest.raises(SpecError) as error:
        load_policy_class("os:environ")
    assert str(error.value) == "custom policy 'os:environ': a _Environ object is not a Policy subclass"
    assert SERVER_KEY not in str(error.value)


def test_the_cli_refuses_an_environment_plugin_without_printing_it(server_key, tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text('plugins: ["os:environ"]\n')
    session = tmp_path / "s.json"
    session.write_text(json.dumps([{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]))
    assert main(["replay", str(session), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "a _Environ object is not a Policy subclass" in err and SERVER_KEY not in err


# 2. a config that sends the server's key to any host


def test_in_the_app_a_configs_endpoint_never_gets_the_servers_key(server_key, stub, cache):
    result = replay(long_session(), STACK, openai(stub), hosted=True, summary_cache=cache)
    assert stub.requests == []  # not a single request: the server's key is not for this host
    assert failures(result) and "which this server does not trust with its own key" in failures(result)[0]
    assert "127.0.0.1" in failures(result)[0]


def test_in_the_app_a_pasted_key_goes_to_a_configs_endpoint(server_key, stub, cache):
    replay(long_session(), STACK, openai(stub), api_key=PASTED, hosted=True, summary_cache=cache)
    assert stub.headers and {h["authorization"] for h in stub.headers} == {f"Bearer {PASTED}"}


def test_the_servers_own_endpoint_gets_the_servers_key(server_key, stub, cache, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
    replay(long_session(), STACK, openai(stub), hosted=True, summary_cache=cache)
    assert stub.headers and {h["authorization"] for h in stub.headers} == {f"Bearer {SERVER_KEY}"}


def test_in_the_app_plain_http_goes_only_to_this_machine(server_key):
    remote = Settings(
        summarizer=SummarizerSpec.of({"kind": "openai", "base_url": "http://summaries.example/v1"})
    )
    with pytest.raises(SummarizerError, match="plain http is allowed only to this machine"):
        replay(long_session(), STACK, remote, api_key=PASTED, hosted=True)


def test_the_cli_says_which_host_gets_the_key(server_key, stub, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path / "cache"))
    config = tmp_path / "c.yaml"
    config.write_text(f"summarizer: {{kind: openai, base_url: '{stub.base_url}'}}\n")
    session = tmp_path / "s.json"
    session.write_text(json.dumps([{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]))
    assert main(["replay", str(session), "--config", str(config)]) == 0
    assert "summaries are requested from 127.0.0.1, sent with OPENAI_API_KEY" in capsys.readouterr().err


# 3. a config that imports arbitrary modules inside the server


def test_an_uploaded_config_naming_plugins_is_refused_before_any_import():
    loaded = set(POLICY_TYPES)
    message = config_error('plugins: ["os:system"]\n')
    assert "plugins cannot be loaded from an uploaded config" in message
    assert set(POLICY_TYPES) == loaded


# 4. memory through error messages


def test_a_yaml_alias_bomb_is_refused_at_once():
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for n in "bcdefghi":
        bomb += f"{n}: &{n} [*{chr(ord(n) - 1)}]\n".replace("]", f",*{chr(ord(n) - 1)}]" * 8)
    bomb += "stack: *i\n"
    started = time.perf_counter()
    assert "aliases (*name) are not allowed" in config_error(bomb)
    assert time.perf_counter() - started < 1


def test_echoed_values_are_capped():
    message = config_error("stack: [{SlidingWindowPolicy: {max_messages: '" + "x" * 100_000 + "'}}]\n")
    assert "max_messages must be a number, got 'xxxx" in message


# 5. memory in the number of messages


def test_a_session_of_too_many_messages_is_refused_before_it_is_built():
    tiny = json.dumps([{"role": "user", "content": "a"}] * (limits.LIMITS.max_messages + 1)).encode()
    message = transcript_error(tiny)
    assert "20,001 messages in one session; the limit is 20,000 (PLAYGROUND_MAX_MESSAGES)" in message


def test_the_replay_store_is_bounded_in_bytes_and_per_browser_session():
    session = make_session(system(), user(), *tool_loop(20, 100), assistant("done"))

    def replayed(n):
        from playground.analyses.replay_store import Replayed

        result = replay(session, [PolicySpec("SlidingWindowPolicy", {"max_messages": 2 + n})])
        frame = turns_frame(result)
        return Replayed(result, frame, frame.iloc[:0], totals(frame))

    one = replayed(0)
    from playground.analyses.replay_store import replay_bytes

    store = ReplayStore(max_bytes=3 * replay_bytes(one), per_owner=2)
    for n in range(3):
        store.put(("a", n), replayed(n), owner="browser-a")
    assert len(store) == 2 and store.get(("a", 0)) is None  # a's oldest made way for a's newest
    store.put(("b", 0), replayed(0), owner="browser-b")
    store.put(("b", 1), replayed(1), owner="browser-b")
    assert store.bytes <= store.max_bytes and len(store) <= 3


def test_a_closed_browser_sessions_replays_are_let_go_of():
    """Issue 49, 3: the server's memory rose after the sessions closed (their replays, and the
    sessions those pin, stayed until pushed out)."""
    from playground.analyses.replay_store import Replayed

    session = make_session(system(), user(), *tool_loop(5, 100), assistant("done"))
    result = replay(session, [])
    frame = turns_frame(result)
    open_browsers = {"browser-a", "browser-b"}
    store = ReplayStore(max_bytes=10**9, per_owner=5, is_live=open_browsers.__contains__)
    store.put(("a", 0), Replayed(result, frame, frame.iloc[:0], totals(frame)), owner="browser-a")
    store.put(("b", 0), Replayed(result, frame, frame.iloc[:0], totals(frame)), owner="browser-b")
    open_browsers.discard("browser-a")  # its tab closed
    store.put(("b", 1), Replayed(result, frame, frame.iloc[:0], totals(frame)), owner="browser-b")
    assert store.get(("a", 0)) is None and store.get(("b", 0)) is not None and len(store) == 2


def test_the_store_counts_each_session_it_pins_once_and_lets_closed_browsers_go_on_a_timer():
    """Issue 58, 9: each replay pins its session, but the store counted 4 KiB a replay, so a
    16 MB session was invisible to its bound (itself 2 GiB, over the memory budget), and a closed
    browser's replays went only when another browser stored one."""
    from playground.analyses.replay_store import Replayed, replay_bytes, session_bytes

    big = make_session(system(), user(), *tool_loop(20, 5_000), assistant("done"))
    result = replay(big, [])
    frame = turns_frame(result)

    def replayed(n: int) -> Replayed:
        return Replayed(result, frame, frame.iloc[:0], {"n": n})

    one = replay_bytes(replayed(0))
    assert session_bytes(big) > 20 * 5_000 > one  # the session outweighs its replay's tables
    store = ReplayStore(max_bytes=10**9, per_owner=5, is_live=lambda owner: True)
    store.put(("a", 0), replayed(0), owner="browser-a")
    store.put(("a", 1), replayed(1), owner="browser-a")
    assert store.bytes == 2 * one + session_bytes(big)  # two replays, one session
    store._drop(("a", 0))
    assert store.bytes == one + session_bytes(big)
    store._drop(("a", 1))
    assert store.bytes == 0  # the last replay gone, the session with it
    small = ReplayStore(max_bytes=session_bytes(big), per_owner=5, is_live=lambda owner: True)
    small.put(("a", 0), replayed(0), owner="browser-a")
    assert len(small) == 0  # served once, never kept: the session alone fills the bound
    assert limits.LIMITS.max_store_bytes < 2**30  # under the server's memory budget

    open_browsers = {"browser-a"}
    timed = ReplayStore(max_bytes=10**9, per_owner=5, is_live=open_browsers.__contains__)
    timed.put(("a", 0), replayed(0), owner="browser-a")
    timed.sweep_every(0.02)
    open_browsers.clear()  # the tab closed; no other browser stores anything
    deadline = time.monotonic() + 5
    while len(timed) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(timed) == 0 and timed.bytes == 0


# 6. the summarizer call has no overall bound


def test_a_dripping_server_is_cut_off_at_the_timeout(server_key, stub, cache):
    stub.mode = "drip"
    started = time.monotonic()
    result = replay(long_session(), STACK[:1], openai(stub, timeout=1.0), summary_cache=cache)
    first = failures(result)[0]
    assert "no complete reply from 127.0.0.1 within 1 s" in first
    assert time.monotonic() - started < 1.5 * len(stub.requests) + 2


def test_an_endless_body_is_read_no_further_than_the_limit(server_key, stub, cache, monkeypatch):
    monkeypatch.setattr(limits.LIMITS, "max_response_bytes", 2**20)
    stub.mode = "endless"
    result = replay(long_session(), STACK, openai(stub, timeout=30.0), summary_cache=cache)
    assert "the endpoint's reply is longer; the limit is 1,048,576 bytes (1 MiB)" in failures(result)[0]


def test_a_hanging_server_costs_the_replay_budget_not_timeout_times_compactions(
    server_key, stub, cache, monkeypatch
):
    monkeypatch.setattr(limits.LIMITS, "max_summarizer_seconds", 2.5)
    stub.mode = "slow"  # 3 s per reply
    started = time.monotonic()
    result = replay(long_session(), STACK, openai(stub, timeout=1.0), summary_cache=cache)
    assert time.monotonic() - started < 5
    assert any(
        "took too long; the limit is 2.5 s (PLAYGROUND_MAX_SUMMARIZER_SECONDS)" in f for f in failures(result)
    )


def test_a_megabyte_summary_is_refused_and_not_stored(server_key, stub, cache):
    stub.mode = "huge"
    result = replay(long_session(), STACK, openai(stub), summary_cache=cache)
    assert "the limit is 65,536 bytes (64 KiB)" in failures(result)[0]
    assert cache.size() == 0
    assert max(t.context_tokens for t in result.turns) < 20_000


def test_a_summary_larger_than_what_it_replaces_is_written_and_billed_as_the_frameworks_do(
    server_key, stub, cache
):
    stub.summary_text = "padding " * 3_000
    result = replay(long_session(), STACK, openai(stub), summary_cache=cache)
    assert not failures(result)
    assert any(e.action == "compact" for e in result.events)
    assert result.summary_stats.billed and all(out >= 3_000 for _, _, out in result.summary_stats.billed)


# 7. tracebacks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "stack: [{SlidingWindowPolicy: {max_messages: .nan}}]",
            "max_messages must be a finite number, got nan",
        ),
        (
            "stack: [{SlidingWindowPolicy: {max_messages: .inf}}]",
            "max_messages must be a finite number, got inf",
        ),
        (
            "stack: [{PromptCompressionPolicy: {compress_threshold: .nan}}]",
            "must be a finite number",
        ),
        ("stack: [{SlidingWindowPolicy: {max_messages: " + "9" * 5000 + "}}]", "a value cannot be read"),
        (
            '{"stack": [{"SlidingWindowPolicy": {"max_messages": ' + "9" * 5000 + "}}]}",
            "a value cannot be read",
        ),
        ("stack: [{SlidingWindowPolicy: {max_messages: " + "9" * 40 + "}}]", "max_messages is out of range"),
        ("a: " + "[" * 10_000 + "]" * 10_000, "nested deeper; the limit is 32"),
        ('{"a": ' + "[" * 10_000 + "]" * 10_000 + "}", "nested deeper; the limit is 32"),
        ("stack: [{SlidingWindowPolicy: {1: 2}}]", "a parameter name must be text, got 1"),
        ("stack: [{[1]: {}}]", "not valid YAML or JSON ('found unhashable key')"),
        ("stack: [{7: {}}]", "stack entry 1: a policy name must be text, got 7"),
        ("version: true", "version True is not supported"),
        (
            "stack: [" + "SlidingWindowPolicy, " * 10_000 + "]",
            "the stack holds 10,000 entries; the limit is 50",
        ),
        ("model: sk-proj-abcdefghijklmnop1234", "model looks like it holds a secret"),
        (
            "summarizer: {kind: openai, base_url: 'http://user:sk-abcdefghijklmnop1234@host/v1'}",
            "base_url is refused: it holds credentials",
        ),
        (
            "summarizer: {kind: openai, base_url: 'https://h/v1?api_key=abc'}",
            "its query holds a key or token",
        ),
        ("summarizer: {kind: openai, base_url: 'file:///etc/passwd'}", "must be an http:// or https:// URL"),
    ],
)
def test_hostile_configs_are_refused_naming_the_place(text, expected):
    assert expected in config_error(text)


def test_nan_for_a_float_parameter_never_reaches_a_replay():
    with pytest.raises(SpecError, match="must be a finite number"):
        replay(long_session(), [PolicySpec("PromptCompressionPolicy", {"compress_threshold": float("nan")})])


def chat(usage) -> bytes:
    return (
        '[{"role": "user", "content": "u"}, {"role": "assistant", "content": "a", "usage": {"prompt_tokens": '
        + usage
        + "}}]"
    ).encode()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (chat("NaN"), "NaN is not a number this playground accepts"),
        (chat("Infinity"), "Infinity is not a number this playground accepts"),
        (chat("1e400"), "1e400 is out of range for a number"),
        (chat("1e308"), "message 1: usage.prompt_tokens must be from 0 to 100,000,000, got 1e+308"),
        # 39 digits read (a 128-bit id is that long); a count that large is refused where it is one
        (chat(str(10**30)), "usage.prompt_tokens must be from 0 to 100,000,000, got 1e+30"),
        (chat(str(10**40)), "an integer of 41 digits is not a number this playground accepts"),
        (chat(str(10**12)), "usage.prompt_tokens must be from 0 to 100,000,000, got 1,000,000,000,000"),
        (chat("9" * 5000), "an integer of 5,000 digits is not a number this playground accepts"),
        (chat("-3"), "usage.prompt_tokens must be from 0 to 100,000,000, got -3"),
        (chat("2.5"), "usage.prompt_tokens must be a whole number of tokens, got 2.5"),
        (
            b"[" * 100_000 + b"]" * 100_000,
            "brackets nested 100,000 deep; the limit is 200 (PLAYGROUND_MAX_NESTING)",
        ),
        (
            json.dumps(
                [
                    {
                        "type": "ai",
                        "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]},
                    },
                    {"type": "tool", "data": {"content": "r", "tool_call_id": "c1", "name": 5}},
                ]
            ).encode(),
            "message 1: name must be text, got a number",
        ),
        (
            json.dumps(
                [
                    {
                        "type": "ai",
                        "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]},
                    },
                    {"type": "tool", "data": {"content": "r", "tool_call_id": "c1", "name": {"a": 1}}},
                ]
            ).encode(),
            "message 1: name must be text, got an object",
        ),
        (
            json.dumps(
                [
                    {"role": "user", "content": "u"},
                    {"type": "reasoning", "summary": [{"type": "summary_text", "text": ["x"]}]},
                    {"type": "function_call", "call_id": "f1", "name": "f", "arguments": "{}"},
                ]
            ).encode(),
            "item 1: reasoning summary text must be text",
        ),
        (
            chat('5, "prompt_tokens_details": {"cached_tokens": -1}'),
            "message 1: usage.prompt_tokens_details.cached_tokens must be from 0 to 100,000,000, got -1",
        ),
        (
            chat('5, "prompt_cache_hit_tokens": "many"'),
            "message 1: usage.prompt_cache_hit_tokens must be a number, got text",
        ),
        (
            json.dumps([{"role": "assistant", "content": "a", "extra": {"timestamp": "yesterday"}}]).encode(),
            "message 0: extra.timestamp must be a time, got 'yesterday'",
        ),
        (
            json.dumps([{"role": "assistant", "content": "a", "extra": {"timestamp": 1e300}}]).encode(),
            "message 0: extra.timestamp must be a Unix time in seconds, got 1e+300",
        ),
        (
            json.dumps([{"role": "assistant", "content": "a", "extra": {"timestamp": [1]}}]).encode(),
            "message 0: extra.timestamp must be a Unix time in seconds, got [1]",
        ),
        (
            json.dumps(
                {
                    "messages": [
                        {"role": "user", "content": "u"},
                        {"role": "assistant", "content": [{"type": "thinking", "thinking": {"why": 1}}]},
                    ]
                }
            ).encode(),
            "message 1: thinking block 0 must hold text, got an object",
        ),
        (
            json.dumps(
                [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a", "thinking": 7}]
            ).encode(),
            "message 1: thinking must be text, got a number",
        ),
        ("[]".encode("utf-16"), "UTF-16 text; save the transcript as UTF-8"),
        ('[{"role": "user"}]'.encode("utf-16-le"), "UTF-16 text; save the transcript as UTF-8"),
    ],
)
def test_hostile_transcripts_are_refused_naming_the_place(data, expected):
    assert expected in transcript_error(data)


def test_a_lone_surrogate_is_shown_as_a_replacement_and_contexts_are_written_whole(tmp_path, capsys):
    session = tmp_path / "s.json"
    session.write_text(
        '[{"role": "user", "content": "cut \\ud83d here"}, {"role": "assistant", "content": "ok \\udc00"}]'
    )
    out = tmp_path / "contexts.jsonl"
    assert main(["replay", str(session), "--contexts", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["messages"][0]["content"] == "cut \ufffd here"
    assert main(["validate", str(session)]) == 0
    assert "content holds invalid Unicode (a lone surrogate)" in capsys.readouterr().out


def test_a_failed_write_leaves_no_partial_file(tmp_path, real_session_path, monkeypatch):
    import playground.cli.main as cli

    def explode(result, out, form):
        out.write("half a line")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.contexts_file, "write", explode)
    out = tmp_path / "contexts.jsonl"
    assert main(["replay", str(real_session_path), "--contexts", str(out)]) == 2
    assert not out.exists() and not (tmp_path / "contexts.jsonl.part").exists()


# 8. a corrupt summary cache


def test_a_corrupt_cache_is_moved_aside_and_rebuilt_and_the_totals_agree(server_key, stub, tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "summaries.sqlite").write_bytes(b"this is not a database" * 100)
    result = replay(long_session(), STACK, openai(stub), summary_cache=SummaryCache(folder))
    assert not failures(result) and stub.requests
    assert any(
        "could not be read" in n and "moved it to summaries.sqlite.corrupt-" in n
        for n in result.summary_stats.notes
    )
    assert len(list(folder.glob("summaries.sqlite.corrupt-*"))) == 1
    assert SummaryCache(folder).size() == len(stub.requests)


def test_summary_failures_and_summarizer_failures_agree(server_key, stub, cache):
    stub.mode = "error500"
    result = replay(long_session(), STACK, openai(stub), summary_cache=cache)
    assert result.summary_stats.failures == totals(turns_frame(result))["summary_failures"] > 0


# 9. no limit on stack size


def test_a_ten_thousand_entry_stack_never_runs():
    with pytest.raises(limits.LimitError, match="the stack holds 10,000 entries; the limit is 50"):
        replay(long_session(), [PolicySpec("CompactionPolicy")] * 10_000)


def test_summarizer_calls_per_replay_are_bounded(monkeypatch):
    monkeypatch.setattr(limits.LIMITS, "max_summarizer_calls", 3)
    stack = [PolicySpec("CompactionPolicy", {"max_input_tokens": 1_000, "keep_recent": 2})] * 20
    result = replay(long_session(), stack)
    assert result.summary_stats.calls - result.summary_stats.failures == 3
    assert any("the limit is 3 (PLAYGROUND_MAX_SUMMARIZER_CALLS)" in f for f in failures(result))


# 11. smaller findings


def test_a_summary_that_echoes_the_key_is_refused_and_not_stored(server_key, stub, cache):
    stub.mode = "echo"
    result = replay(long_session(), STACK, openai(stub), summary_cache=cache)
    assert "repeats the API key" in failures(result)[0] and cache.size() == 0
    assert all(SERVER_KEY not in m.content for t in result.turns for m in t.context)


def test_impossible_usage_from_an_endpoint_is_refused(server_key, stub, cache):
    stub.mode = "bad_usage"
    result = replay(long_session(), STACK, openai(stub), summary_cache=cache)
    assert "impossible usage.prompt_tokens" in failures(result)[0]
    assert result.summary_stats.prompt_tokens == 0


def test_terminal_escapes_never_reach_the_terminal(tmp_path, capsys):
    session = tmp_path / "s.json"
    session.write_text(
        json.dumps(
            {
                "name": "evil\x1b]0;pwned\x07\x1b[2J",
                "messages": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}],
            }
        )
    )
    assert main(["replay", str(session), "--model", "gpt-4o\x1b[31m"]) == 0
    out = capsys.readouterr().out
    assert (
        "\x1b" not in out and "\x07" not in out and "evil\\x1b]0;pwned\\x07\\x1b[2J" in out
    )  # shown escaped


def test_duplicate_tool_call_ids_are_warned_about():
    data = json.dumps(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "g", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ]
    ).encode()
    (session,) = read_bytes(data, "dup.json")
    assert any("tool call id 'c1' is used twice" in str(w) for w in session.warnings)


def test_the_operator_moves_a_limit_with_its_setting_and_the_cli_lists_them(capsys):
    moved = limits.Limits.from_environment({"PLAYGROUND_MAX_MESSAGES": "50_000"})
    assert moved.max_messages == 50_000 and moved.max_stack == limits.Limits().max_stack
    for bad in ("lots", "0", "-5"):
        with pytest.raises(SystemExit, match="PLAYGROUND_MAX_STACK"):
            limits.Limits.from_environment({"PLAYGROUND_MAX_STACK": bad})
    assert main(["limits"]) == 0
    listed = capsys.readouterr().out
    assert "PLAYGROUND_MAX_MESSAGES" in listed and "20,000" in listed
    assert "PLAYGROUND_MAX_STORE_BYTES" in listed and "(512 MiB)" in listed
    assert len(listed.splitlines()) == len(dataclasses.fields(limits.Limits))


def test_bracket_depth_and_values_count_outside_strings_even_in_a_truncated_file():
    from playground.formats.json_text import shape

    assert shape(b'["a[", {"b\\"]": [1, 2]}]') == (3, 5)  # brackets inside strings, escaped quotes
    assert shape(b'[["cut off [[[[, , ,') == (2, 2)  # an unterminated string runs to the end
    assert shape(b'["ends in a backslash \\') == (1, 1)
    assert shape(b'{"a": 1}\n{"b": [2]}\n') == (2, 5)  # JSON Lines: each line starts a value
    # a truncated payload of escaped quotes (JSON inside JSON): one linear pass, not one per quote
    assert shape(b'[{"attributes": "' + b'[\\"x\\", ' * 200_000) == (2, 2)


def _depth(value) -> int:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(_depth, children), default=0)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet='[]{}",\\\n\\"ab'),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    )
)
def test_the_depth_before_parsing_is_the_depth_of_the_parsed_value(value):
    """Brackets, quotes, escapes and newlines inside strings never count."""
    from playground.formats.json_text import shape

    for text in (json.dumps(value), json.dumps(value, indent=1)):
        assert shape(text.encode())[0] == _depth(value)


@pytest.mark.parametrize(
    "data",
    [
        json.dumps({"runs": [{"messages": [{"role": "user", "content": "u"}]}] * 400_000}).encode(),
        b"\n".join([b'{"messages":[{"role":"user","content":"u"}]}'] * 500_000),  # as JSON Lines
        b"[" + b",".join([b'"ab"'] * 3_000_000) + b"]",
    ],
    ids=["runs", "jsonl-runs", "strings"],
)
def test_a_file_of_millions_of_tiny_values_is_refused_before_parsing_costs_its_memory(data, monkeypatch):
    """Parsing costs memory per value, not per byte: 20 MB of one-message runs took 474 MB and
    1.6 s to parse before the session count refused it; 50 MB of short strings, 967 MB and 8.5 s."""
    from playground.formats import json_text

    monkeypatch.setattr(json_text, "loads", lambda text: pytest.fail("parsed"))
    with pytest.raises(
        TranscriptError,
        match=r"about [\d,]+ JSON values; the limit is 2,000,000 \(PLAYGROUND_MAX_JSON_VALUES\)",
    ):
        read_bytes(data, "many.json")


@pytest.mark.parametrize(
    ("inner", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "gen_ai.input.messages: brackets nested 100,000 deep"),
        ('[{"role": "user", "parts": []}, NaN]', "gen_ai.input.messages: NaN is not a number"),
    ],
)
def test_json_inside_an_otel_attribute_is_held_to_the_bounds_of_a_file(inner, message):
    import json

    from playground.engine.session import TranscriptError
    from playground.formats import read_bytes

    attribute = {"key": "gen_ai.input.messages", "value": {"stringValue": inner}}
    trace = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "attributes": [attribute]}]}]}]}
    with pytest.raises(TranscriptError, match=message):
        read_bytes(json.dumps(trace).encode(), "trace.json")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_before_it_is_read(device, capsys):
    for argv in (["replay", device], ["validate", device], ["replay", str(SAMPLE), "--config", device]):
        assert main(argv) == 2
        assert "not a regular file" in capsys.readouterr().err


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert main(["validate", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_a_huge_config_is_refused_after_reading_no_more_than_its_limit(tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 30_000_000)
    real_open = os.fdopen
    read: list[int] = []

    class Counting:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, size=-1):
            data = self.handle.read(size)
            read.append(len(data))
            return data

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: Counting(real_open(fd, mode)))
    assert main(["replay", str(SAMPLE), "--config", str(big)]) == 2
    assert "PLAYGROUND_MAX_CONFIG_BYTES" in capsys.readouterr().err
    assert sum(read) <= limits.LIMITS.max_config_bytes + 1


def test_a_link_in_a_corpus_folder_is_not_followed_out_of_it(tmp_path):
    from playground.analyses.corpus import sources

    outside = tmp_path / "secret.json"
    outside.write_text('{"messages": [{"role": "user", "content": "outside"}]}')
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "link.json").symlink_to(outside)
    (folder / "real.json").write_text(outside.read_text())
    found, passed = sources([str(folder)])
    assert [s.label for s in found] == [str(folder / "real.json")]
    assert passed == [(str(folder / "link.json"), "a link: not followed out of the folder")]


def test_a_file_of_more_runs_than_max_sessions_is_refused_by_name(monkeypatch):
    one = {"messages": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "a"}]}
    data = json.dumps({"runs": [one] * 1_001}).encode()
    started = time.perf_counter()
    with pytest.raises(
        TranscriptError, match=r"1,001 sessions; the limit is 1,000 \(PLAYGROUND_MAX_SESSIONS\)"
    ):
        read_bytes(data, "many.json")
    assert time.perf_counter() - started < 1.0
    monkeypatch.setattr(limits.LIMITS, "max_sessions", 2_000)
    assert len(read_bytes(data, "many.json")) == 1_001


def test_a_session_name_holding_control_characters_is_shown_escaped_everywhere():
    data = json.dumps(
        {"name": "run\nplayground replay forged\x1b[2J\u202e", "messages": [{"role": "user", "content": "u"}]}
    ).encode()
    (session,) = read_bytes(data, "evil.json")
    assert session.name == "run\\nplayground replay forged\\x1b[2J\\u202e"
    assert session.name.isprintable()
