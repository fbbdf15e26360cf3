"""opencode exports: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

from playground.engine.replay import Settings, replay
from playground.formats import read_bytes
from playground.measures.metrics import turn_table
from playground.stacks.config import Config
from tests.playground.formats.reading import replays_clean

WEEK_MS = 7 * 24 * 3600 * 1000


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


def test_an_opencode_step_with_no_step_finish_after_a_finished_one_is_no_call_of_its_own():
    """opencode counts a call per step-finish: an aborted last step (no step-finish) goes on
    with the message's step before it, its text kept, no turn of its own."""

    def finish(n: int) -> dict:
        return {
            "type": "step-finish",
            "tokens": {"input": n, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        }

    export = {
        "info": {"id": "ses_1", "title": "t"},
        "messages": [
            {"info": {"id": "m1", "role": "user"}, "parts": [{"type": "text", "text": "go"}]},
            {
                "info": {"id": "m2", "role": "assistant", "modelID": "claude-sonnet-4-5"},
                "parts": [
                    {"type": "step-start"},
                    {"type": "text", "text": "one"},
                    finish(100),
                    {"type": "step-start"},
                    {"type": "text", "text": "two, cut off"},
                ],
            },
        ],
    }
    (session,) = read_bytes(json.dumps(export).encode(), "opencode.json")
    step_finishes = sum(p["type"] == "step-finish" for m in export["messages"] for p in m["parts"])
    assert session.turns == step_finishes == 1
    assert "two, cut off" in session.messages[1].content
    assert any("joined to the step before it" in str(w) for w in session.warnings)


def test_an_opencode_message_aborted_before_its_first_step_finished_is_history_not_a_call():
    """A message the user aborted mid-stream has parts and no step-finish: opencode sends it on
    with the next request and counts no call for it (90 turns were read for 89 calls)."""
    finish = {"type": "step-finish", "tokens": {"input": 900, "output": 5, "cache": {"read": 0, "write": 0}}}
    export = {
        "info": {"id": "ses_1", "title": "t"},
        "messages": [
            {"info": {"id": "m1", "role": "user"}, "parts": [{"type": "text", "text": "go"}]},
            {
                "info": {"id": "m2", "role": "assistant", "modelID": "claude-sonnet-4-5", "error": {}},
                "parts": [{"type": "step-start"}, {"type": "text", "text": "Let me look at the parser and"}],
            },
            {"info": {"id": "m3", "role": "user"}, "parts": [{"type": "text", "text": "no, the lexer"}]},
            {
                "info": {"id": "m4", "role": "assistant", "modelID": "claude-sonnet-4-5"},
                "parts": [{"type": "step-start"}, {"type": "text", "text": "The lexer, then."}, finish],
            },
        ],
    }
    (session,) = read_bytes(json.dumps(export).encode(), "opencode.json")
    step_finishes = sum(p["type"] == "step-finish" for m in export["messages"] for p in m["parts"])
    assert session.turns == step_finishes == 1 and session.replies == (3,)
    assert session.messages[1].content == "Let me look at the parser and"  # kept, and sent on
    assert session.usage == {3: 900}
    figures = replays_clean(session)
    assert figures["turns"] == 1
    result = replay(session, [], Config().settings_for(session))
    assert [m.content for m in result.turns[0].request][1] == "Let me look at the parser and"
    assert any("aborted" in str(w) for w in session.warnings)
