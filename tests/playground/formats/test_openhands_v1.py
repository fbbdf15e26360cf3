"""OpenHands V1 conversations: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS, replays_clean

OH_EVENTS = FORMATS / "openhands-v1" / "sdk_goal_events.jsonl"


def test_openhands_v1_events_read_a_call_per_response_with_the_usage_its_stats_grew_by(tmp_path):
    events = [json.loads(line) for line in OH_EVENTS.read_text().splitlines()]
    responses = list(dict.fromkeys(e["llm_response_id"] for e in events if e["kind"] == "ActionEvent"))
    # the SDK writes a call's stats before its events: each action's usage is the growth of the
    # accumulated usage at the stats just before it
    expected, last = [], 0
    for event in events:
        if event["kind"] == "ConversationStateUpdateEvent" and event["key"] == "stats":
            accumulated = event["value"]["usage_to_metrics"]["default"]["accumulated_token_usage"][
                "prompt_tokens"
            ]
            growth, last = accumulated - last, accumulated
        elif event["kind"] == "ActionEvent":
            expected.append(growth)
    (session,) = read_path(OH_EVENTS)
    assert session.format == "OpenHands conversation" and session.turns == len(responses) == 2
    assert sorted(session.usage.values()) == sorted(expected)
    assert session.recorded_model == "litellm_proxy/minimax-m2.7"
    # the same conversation as a folder of event files
    (tmp_path / "events").mkdir()
    for n, event in enumerate(events):
        (tmp_path / "events" / f"event-{n:05d}-{event['id']}.json").write_text(json.dumps(event))
    (folder,) = read_path(tmp_path)
    assert folder.usage == session.usage and [m.role for m in folder.messages] == [
        m.role for m in session.messages
    ]


def test_an_openhands_v1_conversation_with_its_system_prompt_user_turn_and_replies_replays_valid():
    def text(t: str) -> list[dict]:
        return [{"type": "text", "text": t}]

    events = [
        {"kind": "SystemPromptEvent", "source": "agent", "id": "0", "system_prompt": {"type": "text", "text": "You are OpenHands."}},
        {"kind": "MessageEvent", "source": "user", "id": "1", "llm_message": {"role": "user", "content": text("fix the bug")}},
        *(
            {
                "kind": "ActionEvent", "source": "agent", "id": f"a{n}", "thought": text("look") if n == 0 else [],
                "tool_name": "terminal", "tool_call_id": f"c{n}", "llm_response_id": "r1",
                "tool_call": {"id": f"c{n}", "name": "terminal", "arguments": '{"command": "ls"}'},
            }
            for n in range(2)
        ),
        *(
            {"kind": "ObservationEvent", "source": "environment", "id": f"o{n}", "tool_name": "terminal",
             "tool_call_id": f"c{n}", "observation": {"content": text("a.py")}}
            for n in range(2)
        ),
        {"kind": "MessageEvent", "source": "agent", "id": "2", "llm_response_id": "r2",
         "llm_message": {"role": "assistant", "content": text("Fixed.")}},
    ]  # fmt: skip
    data = "\n".join(json.dumps(e) for e in events).encode()
    (session,) = read_bytes(data, "events.jsonl")
    assert [m.role for m in session.messages] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert session.turns == 2 and len(session.messages[2].tool_calls) == 2  # one response, two actions
    assert session.name == "fix the bug"
    replays_clean(session)


def test_a_zip_of_an_openhands_v1_conversation_reads_as_its_folder_does(tmp_path):
    import zipfile

    events = [json.loads(line) for line in OH_EVENTS.read_text().splitlines()]
    archive = tmp_path / "conversation.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("abc123/base_state.json", json.dumps({"agent": {"llm": {"model": "gpt-4o-mini"}}}))
        for n, event in enumerate(events):
            out.writestr(f"abc123/events/event-{n:05d}-{event['id']}.json", json.dumps(event))
    (zipped,) = read_path(archive)
    (jsonl,) = read_path(OH_EVENTS)
    assert zipped.format == "OpenHands conversation" and zipped.usage == jsonl.usage
    assert [m.content for m in zipped.messages] == [m.content for m in jsonl.messages]
