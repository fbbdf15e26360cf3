"""The policy library: message model, protocol, built-in policies and their registry.

Pure Python: nothing here imports streamlit, plotly or pandas.
"""

from policies.base import Action, AppendEvent, CompileEvent, Param, ParamError, Policy
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.compaction import CompactionPolicy
from policies.messages import Message, ToolCall
from policies.prompt_compression import PromptCompressionPolicy
from policies.registry import POLICY_TYPES, PolicySpec, SpecError, build_stack, register
from policies.sliding_window import SlidingWindowPolicy
from policies.tiered_eviction import TieredEvictionPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

__all__ = [
    "POLICY_TYPES",
    "Action",
    "AppendEvent",
    "ClearToolUsesPolicy",
    "CompactionPolicy",
    "CompileEvent",
    "Message",
    "Param",
    "ParamError",
    "Policy",
    "PolicySpec",
    "PromptCompressionPolicy",
    "SlidingWindowPolicy",
    "SpecError",
    "TieredEvictionPolicy",
    "ToolCall",
    "ToolEvictionPolicy",
    "ToolOutputClipPolicy",
    "build_stack",
    "register",
]
