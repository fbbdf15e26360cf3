"""The nearest stack a target expresses, and what it costs beside the user's."""

from __future__ import annotations

import json

import pytest

from playground.analyses.export_check import export_check
from playground.cli.main import main
from playground.engine.replay import Settings
from playground.export import TARGETS, export
from playground.export.nearest import nearest_stack
from playground.formats import read_path
from playground.stacks.presets import PRESETS

DEFAULT = PRESETS["pyagentic recommended"]


def test_the_default_stack_exports_to_langchain_as_middleware_not_an_empty_list():
    nearest = nearest_stack(DEFAULT, Settings(), "langchain")
    assert [(s.name, s.params.get("flavour")) for s in nearest.stack] == [
        ("ClearToolUsesPolicy", "langchain"),
        ("LangChainSummarizationPolicy", None),
    ]
    assert nearest.stack[0].params["keep"] == 5 and nearest.stack[1].params["trigger_tokens"] == 80_000
    text = export(nearest.stack, Settings(), "langchain").text
    assert "ClearToolUsesEdit(" in text and "SummarizationMiddleware(" in text
    assert "middleware = []" not in text
    assert nearest.changes[0] == "ToolOutputClipPolicy: left out (nothing in langchain does it)"
    assert nearest.changes[2].startswith("CompactionPolicy: replaced by LangChainSummarizationPolicy")


def test_the_default_stack_exports_to_anthropic_as_edits_in_a_body_the_sdk_sends():
    nearest = nearest_stack(DEFAULT, Settings(), "anthropic")
    result = export(nearest.stack, Settings(), "anthropic")
    document = json.loads(result.text)
    assert set(document) == {"betas", "context_management"}  # notes beside the file, never in the request
    assert [e["type"] for e in document["context_management"]["edits"]] == [
        "clear_tool_uses_20250919",
        "compact_20260112",
    ]
    assert document["context_management"]["edits"][1]["trigger"]["value"] == 80_000
    assert not result.notes_in_file


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_entry_of_a_nearest_stack_is_expressed_and_every_change_said(preset, target):
    stack = PRESETS[preset]
    nearest = nearest_stack(stack, Settings(), target)
    lines = export(nearest.stack, Settings(), target).unexpressible
    assert [str(line) for line in lines[: len(nearest.changes)]] == list(nearest.changes)  # said first
    listed = {line.policy for line in lines[len(nearest.changes) :]}
    assert not listed & {s.name for s in nearest.stack}, listed
    kept = {id(s) for s in nearest.stack}
    changed = [s for s in stack if s.enabled and id(s) not in kept]
    assert len(nearest.changes) == len(changed)  # one line for each entry replaced or left out
    assert nearest.exact == (not changed)
    for line, spec in zip(nearest.changes, changed, strict=True):
        assert line.startswith(spec.name)


def test_the_check_replays_both_stacks_and_says_both_figures(real_session_path):
    session = read_path(real_session_path)[0]
    check = export_check(session, DEFAULT, Settings(model="claude-sonnet-4-5"), "openai-agents")
    assert not check.nearest.exact
    assert check.exported["cost_usd"] != check.yours["cost_usd"]
    assert check.line().startswith("exported stack: $") and "; your stack: $" in check.line()
    exact = export_check(session, DEFAULT, Settings(), "pyagentic")
    assert exact.nearest.exact and exact.exported is exact.yours


def test_the_cli_exports_the_nearest_stack_and_says_what_it_costs(real_session_path, tmp_path, capsys):
    out = tmp_path / "middleware.py"
    code = main(
        [
            *("export", "pyagentic recommended", "--preset", "--to", "langchain", "-o", str(out)),
            *("--session", str(real_session_path)),
        ]
    )
    assert code == 0
    assert "SummarizationMiddleware(" in out.read_text()
    said = capsys.readouterr().err
    assert "playground: langchain: ToolEvictionPolicy: replaced by ClearToolUsesPolicy" in said
    assert "playground: on astropy__astropy-12907: exported stack: $" in said
