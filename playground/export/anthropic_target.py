"""The Anthropic Messages API: a request body's ``context_management`` with the ``betas`` it
needs (the SDK's parameter for the beta header), and its reading back into a stack (an
Anthropic export is structured, so it round-trips)."""

from __future__ import annotations

import json
import re
from typing import Any

from playground.export.base import Export, ExportError, Unexpressible, translate
from playground.stacks.config import json_text
from policies.anthropic import AnthropicCompactionPolicy, ClearThinkingPolicy
from policies.base import shown
from policies.clear_tool_uses import ANTHROPIC, INPUT_TOKENS, ClearToolUsesPolicy
from policies.registry import PolicySpec

CONTEXT_EDITING_BETA = "context-management-2025-06-27"
COMPACTION_BETA = "compact-2026-01-12"
VERSION = "the Messages API's beta context management (anthropic==2.16.0 types)"
GLOB = re.compile(r"[*?\[]")


def _clear_tool_uses(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict | None:
    reasons = []
    if v["flavour"] != ANTHROPIC:
        reasons.append(
            "the langchain flavour counts LangChain's estimate and stops at clear_at_least: set flavour: anthropic"
        )
    if v["persistence"] != "ephemeral":
        reasons.append("persistent: the API clears each request and keeps your history whole")
    if v["placeholder"] != "[cleared]":
        reasons.append(f"placeholder {v['placeholder']!r}: the API writes its own")
    if any(GLOB.search(p) for p in v["exclude_tools"]):
        reasons.append("exclude_tools patterns: the API matches exact names")
    if reasons:
        missing += [Unexpressible(spec.name, r) for r in reasons]
        return None
    edit: dict[str, Any] = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": v["trigger_type"], "value": v["trigger"]},
        "keep": {"type": "tool_uses", "value": v["keep"]},
    }
    if v["clear_at_least"]:
        edit["clear_at_least"] = {"type": "input_tokens", "value": v["clear_at_least"]}
    if v["exclude_tools"]:
        edit["exclude_tools"] = list(v["exclude_tools"])
    edit["clear_tool_inputs"] = v["clear_tool_inputs"]
    return edit


def _compaction(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    return {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": v["trigger"]},
        "instructions": v["instructions"],
    }


def _clear_thinking(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    return {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": v["keep_turns"]}}


TRANSLATORS = {
    ClearToolUsesPolicy: _clear_tool_uses,
    AnthropicCompactionPolicy: _compaction,
    ClearThinkingPolicy: _clear_thinking,
}
BETAS = {
    "clear_tool_uses_20250919": CONTEXT_EDITING_BETA,
    "clear_thinking_20251015": CONTEXT_EDITING_BETA,
    "compact_20260112": COMPACTION_BETA,
}


def anthropic(specs: list[PolicySpec], settings: Any) -> Export:
    edits, missing = translate(
        specs, TRANSLATORS, "Anthropic API", {}, "apply it in your client before the request"
    )
    edits.sort(key=lambda e: e["type"] != "clear_thinking_20251015")  # the API wants it listed first
    betas = sorted({BETAS[e["type"]] for e in edits})
    # a body the SDK sends as it is: client.beta.messages.create(model=..., messages=...,
    # max_tokens=..., **body); ``betas`` is the SDK's own parameter for the beta header.
    # What the API cannot express is said beside the file, never inside the request.
    document: dict[str, Any] = {"betas": betas} if betas else {}
    document["context_management"] = {"edits": edits}
    text = json_text(document)
    return Export(
        "anthropic", text, "context_management_anthropic.json", "json", tuple(missing), notes_in_file=False
    )


def read_anthropic(text: str) -> list[PolicySpec]:
    """The stack an Anthropic export (or a ``context_management`` object) describes."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ExportError(f"not JSON: {error}") from None
    management = document.get("context_management", document) if isinstance(document, dict) else None
    edits = management.get("edits") if isinstance(management, dict) else None
    if not isinstance(edits, list):
        raise ExportError("no context_management.edits list")
    specs = []
    for n, edit in enumerate(edits, start=1):
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind == "clear_tool_uses_20250919":
            trigger = edit.get("trigger") or {"type": INPUT_TOKENS, "value": 100_000}
            params = {
                "trigger": trigger.get("value"),
                "trigger_type": trigger.get("type"),
                "keep": (edit.get("keep") or {"value": 3}).get("value"),
                "clear_at_least": (edit.get("clear_at_least") or {"value": 0}).get("value"),
                "exclude_tools": list(edit.get("exclude_tools") or []),
                "clear_tool_inputs": bool(edit.get("clear_tool_inputs", False)),
            }
            specs.append(PolicySpec.of(ClearToolUsesPolicy, params))
        elif kind == "clear_thinking_20251015":
            keep = edit.get("keep") or {"type": "thinking_turns", "value": 1}
            if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
                continue  # keeping all thinking edits nothing: no policy
            specs.append(PolicySpec.of(ClearThinkingPolicy, {"keep_turns": keep.get("value")}))
        elif kind == "compact_20260112":
            trigger = edit.get("trigger") or {"value": 150_000}
            params = {"trigger": trigger.get("value")}
            if edit.get("instructions") is not None:
                params["instructions"] = edit["instructions"]
            specs.append(PolicySpec.of(AnthropicCompactionPolicy, params))
        else:
            raise ExportError(f"edit {n}: unknown type {shown(kind)}")
    for spec in specs:
        spec.build()  # a value the policy refuses is named here, not at replay
    return specs
