"""Issue 49, 1 and 2: every reader takes time linear in its file, and a small file cannot
stand for more text than a file may hold.

Each hostile file is made by the test at two sizes; the reader's CPU time on the double may
be about twice the single's (the quadratic readers took four times or more)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from tests.builders import claude_code_first_line
from tests.timing import grows_linearly


def _jsonl(items: list) -> bytes:
    return "\n".join(json.dumps(i) for i in items).encode()


def gemini_stream_of_deltas(n: int) -> bytes:
    """One reply streamed in ``n`` chunks: each joined to the reply so far rebuilt it."""
    head = [
        {"type": "init", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "message", "role": "user", "content": "go"},
    ]
    chunks = [
        {"type": "message", "role": "assistant", "content": "word " * 20, "delta": True} for _ in range(n)
    ]
    return _jsonl(head + chunks)


def claude_code_lines_of_one_call(n: int) -> bytes:
    """``n`` streamed lines of one ``message.id``, each a tool use: each re-joined the call."""
    lines = [claude_code_first_line()]
    for i in range(n):
        said = {"type": "text", "text": f"Reading file {i} to see how the parser is built. " * 8}
        block = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"/src/f{i}.py"}}
        message = {"role": "assistant", "id": "msg1", "model": "claude-sonnet-4-5", "content": [said, block]}
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{i}",
                "parentUuid": "u0" if i == 0 else f"a{i - 1}",
                "sessionId": "s",
                "message": message,
            }
        )
    return _jsonl(lines)


def aider_tokens_lines_after_user_turns(n: int) -> bytes:
    """One reply, then ``n`` user turns each with a Tokens line: each looked back for the reply."""
    log = "# aider chat started at 2025-01-01 10:00:00\n\n#### fix it\n\nDone.\n\n"
    log += "".join(f"#### step {i}\n\n> Tokens: 1k sent, 10 received.\n\n" for i in range(n))
    return log.encode()


def langfuse_spans_of_many_calls(n: int) -> bytes:
    """``n`` replies each with one tool call, rebuilt from spans: every call scanned per reply."""
    observations = []
    for i in range(n):
        t = f"2025-01-01T00:{i // 600:02d}:{i // 10 % 60:02d}.{i % 10}00Z"
        meta = {"messageId": f"m{i}"}
        observations += [
            {
                "type": "GENERATION",
                "name": "llm",
                "startTime": t,
                "metadata": meta,
                "usageDetails": {"input": 10 + i, "output": 5},
            },
            {
                "type": "SPAN",
                "name": "tool-read",
                "startTime": t,
                "metadata": {**meta, "callId": f"c{i}", "tool": "read"},
                "input": {"path": f"f{i}"},
                "output": {"result": "x"},
            },
        ]
    return json.dumps({"id": "trace", "name": "t", "observations": observations}).encode()


def inspect_pool_named_again_by_each_request(n: int) -> bytes:
    """``n`` model events, each naming the whole pool so far: the pool was visited per event."""
    pool, events = [], []
    for i in range(n):
        pool.append({"id": f"u{i}", "role": "user", "content": f"step {i} " + "x" * 40})
        reply = {"id": f"r{i}", "role": "assistant", "content": "ok"}
        events.append(
            {"event": "model", "model": "openai/gpt-4o", "input_refs": [[0, len(pool)]],
             "output": {"choices": [{"message": reply}], "usage": {"input_tokens": 10 * i + 10}}}
        )  # fmt: skip
        pool.append(reply)
    sample = {"id": 1, "epoch": 1, "message_pool": pool, "events": events}
    return json.dumps({"version": 2, "eval": {"task": "t"}, "samples": [sample]}).encode()


def openhands_v1_events_of_one_response(n: int) -> bytes:
    """``n`` action events of one ``llm_response_id`` repeating one long thought."""
    thought = "I will read every file. " * 50
    events = [
        {
            "kind": "MessageEvent",
            "id": "e0",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        }
    ]
    for i in range(n):
        events.append(
            {
                "kind": "ActionEvent",
                "id": f"a{i}",
                "source": "agent",
                "llm_response_id": "r1",
                "thought": [{"type": "text", "text": thought}],
                "tool_name": "file_editor",
                "tool_call_id": f"c{i}",
                "tool_call": {"id": f"c{i}", "name": "file_editor", "arguments": "{}"},
            }
        )
    return _jsonl(events)


LINEAR = {
    "Gemini CLI stream-json deltas": (gemini_stream_of_deltas, "transcript.jsonl", 16_000),
    "Claude Code lines sharing one message.id": (claude_code_lines_of_one_call, "session.jsonl", 6_000),
    "Aider Tokens lines": (aider_tokens_lines_after_user_turns, ".aider.chat.history.md", 8_000),
    "Langfuse calls rebuilt from spans": (langfuse_spans_of_many_calls, "trace.json", 3_000),
    "Inspect input_refs": (inspect_pool_named_again_by_each_request, "log.json", 2_000),
    "OpenHands V1 events of one response": (openhands_v1_events_of_one_response, "events.jsonl", 3_000),
}  # fmt: skip


@pytest.mark.parametrize("make, file, size", LINEAR.values(), ids=LINEAR.keys())
def test_a_reader_takes_time_linear_in_its_file(make, file, size):
    (session,) = read_bytes(make(size), file)
    assert session.messages  # the hostile shape is read, not refused
    single, double = grows_linearly(lambda data: read_bytes(data, file), make, size)
    assert double < 3 * single + 0.3, f"{single:.2f} s, then {double:.2f} s on twice the file"


def test_a_streamed_reply_is_its_chunks_joined_as_they_came():
    (session,) = read_bytes(gemini_stream_of_deltas(3), "transcript.jsonl")
    assert [m.role for m in session.messages] == ["user", "assistant"]
    assert session.messages[1].content == "word " * 60


def test_the_lines_of_one_claude_code_call_are_one_reply_with_all_its_tool_uses():
    (session,) = read_bytes(claude_code_lines_of_one_call(40), "session.jsonl")
    (reply,) = [m for m in session.messages if m.role == "assistant"]
    assert [c.id for c in reply.tool_calls] == [f"t{i}" for i in range(40)]


def test_inspect_reads_each_pool_message_once_however_often_it_is_named():
    (session,) = read_bytes(inspect_pool_named_again_by_each_request(5), "log.json")
    assert [m.content.split(" ")[0] for m in session.messages] == ["step", "ok"] * 5
    assert session.usage == {1: 10, 3: 20, 5: 30, 7: 40, 9: 50}


def test_an_openhands_v1_thought_repeated_by_each_event_of_a_response_is_kept_once():
    (session,) = read_bytes(openhands_v1_events_of_one_response(4), "events.jsonl")
    (reply,) = [m for m in session.messages if m.role == "assistant"]
    assert reply.content.count("I will read every file.") == 50 and len(reply.tool_calls) == 4


def test_two_langfuse_messages_that_share_a_long_beginning_are_both_read():
    """A message was known by its first 4,000 characters: the second of two was lost."""
    head = "x" * 5_000
    first, second = (
        {"role": "user", "content": head + " first"},
        {"role": "user", "content": head + " second"},
    )
    generations = [
        {"type": "GENERATION", "startTime": "2025-01-01T00:00:0" + str(n), "input": request, "output": "ok", "usageDetails": {"input": 10}}
        for n, request in enumerate(([first], [first, {"role": "assistant", "content": "ok"}, second]))
    ]  # fmt: skip
    (session,) = read_bytes(json.dumps({"id": "t", "observations": generations}).encode(), "trace.json")
    assert [m.content[-6:] for m in session.messages if m.role == "user"] == [" first", "second"]


def _inspect_amplified(references: int, attachment_chars: int) -> dict:
    text = "attachment://big"
    pool = [
        {"id": f"m{i}", "role": "user", "content": text}
        if i % 2 == 0
        else {"id": f"m{i}", "role": "assistant", "content": "ok"}
        for i in range(references)
    ]
    events = [{"event": "model", "model": "openai/gpt-4o", "input_refs": [[0, i + 1]],
               "output": {"choices": [{"message": {"id": f"m{i + 1}", "role": "assistant", "content": "ok"}}]}} for i in range(0, references, 2)]  # fmt: skip
    return {
        "id": 1,
        "epoch": 1,
        "attachments": {"big": "y" * attachment_chars},
        "message_pool": pool,
        "events": events,
    }


def test_an_attachment_named_by_many_messages_is_held_to_the_file_size_limit(monkeypatch):
    """Issue 49, 2: a 1.2 MB file resolved to 318 M tokens and a MemoryError."""
    from playground import limits

    monkeypatch.setattr(limits.LIMITS, "max_file_bytes", 2_000_000)
    log = {"version": 2, "eval": {"task": "t"}, "samples": [_inspect_amplified(400, 100_000)]}
    data = json.dumps(log).encode()
    assert len(data) < 200_000  # a tenth of the limit, standing for 20 M characters
    with pytest.raises(TranscriptError) as refused:
        read_bytes(data, "log.json")
    said = str(refused.value)
    assert "references resolved" in said and "PLAYGROUND_MAX_FILE_BYTES" in said
    # the same attachment named a few times reads
    log["samples"] = [_inspect_amplified(10, 100_000)]
    (session,) = read_bytes(json.dumps(log).encode(), "log.json")
    assert sum(len(m.content) for m in session.messages) == 5 * 100_000 + 5 * 2


def test_the_samples_of_one_log_share_its_size_limit(monkeypatch):
    """Each sample under the limit, together far over it: held to it together."""
    from playground import limits

    monkeypatch.setattr(limits.LIMITS, "max_file_bytes", 2_000_000)
    samples = [{**_inspect_amplified(10, 100_000), "id": n} for n in range(6)]  # 6 × 1 M characters
    with pytest.raises(TranscriptError, match="references resolved"):
        read_bytes(json.dumps({"version": 2, "eval": {"task": "t"}, "samples": samples}).encode(), "log.json")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("header.json", json.dumps({"eval": {"task": "t"}}))
        for sample in samples:
            out.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
    monkeypatch.setattr(limits.LIMITS, "max_archive_bytes", 3_000_000)
    with pytest.raises(TranscriptError, match="references resolved"):
        read_bytes(archive.getvalue(), "log.eval")


# Issue 49, 5 and 10: every file a reader opens is parsed under the same bounds, and a
# fault of ours in one file of a corpus stops only that file.

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_cline_ui_messages_file_nested_too_deep_is_passed_over_and_the_history_reads(tmp_path):
    history = [
        {"role": "user", "ts": 1, "content": [{"type": "text", "text": "<task>fix it</task>"}]},
        {"role": "assistant", "ts": 2, "content": [{"type": "text", "text": "Done."}]},
    ]
    task = tmp_path / "tasks" / "171"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_text(json.dumps(history))
    for ui in (DEEP, json.dumps([{"say": "api_req_started", "text": DEEP}])):
        (task / "ui_messages.json").write_text(ui)
        (session,) = read_path(task / "api_conversation_history.json")
        assert [m.role for m in session.messages] == ["user", "assistant"] and not session.usage


def test_a_subagent_meta_file_nested_too_deep_leaves_the_subagent_its_own_name(tmp_path):
    def line(kind, uuid, parent, message, **extra):
        return {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s",
            "message": message,
            **extra,
        }

    reply = {
        "id": "m1",
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
    }
    main = [
        line("user", "u1", None, {"role": "user", "content": "review the code"}),
        line("assistant", "a1", "u1", reply),
    ]
    agent = [line("user", "x1", None, {"role": "user", "content": "find bugs"}, isSidechain=True), line("assistant", "x2", "x1", {**reply, "id": "m9"}, isSidechain=True)]  # fmt: skip
    (tmp_path / "s1.jsonl").write_text(_jsonl(main).decode())
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    (tmp_path / "s1" / "subagents" / "agent-ab12.jsonl").write_text(_jsonl(agent).decode())
    (tmp_path / "s1" / "subagents" / "agent-ab12.meta.json").write_text('{"description": ' + DEEP + "}")
    first, second = read_path(tmp_path / "s1.jsonl")
    assert second.name == "find bugs" and second.parent == first.name


def test_tool_call_arguments_nested_too_deep_are_read_as_text_through_a_whole_replay():
    """A RecursionError from the facts, the re-fetch check and LangChain's estimate before."""
    from playground.engine.replay import Settings, replay
    from playground.measures.metrics import totals, turn_table
    from playground.stacks.presets import PRESETS

    call = {"id": "c1", "type": "function", "function": {"name": "run", "arguments": DEEP}}
    chat = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "", "tool_calls": [{**call, "id": "c2"}]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    (session,) = read_bytes(json.dumps(chat).encode(), "chat.json")
    for preset in PRESETS.values():
        figures = totals(turn_table(replay(session, list(preset), Settings(model="gpt-4o"))))
        assert figures["turns"] == 3  # every turn replayed, its facts and re-fetches checked


def test_a_jsonl_line_holding_a_unicode_line_separator_is_one_record():
    """``splitlines`` broke a record at U+2028, which JSON holds unescaped."""
    lines = [
        {"type": "init", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "message", "role": "user", "content": "one\u2028two"},
        {"type": "message", "role": "assistant", "content": "ok", "delta": True},
    ]
    data = "\n".join(json.dumps(i, ensure_ascii=False) for i in lines).encode()
    (session,) = read_bytes(data, "transcript.jsonl")
    assert session.messages[0].content == "one\u2028two" and not session.warnings


def test_a_read_that_runs_past_its_time_is_stopped_naming_the_limit(monkeypatch):
    from playground import limits

    monkeypatch.setattr(limits.LIMITS, "max_read_seconds", 1e-6)
    with pytest.raises(TranscriptError) as stopped:
        read_bytes(claude_code_lines_of_one_call(3_000), "session.jsonl")
    assert "PLAYGROUND_MAX_READ_SECONDS" in str(stopped.value) and "line " in stopped.value.where


def test_a_file_a_reader_fails_on_is_listed_in_a_corpus_and_the_rest_go_on(tmp_path, monkeypatch):
    from playground.analyses.corpus import Job, replay_source, sources
    from playground.analyses.corpus import replay as corpus
    from playground.measures.evaluate import Scenario
    from playground.stacks.candidates import Candidate
    from playground.stacks.presets import PRESETS

    good = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]
    (tmp_path / "a.json").write_text(json.dumps(good))
    (tmp_path / "b.json").write_text(json.dumps(good))
    real = corpus.read_bytes

    def failing(data, label):
        if label.endswith("a.json"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(data, label)

    monkeypatch.setattr(corpus, "read_bytes", failing)
    found, _ = sources([str(tmp_path)])
    job = Job((Candidate("default", tuple(PRESETS["pyagentic recommended"])),), Scenario())
    rows = [replay_source(source, job, str(n)).sessions[0] for n, source in enumerate(found)]
    errors = {Path(r["source"]).name: r.get("error", "") for r in rows}
    assert errors["a.json"].endswith("the reader failed: RecursionError") and not errors["b.json"]


def test_a_fault_of_ours_reading_an_upload_is_said_on_the_page_without_its_text(monkeypatch):
    from playground.ui import cache

    def failing(*_):
        raise RuntimeError("/srv/secret/path.py line 3")

    monkeypatch.setattr(cache, "read_bytes", failing)
    loaded = cache.load(b'{"messages": []}', "upload.json")
    assert (
        loaded.error == "'upload.json': the playground failed to read this file (its fault, not the file's)"
    )
    assert "secret" not in loaded.error
