"""What a message says, where facts are looked for."""

import json

from hypothesis import given
from hypothesis import strategies as st

from policies.messages import Message, ToolCall, arguments_said, said, said_parts

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


def _written(data: object) -> list[str]:
    """Each value as JSON writes it (a string as it is), in document order: the plain form."""
    if isinstance(data, dict):
        return [text for value in data.values() for text in _written(value)]
    if isinstance(data, list):
        return [text for value in data for text in _written(value)]
    if isinstance(data, str):
        return [data]
    return [] if data is None else [json.dumps(data)]


@given(JSON)
def test_arguments_say_their_values_as_json_writes_them(data):
    text = json.dumps(data)
    assert arguments_said(text) == ("\n".join(_written(data)) if text.startswith(("{", "[")) else text)


def test_a_call_says_its_values_decoded_and_its_keys_say_nothing():
    call = ToolCall("c1", "book", '{"flight": "EQ1G6C", "seats": 2, "window": true, "note": "a\\nb"}')
    message = Message("assistant", "Booking it.", tool_calls=(call,), thinking="Check the fare.")
    assert said_parts(message) == ["Check the fare.", "Booking it.", "EQ1G6C\n2\ntrue\na\nb"]
    assert said(message) == "Check the fare. Booking it. EQ1G6C\n2\ntrue\na\nb"
