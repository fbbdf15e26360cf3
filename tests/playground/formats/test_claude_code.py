"""Claude Code sessions: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

import pytest

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, lines_of, prompt_of, turns_of
from tests.timing import best_cpu_time


@pytest.mark.parametrize("name", ["sniffly_d3ad4cdc.jsonl", "ccviewer_fe5e1c67.jsonl"])
def test_claude_code_turns_are_api_calls_and_usage_is_counted_once_per_call(name):
    path = FORMATS / "claude-code" / name
    calls: dict[str, dict] = {}
    for line in lines_of(path):
        if line.get("type") == "assistant" and line["message"].get("model") != "<synthetic>":
            calls[line["message"]["id"]] = line["message"]["usage"]
    sessions = read_path(path)
    assert turns_of(sessions) == len(calls)
    parts = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    assert prompt_of(sessions) == sum(sum(u[p] for p in parts) for u in calls.values())
    assert sum(sum(s.cache_reads.values()) for s in sessions) == sum(
        u["cache_read_input_tokens"] for u in calls.values()
    )
    assert all(s.recorded_model.startswith("claude-") for s in sessions)


def test_claude_code_side_chains_are_subagent_sessions_after_the_main_one():
    path = FORMATS / "claude-code" / "ccviewer_fe5e1c67.jsonl"
    lines = lines_of(path)
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


def test_a_claude_code_session_that_opens_with_a_slash_command_is_named_by_its_plain_words():
    """Issue 47, 4: not by the markup Claude Code wraps a command in."""
    path = FORMATS / "claude-code-erk" / "a5c478e1-0d31-46d4-9fd6-3b6b203b3752.jsonl"
    first = next(
        json.loads(line)["message"]["content"]
        for line in path.read_text().splitlines()
        if json.loads(line).get("type") == "user"
    )
    assert "<command-message>" in str(first)
    (session,) = read_path(path)
    assert session.name == "erk:plan-implement is running…" and "<" not in session.name


def test_a_claude_code_file_whose_lines_are_their_own_parents_reads_in_linear_time():
    """Issue 49, 1: the chain walk stopped only after as many steps as the file has lines."""

    def file_of(lines: int) -> bytes:
        items = []
        for n in range(lines):
            kind = "user" if n % 2 == 0 else "assistant"
            message = {"role": kind, "content": f"m{n}"} if kind == "user" else {
                "role": "assistant", "id": f"msg{n}", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}]
            }  # fmt: skip
            items.append(
                {
                    "type": kind,
                    "uuid": f"u{n}",
                    "parentUuid": f"u{n}",
                    "sessionId": "s",
                    "message": message,
                }
            )
        return "\n".join(json.dumps(i) for i in items).encode()

    timings = [best_cpu_time(read_bytes, file_of(lines), "loops.jsonl") for lines in (4_000, 8_000)]
    # doubling the file about doubles the time (the quadratic walk took 1.7 s, then 6.8 s)
    assert timings[1] < 3 * timings[0] + 0.3


def test_a_claude_code_call_whose_usage_is_in_its_iterations_is_a_recorded_call():
    """2.1.226: an Agent tool call's top-level usage is all zero, ``usage.iterations`` holds the
    real figures: summed, the call is billed (it was dropped)."""
    zero = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 0,
    }
    iterations = [
        {
            "input_tokens": 3,
            "cache_creation_input_tokens": 1_200,
            "cache_read_input_tokens": 40_000,
            "output_tokens": 90,
        },
        {
            "input_tokens": 2,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 41_200,
            "output_tokens": 60,
        },
    ]
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "version": "2.1.226",
         "message": {"role": "user", "content": "look into it"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "version": "2.1.226",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-6",
                     "content": [{"type": "text", "text": "Done."}],
                     "usage": {**zero, "iterations": iterations}}},
    ]  # fmt: skip
    data = "\n".join(json.dumps(line) for line in lines).encode()
    (session,) = read_bytes(data, "s.jsonl")
    assert session.usage == {
        1: sum(
            i["input_tokens"] + i["cache_creation_input_tokens"] + i["cache_read_input_tokens"]
            for i in iterations
        )
    }
    assert session.cache_reads[1] == 81_200 and session.outputs[1] == 150
    assert session.agent_version == "2.1.226"
