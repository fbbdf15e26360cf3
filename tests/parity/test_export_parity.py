"""The exports, loaded by the frameworks themselves: objects built, no model called."""

from __future__ import annotations

import inspect
import json
import typing

import pytest

from playground.engine.replay import Settings
from playground.export import export
from playground.stacks.presets import PRESETS
from policies.registry import PolicySpec
from tests.parity.conftest import require

pytestmark = pytest.mark.parity
STACKS = {
    **PRESETS,
    "tuned": [
        PolicySpec(
            "LangChainSummarizationPolicy",
            {
                "trigger_tokens": 9_000,
                "trigger_messages": 40,
                "trigger_mode": "all",
                "keep_kind": "tokens",
                "keep_value": 3_000,
                "summary_prompt": "Keep {paths} exact.",
            },
        ),
        PolicySpec(
            "ClearToolUsesPolicy",
            {
                "flavour": "langchain",
                "trigger": 50_000,
                "keep": 5,
                "clear_at_least": 1_000,
                "exclude_tools": ["memory"],
                "clear_tool_inputs": True,
                "placeholder": "[gone]",
            },
        ),
        PolicySpec(
            "ToolOutputTrimmerPolicy",
            {"recent_turns": 3, "max_output_chars": 900, "preview_chars": 120, "trimmable_tools": ["bash"]},
        ),
    ],
}


def run_export(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "export", "exec"), namespace)  # our own generated code, in a test
    return namespace


@pytest.mark.parametrize("stack", list(STACKS))
def test_langchain_builds_the_exported_middleware(stack, monkeypatch):
    require("langchain")
    from langchain.agents.middleware import summarization
    from langchain.agents.middleware.context_editing import ClearToolUsesEdit, ContextEditingMiddleware
    from langchain.agents.middleware.summarization import SummarizationMiddleware
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    def fake_model(name, **_):
        return FakeListChatModel(responses=["unused"], profile={"max_input_tokens": 128_000})

    monkeypatch.setattr(summarization, "init_chat_model", fake_model)  # no provider package, no call
    namespace = run_export(export(STACKS[stack], Settings(), "langchain").text)
    built = namespace["middleware"]
    expected = [
        s
        for s in STACKS[stack]
        if s.name == "LangChainSummarizationPolicy"
        or (s.name == "ClearToolUsesPolicy" and s.params.get("flavour") == "langchain")
    ]
    assert len(built) == len(expected)
    for spec, middleware in zip(expected, built, strict=True):
        policy = spec.build()
        if spec.name == "ClearToolUsesPolicy":
            assert isinstance(middleware, ContextEditingMiddleware)
            (edit,) = middleware.edits
            assert isinstance(edit, ClearToolUsesEdit)
            assert (
                edit.trigger,
                edit.keep,
                edit.clear_at_least,
                edit.clear_tool_inputs,
                tuple(edit.exclude_tools),
                edit.placeholder,
            ) == (
                policy.trigger,
                policy.keep,
                policy.clear_at_least,
                policy.clear_tool_inputs,
                policy.exclude_tools,
                policy.placeholder,
            )
        else:
            assert isinstance(middleware, SummarizationMiddleware)
            clauses = {
                k: v
                for k in ("tokens", "messages", "fraction")
                if (v := getattr(policy, f"trigger_{k}")) is not None
            }
            if policy.trigger_mode == "all":
                assert middleware._trigger_clauses == [clauses]
            else:
                assert middleware._trigger_clauses == [{k: v} for k, v in clauses.items()]
            assert middleware.keep[0] == policy.keep_kind and middleware.keep[1] == pytest.approx(
                policy.keep_value
            )
            assert middleware.summary_prompt.format(messages="M").startswith(policy.summary_prompt)


@pytest.mark.parametrize("stack", list(STACKS))
def test_the_openai_agents_sdk_builds_the_exported_run_config(stack):
    require("openai-agents")
    from agents import RunConfig
    from agents.extensions.tool_output_trimmer import ToolOutputTrimmer

    namespace = run_export(export(STACKS[stack], Settings(), "openai-agents").text)
    config = namespace["run_config"]
    assert isinstance(config, RunConfig)
    specs = [s for s in STACKS[stack] if s.name == "ToolOutputTrimmerPolicy"]
    if not specs:
        assert config.call_model_input_filter is None
        return
    trimmer, policy = config.call_model_input_filter, specs[0].build()
    assert isinstance(trimmer, ToolOutputTrimmer)
    assert (trimmer.recent_turns, trimmer.max_output_chars, trimmer.preview_chars) == (
        policy.recent_turns,
        policy.max_output_chars,
        policy.preview_chars,
    )
    assert trimmer.trimmable_tools == (frozenset(policy.trimmable_tools) if policy.trimmable_tools else None)


@pytest.mark.parametrize("stack", list(STACKS))
def test_the_anthropic_json_validates_against_the_sdks_types(stack):
    require("anthropic")
    from anthropic.types.anthropic_beta_param import AnthropicBetaParam
    from anthropic.types.beta.beta_context_management_config_param import Edit
    from pydantic import TypeAdapter, ValidationError

    edit = TypeAdapter(Edit)  # each edit: the config's Iterable[Edit] is validated lazily
    with pytest.raises(ValidationError):
        edit.validate_python({"type": "clear_tool_uses_20250919", "keep": {"type": "turns", "value": 3}})
    document = json.loads(export(STACKS[stack], Settings(), "anthropic").text)
    assert set(document["context_management"]) == {"edits"}
    for item in document["context_management"]["edits"]:
        assert edit.validate_python(item) == item
    known = set(typing.get_args(typing.get_args(AnthropicBetaParam)[1]))
    assert "context-management-2025-06-27" in known
    for beta in document.get("betas", []):
        assert beta in known
    # a body the SDK sends as it is: every key is a parameter of beta.messages.create
    from anthropic.resources.beta.messages import Messages

    assert set(document) <= set(inspect.signature(Messages.create).parameters)
