"""Random mutations of valid transcripts never produce a traceback: a session or a clear error."""

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.formats import read_bytes
from playground.replay import replay
from playground.session import TranscriptError
from policies import PolicySpec

SAMPLES = Path(__file__).parents[2] / "sample_sessions"
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
        replay(
            session,
            [
                PolicySpec("ToolEvictionPolicy", {"keep_last_n": 0}),
                PolicySpec("SlidingWindowPolicy", {"max_messages": 2}),
            ],
        )


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
