"""Ready-made stacks, named after the systems they come from."""

from __future__ import annotations

from policies.adk import AdkSlidingWindowCompactionPolicy, AdkTokenCompactionPolicy
from policies.anthropic import AnthropicCompactionPolicy, ClearThinkingPolicy
from policies.autogen import BufferedContextPolicy, HeadAndTailContextPolicy, TokenLimitedContextPolicy
from policies.claude_code import ClaudeCodeAutoCompactPolicy, ClaudeCodeMicrocompactPolicy
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.codex import CodexAutoCompactPolicy
from policies.compaction import CompactionPolicy
from policies.gemini_cli import GeminiChatCompressionPolicy
from policies.langchain import LangChainSummarizationPolicy
from policies.letta import LettaSummarizerPolicy
from policies.llama_index import ChatMemoryBufferPolicy, ChatSummaryMemoryBufferPolicy
from policies.openai_agents import SummarizingSessionPolicy, ToolOutputTrimmerPolicy, TrimmingSessionPolicy
from policies.opencode import OpencodeCompactionPolicy, OpencodePrunePolicy
from policies.prompt_compression import PromptCompressionPolicy
from policies.registry import POLICY_TYPES, PolicySpec
from policies.sliding_window import SlidingWindowPolicy
from policies.tiered_eviction import TieredEvictionPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

PRESETS: dict[str, list[PolicySpec]] = {
    "No policies (raw history)": [],
    "pyagentic recommended": [
        PolicySpec.of(ToolOutputClipPolicy, {"max_chars": 8000}),
        PolicySpec.of(ToolEvictionPolicy, {"keep_last_n": 5}),
        PolicySpec.of(CompactionPolicy, {"max_input_tokens": 80_000}),
    ],
    # pyagentic's stack with evictions batched: a stub breaks the prompt cache from there on,
    # so it waits until 5,000 tokens can go at once (cheaper than raw history with caching)
    "Cache-friendly (batched eviction)": [
        PolicySpec.of(ToolOutputClipPolicy, {"max_chars": 8000}),
        PolicySpec.of(ToolEvictionPolicy, {"keep_last_n": 5, "min_freed_tokens": 5000}),
        PolicySpec.of(CompactionPolicy, {"max_input_tokens": 80_000}),
    ],
    "selectools prompt compression": [
        PolicySpec.of(PromptCompressionPolicy, {"compress_threshold": 0.75, "compress_keep_recent": 4}),
    ],
    "Cut in this order (tiered eviction)": [
        PolicySpec.of(TieredEvictionPolicy, {"budget_tokens": 4000, "keep_recent": 6}),
    ],
    "Anthropic context editing (clear tool uses)": [
        PolicySpec.of(ClearToolUsesPolicy, {"trigger": 100_000, "keep": 3, "clear_at_least": 0}),
    ],
    "Anthropic context editing (clear thinking, then tool uses)": [
        PolicySpec.of(ClearThinkingPolicy, {"keep_turns": 1}),
        PolicySpec.of(ClearToolUsesPolicy, {"trigger": 100_000, "keep": 3, "clear_at_least": 0}),
    ],
    "Sliding window of 50": [PolicySpec.of(SlidingWindowPolicy, {"max_messages": 50})],
    # the frameworks', each with its own defaults (FRAMEWORKS.md names the version followed)
    "LangChain 1.x: summarization (docs example: 4,000 tokens, keep 20 messages)": [
        PolicySpec.of(LangChainSummarizationPolicy, {"trigger_tokens": 4_000, "keep_value": 20}),
    ],
    "LangChain 1.x: context editing defaults (clear tool uses over 100,000)": [
        PolicySpec.of(ClearToolUsesPolicy, {"trigger": 100_000, "keep": 3, "flavour": "langchain"}),
    ],
    "Deep Agents: summarization defaults (85% of the window, keep 10%)": [
        PolicySpec.of(
            LangChainSummarizationPolicy,
            {"trigger_fraction": 0.85, "keep_kind": "fraction", "keep_value": 0.10},
        ),
    ],
    "Claude Code: auto-compact": [PolicySpec.of(ClaudeCodeAutoCompactPolicy)],
    "Claude Code: microcompact after an hour idle, then auto-compact": [
        PolicySpec.of(ClaudeCodeMicrocompactPolicy),
        PolicySpec.of(ClaudeCodeAutoCompactPolicy),
    ],
    "Codex CLI: auto-compact (90% of the window)": [PolicySpec.of(CodexAutoCompactPolicy)],
    "opencode: prune old tool outputs, then compact on overflow": [
        PolicySpec.of(OpencodePrunePolicy),
        PolicySpec.of(OpencodeCompactionPolicy),
    ],
    "Gemini CLI: chat compression (50% of the limit, keep 30%)": [PolicySpec.of(GeminiChatCompressionPolicy)],
    "OpenAI Agents SDK: ToolOutputTrimmer defaults": [PolicySpec.of(ToolOutputTrimmerPolicy)],
    "OpenAI cookbook: trimming session (last 8 turns)": [
        PolicySpec.of(TrimmingSessionPolicy, {"max_turns": 8})
    ],
    "AutoGen: buffered context (last 20)": [PolicySpec.of(BufferedContextPolicy, {"buffer_size": 20})],
    "AutoGen: head and tail (2 + 20)": [
        PolicySpec.of(HeadAndTailContextPolicy, {"head_size": 2, "tail_size": 20})
    ],
    "AutoGen: token-limited context (the window)": [PolicySpec.of(TokenLimitedContextPolicy)],
    "Anthropic server compaction (150,000)": [PolicySpec.of(AnthropicCompactionPolicy)],
    "OpenAI cookbook: summarizing session (limit 3, keep 3)": [PolicySpec.of(SummarizingSessionPolicy)],
    "Google ADK: token compaction (100,000, keep 5 events)": [PolicySpec.of(AdkTokenCompactionPolicy)],
    "Google ADK: sliding window (docs example: every 3 invocations, overlap 1)": [
        PolicySpec.of(AdkSlidingWindowCompactionPolicy)
    ],
    "LlamaIndex: chat memory buffer (3,000 tokens)": [PolicySpec.of(ChatMemoryBufferPolicy)],
    "LlamaIndex: chat summary memory buffer (2,000 tokens)": [PolicySpec.of(ChatSummaryMemoryBufferPolicy)],
    "Letta: summarizer defaults (over 90% of the window, sliding window 30%)": [
        PolicySpec.of(LettaSummarizerPolicy)
    ],
}

# the presets by the framework whose rules they follow, in the order the app lists them
FRAMEWORK_PRESETS: dict[str, tuple[str, ...]] = {
    "Playground": (
        "No policies (raw history)",
        "Cache-friendly (batched eviction)",
        "Cut in this order (tiered eviction)",
        "Sliding window of 50",
    ),
    "pyagentic": ("pyagentic recommended",),
    "selectools": ("selectools prompt compression",),
    "LangChain": (
        "LangChain 1.x: summarization (docs example: 4,000 tokens, keep 20 messages)",
        "LangChain 1.x: context editing defaults (clear tool uses over 100,000)",
        "Deep Agents: summarization defaults (85% of the window, keep 10%)",
    ),
    "Anthropic": (
        "Anthropic context editing (clear tool uses)",
        "Anthropic context editing (clear thinking, then tool uses)",
        "Anthropic server compaction (150,000)",
    ),
    "Claude Code": (
        "Claude Code: auto-compact",
        "Claude Code: microcompact after an hour idle, then auto-compact",
    ),
    "Codex CLI": ("Codex CLI: auto-compact (90% of the window)",),
    "opencode": ("opencode: prune old tool outputs, then compact on overflow",),
    "Gemini CLI": ("Gemini CLI: chat compression (50% of the limit, keep 30%)",),
    "OpenAI": (
        "OpenAI Agents SDK: ToolOutputTrimmer defaults",
        "OpenAI cookbook: trimming session (last 8 turns)",
        "OpenAI cookbook: summarizing session (limit 3, keep 3)",
    ),
    "Google ADK": (
        "Google ADK: token compaction (100,000, keep 5 events)",
        "Google ADK: sliding window (docs example: every 3 invocations, overlap 1)",
    ),
    "AutoGen": (
        "AutoGen: buffered context (last 20)",
        "AutoGen: head and tail (2 + 20)",
        "AutoGen: token-limited context (the window)",
    ),
    "LlamaIndex": (
        "LlamaIndex: chat memory buffer (3,000 tokens)",
        "LlamaIndex: chat summary memory buffer (2,000 tokens)",
    ),
    "Letta": ("Letta: summarizer defaults (over 90% of the window, sliding window 30%)",),
}


# the preset that is each agent's own policy, by the format of the transcripts it writes: replayed
# from its record (its compactions, its trims), the reference a stack is measured against
DEFAULT_PRESET = "pyagentic recommended"  # the stack a replay starts with, where nothing names one

OWN_PRESETS: dict[str, str] = {
    "Claude Code session": "Claude Code: auto-compact",
    "Codex CLI rollout": "Codex CLI: auto-compact (90% of the window)",
}


def own_preset(format: str) -> str:
    """The preset that is the agent's own policy for transcripts of ``format``; "" for none."""
    return OWN_PRESETS.get(format, "")


def available_presets() -> dict[str, list[PolicySpec]]:
    """The presets whose policies are all registered (others arrive with their policies), in
    the order of ``FRAMEWORK_PRESETS``."""
    order = [name for names in FRAMEWORK_PRESETS.values() for name in names]
    order += [name for name in PRESETS if name not in order]
    return {name: PRESETS[name] for name in order if all(spec.name in POLICY_TYPES for spec in PRESETS[name])}


def presets_by_framework() -> dict[str, list[str]]:
    """The available presets grouped by framework (a preset in no group: "Other")."""
    available = available_presets()
    grouped = {
        framework: [n for n in names if n in available] for framework, names in FRAMEWORK_PRESETS.items()
    }
    listed = {name for names in FRAMEWORK_PRESETS.values() for name in names}
    grouped["Other"] = [name for name in available if name not in listed]
    return {framework: names for framework, names in grouped.items() if names}


def framework_of(preset: str) -> str:
    return next((f for f, names in FRAMEWORK_PRESETS.items() if preset in names), "Other")


def preset_label(preset: str) -> str:
    """How a picker shows a preset: with its framework in front, unless its name starts so."""
    framework = framework_of(preset)
    return preset if preset.startswith(framework) else f"{framework} · {preset}"


def policies_by_use() -> list[str]:
    """Every registered policy, the ones the presets use most first (then by name): where a
    list of policies to add starts."""
    uses: dict[str, int] = dict.fromkeys(POLICY_TYPES, 0)
    for stack in PRESETS.values():
        for spec in stack:
            if spec.name in uses:
                uses[spec.name] += 1
    return sorted(uses, key=lambda name: (-uses[name], name))
