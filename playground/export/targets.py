"""The export targets by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playground.export.agent_settings import claude_code, codex, gemini_cli, opencode
from playground.export.anthropic_target import anthropic
from playground.export.base import Export, ExportError
from playground.export.python_targets import adk, langchain, openai_agents, pyagentic, selectools
from policies.base import shown
from policies.registry import PolicySpec, SpecError, build_stack

TARGETS: dict[str, tuple[str, Callable[[list[PolicySpec], Any], Export]]] = {
    "pyagentic": ("pyagentic (Python)", pyagentic),
    "langchain": ("LangChain v1 middleware (Python)", langchain),
    "openai-agents": ("OpenAI Agents SDK RunConfig (Python)", openai_agents),
    "anthropic": ("Anthropic Messages API context_management (JSON)", anthropic),
    "adk": ("Google ADK EventsCompactionConfig (Python)", adk),
    "selectools": ("selectools AgentConfig (Python)", selectools),
    "claude-code": ("Claude Code settings.json (JSON)", claude_code),
    "codex": ("Codex CLI config.toml (TOML)", codex),
    "opencode": ("opencode.json compaction (JSON)", opencode),
    "gemini-cli": ("Gemini CLI settings.json (JSON)", gemini_cli),
}


def export(specs: list[PolicySpec], settings: Any, target: str) -> Export:
    """``specs`` as ``target`` writes them; ExportError for an unknown target or a bad stack."""
    if target not in TARGETS:
        raise ExportError(f"unknown target {shown(target)} (known: {', '.join(TARGETS)})")
    try:
        build_stack(specs)
    except SpecError as error:
        raise ExportError(str(error)) from None
    return TARGETS[target][1](specs, settings)


def markdown_table() -> str:
    """The export targets as the docs list them: the name ``--to`` takes and what it writes."""
    rows = ["| `--to` | writes |", "|---|---|"]
    rows += [f"| `{name}` | {label} |" for name, (label, _) in TARGETS.items()]
    return "\n".join(rows) + "\n"
