"""Policies by class name, and the plain-data spec a stack is stored and exported as.

A stack spec is a list of ``PolicySpec`` (name, given parameters, enabled): the config
file, the app's session state and the replay cache key all hold this, never instances.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from policies.adk import AdkSlidingWindowCompactionPolicy, AdkTokenCompactionPolicy
from policies.anthropic import AnthropicCompactionPolicy, ClearThinkingPolicy
from policies.autogen import BufferedContextPolicy, HeadAndTailContextPolicy, TokenLimitedContextPolicy
from policies.base import PLACES, ParamError, Policy, shown
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
from policies.sliding_window import SlidingWindowPolicy
from policies.tiered_eviction import TieredEvictionPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

BUILTINS: tuple[type[Policy], ...] = (
    ToolOutputClipPolicy,
    ToolEvictionPolicy,
    SlidingWindowPolicy,
    CompactionPolicy,
    PromptCompressionPolicy,
    TieredEvictionPolicy,
    ClearToolUsesPolicy,
    LangChainSummarizationPolicy,
    ClaudeCodeAutoCompactPolicy,
    ClaudeCodeMicrocompactPolicy,
    CodexAutoCompactPolicy,
    OpencodeCompactionPolicy,
    OpencodePrunePolicy,
    GeminiChatCompressionPolicy,
    ToolOutputTrimmerPolicy,
    TrimmingSessionPolicy,
    BufferedContextPolicy,
    HeadAndTailContextPolicy,
    TokenLimitedContextPolicy,
    AnthropicCompactionPolicy,
    ClearThinkingPolicy,
    SummarizingSessionPolicy,
    AdkTokenCompactionPolicy,
    AdkSlidingWindowCompactionPolicy,
    ChatMemoryBufferPolicy,
    ChatSummaryMemoryBufferPolicy,
    LettaSummarizerPolicy,
)
ENTRY_POINT_GROUP = "context_playground.policies"

POLICY_TYPES: dict[str, type[Policy]] = {}


class SpecError(ValueError):
    """A stack entry that cannot become a policy; the message names the entry."""


def register(cls: type[Policy]) -> type[Policy]:
    """Add a policy class under its class name; a different class of the same name is refused."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        # a class by its name; anything else by its type alone, never its value (sys:path is a list)
        what = f"class {shown(cls.__name__)}" if isinstance(cls, type) else f"a {type(cls).__name__} object"
        raise SpecError(f"{what} is not a Policy subclass")
    existing = POLICY_TYPES.get(cls.name())
    if existing is not None and existing is not cls:
        raise SpecError(f"a policy named {cls.name()} is already registered")
    POLICY_TYPES[cls.name()] = cls
    return cls


def load_policy_class(path: str) -> type[Policy]:
    """Import ``package.module:ClassName`` (or ``package.module.ClassName``) and register it."""
    module_name, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not attr:
        raise SpecError(f"custom policy {shown(path)}: expected 'module:ClassName'")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except Exception as error:  # a plugin's import-time code may raise anything
        raise SpecError(f"custom policy {shown(path)}: {type(error).__name__}: {shown(str(error))}") from None
    try:
        return register(cls)
    except SpecError as error:
        raise SpecError(f"custom policy {shown(path)}: {error}") from None


def load_plugins(paths: str) -> list[type[Policy]]:
    """The policy classes of a comma-separated ``module:Class`` list (``--plugins`` or
    ``$PLAYGROUND_PLUGINS``): named by whoever runs the program, never by an uploaded file."""
    return [load_policy_class(path.strip()) for path in paths.split(",") if path.strip()]


def _load_entry_points() -> None:
    for entry_point in entry_points(group=ENTRY_POINT_GROUP):
        register(entry_point.load())


for _cls in BUILTINS:
    register(_cls)
_load_entry_points()


@dataclass(frozen=True)
class PolicySpec:
    """One stack entry as plain data: which policy, the parameters given, and whether it runs."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True

    @classmethod
    def of(
        cls, policy: type[Policy], params: dict[str, Any] | None = None, enabled: bool = True
    ) -> PolicySpec:
        """The entry for ``policy`` (the class, never its name written out)."""
        return cls(policy.__name__, dict(params or {}), enabled)

    @property
    def policy(self) -> type[Policy] | None:
        """The class this entry names (None for a name no policy has)."""
        return POLICY_TYPES.get(self.name)

    def build(self) -> Policy:
        cls = POLICY_TYPES.get(self.name)
        if cls is None:
            known = ", ".join(sorted(POLICY_TYPES))
            raise SpecError(f"unknown policy {shown(self.name)} (known: {known})")
        bad = next((k for k in self.params if not isinstance(k, str)), None)
        if bad is not None:
            raise SpecError(f"{self.name}: a parameter name must be text, got {shown(bad)}")
        try:
            return cls(**self.params)
        except ParamError as error:
            raise SpecError(f"{self.name}: {error}") from None

    def key(self) -> tuple:
        """Hashable form, for caching replays by stack."""
        return (self.name, tuple(sorted((k, _freeze(v)) for k, v in self.params.items())), self.enabled)


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def build_stack(specs: list[PolicySpec]) -> list[Policy]:
    """The enabled policies of a stack, in order; SpecError names the first bad entry."""
    stack = []
    for position, spec in enumerate(specs, start=1):
        if not spec.enabled:
            continue
        try:
            stack.append(spec.build())
        except SpecError as error:
            raise SpecError(f"stack entry {position}: {error}") from None
    return stack


def markdown_table() -> str:
    """The built-in policies as the docs show them, made from their declarations: a row each
    (its source and what it does), then each one's parameters (type, default, bounds, help)."""
    rows = ["| policy | from | what it does |", "|---|---|---|"]
    rows += [
        f"| [`{cls.name()}`](#{cls.name().lower()}) | {cls.source} | {cls.summary} |" for cls in BUILTINS
    ]
    for cls in BUILTINS:
        lifecycle = cls().lifecycle()  # as its defaults run it (some let the user choose)
        said = f"{lifecycle[:1].upper()}{lifecycle[1:]}; in a stack a search builds, it {PLACES[cls.place]}."
        rows += ["", f"### {cls.name()}", "", said, ""]
        if not cls.params:
            rows.append("No parameters.")
            continue
        rows += ["| parameter | type | default | allowed | what it sets |", "|---|---|---|---|---|"]
        rows += [
            f"| `{p.name}` | {p.type.__name__} | {_md(_cell(p.default))} | {_allowed(p)} | {_md(p.help)} |"
            for p in cls.params
        ]
    return "\n".join(rows) + "\n"


def _md(text: str) -> str:
    """Text as one cell of a markdown table: a bar would end the cell, a line the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _cell(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, str):
        return f"`{value[:60]!r}`" + (" (cut here)" if len(value) > 60 else "")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"`{_number(value)}`"
    return f"`{value!r}`"


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def _allowed(param: Any) -> str:
    if param.choices:
        return ", ".join(f"`{c}`" for c in param.choices)
    low, high = param.minimum, param.maximum
    if low is not None and high is not None:
        bounds = f"{_number(low)} to {_number(high)}"
    elif low is not None:
        bounds = f"at least {_number(low)}"
    elif high is not None:
        bounds = f"at most {_number(high)}"
    else:
        bounds = ""
    return bounds + (" or not set" if param.optional else "")
