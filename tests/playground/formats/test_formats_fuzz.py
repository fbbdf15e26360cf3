"""Random mutations of valid transcripts never produce a traceback: a session or a clear error.

Beyond structural mutations: hostile leaves (NaN, infinities, huge integers, lone
surrogates, deep nesting), keys inserted where a reader looks for them, and hostile
configs. A refusal is one line naming the file; a session read replays and its requests
write out as UTF-8 JSON Lines.
"""

import io
import json
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.engine.replay import replay
from playground.engine.session import TranscriptError
from playground.formats import contexts_file, read_bytes
from playground.stacks.config import Config, ConfigError, parse_config
from policies import PolicySpec

SAMPLES = Path(__file__).parents[3] / "sample_sessions"
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
