"""The files coding agents, eval harnesses and tracers write, read as they recorded them: turns
equal the API calls each file records and the recorded prompt tokens equal the file's own
figures, both counted here independently of the readers."""

from __future__ import annotations

import json
import signal
import zipfile
from pathlib import Path

import pytest

from playground.engine.replay import Settings, replay
from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from playground.measures.metrics import totals, turn_table
from playground.money.pricing import find_price

FORMATS = Path(__file__).parents[2] / "fixtures" / "formats"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _turns(sessions) -> int:
    return sum(s.turns for s in sessions)


def _prompt(sessions) -> int:
    return sum(sum(s.usage.values()) for s in sessions)


@pytest.mark.parametrize("name", ["sniffly_d3ad4cdc.jsonl", "ccviewer_fe5e1c67.jsonl"])
def test_claude_code_turns_are_api_calls_and_usage_is_counted_once_per_call(name):
    path = FORMATS / "claude-code" / name
    calls: dict[str, dict] = {}
    for line in _lines(path):
        if line.get("type") == "assistant" and line["message"].get("model") != "<synthetic>":
            calls[line["message"]["id"]] = line["message"]["usage"]
    sessions = read_path(path)
    assert _turns(sessions) == len(calls)
    parts = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    assert _prompt(sessions) == sum(sum(u[p] for p in parts) for u in calls.values())
    assert sum(sum(s.cache_reads.values()) for s in sessions) == sum(
        u["cache_read_input_tokens"] for u in calls.values()
    )
    assert all(s.recorded_model.startswith("claude-") for s in sessions)


def test_claude_code_side_chains_are_subagent_sessions_after_the_main_one():
    path = FORMATS / "claude-code" / "ccviewer_fe5e1c67.jsonl"
    lines = _lines(path)
    sessions = read_path(path)
    main_calls = {
        line["message"]["id"] for line in lines if line.get("type") == "assistant" and not line["isSidechain"]
    }
    assert sessions[0].turns == len(main_calls) and not sessions[0].parent
    assert len(sessions) > 1 and all(s.parent == sessions[0].name for s in sessions[1:])
    tasks = [
        b["input"]["prompt"]
        for line in lines
        if line.get("type") == "assistant" and not line["isSidechain"]
        for b in line["message"]["content"]
        if b.get("type") == "tool_use" and b["name"] == "Task"
    ]
    assert {s.name[:40] for s in sessions[1:]} <= {t.strip().splitlines()[0][:40] for t in tasks}
    assert "lines passed over" in str(sessions[0].warnings[-1])


def test_claude_code_compactions_are_kept_as_recorded():
    sessions = read_path(FORMATS / "claude-code" / "curated_agent-sessions_claude_small.jsonl")
    compactions = [c for s in sessions for c in s.compactions]
    assert (compactions[0].trigger, compactions[0].pre_tokens) == ("auto", 120_000)
    assert compactions[0].summary == "Summary of prior context."
    assert len(compactions) == 2


def test_a_claude_code_log_cut_mid_line_keeps_what_it_recorded(tmp_path):
    whole = (FORMATS / "claude-code" / "sniffly_d3ad4cdc.jsonl").read_bytes()
    cut = whole[:300_000]
    sessions = read_bytes(cut, "cut.jsonl")
    assert 0 < sessions[0].turns < 62
    assert str(sessions[0].warnings[0]).startswith("line 59: invalid JSON Lines record")


def test_codex_rollout_sessions_usage_and_compactions():
    path = FORMATS / "codex-cli" / "curated_agent-sessions_codex_small.jsonl"
    sessions = read_path(path)
    assert len(sessions) >= 2 and sessions[0].recorded_model
    compacted = [line for line in _lines(path) if line["type"] == "compacted"]
    kept = [c for s in sessions for c in s.compactions]
    assert kept and len(kept) <= len(compacted)
    assert any(c.kept for c in kept)  # the replacement history as the agent sent it
    assert any("passed over" in str(w) for w in sessions[0].warnings)


def test_a_codex_rollout_uses_last_token_usage_once_per_call():
    last = {"input_tokens": 900, "cached_input_tokens": 512, "output_tokens": 40}
    usage = {"total_token_usage": {"input_tokens": 900}, "last_token_usage": last}
    first_call = {"type": "event_msg", "payload": {"type": "token_count", "info": usage}}
    lines = [
        {"type": "session_meta", "payload": {"id": "s1"}},
        {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look"}]},
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"cmd": "ls"}',
                "call_id": "c1",
            },
        },
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        first_call,
        first_call,  # Codex 0.58 writes a call's token_count twice: the repeat is no call
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            },
        },
        {
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {"input_tokens": 1900},
                    "last_token_usage": {
                        "input_tokens": 1000,
                        "cached_input_tokens": 896,
                        "output_tokens": 5,
                    },
                },
            },
        },
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "done"}},
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "rollout.jsonl")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1].thinking == "look" and session.messages[1].tool_calls[0].name == "shell"
    assert session.usage == {1: 900, 3: 1000} and session.cache_reads == {1: 512, 3: 896}
    assert session.outputs == {1: 40, 3: 5} and session.recorded_model == "gpt-5-codex"


def test_openhands_turns_are_model_responses_with_their_usage():
    runs = _lines(FORMATS / "openhands" / "multi_swe_bench_output.jsonl")
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


def test_inspect_logs_json_and_eval_read_per_sample_with_their_usage():
    path = FORMATS / "inspect-ai" / "2025-05-12T20-27-36-04-00_browser.json"
    log = json.loads(path.read_text())
    (session,) = read_path(path)
    model_events = [e for e in log["samples"][0]["events"] if e["event"] == "model"]
    assert session.turns == len(model_events)
    (usage,) = log["stats"]["model_usage"].values()
    assert sum(session.usage.values()) == usage["input_tokens"]
    assert sum(session.cache_reads.values()) == usage["input_tokens_cache_read"]
    eval_path = FORMATS / "inspect-ai" / "log_message_deduplication.eval"
    with zipfile.ZipFile(eval_path) as archive:
        sample = json.loads(archive.read("samples/0_epoch_1.json"))
    (session,) = read_path(eval_path)
    assert session.turns == sum(1 for e in sample["events"] if e["event"] == "model")
    assert not any("attachment://" in m.content for m in session.messages)


def test_an_aider_history_reads_its_sessions_and_says_it_has_no_tools():
    sessions = read_path(FORMATS / "aider" / "zen-mcp-server.aider.chat.history.md")
    assert len(sessions) == 2 and all(s.format == "Aider chat history" for s in sessions)
    assert "no tool structure" in str(sessions[0].warnings[0])


def test_aider_tokens_lines_are_the_rounded_usage_of_the_reply_before_them():
    text = (
        "# aider chat started at 2025-01-01 10:00:00\n\n> Main model: gpt-4o with diff edit format\n\n"
        "#### fix the bug in app.py\n\nThe bug is on line 3.\n\n> Tokens: 2.4k sent, 104 received. Cost: $0.01 message.\n\n"
        "#### thanks\n\nYou're welcome.\n\n> Tokens: 2,612 sent, 1.2k cache write, 9 received.\n"
    )
    (session,) = read_bytes(text.encode(), ".aider.chat.history.md")
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]
    assert session.usage == {1: 2400, 3: 2612} and session.outputs == {1: 104, 3: 9}
    assert session.cache_writes == {3: 1200} and session.recorded_model == "gpt-4o"


def test_a_langfuse_trace_rebuilt_from_spans_counts_each_message_once():
    path = FORMATS / "langfuse" / "trace-5028c350.json"
    trace = json.loads(path.read_text())
    best: dict[str, int] = {}
    for o in trace["observations"]:
        if o["type"] == "GENERATION":
            m = o["metadata"]
            total = o["usageDetails"]["input"] + m["cacheRead"] + m["cacheWrite"]
            best[m["messageId"]] = max(best.get(m["messageId"], 0), total)
    (session,) = read_path(path)
    assert session.turns == len(best) and sum(session.usage.values()) == sum(best.values())
    assert session.tool_calls == len(
        {o["metadata"]["callId"] for o in trace["observations"] if o["name"].startswith("tool-")}
    )


@pytest.mark.parametrize(
    "path",
    sorted(p for p in FORMATS.rglob("*") if p.is_file() and p.name not in ("SOURCES.md", "LICENSE.erk")),
)
def test_every_real_file_reads_and_replays(path):
    sessions = read_path(path)
    assert sessions
    for session in sessions:
        result = replay(session, [], Settings())
        assert len(result.turns) == session.turns


def test_a_zip_that_is_not_an_inspect_log_is_named():
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(TranscriptError, match=r"not an Inspect AI \.eval log"):
        read_bytes(buffer.getvalue(), "x.zip")


def test_an_otel_trace_with_128_bit_integer_ids_reads():
    trace_id = 2**127 + 12345  # 39 digits, as a real any-agent trace writes its ids
    spans = [
        {
            "name": "call_llm",
            "context": {"trace_id": trace_id, "span_id": 2**63 + 1},
            "start_time": "2025-01-01T00:00:00Z",
            "attributes": {
                "gen_ai.input.messages": json.dumps([{"role": "user", "content": "hi"}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": "hello"}]),
                "gen_ai.usage.input_tokens": 12,
            },
        }
    ]
    text = json.dumps(spans)
    assert str(trace_id) in text and len(str(trace_id)) == 39
    (session,) = read_bytes(text.encode(), "any_agent_trace.json")
    assert [m.role for m in session.messages] == ["user", "assistant"] and session.usage == {1: 12}
    with pytest.raises(TranscriptError, match="usage"):
        read_bytes(
            text.replace(
                '"gen_ai.usage.input_tokens": 12', '"gen_ai.usage.input_tokens": ' + "9" * 39
            ).encode(),
            "t.json",
        )


def test_a_gemini_cli_chat_recording_reads_calls_results_and_tokens():
    recording = {
        "sessionId": "abc-123",
        "projectHash": "p",
        "startTime": "2025-09-01T10:00:00Z",
        "messages": [
            {"id": "1", "type": "user", "content": "list the files"},
            {"id": "2", "type": "info", "content": "Switched model"},
            {
                "id": "3",
                "type": "gemini",
                "content": "",
                "model": "gemini-2.5-pro",
                "thoughts": [{"subject": "Plan", "description": "run ls"}],
                "toolCalls": [
                    {
                        "id": "ls-1",
                        "name": "run_shell_command",
                        "args": {"command": "ls"},
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "ls-1",
                                    "name": "run_shell_command",
                                    "response": {"output": "a.py"},
                                }
                            }
                        ],
                        "status": "success",
                    }
                ],
                "tokens": {
                    "input": 9000,
                    "output": 20,
                    "cached": 8000,
                    "thoughts": 30,
                    "tool": 0,
                    "total": 9050,
                },
            },
            {
                "id": "4",
                "type": "gemini",
                "content": "There is a.py.",
                "model": "gemini-2.5-pro",
                "tokens": {
                    "input": 9100,
                    "output": 6,
                    "cached": 9000,
                    "thoughts": 0,
                    "tool": 0,
                    "total": 9106,
                },
            },
        ],
    }
    (session,) = read_bytes(json.dumps(recording).encode(), "session-2025-09-01.json")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[2].content == "a.py" and session.messages[1].thinking == "Plan run ls"
    assert session.usage == {1: 9000, 3: 9100} and session.cache_reads == {1: 8000, 3: 9000}
    assert session.outputs == {1: 50, 3: 6} and "info 1" in str(session.warnings[-1])


def _gemini_log(*records: dict) -> bytes:
    """A JSONL chat recording as Gemini CLI appends it (chatRecordingService since 0.39): the
    metadata line, then each record as it was written, updates and all."""
    metadata = {"sessionId": "s-9", "projectHash": "p", "startTime": "2026-05-22T14:59:00Z", "kind": "main"}
    return "\n".join(json.dumps(r) for r in (metadata, *records)).encode() + b"\n"


def _gemini_reply(id_: str, text: str, prompt: int, cached: int, *calls: dict) -> dict:
    tokens = {"input": prompt, "output": 7, "cached": cached, "thoughts": 3, "tool": 0, "total": prompt + 10}
    reply = {
        "id": id_,
        "type": "gemini",
        "content": [{"text": text}],
        "model": "gemini-2.5-pro",
        "tokens": tokens,
    }
    return {**reply, "toolCalls": list(calls)} if calls else reply


LS_CALL = {
    "id": "ls-1",
    "name": "run_shell_command",
    "args": {"command": "ls"},
    "result": [
        {"functionResponse": {"id": "ls-1", "name": "run_shell_command", "response": {"output": "a.py"}}}
    ],
    "status": "success",
}


def test_a_gemini_cli_jsonl_recording_reads_each_record_as_last_written_where_it_first_stood():
    user = {"id": "u1", "type": "user", "content": [{"text": "list the files"}]}
    answer = _gemini_reply("g2", "There is a.py.", 9100, 9000)
    notice = {"id": "i1", "type": "info", "content": "Request cancelled."}
    data = _gemini_log(
        user,
        _gemini_reply("g1", "", 9000, 8000),  # written as the call starts ...
        {"$set": {"lastUpdated": "2026-05-22T14:59:04Z"}},
        _gemini_reply("g1", "", 9000, 8000, LS_CALL),  # ... and again with its tool call
        answer,
        notice,
    )
    (session,) = read_bytes(data, "session-2026-05-22T14-59-s9.jsonl")
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "list the files"),
        ("assistant", ""),
        ("tool", "a.py"),
        ("assistant", "There is a.py."),
    ]
    assert session.messages[1].tool_calls[0].name == "run_shell_command" and session.name == "s-9"
    assert session.usage == {1: 9000, 3: 9100} and session.cache_reads == {1: 8000, 3: 9000}
    assert session.outputs == {1: 10, 3: 10}  # thoughts bill as output
    assert "info 1" in str(session.warnings[-1])
    # the same conversation in the JSON recording Gemini CLI wrote before: the same session
    legacy = {
        "sessionId": "s-9",
        "projectHash": "p",
        "messages": [user, _gemini_reply("g1", "", 9000, 8000, LS_CALL), answer, notice],
    }
    (before,) = read_bytes(json.dumps(legacy).encode(), "session-2025-09-01.json")
    assert before.messages == session.messages and before.usage == session.usage


def test_a_gemini_cli_rewind_drops_the_messages_from_its_target_on_and_says_so():
    data = _gemini_log(
        {"id": "u1", "type": "user", "content": "first question"},
        _gemini_reply("g1", "first answer", 100, 0),
        {"id": "u2", "type": "user", "content": "a question taken back"},
        _gemini_reply("g2", "an answer taken back", 200, 0),
        {"$rewindTo": "u2"},
        {"id": "u3", "type": "user", "content": "the question asked instead"},
        _gemini_reply("g3", "the answer", 150, 100),
    )
    (session,) = read_bytes(data, "session.jsonl")
    assert [m.content for m in session.messages] == [
        "first question",
        "first answer",
        "the question asked instead",
        "the answer",
    ]
    assert session.usage == {1: 100, 3: 150}
    rewound = [w for w in session.warnings if "rewound" in w.what]
    assert [str(w.where) for w in rewound] == ["line 6"] and "2 message(s)" in rewound[0].what


def test_a_gemini_cli_checkpoint_replaces_the_messages_and_a_cut_last_line_loses_only_itself():
    checkpoint = {
        "$set": {
            "messages": [
                {"id": "u1", "type": "user", "content": "kept"},
                _gemini_reply("g1", "kept too", 100, 0),
            ]
        }
    }
    data = _gemini_log(
        {"id": "u0", "type": "user", "content": "replaced by the checkpoint"},
        checkpoint,
        {"id": "u2", "type": "user", "content": "after it"},
        _gemini_reply("g2", "the last answer", 300, 100),
    )
    cut = data + b'{"id": "g3", "type": "gemini", "content": "half wri'  # a live session's last line
    (session,) = read_bytes(cut, "session.jsonl")
    assert [m.content for m in session.messages] == ["kept", "kept too", "after it", "the last answer"]
    assert "line 6" in str(session.warnings[0]) and "passed over" in str(session.warnings[0])


def test_gemini_cli_rewinds_cost_what_they_drop_and_are_said_at_most_twenty_times():
    # each rewind takes back the newest message: looked for from the start, 100,000 of them
    # took over a minute; a rewind costs what it drops, so the file reads in a second or two
    asked = [{"id": f"u{i}", "type": "user", "content": f"question {i}"} for i in range(100_000)]
    rewinds = [{"$rewindTo": f"u{i}"} for i in range(99_999, 0, -1)]
    data = _gemini_log(*asked, *rewinds, _gemini_reply("g", "the answer", 10, 0))

    def too_long(*_):
        raise TimeoutError("100,000 rewinds took over 30 s: a rewind reads the whole log again")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(30)
    try:
        (session,) = read_bytes(data, "session.jsonl")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert [m.content for m in session.messages] == ["question 0", "the answer"]
    rewound = [w.what for w in session.warnings if "rewound" in w.what or "more rewinds" in w.what]
    assert len(rewound) == 21 and rewound[-1] == "99,979 more rewinds"


def test_a_gemini_cli_session_id_that_is_no_text_names_nothing():
    data = _gemini_log(
        {"$set": {"sessionId": {"token": "sk-not-shown"}, "kind": "subagent"}},
        {"id": "u1", "type": "user", "content": "hi"},
        _gemini_reply("g1", "hello", 10, 0),
    )
    (session,) = read_bytes(data, "session.jsonl")
    assert session.name == "subagent Gemini CLI session" and session.turns == 1


def test_gemini_stream_json_runs_are_sessions_with_deltas_joined():
    events = [
        {"harness": "started"},
        {"type": "init", "session_id": "r1", "model": "gemini-2.5-flash"},
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": "Hel", "delta": True},
        {"type": "message", "role": "assistant", "content": "lo", "delta": True},
        {"type": "tool_use", "tool_name": "read_file", "tool_id": "t1", "parameters": {"path": "a"}},
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "text"},
        {"type": "message", "role": "assistant", "content": "Done.", "delta": True},
        {"type": "result", "status": "success", "stats": {"input_tokens": 500, "output_tokens": 9}},
        {"type": "init", "session_id": "r2", "model": "gemini-2.5-flash"},
        {"type": "message", "role": "user", "content": "again"},
        {"type": "message", "role": "assistant", "content": "Yes", "delta": True},
    ]
    text = "\n".join(json.dumps(e) for e in events)
    first, second = read_bytes(text.encode(), "transcript.jsonl")
    assert [m.content for m in first.messages] == ["hi", "Hello", "text", "Done."]
    assert first.messages[1].tool_calls[0].id == "t1" and first.turns == 2
    assert "totals only" in str(first.warnings[-1]) and second.name == "r2"


def test_an_opencode_export_has_a_turn_per_step_with_its_tokens():
    export = {
        "info": {"id": "ses_1", "title": "Fix the parser", "version": "0.9"},
        "messages": [
            {"info": {"id": "msg_1", "role": "user"}, "parts": [{"type": "text", "text": "fix parse()"}]},
            {
                "info": {
                    "id": "msg_2",
                    "role": "assistant",
                    "modelID": "claude-sonnet-4-5",
                    "providerID": "anthropic",
                },
                "parts": [
                    {"type": "step-start"},
                    {"type": "reasoning", "text": "read it first"},
                    {
                        "type": "tool",
                        "tool": "read",
                        "callID": "c1",
                        "state": {
                            "status": "completed",
                            "input": {"filePath": "p.py"},
                            "output": "def parse(): ...",
                        },
                    },
                    {
                        "type": "step-finish",
                        "tokens": {
                            "input": 10,
                            "output": 30,
                            "reasoning": 5,
                            "cache": {"read": 9000, "write": 400},
                        },
                    },
                    {"type": "step-start"},
                    {"type": "text", "text": "Fixed."},
                    {
                        "type": "step-finish",
                        "tokens": {
                            "input": 3,
                            "output": 4,
                            "reasoning": 0,
                            "cache": {"read": 9400, "write": 60},
                        },
                    },
                ],
            },
        ],
    }
    (session,) = read_bytes(json.dumps(export).encode(), "opencode-session.json")
    assert session.name == "Fix the parser"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.usage == {1: 9410, 3: 9463} and session.cache_writes == {1: 400, 3: 60}
    assert session.outputs == {1: 35, 3: 4} and session.messages[1].thinking == "read it first"


def test_cline_text_results_are_tool_results_and_ui_messages_give_the_usage(tmp_path):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>fix it</task>"}], "ts": 1},
        {
            "role": "assistant",
            "ts": 2,
            "metrics": {"tokens": {"prompt": 100, "completion": 5, "cached": 0}},
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
            ],
        },
        {
            "role": "user",
            "ts": 3,
            "content": [
                {"type": "text", "text": "[read_file for 'a.py'] Result:\nprint(1)"},
                {"type": "text", "text": "<environment_details>x</environment_details>"},
            ],
        },
        {
            "role": "assistant",
            "ts": 4,
            "metrics": {"tokens": {"prompt": 160, "completion": 3, "cached": 90}},
            "content": [{"type": "text", "text": "Done."}],
        },
        {"role": "user", "ts": 5, "content": [{"type": "text", "text": "[TASK RESUMPTION] go on"}]},
        {"role": "assistant", "ts": 6, "content": [{"type": "text", "text": "OK."}]},
    ]
    task = tmp_path / "tasks" / "171"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    (session,) = read_path(task / "api_conversation_history.json")
    assert [m.role for m in session.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert (
        session.messages[2].tool_call_ids == ("toolu_1",)
        and "[TASK RESUMPTION]" in session.messages[5].content
    )
    assert session.usage == {1: 100, 4: 160} and session.cache_reads == {1: 0, 4: 90}
    ui = [
        {
            "ts": 2,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps(
                {"tokensIn": 7, "tokensOut": 5, "cacheWrites": 93, "cacheReads": 0, "cost": 0.01}
            ),
        },
        {"ts": 3, "type": "say", "say": "text", "text": "Reading."},
        {
            "ts": 4,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 4, "tokensOut": 3, "cacheWrites": 66, "cacheReads": 93}),
        },
        {
            "ts": 6,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"tokensIn": 5, "tokensOut": 2, "cacheWrites": 10, "cacheReads": 159}),
        },
    ]
    (task / "ui_messages.json").write_text(json.dumps(ui))
    (session,) = read_path(task / "api_conversation_history.json")
    assert session.usage == {1: 100, 4: 163, 6: 174} and session.cache_writes == {1: 93, 4: 66, 6: 10}
    with pytest.raises(TranscriptError, match=r"add api_conversation_history\.json"):
        read_path(task / "ui_messages.json")


def test_a_pydantic_ai_history_written_by_pydantic_ai_reads():
    messages = pytest.importorskip("pydantic_ai.messages")
    from pydantic_ai.usage import RequestUsage

    history = [
        messages.ModelRequest(
            parts=[messages.SystemPromptPart("be brief"), messages.UserPromptPart("weather?")]
        ),
        messages.ModelResponse(
            parts=[messages.ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="w1")],
            usage=RequestUsage(input_tokens=120, cache_read_tokens=100, output_tokens=8),
            model_name="gpt-5",
        ),
        messages.ModelRequest(parts=[messages.ToolReturnPart("get_weather", "sunny", tool_call_id="w1")]),
        messages.ModelResponse(
            parts=[messages.TextPart("Sunny.")],
            usage=RequestUsage(input_tokens=140, output_tokens=3),
            model_name="gpt-5",
        ),
    ]
    data = messages.ModelMessagesTypeAdapter.dump_json(history)
    (session,) = read_bytes(data, "history.json")
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert session.messages[2].tool_calls[0].name == "get_weather" and session.messages[3].content == "sunny"
    assert (
        session.usage == {2: 120, 4: 140}
        and session.cache_reads == {2: 100, 4: 0}
        and session.recorded_model == "gpt-5"
    )


def test_the_refusal_names_every_format_of_the_catalogue():
    from playground.formats import READABLE
    from playground.formats.catalogue import FORMATS

    assert all(f.tool.split()[0] in READABLE for f in FORMATS)


def _cc_line(kind: str, uuid: str, parent, message: dict, **extra) -> dict:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "message": message, **extra}


def _cc_call(call_id: str, blocks: list) -> dict:
    usage = {
        "input_tokens": 5,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 10,
        "output_tokens": 7,
    }
    return {
        "id": call_id,
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "content": blocks,
        "usage": usage,
    }


def test_a_claude_code_call_whose_results_came_between_its_lines_is_one_turn():
    lines = [
        _cc_line("user", "u1", None, {"role": "user", "content": "look at both files"}),
        _cc_line(
            "assistant",
            "a1",
            "u1",
            _cc_call("m1", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
        ),
        _cc_line(
            "user",
            "r1",
            "a1",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "one"}]},
        ),
        _cc_line(
            "assistant",
            "a2",
            "r1",
            _cc_call("m1", [{"type": "tool_use", "id": "t2", "name": "Read", "input": {}}]),
        ),
        _cc_line(
            "user",
            "r2",
            "a2",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "two"}]},
        ),
        _cc_line("assistant", "a3", "r2", _cc_call("m2", [{"type": "text", "text": "Both read."}])),
    ]
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "s.jsonl")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [c.id for c in session.messages[1].tool_calls] == ["t1", "t2"] and session.turns == 2
    assert session.usage == {1: 115, 4: 115}


def test_claude_code_blocks_it_does_not_read_are_counted_by_kind_and_odd_kinds_not_echoed():
    searched = [
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
        {"type": "text", "text": "Found it."},
    ]
    lines = [
        _cc_line("user", "u1", None, {"role": "user", "content": "search for it"}),
        _cc_line("assistant", "a1", "u1", _cc_call("m1", searched)),
        {"type": {"token": "sk-do-not-echo"}, "uuid": "x", "sessionId": "s"},
    ]
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "s.jsonl")
    assert session.messages[1].content == "Found it." and session.turns == 1
    warnings = [w.what for w in session.warnings]
    assert (
        "content blocks of kinds not read, their tokens not counted (3): assistant/redacted_thinking 1, "
        "assistant/server_tool_use 1, assistant/web_search_tool_result 1"
    ) in warnings
    assert not any("sk-do-not-echo" in w for w in warnings)
    assert any("lines passed over" in w and "an object 1" in w for w in warnings)


def test_claude_code_2x_subagent_files_beside_a_session_are_its_subagents(tmp_path):
    main = [
        _cc_line("user", "u1", None, {"role": "user", "content": "review the code"}),
        _cc_line(
            "assistant",
            "a1",
            "u1",
            _cc_call(
                "m1", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "find bugs"}}]
            ),
        ),
        _cc_line(
            "user",
            "r1",
            "a1",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "none"}]},
        ),
    ]
    agent = [
        _cc_line(
            "user", "x1", None, {"role": "user", "content": "find bugs"}, isSidechain=True, agentId="ab12"
        ),
        _cc_line(
            "assistant",
            "x2",
            "x1",
            _cc_call("m9", [{"type": "text", "text": "none"}]),
            isSidechain=True,
            agentId="ab12",
        ),
    ]
    (tmp_path / "s1.jsonl").write_text("\n".join(json.dumps(line) for line in main))
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    (tmp_path / "s1" / "subagents" / "agent-ab12.jsonl").write_text(
        "\n".join(json.dumps(line) for line in agent)
    )
    (tmp_path / "s1" / "subagents" / "agent-ab12.meta.json").write_text(
        json.dumps({"description": "Find bugs"})
    )
    (tmp_path / "s1" / "subagents" / "agent-zz.jsonl").write_text("{cut")
    first, second = read_path(tmp_path / "s1.jsonl")
    assert first.name == "review the code" and second.name == "Find bugs" and second.parent == first.name
    assert second.turns == 1 and any("agent-zz.jsonl" in str(w) for w in first.warnings)


def _token_count(total: int, last: dict) -> dict:
    info = {"total_token_usage": {"total_tokens": total}, "last_token_usage": last}
    return {"type": "event_msg", "payload": {"type": "token_count", "info": info}}


def _item(payload: dict) -> dict:
    return {"type": "response_item", "payload": payload}


def test_codex_0_58_writes_a_call_s_usage_before_its_items_and_each_call_keeps_its_own():
    """The shape of a real 0.58 rollout (codex-session-view's sample): a call's token_count,
    then its items, then the same token_count again; the next call's comes before its own."""
    first = {"input_tokens": 10_128, "cached_input_tokens": 0, "output_tokens": 37}
    second = {"input_tokens": 10_334, "cached_input_tokens": 9_984, "output_tokens": 43}
    lines = [
        {"type": "session_meta", "payload": {"id": "t1", "cli_version": "0.58.0"}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        {"type": "turn_context", "payload": {"model": "gpt-5.1-codex"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
        _token_count(10_165, first),
        _item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]}),
        _item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        _item({"type": "function_call_output", "call_id": "c1", "output": "README.md"}),
        {"type": "turn_context", "payload": {"model": "gpt-5.1-codex"}},
        _token_count(10_165, first),  # the repeat after the items
        _token_count(20_542, second),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        _token_count(20_542, second),
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "rollout.jsonl")
    replies = [i for i, m in enumerate(session.messages) if m.role == "assistant"]
    assert session.usage == {replies[0]: 10_128, replies[1]: 10_334}
    assert session.cache_reads == {replies[0]: 0, replies[1]: 9_984}
    assert session.outputs == {replies[0]: 37, replies[1]: 43}
    figures = totals(turn_table(replay(session, [], Settings(model="gpt-5.1-codex"))))
    price = find_price("gpt-5.1-codex")
    expected = price.cost(10_128, 0, 0, 37) + price.cost(10_334, 9_984, 0, 43)
    assert figures["recorded_calls"] == 2 and figures["recorded_cost_usd"] == pytest.approx(
        expected, abs=1e-6
    )


def test_a_resumed_codex_thread_repeats_its_session_meta_and_stays_one_session():
    def call(n: int) -> list[dict]:
        usage = {"input_tokens": 100 * n, "cached_input_tokens": 0, "output_tokens": n}
        return [
            _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"q{n}"}]}),
            _item(
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a"}]}
            ),
            _token_count(1000 * n, usage),
        ]

    meta = {"type": "session_meta", "payload": {"id": "thread-1"}}
    other = {"type": "session_meta", "payload": {"id": "thread-2"}}
    lines = [meta, *call(1), *call(2), meta, *call(3), other, *call(4)]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    sessions = read_bytes(data, "rollout.jsonl")
    assert [s.turns for s in sessions] == [3, 1]
    assert sorted(sessions[0].usage.values()) == [100, 200, 300]


WEEK_MS = 7 * 24 * 3600 * 1000


def test_cline_and_opencode_reply_times_are_read_and_a_week_s_gap_makes_the_cache_cold():
    """Cline's ``ts`` and opencode's ``time.created`` are Unix milliseconds: each reply keeps
    its time, and a week between two calls is a cold cache, not a warm one."""
    start = 1_765_000_000_000
    reply = {"role": "assistant", "metrics": {"tokens": {"prompt": 3000, "completion": 5, "cached": 0}}}
    history = [
        {
            "role": "user",
            "ts": start,
            "content": [{"type": "text", "text": "<task>fix it</task>" + " x" * 2000}],
        },
        {**reply, "ts": start + 1000, "content": [{"type": "text", "text": "Looking."}]},
        {
            "role": "user",
            "ts": start + WEEK_MS,
            "content": [{"type": "text", "text": "[TASK RESUMPTION] go on"}],
        },
        {**reply, "ts": start + WEEK_MS + 1000, "content": [{"type": "text", "text": "Done."}]},
    ]
    (session,) = read_bytes(json.dumps(history).encode(), "api_conversation_history.json")
    assert session.times == {1: (start + 1000) / 1000, 3: (start + WEEK_MS + 1000) / 1000}
    rows = turn_table(replay(session, [], Settings(model="claude-sonnet-4-5"))).rows
    assert [row["cold_cache"] for row in rows] == [0, 1]
    export = {
        "info": {"id": "ses_1", "title": "t"},
        "messages": [
            {"info": {"id": "m1", "role": "user"}, "parts": [{"type": "text", "text": "go"}]},
            {
                "info": {
                    "id": "m2",
                    "role": "assistant",
                    "modelID": "claude-sonnet-4-5",
                    "time": {"created": start},
                },
                "parts": [
                    {"type": "text", "text": "one"},
                    {"type": "step-finish", "tokens": {"input": 5, "output": 1}},
                ],
            },
        ],
    }
    (session,) = read_bytes(json.dumps(export).encode(), "opencode.json")
    assert session.times == {1: start / 1000}


def test_cline_s_model_ids_name_the_model_genai_prices_knows():
    assert find_price("claude_4_5_opus").model == find_price("claude-opus-4-5").model
    assert (
        find_price("litellm_proxy/anthropic/claude-sonnet-4-5").model == find_price("claude-sonnet-4-5").model
    )
    assert find_price("claude-sonnet-4-6[1m]") is find_price("claude-sonnet-4-6")


def test_files_uploaded_together_go_to_their_reader_with_the_files_it_reads_beside_them():
    """Cline's ui_messages.json is read with the history of its task, not on its own (the
    pairing was the app's own rule before)."""
    from playground.formats import with_companions

    history, ui, other = (
        ("api_conversation_history.json", b"[]"),
        ("ui_messages.json", b"[1]"),
        ("a.jsonl", b"x"),
    )
    assert with_companions((other, ui, history)) == [("a.jsonl", b"x", ()), (*history, (ui,))]
    assert with_companions((ui,)) == [(*ui, ())]  # alone, it is read and says what it lacks
