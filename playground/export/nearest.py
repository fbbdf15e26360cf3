"""The nearest stack a target expresses: each policy the target lacks becomes the target's own
policy that does the closest thing, with the closest settings, or is left out; every change
is said. Replaying this stack beside the user's tells what the approximation costs
(``playground.analyses.export_check``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground.export.base import Stack, Unexpressible, values
from playground.export.targets import export
from policies.adk import AdkTokenCompactionPolicy
from policies.anthropic import AnthropicCompactionPolicy
from policies.base import Policy
from policies.claude_code import ClaudeCodeAutoCompactPolicy
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.codex import CodexAutoCompactPolicy
from policies.compaction import CompactionPolicy
from policies.gemini_cli import GeminiChatCompressionPolicy
from policies.langchain import LangChainSummarizationPolicy
from policies.openai_agents import ToolOutputTrimmerPolicy
from policies.opencode import OpencodeCompactionPolicy, OpencodePrunePolicy
from policies.prompt_compression import PromptCompressionPolicy
from policies.registry import PolicySpec
from policies.tool_eviction import ToolEvictionPolicy

# (the target's policy, its parameters, what differs) from one entry's values and the settings
Approximation = Callable[[dict[str, Any], Any], tuple[type[Policy], dict[str, Any], str]]


@dataclass(frozen=True)
class Nearest:
    """The stack a target expresses (its export lists each change first), and the changes."""

    stack: Stack

    @property
    def changes(self) -> tuple[str, ...]:
        return tuple(str(change) for change in self.stack.changes)

    @property
    def exact(self) -> bool:
        return not self.stack.changes


def _fraction(tokens: int, window: int, low: float) -> float:
    return round(min(1.0, max(low, tokens / max(window, 1))), 3)


def _compaction_as(target: str) -> Approximation | None:
    """pyagentic's CompactionPolicy (fires above ``max_input_tokens`` of the last reported
    input, keeps ``keep_recent`` messages) as each target's own compaction."""

    def langchain(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {"trigger_tokens": v["max_input_tokens"], "keep_value": v["keep_recent"]}
        params["summary_prompt"] = v["summary_prompt"]
        return (
            LangChainSummarizationPolicy,
            params,
            "fires on LangChain's estimate; its summary is a user message",
        )

    def anthropic(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        trigger = max(v["max_input_tokens"], 50_000)
        raised = "; trigger raised to the API's least, 50,000" if trigger != v["max_input_tokens"] else ""
        params = {"trigger": trigger, "instructions": v["summary_prompt"]}
        return AnthropicCompactionPolicy, params, f"the server compacts the whole history{raised}"

    def adk(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {"token_threshold": v["max_input_tokens"], "event_retention_size": v["keep_recent"]}
        params["summary_prompt"] = v["summary_prompt"]
        return AdkTokenCompactionPolicy, params, "keeps the last events rather than messages"

    def selectools(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        share = _fraction(v["max_input_tokens"], settings.context_window, 0.05)
        params = {"compress_threshold": share, "compress_keep_recent": max(v["keep_recent"], 0)}
        return PromptCompressionPolicy, params, f"fires at {share:g} of the window"

    def claude_code(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        effective = max(settings.context_window - 20_000, 1)  # the window less Claude Code's output reserve
        pct = min(100, max(1, math.ceil(100 * v["max_input_tokens"] / effective)))
        params = {"autocompact_pct_override": pct}
        return (
            ClaudeCodeAutoCompactPolicy,
            params,
            f"fires at {pct} % of the effective window, with its own summary prompt",
        )

    def codex(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {
            "auto_compact_token_limit": max(v["max_input_tokens"], 1_000),
            "summary_prompt": v["summary_prompt"],
        }
        return CodexAutoCompactPolicy, params, "keeps the newest user messages, not the last messages"

    def opencode(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        cap = 32_000
        reserved = max(0, settings.context_window - cap - v["max_input_tokens"])
        params = {"reserved": reserved}
        return (
            OpencodeCompactionPolicy,
            params,
            "keeps a tail of recent turns by tokens, with its own summary prompt",
        )

    def gemini_cli(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        share = _fraction(v["max_input_tokens"], settings.context_window, 0.01)
        params = {"compression_threshold": share}
        return (
            GeminiChatCompressionPolicy,
            params,
            f"fires at {share:g} of the window, keeps the last 30 %, with its own snapshot prompt",
        )

    return {
        "langchain": langchain,
        "anthropic": anthropic,
        "adk": adk,
        "selectools": selectools,
        "claude-code": claude_code,
        "codex": codex,
        "opencode": opencode,
        "gemini-cli": gemini_cli,
    }.get(target)


def _eviction_as(target: str) -> Approximation | None:
    """pyagentic's ToolEvictionPolicy (stubs every tool result but the last ``keep_last_n``,
    in the history) as each target's own clearing of old tool results."""

    def langchain(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {"flavour": "langchain", "trigger": 1, "keep": v["keep_last_n"], "placeholder": v["stub"]}
        return ClearToolUsesPolicy, params, "ClearToolUsesEdit from the first token: edits each request"

    def anthropic(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {"flavour": "anthropic", "trigger": 1, "keep": v["keep_last_n"]}
        return (
            ClearToolUsesPolicy,
            params,
            "clear_tool_uses from the first token, with the API's placeholder",
        )

    def openai_agents(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        return ToolOutputTrimmerPolicy, {}, "trims outputs older than 2 turns to a preview, not a stub"

    def opencode(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        return OpencodePrunePolicy, {}, "prunes old outputs past its 40,000 protected tokens"

    return {
        "langchain": langchain,
        "anthropic": anthropic,
        "openai-agents": openai_agents,
        "opencode": opencode,
    }.get(target)


def _clearing_as(target: str) -> Approximation | None:
    """ClearToolUsesPolicy in the other flavour, where the target has one."""
    flavour = {"langchain": "langchain", "anthropic": "anthropic"}.get(target)
    if flavour is None:
        return None

    def switched(v: dict[str, Any], settings: Any) -> tuple[type[Policy], dict[str, Any], str]:
        params = {
            **v,
            "flavour": flavour,
            "persistence": "ephemeral",
            "exclude_tools": list(v["exclude_tools"]),
        }
        if flavour == "anthropic":
            params["placeholder"] = "[cleared]"
        return ClearToolUsesPolicy, params, f"as {target} counts and clears"

    return switched


APPROXIMATIONS: dict[type[Policy], Callable[[str], Approximation | None]] = {
    CompactionPolicy: _compaction_as,
    ToolEvictionPolicy: _eviction_as,
    ClearToolUsesPolicy: _clearing_as,
}


def nearest_stack(specs: list[PolicySpec], settings: Any, target: str) -> Nearest:
    """``specs`` as ``target`` can express them: each entry it expresses as it is; each other
    one as the target's nearest policy, or left out; the changes said, one line each."""
    lacking = {line.policy for line in export(specs, settings, target).unexpressible}
    stack: list[PolicySpec] = []
    changes: list[Unexpressible] = []
    for spec in specs:
        if not spec.enabled:
            continue
        if spec.name not in lacking:
            stack.append(spec)
            continue
        approximate = APPROXIMATIONS.get(spec.policy, lambda _: None)(target)
        if approximate is None:
            changes.append(Unexpressible(spec.name, f"left out (nothing in {target} does it)"))
            continue
        policy, params, how = approximate(values(spec), settings)
        candidate, name = PolicySpec.of(policy, params), policy.__name__
        if name in {line.policy for line in export([candidate], settings, target).unexpressible}:
            changes.append(
                Unexpressible(spec.name, f"left out (its nearest, {name}, is not expressible here either)")
            )
            continue
        stack.append(candidate)
        changes.append(Unexpressible(spec.name, f"replaced by {name}: {how}"))
    return Nearest(Stack(stack, changes))
