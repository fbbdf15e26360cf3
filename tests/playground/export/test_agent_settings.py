"""The coding agents' settings files: each parses as its agent reads it (JSON, TOML), holds
exactly the settings that express the stack, and lists the rest."""

from __future__ import annotations

import json
import tomllib

from playground.engine.replay import Settings
from playground.export import export
from playground.stacks.presets import PRESETS
from policies.registry import PolicySpec

DEFAULT_STACK = PRESETS["pyagentic recommended"]  # clip, evict, compact: the app's default
WINDOW = Settings(model="claude-sonnet-4-5", context_window=200_000)


def listed(result) -> list[str]:
    return [str(line) for line in result.unexpressible]


def test_claude_code_settings_carry_the_override_in_env_and_the_window_replayed():
    stack = [PolicySpec("ClaudeCodeAutoCompactPolicy", {"autocompact_pct_override": 70})]
    result = export(stack, WINDOW, "claude-code")
    assert result.filename == "settings.json" and not result.notes_in_file
    assert json.loads(result.text) == {
        "autoCompactEnabled": True,
        "env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "70"},
        "autoCompactWindow": 200_000,
    }
    assert listed(result) == [
        "ClaudeCodeMicrocompactPolicy: not in the stack, but Claude Code clears old tool results after an "
        "idle hour anyway; no setting turns it off"
    ]


def test_claude_code_with_both_its_policies_at_their_defaults_is_exact():
    stack = PRESETS["Claude Code: microcompact after an hour idle, then auto-compact"]
    result = export(stack, WINDOW, "claude-code")
    assert json.loads(result.text) == {"autoCompactEnabled": True, "autoCompactWindow": 200_000}
    assert not result.unexpressible


def test_a_stack_without_claude_code_s_auto_compact_turns_it_off_and_lists_the_rest():
    result = export(DEFAULT_STACK, WINDOW, "claude-code")
    assert json.loads(result.text) == {"autoCompactEnabled": False}
    names = [line.split(":")[0] for line in listed(result)]
    assert names == [s.name for s in DEFAULT_STACK] + ["ClaudeCodeMicrocompactPolicy"]
    assert all("no exact Claude Code equivalent" in line for line in listed(result)[: len(DEFAULT_STACK)])


def test_claude_code_summary_prompt_is_listed_not_written():
    stack = [PolicySpec("ClaudeCodeAutoCompactPolicy", {"summary_prompt": "Keep every file path."})]
    result = export(stack, WINDOW, "claude-code")
    assert "summary_prompt" in listed(result)[0] and "Keep every file path" not in result.text


def test_codex_config_toml_parses_with_its_limit_and_prompt_escaped():
    prompt = 'Keep "paths"\\ and\nnumbers\u2028 — 🙂 \x1b[31m'
    stack = [
        PolicySpec("CodexAutoCompactPolicy", {"auto_compact_token_limit": 150_000, "summary_prompt": prompt})
    ]
    result = export(stack, Settings(model="gpt-5.1-codex", context_window=272_000), "codex")
    assert result.filename == "config.toml" and result.language == "toml"
    assert tomllib.loads(result.text) == {"model_auto_compact_token_limit": 150_000, "compact_prompt": prompt}
    assert "Every policy of the stack is expressed exactly" in result.text
    assert all(line.startswith("#") or " = " in line for line in result.text.splitlines())


def test_codex_lists_what_it_cannot_express_as_comments_and_keeps_its_defaults():
    result = export(DEFAULT_STACK, Settings(), "codex")
    assert tomllib.loads(result.text) == {}
    comments = [line for line in result.text.splitlines() if line.startswith("# - ")]
    assert len(comments) == len(DEFAULT_STACK) + 1 and "compacts at 90% of the window anyway" in comments[-1]
    default = export([PolicySpec("CodexAutoCompactPolicy")], Settings(), "codex")
    assert tomllib.loads(default.text) == {} and "no key to set" in default.text and not default.unexpressible


def test_opencode_json_sets_compaction_and_prune_and_turns_off_what_the_stack_lacks():
    stack = PRESETS["opencode: prune old tool outputs, then compact on overflow"]
    result = export(stack, Settings(), "opencode")
    assert json.loads(result.text) == {"compaction": {"auto": True, "prune": True}}
    assert not result.unexpressible
    tuned = [
        PolicySpec(
            "OpencodeCompactionPolicy", {"reserved": 10_000, "tail_turns": 2, "max_output_tokens": 8_000}
        )
    ]
    result = export(tuned, Settings(), "opencode")
    assert json.loads(result.text) == {
        "compaction": {"auto": True, "prune": False, "reserved": 10_000, "tail_turns": 2}
    }
    assert listed(result) == [
        "OpencodeCompactionPolicy: max_output_tokens 8000: opencode takes it from the model's limit.output"
    ]
    nothing = export(DEFAULT_STACK, Settings(), "opencode")
    assert json.loads(nothing.text) == {"compaction": {"auto": False, "prune": False}}


def test_opencode_prune_constants_are_listed_when_changed():
    result = export([PolicySpec("OpencodePrunePolicy", {"protect_tokens": 10_000})], Settings(), "opencode")
    assert json.loads(result.text)["compaction"]["prune"] is True
    assert "protect_tokens 10000: fixed in opencode" in listed(result)[0]


def test_gemini_settings_carry_the_compression_threshold():
    stack = [PolicySpec("GeminiChatCompressionPolicy", {"compression_threshold": 0.3})]
    result = export(stack, Settings(model="gemini-2.5-pro", context_window=1_048_576), "gemini-cli")
    assert json.loads(result.text) == {"model": {"compressionThreshold": 0.3}} and not result.unexpressible
    without = export(DEFAULT_STACK, Settings(), "gemini-cli")
    assert json.loads(without.text) == {}
    assert "the nearest is model.compressionThreshold 1.0" in listed(without)[-1]
