"""Readers of the second batch of real files: GitHub Copilot CLI events, any-agent traces, the
older SWE-agent trajectories, Letta agent files and LLM completion logs. Every expected count
comes from the raw file, never through the reader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from playground.engine.replay import replay
from playground.formats import read_bytes, read_path
from playground.measures.metrics import totals, turn_table
from playground.stacks.config import Config
from playground.stacks.presets import PRESETS
from tests.timing import best_cpu_time

FORMATS = Path(__file__).parents[2] / "fixtures" / "formats"
COPILOT = FORMATS / "copilot-cli" / "azure-dev_45f1a36c_full.jsonl"
ANY_AGENT = FORMATS / "otel-any-agent" / "SMOLAGENTS_trace.json"
SWE_RUN = (
    FORMATS / "swe-agent" / "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1"
)
SWE_AGENT = SWE_RUN / "pydicom__pydicom-1458.traj"
LETTA = FORMATS / "letta" / "memgpt_agent_with_convo_v0.af"
LLM_LOG = FORMATS / "openhands-v1" / "agent-sdk_llmlog_claude-sonnet-4_1757015046.json"


def _replays_clean(session) -> dict:
    """The raw history replays with no invalid request; a stack replays too."""
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["turns_with_violations"] == 0
    replay(session, PRESETS["pyagentic recommended"], Config().settings_for(session))
    return figures


def test_copilot_cli_events_read_one_turn_per_api_call_with_its_output_tokens():
    events = [json.loads(line) for line in COPILOT.read_text().splitlines()]
    replies = [e["data"] for e in events if e["type"] == "assistant.message"]
    calls = {r["apiCallId"] for r in replies}
    (session,) = read_path(COPILOT)
    assert session.format == "GitHub Copilot CLI session"
    assert session.turns == len(calls) == 29
    assert session.tool_calls == sum(len(r.get("toolRequests") or []) for r in replies) == 108
    results = [e for e in events if e["type"] == "tool.execution_complete"]
    assert sum(m.role == "tool" for m in session.messages) == len(results)
    assert sum(session.outputs.values()) == sum(r.get("outputTokens") or 0 for r in replies)
    assert set(session.models.values()) == {r["model"] for r in replies} == {"gpt-5.6-sol"}
    assert not session.usage  # Copilot records no input: said, not invented
    assert any("output tokens only" in str(w) for w in session.warnings)
    (counted,) = [str(w) for w in session.warnings if str(w).startswith("events passed over")]
    assert "session.start 1" in counted  # said without a location it has not got
    encrypted = sum(bool(r.get("encryptedContent") or r.get("reasoningOpaque")) for r in replies)
    assert f"encrypted reasoning in {encrypted} assistant messages" in " ".join(map(str, session.warnings))
    system = [e["data"]["content"] for e in events if e["type"] == "system.message"]
    assert [m.content for m in session.messages if m.role == "system"] == list(dict.fromkeys(system))
    assert len(session.times) == session.turns
    _replays_clean(session)


def test_an_any_agent_trace_reads_its_llm_calls_with_usage_and_its_own_cost():
    spans = json.loads(ANY_AGENT.read_text())["spans"]
    llm = [s["attributes"] for s in spans if s["attributes"]["gen_ai.operation.name"] == "call_llm"]
    tools = [s for s in spans if s["attributes"]["gen_ai.operation.name"] == "execute_tool"]
    (session,) = read_path(ANY_AGENT)
    assert session.format == "any-agent trace" and session.turns == len(llm) == 3
    assert sorted(session.usage.values()) == sorted(a["gen_ai.usage.input_tokens"] for a in llm)
    assert sorted(session.outputs.values()) == sorted(a["gen_ai.usage.output_tokens"] for a in llm)
    assert sum(m.role == "tool" for m in session.messages) == len(tools)
    assert session.recorded_model == "mistral/mistral-small-latest"
    own = sum(a["gen_ai.usage.input_cost"] + a["gen_ai.usage.output_cost"] for a in llm)
    assert session.reported_cost_usd == pytest.approx(own)
    _replays_clean(session)


def test_an_older_swe_agent_trajectory_names_its_model_from_its_run_and_keeps_its_totals():
    raw = json.loads(SWE_AGENT.read_text())
    stats = raw["info"]["model_stats"]
    (session,) = read_path(SWE_AGENT)
    assert session.format == "SWE-agent trajectory"
    assert session.turns == stats["api_calls"] == sum(h["role"] == "assistant" for h in raw["history"]) == 12
    assert session.recorded_model == "gpt-4-1106-preview"  # the run folder's "gpt4", as SWE-agent names it
    assert session.reported_cost_usd == stats["instance_cost"]
    assert any(f"{stats['tokens_sent']:,} tokens sent" in str(w) for w in session.warnings)
    figures = _replays_clean(session)
    # the run's own total of tokens sent is what the raw history's requests hold, counted
    assert figures["billed_raw_tokens"] == pytest.approx(stats["tokens_sent"], rel=0.02)
    # its own bill: those tokens at gpt-4-1106-preview's $10/M in and $30/M out
    assert stats["instance_cost"] == pytest.approx(
        (stats["tokens_sent"] * 10 + stats["tokens_received"] * 30) / 1e6
    )


def test_an_swe_agent_trajectory_outside_its_run_folder_says_the_model_is_not_named(tmp_path):
    copy = tmp_path / "pydicom.traj"
    shutil.copy(SWE_AGENT, copy)
    (session,) = read_path(copy)
    assert not session.models and any("the model is not named" in str(w) for w in session.warnings)
    (tmp_path / "args.yaml").write_text("agent:\n  model:\n    model_name: gpt4o\n")
    (session,) = read_path(copy)
    assert session.recorded_model == "gpt-4o-2024-05-13"


def test_a_letta_agent_file_keeps_its_calls_paired_and_its_model():
    raw = json.loads(LETTA.read_text())
    (session,) = read_path(LETTA)
    assert session.format == "Letta agent file"
    assert session.turns == sum(m["role"] == "assistant" for m in raw["messages"]) == 28
    renders = sum(m["role"] == "system" for m in raw["messages"]) - 1
    assert sum(m.role == "system" for m in session.messages) == 1 and renders == 5
    assert any(f"{renders} re-renders of the system prompt" in str(w) for w in session.warnings)
    assert set(session.models.values()) == {raw["llm_config"]["model"]}
    assert not [w for w in session.warnings if "has no result" in str(w) or "no assistant call" in str(w)]
    _replays_clean(session)


def test_letta_s_newer_schema_is_a_session_per_agent():
    agent = json.loads(LETTA.read_text())
    second = {**agent, "name": "helper"}
    data = json.dumps({"agents": [agent, second], "groups": [], "blocks": []}).encode()
    sessions = read_bytes(data, "team.af")
    assert [s.name for s in sessions] == [agent["name"], "helper"]
    assert all(s.turns == 28 for s in sessions)


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
    figures = _replays_clean(session)
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
    _replays_clean(folder)


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


def test_a_cline_call_answered_by_a_task_resumption_is_sent_as_result_missing_as_cline_sends_it():
    """Cline's ContextManager (v3.38.0, ensureToolResultsFollowToolUse) gives every call of a
    reply a result in the next user message, "result missing" where there is none: the raw
    history is as valid as what Cline sent, not invalid from that call on."""
    history = [
        {"role": "user", "ts": 1, "content": [{"type": "text", "text": "<task>fix it</task>"}]},
        {
            "role": "assistant",
            "ts": 2,
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "execute_command", "input": {"command": "ls"}}
            ],
        },
        {"role": "user", "ts": 3, "content": [{"type": "text", "text": "[TASK RESUMPTION] go on"}]},
        {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "Resuming."}]},
        {"role": "user", "ts": 5, "content": [{"type": "text", "text": "thanks"}]},
        {"role": "assistant", "ts": 6, "content": [{"type": "text", "text": "Done."}]},
    ]
    (session,) = read_bytes(json.dumps(history).encode(), "api_conversation_history.json")
    assert [m.role for m in session.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert session.messages[2].content == "result missing" and session.messages[2].tool_call_ids == (
        "toolu_1",
    )
    assert any(str(w).startswith("1 call answered by no result") for w in session.warnings)
    assert any('sent with the result "result missing"' in str(w) for w in session.warnings)
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["turns_with_violations"] == figures["raw_turns_with_violations"] == 0


def test_the_raw_history_s_own_broken_pairs_are_counted_beside_the_stack_s():
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}],
        },
        {"role": "user", "content": "never mind"},  # c1 never answered: every later request breaks the rule
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "and?"},
        {"role": "assistant", "content": "done"},
    ]
    (session,) = read_bytes(json.dumps(messages).encode(), "chat.json")
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["raw_turns_with_violations"] == figures["turns_with_violations"] == 2


def test_an_openhands_resolver_output_of_action_observation_pairs_reads_as_the_events():
    """The resolver's output.jsonl (before OpenHands 0.10) holds its history as [action,
    observation] pairs: read as the same events, the same calls and usage."""
    line = json.loads((FORMATS / "openhands" / "multi_swe_bench_output.jsonl").read_text().splitlines()[0])
    events = line["history"]
    pairs, i = [], 0
    while i < len(events):
        if i + 1 < len(events) and "action" in events[i] and "observation" in events[i + 1]:
            pairs.append([events[i], events[i + 1]])
            i += 2
        else:
            pairs.append([events[i], {}])
            i += 1
    resolver = {
        "number": 12,
        "issue": {"title": "t"},
        "git_patch": "",
        "history": pairs,
        "metrics": line["metrics"],
    }
    (paired,) = read_bytes(json.dumps(resolver).encode(), "output.jsonl")
    (flat,) = read_bytes(json.dumps(line).encode(), "output.jsonl")
    assert paired.turns == flat.turns == len(line["metrics"]["token_usages"])
    assert paired.usage == flat.usage


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
    _replays_clean(session)


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
    figures = _replays_clean(session)
    assert figures["turns"] == 1
    result = replay(session, [], Config().settings_for(session))
    assert [m.content for m in result.turns[0].request][1] == "Let me look at the parser and"
    assert any("aborted" in str(w) for w in session.warnings)


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


def test_a_cline_reply_of_many_calls_reads_in_linear_time():
    """Issue 49, 1: each tool_result filtered the whole list of calls still waiting."""

    def history(calls: int) -> bytes:
        uses = [{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {}} for i in range(calls)]
        results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x"} for i in range(calls)]
        return json.dumps(
            [
                {"role": "user", "ts": 1, "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "ts": 2, "content": uses},
                {"role": "user", "ts": 3, "content": results},
                {"role": "assistant", "ts": 4, "content": [{"type": "text", "text": "done"}]},
            ]
        ).encode()

    for calls in (4_000, 8_000):
        (session,) = read_bytes(history(calls), "api_conversation_history.json")
        assert session.tool_calls == calls
    timings = [
        best_cpu_time(read_bytes, history(calls), "api_conversation_history.json") for calls in (4_000, 8_000)
    ]
    assert timings[1] < 3 * timings[0] + 0.3


@pytest.mark.parametrize("sent", ["1.2.3", "1,2,3,4.5.6", "9" * 400, "99999999999999999k"])
def test_an_aider_tokens_line_that_does_not_read_is_said_and_the_rest_is_read(sent):
    """Issue 49, 5 and 8: a ValueError traceback, or 1e20 tokens, before."""
    log = (
        "# aider chat started at 2025-01-01 10:00:00\n\n#### fix it\n\nDone.\n\n"
        f"> Tokens: {sent} sent, 104 received. Cost: $0.01 message, $0.01 session.\n\n#### more\n\nOK.\n"
    )
    (session,) = read_bytes(log.encode(), ".aider.chat.history.md")
    assert session.turns == 2 and not session.usage
    assert any("a Tokens line that does not read" in str(w) for w in session.warnings)


def test_a_file_of_thousands_of_warnings_lists_fifty_and_counts_the_rest():
    """Issue 49, 6: 49,999 duplicate-id warnings were drawn one by one."""
    messages = [{"role": "user", "content": "go"}]
    for _ in range(3_000):
        call = {"id": "same", "function": {"name": "ls", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "same", "content": "x"},
        ]
    (session,) = read_bytes(json.dumps(messages).encode(), "chat.json")
    assert len(session.warnings) == 51
    assert str(session.warnings[-1]).endswith("2,949 more warnings, not listed (the first 50 are)")
