"""Ready-made stacks, named after the systems they come from."""

from __future__ import annotations

from policies.registry import POLICY_TYPES, PolicySpec

PRESETS: dict[str, list[PolicySpec]] = {
    "No policies (raw history)": [],
    "pyagentic recommended": [
        PolicySpec("ToolOutputClipPolicy", {"max_chars": 8000}),
        PolicySpec("ToolEvictionPolicy", {"keep_last_n": 5}),
        PolicySpec("CompactionPolicy", {"max_input_tokens": 80_000}),
    ],
    # pyagentic's stack with evictions batched: a stub breaks the prompt cache from there on,
    # so it waits until 5,000 tokens can go at once (cheaper than raw history with caching)
    "Cache-friendly (batched eviction)": [
        PolicySpec("ToolOutputClipPolicy", {"max_chars": 8000}),
        PolicySpec("ToolEvictionPolicy", {"keep_last_n": 5, "min_freed_tokens": 5000}),
        PolicySpec("CompactionPolicy", {"max_input_tokens": 80_000}),
    ],
    "selectools prompt compression": [
        PolicySpec("PromptCompressionPolicy", {"compress_threshold": 0.75, "compress_keep_recent": 4}),
    ],
    "Cut in this order (tiered eviction)": [
        PolicySpec("TieredEvictionPolicy", {"budget_tokens": 4000, "keep_recent": 6}),
    ],
    "Anthropic context editing (clear tool uses)": [
        PolicySpec("ClearToolUsesPolicy", {"trigger": 100_000, "keep": 3, "clear_at_least": 0}),
    ],
    "Sliding window of 50": [PolicySpec("SlidingWindowPolicy", {"max_messages": 50})],
}


def available_presets() -> dict[str, list[PolicySpec]]:
    """The presets whose policies are all registered (others arrive with their policies)."""
    return {
        name: stack for name, stack in PRESETS.items() if all(spec.name in POLICY_TYPES for spec in stack)
    }
