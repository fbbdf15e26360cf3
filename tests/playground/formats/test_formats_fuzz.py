"""Random mutations of valid transcripts never produce a traceback: a session or a clear error.

Beyond structural mutations: hostile leaves (NaN, infinities, huge integers, lone
surrogates, deep nesting), keys inserted where a reader looks for them, and hostile
configs. A refusal is one line naming the file; a session read replays and its requests
write out as UTF-8 JSON Lines.
"""

import io
import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.engine.replay import replay
from playground.engine.session import TranscriptError
from playground.formats import contexts_file, read_bytes
from playground.stacks.config import Config, ConfigError, parse_config
from policies import PolicySpec
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = SYNTHETIC
SMALL = {
    "openai": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "u"}]},
        {
            "role": "assistant",
            "content": "a",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "assistant", "content": "done", "usage": {"prompt_tokens": 9}},
    ],
    "anthropic": {
        "system": "s",
        "messages": [
            {"role": "user", "content": "u"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "r"}]}
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        ],
    },
    "responses": [
        {"role": "user", "content": "u"},
        {"type": "function_call", "call_id": "f1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "f1", "output": "r"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
    ],
    "langchain": [
        {"type": "human", "data": {"content": "u"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1"}]}},
        {"type": "tool", "data": {"content": "r", "tool_call_id": "c1"}},
        {"type": "ai", "data": {"content": "done"}},
    ],
    "runs": [
        {"name": "a", "messages": [{"role": "user", "content": "u"}, {"role": "assistant", "content": "x"}]}
    ],
}

# the agents' own logs, small: every reader the fuzzing below reaches
SMALL |= {
    "claude_code": [
        {"type": "summary", "summary": "t"},
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "u"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "timestamp": "2025-01-01T00:00:00Z",
         "message": {"id": "m1", "model": "claude-x", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                     "usage": {"input_tokens": 3, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 1, "output_tokens": 2}}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 9}},
        {"type": "user", "isCompactSummary": True, "sessionId": "s", "message": {"role": "user", "content": "sum"}},
        {"type": "user", "uuid": "s1", "parentUuid": None, "isSidechain": True, "sessionId": "s", "message": {"role": "user", "content": "task"}},
        {"type": "assistant", "uuid": "s2", "parentUuid": "s1", "isSidechain": True, "sessionId": "s", "message": {"id": "m2", "content": [{"type": "text", "text": "ok"}]}},
    ],
    "codex": [
        {"type": "session_meta", "payload": {"id": "x"}},
        {"type": "turn_context", "payload": {"model": "m"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "u"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1}, "last_token_usage": {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1}}}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": "r"}},
        {"type": "compacted", "payload": {"message": "s", "replacement_history": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "u"}]}]}},
    ],
    "openhands": [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "u"}},
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "t"},
         "tool_call_metadata": {"tool_call_id": "c", "function_name": "bash", "model_response": {"id": "r", "usage": {"prompt_tokens": 4}}}},
        {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "out", "tool_call_metadata": {"tool_call_id": "c"}},
    ],
    "inspect": {
        "version": 2, "eval": {"task": "t"}, "samples": [{"id": 1, "epoch": 1, "message_pool": [{"id": "p", "role": "user", "content": "u"}],
            "events": [{"event": "model", "model": "openai/x", "input_refs": [[0, 1]],
                        "output": {"choices": [{"message": {"role": "assistant", "content": "a"}}], "usage": {"input_tokens": 3}}}]}],
    },
    "langfuse": {"id": "t", "observations": [
        {"type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "input": [{"role": "user", "content": "u"}],
         "output": {"role": "assistant", "content": "a"}, "usageDetails": {"input": 2, "output": 1}, "metadata": {"cacheRead": 1}}]},
    "gemini": {"sessionId": "s", "messages": [
        {"type": "user", "content": "u"},
        {"type": "gemini", "content": "a", "toolCalls": [{"id": "c", "name": "f", "args": {}, "result": [{"functionResponse": {"response": {"output": "r"}}}]}],
         "tokens": {"input": 2, "cached": 1, "output": 1}}]},
    "gemini_stream": [
        {"type": "init", "session_id": "s", "model": "m"},
        {"type": "message", "role": "user", "content": "u"},
        {"type": "message", "role": "assistant", "content": "a", "delta": True},
        {"type": "tool_use", "tool_name": "f", "tool_id": "c", "parameters": {}},
        {"type": "tool_result", "tool_id": "c", "output": "r"},
        {"type": "result", "stats": {"input_tokens": 3}},
    ],
    "opencode": {"info": {"id": "ses", "title": "t"}, "messages": [
        {"info": {"role": "user"}, "parts": [{"type": "text", "text": "u"}]},
        {"info": {"role": "assistant", "modelID": "m"}, "parts": [
            {"type": "step-start"}, {"type": "tool", "callID": "c", "tool": "read", "state": {"input": {}, "output": "r"}},
            {"type": "step-finish", "tokens": {"input": 1, "output": 1, "cache": {"read": 2, "write": 0}}}]}]},
    "cline": [
        {"role": "user", "ts": 1, "content": [{"type": "text", "text": "u"}]},
        {"role": "assistant", "ts": 2, "metrics": {"tokens": {"prompt": 3, "completion": 1, "cached": 0}},
         "content": [{"type": "tool_use", "id": "c", "name": "read_file", "input": {}}]},
        {"role": "user", "ts": 3, "content": [{"type": "text", "text": "[read_file] Result: r"}]},
    ],
    "pydantic_ai": [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "u"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": "c"}],
         "usage": {"input_tokens": 2, "output_tokens": 1}, "model_name": "m"},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "r", "tool_call_id": "c"}]},
    ],
}  # fmt: skip
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5,
)


def paths(value, prefix=()):
    """Every path to a value inside nested lists and dicts."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def mutate(document, path, action, replacement):
    document = json.loads(json.dumps(document))
    if not path:
        return replacement if action == "replace" else document
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    if action == "replace":
        parent[key] = replacement
    elif action == "remove":
        del parent[key]
    elif action == "shuffle" and isinstance(parent, list):
        parent.reverse()
    return document


def must_read_or_refuse(data: bytes) -> None:
    try:
        sessions = read_bytes(data, "fuzz.json")
    except TranscriptError as error:
        assert str(error).startswith("fuzz.json")
        assert "\n" not in str(error)
        return
    for session in sessions:
        result = replay(
            session,
            [
                PolicySpec("ToolEvictionPolicy", {"keep_last_n": 0}),
                PolicySpec("SlidingWindowPolicy", {"max_messages": 2}),
            ],
        )
        for form in ("full", "delta"):
            out = io.StringIO()
            contexts_file.write(result, out, form)
            out.getvalue().encode("utf-8")  # what --contexts writes: never a lone surrogate


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.data(), st.sampled_from(["replace", "remove", "shuffle"]), ANY_JSON)
def test_structural_mutations_never_crash(kind, data, action, replacement):
    document = SMALL[kind]
    path = data.draw(st.sampled_from(list(paths(document))))
    must_read_or_refuse(json.dumps(mutate(document, path, action, replacement)).encode())


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.integers(min_value=0, max_value=10_000))
def test_truncations_never_crash(kind, cut):
    text = json.dumps(SMALL[kind]).encode()
    must_read_or_refuse(text[: cut % (len(text) + 1)])


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(p.name for p in SAMPLES.glob("*.json*"))), st.integers(min_value=0))
def test_truncated_samples_never_crash(name, cut):
    text = (SAMPLES / name).read_bytes()
    must_read_or_refuse(text[: cut % len(text)])


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(blob):
    must_read_or_refuse(blob)


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_LEAVES = (
    st.floats()  # NaN and both infinities included
    | st.sampled_from([10**30, -(10**30), 1e308, -1, 2**63, 0.5])
    | st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2)
    | st.integers(min_value=1, max_value=600).map(_nested)  # past our limit, within json.dumps's
)
FIELDS = [
    "name", "role", "content", "tool_calls", "usage", "prompt_tokens", "input_tokens", "type", "id",
    "text", "summary", "data", "function", "arguments", "tool_call_id", "call_id", "system", "tools",
    "usage_metadata", "response_metadata", "token_usage", "cache_read_input_tokens", "messages",
    "message", "payload", "parts", "tokens", "toolCalls", "events", "observations", "metadata", "usageDetails",
    "isSidechain", "isCompactSummary", "tool_use_id", "callID", "state", "part_kind", "kind", "metrics",
    "tool_call_metadata", "model_response", "input_refs", "message_pool", "sessionId", "uuid", "parentUuid",
    "replacement_history", "info", "compactMetadata", "samples", "eval", "delta",
]  # fmt: skip


def depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def dict_paths(value, prefix=()):
    """Every path to a dict inside nested lists and dicts (where a key can be inserted)."""
    if isinstance(value, dict):
        yield prefix
        for key, item in value.items():
            yield from dict_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from dict_paths(item, (*prefix, index))


def dumps(document) -> bytes:
    """JSON as a hostile writer may produce it: NaN and Infinity spelt out, surrogates escaped."""
    return json.dumps(document, allow_nan=True).encode()


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.data(), HOSTILE_LEAVES)
def test_hostile_leaves_anywhere_never_crash(kind, data, leaf):
    document = SMALL[kind]
    path = data.draw(st.sampled_from(list(paths(document))))
    must_read_or_refuse(dumps(mutate(document, path, "replace", leaf)))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SMALL)), st.data(), st.sampled_from(FIELDS), ANY_JSON | HOSTILE_LEAVES)
def test_keys_inserted_where_readers_look_never_crash(kind, data, field, value):
    document = json.loads(json.dumps(SMALL[kind]))
    path = data.draw(st.sampled_from(list(dict_paths(document))))
    target = document
    for step in path:
        target = target[step]
    target[field] = value
    must_read_or_refuse(dumps(document))


CONFIG = {
    "version": 1,
    "model": "gpt-4o",
    "context_window": 128000,
    "stack": [{"ToolOutputClipPolicy": {"max_chars": 8000}}, "SlidingWindowPolicy"],
    "summarizer": {"kind": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1", "timeout": 5},
}


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["replace", "remove", "insert"]), ANY_JSON | HOSTILE_LEAVES)
def test_hostile_configs_are_read_or_refused_in_one_line(data, action, value):
    document = json.loads(json.dumps(CONFIG))
    if action == "insert":
        path = data.draw(st.sampled_from(list(dict_paths(document))))
        target = document
        for step in path:
            target = target[step]
        target[data.draw(st.sampled_from([*FIELDS, "plugins", "enabled", "max_chars", "kind"]))] = value
    else:
        path = data.draw(st.sampled_from(list(paths(document))))
        document = mutate(document, path, action, value)
    texts = [dumps(document).decode()]
    if depth(document) < 100:  # yaml.safe_dump itself recurses
        texts.append(yaml.safe_dump(document))
    for text in texts:
        try:
            config = parse_config(text, "fuzz.yaml", allow_plugins=False)
        except ConfigError as error:
            # one line; its length bound leaves room for the list of known policies, which grows
            # with the registry (an unknown name is answered with every name it could have been)
            assert str(error).startswith("fuzz.yaml: ") and "\n" not in str(error) and len(str(error)) < 1200
            continue
        assert isinstance(config, Config)
        parse_config(config.to_yaml(), "again.yaml")  # what it accepts, it writes back readable


JSONL_KINDS = ["claude_code", "codex", "gemini_stream"]


@given(st.sampled_from(JSONL_KINDS), st.integers(min_value=0, max_value=10_000), st.data())
def test_agent_logs_as_jsonl_cut_anywhere_or_with_a_foreign_line_never_crash(kind, cut, data):
    lines = [json.dumps(line) for line in SMALL[kind]]
    if data.draw(st.booleans()):
        lines.insert(
            data.draw(st.integers(0, len(lines))),
            data.draw(st.sampled_from(['{"role": "user"', "[1, 2]", "garbage", '{"type": "x"}'])),
        )
    text = "\n".join(lines).encode()
    must_read_or_refuse(text[: cut % (len(text) + 1)])
