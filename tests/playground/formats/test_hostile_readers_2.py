"""Issue 58, 1-3 and 15: the readers added last round take time linear in their file, and a
file of their shape holding nothing they can read is refused with its reason.

Each hostile file is made by the test at two sizes; the reader's CPU time on the double may be
about twice the single's (before: 20 s for a 14 KB Copilot log, 40 s for a 4.6 KB Letta file,
52 s for an 18.7 KB any-agent trace, each growing with the square)."""

from __future__ import annotations

import json

import pytest

from playground.engine.session import TranscriptError
from playground.formats import read_bytes
from tests.builders import claude_code_first_line
from tests.timing import grows_linearly


def copilot_system_messages(n: int) -> bytes:
    """``n`` distinct system messages: each compared with every message read so far."""
    events = [
        {"type": "session.start", "data": {"sessionId": "s"}, "id": "0", "timestamp": "2026-07-19T23:12:34Z"}
    ]
    events += [{"type": "system.message", "data": {"content": f"rule {i}"}} for i in range(n)]
    events += [
        {"type": "user.message", "data": {"content": "go"}},
        {"type": "assistant.message", "data": {"content": "ok", "apiCallId": "c1", "model": "gpt-5"}},
    ]
    return "\n".join(json.dumps(e) for e in events).encode()


def letta_system_renders(n: int) -> bytes:
    """A conversation, then ``n`` re-renders of the system message: each was checked against
    every message kept before the first."""
    messages = [{"role": r, "content": "x"} for _ in range(n // 2) for r in ("user", "assistant")]
    messages += [{"role": "system", "content": f"memory {i}"} for i in range(n)]
    return json.dumps(
        {"agents": [{"name": "a", "llm_config": {"model": "gpt-4o"}, "messages": messages}]}
    ).encode()


def any_agent_tool_results(n: int) -> bytes:
    """One call asking for ``n`` tools, then ``n`` results: each scanned every open call."""
    calls = [{"tool.name": f"tool{i}", "tool.args": "{}"} for i in range(n)]
    spans = [
        {
            "name": "call_llm m",
            "start_time": 1,
            "attributes": {
                "gen_ai.operation.name": "call_llm",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.input.messages": json.dumps([{"role": "user", "content": "go"}]),
                "gen_ai.output": json.dumps(calls),
                "gen_ai.output.type": "json",
            },
        },
    ]
    spans += [
        {"name": f"execute_tool tool{i}", "start_time": 2 + i, "attributes": {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"tool{n - 1 - i}", "gen_ai.output": "ok"}}
        for i in range(n)
    ]  # fmt: skip
    return json.dumps({"spans": spans, "final_output": "done"}).encode()


LINEAR = {
    "Copilot CLI system messages": (copilot_system_messages, "events.jsonl", 8_000),
    "Letta system re-renders": (letta_system_renders, "agent.af", 8_000),
    "any-agent tool results": (any_agent_tool_results, "trace.json", 3_000),
}


@pytest.mark.parametrize("make, file, size", LINEAR.values(), ids=LINEAR.keys())
def test_a_reader_added_last_round_takes_time_linear_in_its_file(make, file, size):
    sessions = read_bytes(make(size), file)
    assert sessions and sessions[0].messages
    single, double = grows_linearly(lambda data: read_bytes(data, file), make, size)
    assert double < 3 * single + 0.3, f"{single:.2f} s, then {double:.2f} s on twice the file"


def test_each_result_answers_the_oldest_open_call_of_its_tool():
    (session,) = read_bytes(any_agent_tool_results(3), "trace.json")
    call = next(m for m in session.messages if m.role == "assistant")
    results = [m for m in session.messages if m.role == "tool"]
    by_name = {c.id: c.name for c in call.tool_calls}
    assert [by_name[m.tool_call_id] for m in results] == ["tool2", "tool1", "tool0"]


def test_the_system_messages_are_kept_once_each_as_they_came():
    (session,) = read_bytes(copilot_system_messages(3), "events.jsonl")
    assert [m.content for m in session.messages if m.role == "system"] == ["rule 0", "rule 1", "rule 2"]


def test_a_letta_file_of_no_agent_object_is_refused_with_its_reason():
    """``{"agents": [1]}``: a CLI traceback before, and an upload that vanished in the app."""
    with pytest.raises(TranscriptError, match="no agent object among its 1 entries"):
        read_bytes(b'{"agents": [1]}', "agent.af")


def test_times_out_of_any_clock_s_range_and_huge_names_are_cut_not_raised():
    """Issue 58, 14 and 17: an any-agent ``start_time`` of ±1e38 ns and an OTel
    ``startTimeUnixNano`` of 400 digits read as unknown times (an OverflowError on every rerun of
    the app's picker, a CLI traceback before); a 20 MB model name is cut in the session's name."""
    spans = json.loads(any_agent_tool_results(2))
    spans["spans"][0]["start_time"] = 1e38
    spans["spans"][1]["start_time"] = -1e38
    (session,) = read_bytes(json.dumps(spans).encode(), "trace.json")
    assert all(t is None or 0 <= t < 1e11 for t in session.times.values())
    huge = "m" * 2_000_000
    otel = {
        "resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "t", "name": "chat", "startTimeUnixNano": "9" * 400,
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                {"key": "gen_ai.request.model", "value": {"stringValue": huge}},
                {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps([{"role": "user", "content": "hi"}])}},
                {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps([{"role": "assistant", "content": "hello"}])}},
            ],
        }]}]}]
    }  # fmt: skip
    try:
        sessions = read_bytes(json.dumps(otel).encode(), "otel.json")
    except TranscriptError as error:  # refused with a reason is as good: never a traceback
        assert "9999" not in str(error)[:300]
        return
    assert all(len(s.name) <= 200 for s in sessions)


def test_absurd_recorded_figures_are_left_out_not_billed():
    """Issue 58, 10-12: an LLM log's 2e39 cache writes, a Copilot call's output summed past any
    reply, and per-call costs that add up to infinity: left out (with a word), never a bill of
    $30,599,999,… or "$inf"."""
    log = {
        "messages": [{"role": "user", "content": "hi"}],
        "response": {
            "model": "claude-sonnet-4-5",
            "choices": [{"message": {"role": "assistant", "content": "hello"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "cache_creation_input_tokens": 2 * 10**39},
        },
        "cost": 1e308,
    }
    (session,) = read_bytes(json.dumps([log, {**log, "cost": 1e308}]).encode(), "logs.json")
    assert all(v <= 100_000_000 for v in session.cache_writes.values())
    assert session.reported_cost_usd is None  # two finite costs whose sum is infinite: no bill
    events = [
        {"type": "session.start", "data": {"sessionId": "s"}, "id": "0", "timestamp": "2026-07-19T23:12:34Z"},
        {"type": "user.message", "data": {"content": "go"}},
        {"type": "assistant.message", "data": {"content": "a", "apiCallId": "c", "outputTokens": 90_000_000}},
        {"type": "assistant.message", "data": {"content": "b", "apiCallId": "c", "outputTokens": 90_000_000}},
    ]
    (copilot,) = read_bytes("\n".join(json.dumps(e) for e in events).encode(), "events.jsonl")
    assert all(v <= 100_000_000 for v in copilot.outputs.values())
    assert any("add up past" in str(w) for w in copilot.warnings)
    spans = json.loads(any_agent_tool_results(1))
    spans["spans"][0]["attributes"].update(
        {"gen_ai.usage.input_cost": 1e308, "gen_ai.usage.output_cost": 1e308}
    )
    (traced,) = read_bytes(json.dumps(spans).encode(), "trace.json")
    assert traced.reported_cost_usd is None


def test_an_upload_never_reads_a_file_its_name_points_at(tmp_path):
    """Issue 58, 16: an upload named after a server folder read that folder's ``args.yaml`` and
    showed its model; the same file read from disk still finds what lies beside it."""
    from playground.formats import read_path

    run = tmp_path / "secret-run"
    run.mkdir()
    (run / "args.yaml").write_text("model:\n  model_name: the-server-s-secret-model\n")
    traj = {
        "history": [
            {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "done", "thought": "t", "action": "submit"},
        ],
        "trajectory": [],
        "info": {"model_stats": {"api_calls": 1, "tokens_sent": 10, "tokens_received": 2}},
    }
    data = json.dumps(traj).encode()
    (uploaded,) = read_bytes(data, str(run / "task.traj"))  # an upload's name, as a browser may send it
    assert "the-server-s-secret-model" not in {*uploaded.models.values(), uploaded.name}
    (run / "task.traj").write_bytes(data)
    (on_disk,) = read_path(run / "task.traj")  # named on the command line: its folder is the user's
    assert set(on_disk.models.values()) == {"the-server-s-secret-model"}


def test_a_new_model_name_on_every_reply_is_bounded_and_no_name_reaches_the_shared_price_file(
    tmp_path, monkeypatch
):
    """Issue 58, 4: 25 price look-ups and a rewrite of the server's price file per name, which
    filled for good with an upload's junk: a session names at most 32 models, and a name no
    price list knows is never written to the file every user shares."""
    from playground.money import pricing

    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    pricing._find_price.cache_clear()
    lines = [claude_code_first_line()]
    for i in range(100):
        lines.append(
            {"type": "assistant", "uuid": f"a{i}", "parentUuid": "u0", "sessionId": "s",
             "message": {"id": f"m{i}", "role": "assistant", "model": f"junk-model-{i}",
                         "content": [{"type": "text", "text": "ok"}],
                         "usage": {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 0,
                                   "cache_creation_input_tokens": 0}}}
        )  # fmt: skip
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "s.jsonl")
    assert len(set(session.models.values())) == 32
    assert any("more than 32 model names" in str(w) for w in session.warnings)
    from playground.money.cost import recorded_bill

    recorded_bill([session])  # prices every call at its own model
    stored = pricing._stored_prices()
    assert not [key for key in stored if key.startswith("junk-model")]
    pricing._find_price.cache_clear()


def _many_compactions(n: int):
    """A chat of ``n`` turns whose log records a compaction before every reply (OpenHands V1's
    ``Condensation`` events, one a message)."""
    from dataclasses import replace

    from playground.engine.session import RecordedCompaction

    chat = [
        m
        for i in range(n)
        for m in ({"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"})
    ]
    (session,) = read_bytes(json.dumps(chat).encode(), "chat.json")
    return replace(
        session, compactions=tuple(RecordedCompaction(2 * i + 1, "forgot 1 events") for i in range(n))
    )


def test_a_compaction_recorded_before_every_reply_costs_a_replay_linear_time():
    """Issue 58, 5: each recorded compaction scanned every turn (72 s a replay in the app for a
    43 KB file of Condensation events): found by bisection now."""
    from playground.engine.replay import replay
    from playground.measures.metrics import recorded_compactions

    def replayed(n: int):
        return replay(_many_compactions(n), [])

    single, double = grows_linearly(recorded_compactions, replayed, 4_000)
    assert double < 3 * single + 0.05, f"{single:.3f} s, then {double:.3f} s on twice the session"
    assert len(recorded_compactions(replayed(50))) == 50  # each at the turn it first shaped


def test_a_file_of_too_many_subagent_chains_is_refused_before_they_are_built(monkeypatch):
    """Issue 58, 8: the sessions limit was checked after every session was built (74 KB of
    one-line chains gave 540 MB): counted as they are found now, and none is built."""
    from playground.formats.builder import SessionBuilder
    from playground.limits import LIMITS

    built = []
    build = SessionBuilder.build
    monkeypatch.setattr(SessionBuilder, "build", lambda self, name: built.append(name) or build(self, name))

    lines = [claude_code_first_line()]
    lines += [
        {"type": "user", "uuid": f"c{i}", "parentUuid": None, "sessionId": "s", "isSidechain": True,
         "message": {"role": "user", "content": "x"}}
        for i in range(LIMITS.max_sessions + 1)
    ]  # fmt: skip
    with pytest.raises(TranscriptError, match="sessions"):
        read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "s.jsonl")
    assert built == []


def test_a_compaction_line_s_metadata_and_a_release_are_labels_not_free_text():
    """A compact_boundary's trigger of control characters, a preTokens of 1e30 and a version of
    "2.1.40\\n$(id)" were shown as they came: in the compaction table on a terminal, as an absurd
    count, and in the rule's words."""
    lines = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": "s", "version": "2.1.40\n$(id)",
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a0", "parentUuid": "u0", "sessionId": "s", "version": "2.1.40\n$(id)",
         "message": {"id": "m0", "role": "assistant", "model": "claude-opus-4-6", "content": [{"type": "text", "text": "ok"}],
                     "usage": {"input_tokens": 5, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 2}}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "=cmd\n\u001b[31mred", "preTokens": 10**30}},
        {"type": "user", "isCompactSummary": True, "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "summary"}},
    ]  # fmt: skip
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "s.jsonl")
    (compaction,) = session.compactions
    assert compaction.trigger.isprintable() and "\n" not in compaction.trigger
    assert compaction.pre_tokens is None  # no window holds 1e30 tokens
    assert session.agent_version == ""  # not a release


def test_an_openhands_v1_zip_is_parsed_member_by_member_under_one_transcript_s_bounds(monkeypatch):
    """Issue 58, 6: a 236 KB zip of 60 event files, each inflating to 4 MB of numbers, was parsed
    whole (953 MB peak, 14 s, read). The folder is one transcript: its members together are
    held to one file's bytes and values, counted as each inflates, and the member that passes
    them is named before it is parsed."""
    import io
    import zipfile

    from playground.limits import LIMITS

    def conversation(events: int, pad: int) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("abc/base_state.json", json.dumps({"agent": {"llm": {"model": "gpt-4o"}}}))
            for n in range(events):
                event = {
                    "kind": "MessageEvent",
                    "id": str(n),
                    "source": "user" if n % 2 == 0 else "agent",
                    "llm_message": {
                        "role": "user" if n % 2 == 0 else "assistant",
                        "content": [{"type": "text", "text": f"message {n}"}],
                    },
                    "pad": [0] * pad,
                }
                archive.writestr(f"abc/events/event-{n:05d}-{n}.json", json.dumps(event))
        return out.getvalue()

    monkeypatch.setattr(LIMITS, "max_json_values", 1_000)
    (session,) = read_bytes(conversation(4, 100), "conversation.zip")  # 4 x ~110 values: read
    assert session.turns == 2
    with pytest.raises(TranscriptError) as values:
        read_bytes(conversation(12, 100), "conversation.zip")  # each member alone is well under
    assert "event-00009-9.json" in str(values.value) and "hold more values together" in str(values.value)
    monkeypatch.setattr(LIMITS, "max_json_values", 2_000_000)
    monkeypatch.setattr(LIMITS, "max_file_bytes", 20_000)
    with pytest.raises(TranscriptError) as text:
        read_bytes(conversation(12, 1_500), "conversation.zip")  # 4.6 KB a member, 20 KB together
    assert "the conversation's files inflate past it" in str(text.value)
    assert "PLAYGROUND_MAX_FILE_BYTES" in str(text.value)


def any_agent_calls_in_attributes(spans: int, calls: int) -> bytes:
    """``spans`` model calls, each making ``calls`` tool calls written in its output attribute's
    JSON text: values inside a string that the file's own count never sees."""
    output = json.dumps([{"tool.name": "a"}] * calls)
    return json.dumps(
        {
            "spans": [
                {
                    "name": "call_llm m",
                    "start_time": i,
                    "attributes": {
                        "gen_ai.operation.name": "call_llm",
                        "gen_ai.request.model": "gpt-4o",
                        "gen_ai.input.messages": json.dumps([{"role": "user", "content": "go"}]),
                        "gen_ai.output.type": "json",
                        "gen_ai.output": output,
                    },
                }
                for i in range(spans)
            ]
        }
    ).encode()


def test_the_json_inside_a_file_s_fields_shares_one_budget_and_calls_are_held_to_the_messages(
    monkeypatch,
):
    """Issue 58, 7: each attribute's JSON had its own 2 M values; a 96 KB gzip of two spans of
    900,000 calls each read as 1.8 M tool calls (22 s, 1.1 GB). Now the JSON of every field
    shares the file's budget, and a session holds as many calls as messages (each answered by one)."""
    from playground.limits import LIMITS

    (session,) = read_bytes(any_agent_calls_in_attributes(2, 3), "trace.json")
    assert session.tool_calls == 6
    monkeypatch.setattr(LIMITS, "max_json_values", 500)
    read_bytes(any_agent_calls_in_attributes(1, 200), "trace.json")  # ~400 values: read
    with pytest.raises(TranscriptError) as values:
        read_bytes(any_agent_calls_in_attributes(2, 200), "trace.json")  # each alone under, not together
    assert "span 1" in str(values.value) and "inside the file's fields" in str(values.value)
    monkeypatch.setattr(LIMITS, "max_json_values", 2_000_000)
    monkeypatch.setattr(LIMITS, "max_messages", 50)
    with pytest.raises(TranscriptError) as calls:
        read_bytes(any_agent_calls_in_attributes(1, 60), "trace.json")
    assert "60 tool calls" in str(calls.value) and "PLAYGROUND_MAX_MESSAGES" in str(calls.value)
