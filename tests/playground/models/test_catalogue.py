"""Issue 48: one catalogue of models, which the app, the CLI and the config file all read."""

from __future__ import annotations

import pytest

from playground.models.catalogue import DOCUMENTED_WINDOWS, PICKER, model, window_of
from playground.stacks.config import Config, parse_config


@pytest.mark.parametrize("name", PICKER)
def test_the_app_the_cli_and_a_config_file_give_every_picker_model_one_window(name):
    """They disagreed on gpt-4.1, claude-sonnet-4-6, deepseek-chat and gemini-2.5-pro."""
    cli = Config()
    cli.name_model(name)  # playground replay --model NAME
    from_file = parse_config(f"version: 1\nmodel: {name}\n", "stack.yaml")
    assert (
        cli.settings.context_window
        == from_file.settings.context_window
        == window_of(name)
        == model(name).window
    )


@pytest.mark.parametrize(
    "name, window",
    [
        ("gpt-4.1", 1_047_576),  # OpenAI's figure, not genai-prices' 1,000,000
        ("gemini-2.5-pro", 1_048_576),  # genai-prices has none: the CLI fell back to 128,000
        ("deepseek-chat", 128_000),  # genai-prices' 64,000 is V3.0's
        ("claude-sonnet-4-6", 200_000),  # 1M only on request
        ("claude-sonnet-4-6[1m]", 1_000_000),
        ("gpt-4o", 128_000),
    ],
)
def test_each_window_is_the_providers_documented_one(name, window):
    assert window_of(name) == window


def test_a_documented_window_says_where_it_comes_from():
    for name, (window, source) in DOCUMENTED_WINDOWS.items():
        found = model(name)
        assert found.window == window and found.window_source == source and "genai-prices" in source


def test_a_request_over_anthropics_default_window_tells_the_agent_asked_for_the_larger_one():
    assert (
        model("claude-opus-4-6").window == 200_000 and model("claude-opus-4-6").extended_window == 1_000_000
    )
    assert window_of("claude-opus-4-6", seen=230_000) == 1_000_000


@pytest.mark.parametrize(
    "name, same_as",
    [
        ("claude_4_5_opus", "claude-opus-4-5"),  # Cline
        ("litellm_proxy/anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),  # mini-swe-agent via LiteLLM
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),  # Inspect AI
        ("deepseek/deepseek-chat", "deepseek-chat"),
    ],
)
def test_a_name_an_agent_or_a_router_gives_is_the_model_it_stands_for(name, same_as):
    given, plain = model(name), model(same_as)
    assert given.price is not None and given.price.model == plain.price.model
    assert (given.window, given.cache_rule, given.provider) == (
        plain.window,
        plain.cache_rule,
        plain.provider,
    )


def test_another_vendors_model_is_counted_with_o200k_base_and_said_to_be_approximate():
    assert (model("gpt-4o").encoding, model("gpt-4o").encoding_exact) == ("o200k_base", True)
    assert (model("gpt-4-turbo").encoding, model("gpt-4-turbo").encoding_exact) == ("cl100k_base", True)
    assert (model("claude-sonnet-4-5").encoding, model("claude-sonnet-4-5").encoding_exact) == (
        "o200k_base",
        False,
    )


def test_each_provider_has_its_own_cache_rule():
    rules = {
        name: model(name).cache_rule.name
        for name in ("gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash", "deepseek-chat")
    }
    assert rules == {
        "gpt-4o": "openai",
        "claude-sonnet-4-5": "anthropic",
        "gemini-2.5-flash": "google",
        "deepseek-chat": "deepseek",
    }
    unknown = model("my-own-model")
    assert unknown.price is None and unknown.cache_rule.name == "none" and unknown.window == 128_000
