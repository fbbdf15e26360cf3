"""Export: every target writes every preset; what it cannot express is listed, never dropped."""

import json
import subprocess
import sys
import tomllib

import pytest

from playground.engine.replay import Settings
from playground.export import TARGETS, ExportError, export
from playground.export.anthropic_target import read_anthropic
from playground.stacks.presets import PRESETS
from policies.registry import PolicySpec


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_exports_to_every_target_and_nothing_is_dropped_in_silence(preset, target):
    stack = PRESETS[preset]
    result = export(stack, Settings(), target)
    if result.language == "python":
        compile(result.text, result.filename, "exec")
        header = result.text.split("\n\n", 1)[0]
        assert "Written for " in header
        body = result.text[len(header) :]
    elif result.language == "toml":
        tomllib.loads(result.text)
        header = "\n".join(line for line in result.text.splitlines() if line.startswith("#"))
        body = "\n".join(line for line in result.text.splitlines() if not line.startswith("#")) or header
    else:
        document = json.loads(result.text)
        header = "\n".join(document.get("not_expressible", []))
        body = json.dumps(document.get("context_management", document))
    listed = {line.policy for line in result.unexpressible}
    if result.notes_in_file:
        for line in result.unexpressible:
            assert str(line) in header  # the header names each, as the app's list does
    else:
        assert set(document) <= SETTINGS_KEYS[target]  # a settings file holds only keys its agent reads
    for spec in stack:
        # each policy is either expressed in the body or listed at the top
        assert spec.name in listed or _expressed(spec, body, target), f"{spec.name} dropped"


SETTINGS_KEYS = {
    "claude-code": {"autoCompactEnabled", "autoCompactWindow", "env"},
    "opencode": {"compaction"},
    "gemini-cli": {"model"},
    "anthropic": {"betas", "context_management"},  # a request body's keys: the notes are beside it
}


def _expressed(spec, body, target):
    marks = {
        "pyagentic": [spec.name + "("],
        "langchain": ["SummarizationMiddleware(", "ContextEditingMiddleware("],
        "openai-agents": ["ToolOutputTrimmer("],
        "anthropic": ["clear_tool_uses_20250919", "compact_20260112"],
        "adk": ["EventsCompactionConfig("],
        "selectools": ["CompressConfig("],
        "claude-code": ['"autoCompactEnabled": true', '"autoCompactWindow"'],
        "codex": ["model_auto_compact_token_limit", "compact_prompt", "no key to set"],
        "opencode": ['"auto": true', '"prune": true'],
        "gemini-cli": ["compressionThreshold"],
    }[target]
    return any(mark in body for mark in marks)


def test_an_unknown_target_or_a_bad_stack_is_refused_by_name():
    with pytest.raises(ExportError, match="unknown target 'crewai'"):
        export([], Settings(), "crewai")
    with pytest.raises(ExportError, match="stack entry 1: SlidingWindowPolicy: max_messages"):
        export([PolicySpec("SlidingWindowPolicy", {"max_messages": 0})], Settings(), "pyagentic")


def test_a_disabled_policy_is_listed_not_exported():
    result = export([PolicySpec("ToolOutputClipPolicy", {}, enabled=False)], Settings(), "pyagentic")
    assert "ToolOutputClipPolicy: disabled in the stack: not exported" in result.text
    assert "ToolOutputClipPolicy(" not in result.text.split("\n\n", 1)[1]


def test_pyagentic_writes_its_policies_with_the_parameters_that_differ():
    result = export(PRESETS["pyagentic recommended"], Settings(), "pyagentic")
    assert "    ToolOutputClipPolicy(),\n" in result.text  # 8,000 is pyagentic's default too
    assert "    ToolEvictionPolicy(),\n" in result.text
    assert "    CompactionPolicy(max_input_tokens=80_000),\n" in result.text
    assert result.unexpressible == ()


def test_what_langchain_cannot_express_is_named_with_what_to_do():
    stack = [
        PolicySpec("ToolOutputClipPolicy", {"max_chars": 4000}),
        PolicySpec("ClearToolUsesPolicy", {"exclude_tools": ["read_*"], "flavour": "langchain"}),
        PolicySpec("LangChainSummarizationPolicy", {"trigger_tokens": 5000, "use_reported_usage": False}),
    ]
    result = export(stack, Settings(), "langchain")
    lines = [str(m) for m in result.unexpressible]
    assert "ToolOutputClipPolicy: no exact LangChain equivalent: clip in your tool wrapper" in lines
    assert "ClearToolUsesPolicy: exclude_tools patterns read_*: LangChain matches exact names" in lines
    assert any(line.startswith("LangChainSummarizationPolicy: use_reported_usage off") for line in lines)
    assert all(f"# - {line}" in result.text for line in lines)


def settled(spec):
    """A stack entry as the policy holds it: every parameter, validated (lists as tuples)."""
    policy = spec.build()
    return spec.name, {p.name: getattr(policy, p.name) for p in policy.params}


def test_anthropic_presets_round_trip_as_the_same_stack():
    for name in (
        "Anthropic context editing (clear tool uses)",
        "Anthropic context editing (clear thinking, then tool uses)",
        "Anthropic server compaction (150,000)",
    ):
        stack = PRESETS[name]
        back = read_anthropic(export(stack, Settings(), "anthropic").text)
        assert [settled(s) for s in back] == [settled(s) for s in stack]
    tuned = [
        PolicySpec(
            "ClearToolUsesPolicy",
            {
                "trigger": 40,
                "trigger_type": "tool_uses",
                "keep": 5,
                "clear_at_least": 2000,
                "exclude_tools": ["memory"],
                "clear_tool_inputs": True,
            },
        )
    ]
    back = read_anthropic(export(tuned, Settings(), "anthropic").text)
    assert [settled(s) for s in back] == [settled(s) for s in tuned]


def test_clear_thinking_is_exported_first_among_the_edits_as_the_api_asks():
    stack = [PolicySpec("ClearToolUsesPolicy"), PolicySpec("ClearThinkingPolicy", {"keep_turns": 2})]
    document = json.loads(export(stack, Settings(), "anthropic").text)
    edits = document["context_management"]["edits"]
    assert edits[0] == {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 2}}
    assert edits[1]["type"] == "clear_tool_uses_20250919"
    assert document["betas"] == ["context-management-2025-06-27"]


def test_reading_a_bad_anthropic_document_names_what_is_wrong():
    with pytest.raises(ExportError, match="not JSON"):
        read_anthropic("{")
    with pytest.raises(ExportError, match=r"no context_management\.edits list"):
        read_anthropic('{"context_management": {}}')
    with pytest.raises(ExportError, match="edit 1: unknown type 'clear_everything'"):
        read_anthropic('{"edits": [{"type": "clear_everything"}]}')


def test_an_export_names_no_secret(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value-123")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-456")
    for target in TARGETS:
        for stack in PRESETS.values():
            text = export(stack, Settings(), target).text
            assert "secret-value" not in text and "API_KEY" not in text


def test_the_cli_writes_the_export_and_lists_what_it_left_out(tmp_path):
    out = tmp_path / "mw.py"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground.cli",
            "export",
            "pyagentic recommended",
            "--preset",
            "--to",
            "langchain",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert out.read_text().startswith(
        "# A context-policy stack exported by the Context Policy Playground for LangChain v1."
    )
    assert (
        "playground: langchain: ToolOutputClipPolicy: left out (nothing in langchain does it)" in run.stderr
    )
    bad = subprocess.run(
        [sys.executable, "-m", "playground.cli", "export", "no such preset", "--preset", "--to", "adk"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("playground: no preset named 'no such preset'")
    assert "Traceback" not in bad.stderr


def test_every_python_export_is_formatted_as_ruff_formats_it(tmp_path):
    for target, (_, _) in TARGETS.items():
        for n, stack in enumerate(
            [*PRESETS.values(), *[[spec] for stacks in PRESETS.values() for spec in stacks]]
        ):
            result = export(stack, Settings(), target)
            if result.language == "python":
                (tmp_path / f"{target.replace('-', '_')}_{n}.py").write_text(result.text)
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--check",
            "--line-length",
            "100",
            "--no-cache",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
