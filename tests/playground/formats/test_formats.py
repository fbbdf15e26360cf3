import json

import pytest

from playground.engine.session import TranscriptError
from playground.formats import READABLE, read_bytes, read_messages, read_path
from playground.formats.openai_chat import to_openai
from playground.limits import LIMITS
from policies.messages import ToolCall
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = SYNTHETIC


def read(data, file="t.json"):
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return read_bytes(raw, file)


def only(data, file="t.json"):
    sessions = read(data, file)
    assert len(sessions) == 1
    return sessions[0]


# --- OpenAI chat -------------------------------------------------------------------


def test_the_real_mini_swe_agent_trajectory(real_session_path):
    session = read_path(real_session_path)[0]
    assert session.format == "mini-swe-agent trajectory"
    assert session.name == "astropy__astropy-12907"
    assert len(session.messages) == 129 and session.tool_calls == 64 and session.turns == 64
    assert session.usage[2] == 1689  # extra.response.usage.prompt_tokens
    assert str(session.warnings[0]) == "message 129: unknown role 'exit': left out of the replay"
    assert session.messages[3].tool_call_ids == ("call_00_KVNoGhlWmTJUowwDsUa74968",)
    assert session.messages[3].name is None  # it recorded none: counted and sent without one


def test_content_parts_images_developer_and_legacy_function_calls():
    session = only(
        [
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "data:..."}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "lookup", "arguments": '{"q": 1}'},
            },
            {"role": "function", "name": "lookup", "content": "found"},
            {"role": "assistant", "content": "A cat.", "usage": {"prompt_tokens": 50}},
        ]
    )
    roles = [m.role for m in session.messages]
    assert roles == ["developer", "user", "assistant", "tool", "assistant"]
    assert session.messages[1].content == "What is this?\n[image]"
    call = session.messages[2].tool_calls[0]
    assert (call.name, call.arguments) == ("lookup", '{"q": 1}')
    assert session.messages[3].tool_call_ids == (call.id,)
    assert session.usage == {4: 50}


def test_jsonl_one_message_per_line():
    lines = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    session = only("\n".join(json.dumps(x) for x in lines).encode() + b"\n", "t.jsonl")
    assert [m.content for m in session.messages] == ["hi", "hello"]


def test_swe_agent_tool_messages_answer_several_calls():
    session = only(
        {
            "history": [
                {"role": "system", "content": "sys", "agent": "main"},
                {
                    "role": "assistant",
                    "content": "two",
                    "tool_calls": [
                        {"id": "a", "function": {"name": "ls", "arguments": {}}},
                        {"id": "b", "function": {"name": "cat", "arguments": {"f": "x"}}},
                    ],
                },
                {
                    "role": "tool",
                    "content": "both outputs",
                    "tool_call_ids": ["a", "b"],
                    "message_type": "observation",
                },
                {"role": "assistant", "content": "done"},
            ],
            "trajectory": [],
        }
    )
    assert session.messages[2].tool_call_ids == ("a", "b")
    assert session.messages[1].tool_calls[1] == ToolCall("b", "cat", '{"f": "x"}')
    assert not session.warnings


# --- Anthropic ---------------------------------------------------------------------


def test_anthropic_blocks_become_messages():
    session = only(
        {
            "system": [{"type": "text", "text": "You are terse."}],
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Use the tool."},
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
                    ],
                    "usage": {"input_tokens": 100, "cache_read_input_tokens": 400, "output_tokens": 20},
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": [{"type": "text", "text": "18°C"}],
                        },
                        {"type": "text", "text": "Thanks, and Rome?"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Rome"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_2",
                            "content": "timeout",
                            "is_error": True,
                        }
                    ],
                },
                {"role": "assistant", "content": "Rome is unavailable."},
            ],
        }
    )
    assert session.format == "anthropic-messages"
    assert [m.role for m in session.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert session.messages[0].content == "You are terse."
    # thinking is kept apart from the text: context editing clears it, and it is counted and sent
    assert session.messages[2].content == "Checking." and session.messages[2].thinking == "Use the tool."
    assert "Use the tool." in to_openai(session.messages[2])["thinking"]
    again = read_messages([to_openai(m) for m in session.messages], "again.json", "x")
    assert again.messages[2].thinking == "Use the tool."  # what --contexts writes reads back whole
    assert session.messages[2].tool_calls[0] == ToolCall("toolu_1", "weather", '{"city": "Paris"}')
    assert session.messages[3].content == "18°C" and session.messages[3].name is None  # as recorded
    assert session.messages[6].content == "[error] timeout"
    assert session.usage == {2: 500}


# --- Responses API and LangChain ---------------------------------------------------


def test_responses_items_join_into_one_inference():
    session = only(
        {
            "input": [
                {"role": "user", "content": "Sum 2 and 3."},
                {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Call add."}]},
                {"type": "function_call", "call_id": "fc_1", "name": "add", "arguments": '{"a": 2, "b": 3}'},
                {"type": "function_call_output", "call_id": "fc_1", "output": "5"},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "It is 5."}],
                },
            ]
        }
    )
    assert session.format == "openai-responses"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1].content == "[reasoning] Call add."
    assert session.messages[1].tool_calls[0].id == "fc_1"
    assert session.turns == 2


def test_langchain_dump():
    session = only(
        [
            {"type": "system", "data": {"content": "sys"}},
            {"type": "human", "data": {"content": "hi"}},
            {
                "type": "ai",
                "data": {
                    "content": "",
                    "tool_calls": [{"name": "search", "args": {"q": "x"}, "id": "c1"}],
                    "usage_metadata": {"input_tokens": 42},
                },
            },
            {"type": "tool", "data": {"content": "result", "tool_call_id": "c1", "name": "search"}},
            {
                "type": "ai",
                "data": {"content": "done", "response_metadata": {"token_usage": {"prompt_tokens": 60}}},
            },
        ]
    )
    assert session.format == "langchain"
    assert session.messages[2].tool_calls[0] == ToolCall("c1", "search", '{"q": "x"}')
    assert session.usage == {2: 42, 4: 60}


# --- several sessions in one file -------------------------------------------------


def test_a_list_of_runs_lists_every_session():
    runs = [
        {"name": "first", "messages": [{"role": "user", "content": "a"}]},
        {"id": 7, "traj": [{"role": "user", "content": "b"}]},
        {"history": [{"role": "user", "content": "c"}]},
    ]
    sessions = read(runs, "runs.json")
    assert [s.name for s in sessions] == ["first", "7", "runs#2"]


def test_an_error_in_one_run_names_the_run():
    runs = [
        {"name": "ok", "messages": [{"role": "user", "content": "a"}]},
        {"name": "bad", "messages": [{"role": "user", "content": 5}]},
    ]
    with pytest.raises(TranscriptError) as error:
        read(runs, "runs.json")
    assert (
        str(error.value)
        == "runs.json: session 1: message 0: content must be text or a list of parts, got a number"
    )


# --- bad input, each with its exact message --------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "t.json: the file is empty"),
        (b"  \n", "t.json: the file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "t.json: binary data, not a JSON or JSONL transcript"),
        (b"[\xff\xfe]", "t.json: byte 1: not UTF-8 text (binary data?)"),
        (
            b'[{"role": "user", "content": "hi"}',
            "t.json: line 1 column 35: invalid JSON: expecting ',' delimiter (the file looks truncated)",
        ),
        (
            b'{"messages": [{"role": "user", "content": "h',
            "t.json: line 1 column 43: invalid JSON: unterminated string (the file looks truncated)",
        ),
        (
            b"{'role': 'user'}",
            "t.json: line 1 column 2: invalid JSON: expecting property name enclosed in double quotes",
        ),
        (
            b'{"role": "user", "content": "a"}\n{"role": oops}\n',
            "t.json: line 2: invalid JSON Lines record: expecting value",
        ),
        (b"[]", "t.json: an empty list: no messages"),
        (b'"just text"', "t.json: top level: expected a list or an object, got str"),
        (
            b'{"info": {}, "data": 1}',
            "t.json: top level: no message list found (looked for messages, history, traj; keys: data, info)."
            f" Readable: {READABLE}",
        ),
        (b"[1, 2]", f"t.json: item 0: not a recognised message: 1. Readable: {READABLE}"),
        (
            b'[{"role": "user", "content": "a"}, 3]',
            "t.json: message 1: expected a message object, got a number",
        ),
        (
            b'[{"content": "a"}]',
            f't.json: item 0: not a recognised message: {{"content": "a"}}. Readable: {READABLE}',
        ),
        (b'[{"role": "tool", "content": "a"}]', "t.json: message 0: tool result has no tool_call_id"),
        (
            b'[{"role": "assistant", "tool_calls": [{"function": {"name": "x"}}]}]',
            "t.json: message 0: tool call 0 (x) has no id",
        ),
        (
            b'[{"role": "assistant", "tool_calls": {"id": 1}}]',
            "t.json: message 0: tool_calls must be a list, got an object",
        ),
        (
            b'[{"role": "user", "content": {"text": "a"}}]',
            "t.json: message 0: content must be text or a list of parts, got an object",
        ),
    ],
)
def test_bad_input_gets_a_clear_message(data, message):
    with pytest.raises(TranscriptError) as error:
        read_bytes(data, "t.json")
    assert str(error.value) == message


def test_unknown_roles_are_warnings_with_their_index():
    session = only(
        [
            {"role": "user", "content": "a"},
            {"role": "critic", "content": "b"},
            {"role": "assistant", "content": "c"},
        ]
    )
    assert [str(w) for w in session.warnings] == ["message 1: unknown role 'critic': left out of the replay"]
    assert len(session.messages) == 2


def test_files_over_the_limit_are_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as out:
        out.seek(LIMITS.max_file_bytes + 1)
        out.write(b"]")
    with pytest.raises(
        TranscriptError,
        match=r"big.json: 52,428,802 bytes; the limit is 52,428,800 bytes \(50 MiB\) \(PLAYGROUND_MAX_FILE_BYTES\)",
    ):
        read_path(big)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(TranscriptError, match=r"nope\.json: No such file or directory"):
        read_path(tmp_path / "nope.json")


# --- round trip --------------------------------------------------------------------


def _shape(session):
    return [(m.role, m.content, m.tool_calls, m.tool_call_ids, m.name) for m in session.messages]


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.json*")), ids=lambda p: p.name)
def test_every_sample_round_trips_through_openai_chat(path):
    for session in read_path(path):
        written = [to_openai(m) for m in session.messages]
        again = read_messages(json.loads(json.dumps(written)), "again.json", session.name)
        assert _shape(again) == _shape(session)


def test_the_real_session_round_trips(real_session_path):
    session = read_path(real_session_path)[0]
    again = read_messages([to_openai(m) for m in session.messages], "again.json", "x")
    assert _shape(again) == _shape(session)


def test_runs_of_an_eval_results_file_are_named_by_task_trial_and_reward(tmp_path):
    runs = [
        {
            "task_id": i // 2,
            "trial": i % 2,
            "reward": float(i % 3 == 0),
            "info": {},
            "traj": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        }
        for i in range(200)
    ]
    path = tmp_path / "tau_results.json"
    path.write_text(json.dumps(runs))
    sessions = read_path(path)
    assert [s.name for s in sessions[:3]] == [
        "task 0 · trial 0 · reward 1",
        "task 0 · trial 1 · reward 0",
        "task 1 · trial 0 · reward 0",
    ]
    assert len({s.name for s in sessions}) == 200
    named = [{"name": "incident-1", "task_id": 3, "messages": runs[0]["traj"]}]
    path.write_text(json.dumps([*named, {"messages": runs[0]["traj"]}]))
    assert [s.name for s in read_path(path)] == ["incident-1", "tau_results#1"]  # its own name first


SAMPLES = SYNTHETIC


def otlp(*spans: dict) -> dict:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def span(n: int, attributes: dict, trace: str = "t1") -> dict:
    pairs = [
        {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
        for k, v in attributes.items()
    ]
    return {
        "traceId": trace,
        "spanId": f"{n:016x}",
        "name": "chat",
        "startTimeUnixNano": str(n * 10**9),
        "attributes": pairs,
    }


def test_an_opentelemetry_genai_trace_reads_as_the_session_its_spans_sent():
    [traced] = read_path(SAMPLES / "data_analyst_otel_trace.json")
    [chat] = read_path(SAMPLES / "data_analyst_orders.jsonl")
    assert traced.format == "otel-genai" and traced.name == "gpt-4o trace 5b8efff79803"
    assert [(m.role, m.content, m.tool_calls, m.tool_call_ids) for m in traced.messages] == [
        (m.role, m.content, m.tool_calls, m.tool_call_ids) for m in chat.messages
    ]
    assert len(traced.usage) == traced.turns == 24  # each span's recorded input tokens, on its reply
    assert len(traced.times) == 24 and not traced.warnings


def test_an_otel_span_whose_input_does_not_continue_the_history_is_read_and_said():
    user = lambda text: {"role": "user", "parts": [{"type": "text", "content": text}]}  # noqa: E731
    reply = lambda text: json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])  # noqa: E731
    data = otlp(
        span(
            2,
            {
                "gen_ai.input.messages": json.dumps(
                    [user("a"), {"role": "assistant", "parts": [{"type": "text", "content": "b"}]}, user("c")]
                ),
                "gen_ai.output.messages": reply("d"),
            },
        ),
        span(
            1,
            {
                "gen_ai.input.messages": json.dumps([user("a")]),
                "gen_ai.output.messages": reply("b"),
                "gen_ai.usage.input_tokens": 7,
            },
        ),
        span(
            3,
            {
                "gen_ai.input.messages": json.dumps([user("summary of a-d"), user("e")]),
                "gen_ai.output.messages": reply("f"),
            },
        ),
    )
    [session] = read_bytes(json.dumps(data).encode(), "t.json")
    assert [m.content for m in session.messages] == ["a", "b", "c", "d", "summary of a-d", "e", "f"]
    assert session.usage == {1: 7}
    assert "does not continue the history" in str(session.warnings[0])


def test_openllmetry_flattened_prompt_attributes_are_read():
    attributes = {
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "weather in Oslo?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Oslo"}',
    }
    second = {
        **attributes,
        "gen_ai.prompt.1.role": "assistant",
        "gen_ai.prompt.1.tool_calls.0.id": "c1",
        "gen_ai.prompt.1.tool_calls.0.name": "weather",
        "gen_ai.prompt.1.tool_calls.0.arguments": '{"city": "Oslo"}',
        "gen_ai.prompt.2.role": "tool",
        "gen_ai.prompt.2.tool_call_id": "c1",
        "gen_ai.prompt.2.content": "-3 C",
        "gen_ai.completion.0.content": "It is -3 C.",
    }
    del second["gen_ai.completion.0.tool_calls.0.id"], second["gen_ai.completion.0.tool_calls.0.name"]
    spans = [
        {"context": {"trace_id": "0xabc"}, "name": "openai.chat", "start_time": t, "attributes": a}
        for t, a in (("2026-11-30T10:00:00Z", attributes), ("2026-11-30T10:00:05Z", second))
    ]
    [session] = read_bytes(json.dumps(spans).encode(), "spans.json")
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "weather in Oslo?"),
        ("assistant", ""),
        ("tool", "-3 C"),
        ("assistant", "It is -3 C."),
    ]
    assert session.messages[1].tool_calls[0].name == "weather" and session.messages[2].tool_call_ids == (
        "c1",
    )


def test_a_trace_without_recorded_prompts_says_what_it_found_and_how_to_get_them():
    data = otlp(span(1, {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12}))
    with pytest.raises(
        TranscriptError,
        match=r"1 span\(s\), none with gen_ai.input.messages.*gen_ai.operation.name, gen_ai.usage.input_tokens.*CAPTURE_MESSAGE_CONTENT",
    ):
        read_bytes(json.dumps(data).encode(), "t.json")
    bad = otlp(span(1, {"gen_ai.input.messages": json.dumps([{"parts": []}])}))
    with pytest.raises(TranscriptError, match=r"gen_ai.input.messages\[0\] has no role"):
        read_bytes(json.dumps(bad).encode(), "t.json")
    with pytest.raises(TranscriptError, match="attributes must be a list or a mapping"):
        read_bytes(
            json.dumps(
                {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "x", "attributes": 3}]}]}]}
            ).encode(),
            "t.json",
        )
