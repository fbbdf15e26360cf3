"""Gemini CLI: chats, JSONL recordings, stream-json, recorded responses, Content[] histories: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json
import signal

from playground.formats import read_bytes


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


def test_a_gemini_record_of_all_zero_tokens_after_an_info_record_is_no_call():
    tokens = {"input": 1200, "output": 30, "cached": 0, "thoughts": 0, "tool": 0, "total": 1230}
    zero = dict.fromkeys(tokens, 0)
    recording = {
        "sessionId": "s1",
        "projectHash": "p",
        "messages": [
            {"id": "1", "type": "user", "content": "fix it"},
            {"id": "2", "type": "gemini", "content": "Looking.", "tokens": tokens, "model": "gemini-2.5-pro"},
            {"id": "3", "type": "info", "content": "Request cancelled."},
            {"id": "4", "type": "gemini", "content": "", "tokens": zero, "model": "gemini-2.5-pro"},
            {"id": "5", "type": "user", "content": "go on"},
            {"id": "6", "type": "gemini", "content": "Done.", "tokens": tokens, "model": "gemini-2.5-pro"},
        ],
    }
    (session,) = read_bytes(json.dumps(recording).encode(), "session.json")
    assert session.turns == 2 and len(session.usage) == 2
    assert any("all-zero tokens after an info record" in str(w) for w in session.warnings)


def test_a_gemini_content_history_is_read_one_call_per_run_of_model_entries():
    """Issue 57, 2: what ``/chat share`` and ``getHistory()`` write was read as OpenAI chat with
    0 turns and a warning per "unknown role 'model'"."""
    history = [
        {"role": "user", "parts": [{"text": "What is in README?"}]},
        {"role": "model", "parts": [{"thought": True, "text": "I should read it."},
                                    {"functionCall": {"name": "read_file", "args": {"path": "README.md"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "# Title"}}}]},
        {"role": "model", "parts": [{"text": "It has a title."}, {"thoughtSignature": "abc"}]},
        {"role": "model", "parts": [{"text": " And nothing else."}]},
    ]  # fmt: skip
    (session,) = read_bytes(json.dumps(history).encode(), "chat.json")
    assert session.format == "Gemini Content[] history" and session.turns == 2
    call, result = session.messages[1], session.messages[2]
    assert call.thinking == "I should read it." and call.content == ""  # the thought kept apart
    assert result.tool_call_id == call.tool_calls[0].id and result.name == "read_file"
    assert session.messages[3].content == "It has a title.\n And nothing else."


def test_gemini_cli_recorded_responses_are_read_a_call_a_line_with_its_usage():
    """Issue 57, 3: what ``gemini --record-responses FILE`` writes (Gemini CLI's
    RecordingContentGenerator: ``{method, request?, response}`` a line) was refused."""
    usage = {
        "promptTokenCount": 12_000,
        "cachedContentTokenCount": 8_000,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 30,
    }
    lines = [
        {"method": "generateContentStream", "request": "List the files.", "response": [
            {"candidates": [{"content": {"role": "model", "parts": [{"thought": True, "text": "Use ls."}]}}]},
            {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "list_directory", "args": {"path": "."}}}]}}],
             "usageMetadata": usage},
        ]},
        {"method": "countTokens", "response": {"totalTokens": 10}},
        {"method": "generateContent", "response": {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Two files."}]}}],
            "usageMetadata": {"promptTokenCount": 12_400, "cachedContentTokenCount": 12_000, "candidatesTokenCount": 5}}},
    ]  # fmt: skip
    (session,) = read_bytes("\n".join(json.dumps(line) for line in lines).encode(), "responses.jsonl")
    assert session.format == "Gemini CLI recorded responses"
    assert session.turns == len(session.usage) == 2  # one per model call; countTokens is none
    assert sorted(session.usage.values()) == [12_000, 12_400]  # the file's own promptTokenCount
    assert sorted(session.cache_reads.values()) == [8_000, 12_000]
    assert sorted(session.outputs.values()) == [5, 50]  # candidates and thoughts
    call = next(m for m in session.messages if m.tool_calls)
    assert call.thinking == "Use ls." and call.tool_calls[0].name == "list_directory"
    assert any("not in the file" in str(w) for w in session.warnings)
