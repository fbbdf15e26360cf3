"""The coding agents' own settings files: Claude Code's ``settings.json``, Codex CLI's
``config.toml``, opencode's ``opencode.json`` and Gemini CLI's ``settings.json``.

Each agent runs its own policy whatever the file says; a file can only tune it (or, where
the agent allows, turn it off). So a stack exports exactly when it is the agent's own policy,
tuned by settings the agent reads; every other entry, and every setting the agent fixes, is
listed with what to do instead. JSON files hold only keys their agent reads (the list goes
beside the download and to the terminal); the TOML file opens with it as comments.
"""

from __future__ import annotations

from typing import Any

from playground.export.base import Export, Unexpressible, defaults, translate, values
from playground.stacks.config import json_text
from policies.base import Policy, shown, visible
from policies.claude_code import ClaudeCodeAutoCompactPolicy, ClaudeCodeMicrocompactPolicy
from policies.codex import CodexAutoCompactPolicy
from policies.gemini_cli import GeminiChatCompressionPolicy
from policies.opencode import OpencodeCompactionPolicy, OpencodePrunePolicy
from policies.registry import PolicySpec

CLAUDE_CODE = "Claude Code"
CODEX = "Codex CLI"
OPENCODE = "opencode"
GEMINI_CLI = "Gemini CLI"
CLAUDE_CODE_WINDOW = (100_000, 1_000_000)  # autoCompactWindow's range


def _unset(spec: PolicySpec, names: tuple[str, ...], missing: list[Unexpressible], why: str) -> None:
    """Each of ``names`` the entry gives a value other than its default: listed, ``why``."""
    given, default = values(spec), defaults(spec)
    missing += [
        Unexpressible(spec.name, f"{name} {shown(given[name])}: {why}")
        for name in names
        if given[name] != default[name]
    ]


def _absent(specs: list[PolicySpec], policy: type[Policy]) -> bool:
    return not any(s.policy is policy and s.enabled for s in specs)


def _agent_settings(
    specs: list[PolicySpec],
    translators: dict[type[Policy], Any],
    agent: str,
    otherwise: str,
    runs_anyway: dict[type[Policy], str],
    start: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[Unexpressible]]:
    """The settings the stack's entries give (each translator's part merged over ``start``),
    and what cannot be said: every other entry (``otherwise`` says what to do), and each of
    ``runs_anyway`` (the agent's own policies: why each runs though the stack lacks it)."""
    parts, missing = translate(specs, translators, agent, {}, otherwise)
    merged = dict(start or {})
    for part in parts:
        merged.update(part)
    missing += [
        Unexpressible(policy.__name__, f"not in the stack, but {why}")
        for policy, why in runs_anyway.items()
        if _absent(specs, policy)
    ]
    return merged, missing


# Claude Code ----------------------------------------------------------------------------------


def _claude_autocompact(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    _unset(
        spec,
        ("summary_prompt",),
        missing,
        "Claude Code writes its own summary; give /compact instructions instead",
    )
    _unset(
        spec, ("rule",), missing, "Claude Code compacts by its own release's rule; run that release instead"
    )
    part: dict[str, Any] = {"autoCompactEnabled": True}
    if v["auto_compact_window"] is not None:
        part["autoCompactWindow"] = v["auto_compact_window"]
    if v["autocompact_pct_override"] is not None:
        # settings.json env reaches Claude Code itself in current releases; where it does not, export
        # it in the shell that starts claude (claude-code #63186)
        part["env"] = {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": str(v["autocompact_pct_override"])}
    return part


def _claude_microcompact(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> None:
    _unset(
        spec,
        ("gap_minutes", "keep_recent", "placeholder", "tools", "persistence"),
        missing,
        "Claude Code's time-based clear is on by default with values of its own; no setting changes them",
    )


def claude_code(specs: list[PolicySpec], settings: Any) -> Export:
    document, missing = _agent_settings(
        specs,
        {
            ClaudeCodeAutoCompactPolicy: _claude_autocompact,
            ClaudeCodeMicrocompactPolicy: _claude_microcompact,
        },
        CLAUDE_CODE,
        "Claude Code runs only its own auto-compact and microcompact; use a PreCompact hook or an MCP server",
        {
            ClaudeCodeMicrocompactPolicy: "Claude Code clears old tool results after an idle hour anyway; "
            "no setting turns it off"
        },
    )
    if _absent(specs, ClaudeCodeAutoCompactPolicy):
        document["autoCompactEnabled"] = False  # the stack has no auto-compact: turn Claude Code's off
    elif (
        "autoCompactWindow" not in document
        and settings is not None
        and CLAUDE_CODE_WINDOW[0] <= settings.context_window <= CLAUDE_CODE_WINDOW[1]
    ):
        document["autoCompactWindow"] = settings.context_window  # the window the replay compacted in
    return Export(
        "claude-code", json_text(document), "settings.json", "json", tuple(missing), notes_in_file=False
    )


# Codex CLI ------------------------------------------------------------------------------------


def _codex_autocompact(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    part: dict[str, Any] = {}
    if v["auto_compact_token_limit"] is not None:
        part["model_auto_compact_token_limit"] = v["auto_compact_token_limit"]
    if v["summary_prompt"] != defaults(spec)["summary_prompt"]:
        part["compact_prompt"] = v["summary_prompt"]
    return part


def toml_value(value: Any) -> str:
    """A TOML value: an integer, or a basic string escaping what does not print (parameters
    hold no lone surrogate: their declaration refuses one)."""
    if isinstance(value, int):
        return str(value)
    out = []
    for c in str(value):
        if c in '"\\':
            out.append("\\" + c)
        elif c.isprintable():
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04X}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08X}")
    return '"' + "".join(out) + '"'


def codex(specs: list[PolicySpec], settings: Any) -> Export:
    keys, missing = _agent_settings(
        specs,
        {CodexAutoCompactPolicy: _codex_autocompact},
        CODEX,
        "Codex CLI runs only its own auto-compact",
        {CodexAutoCompactPolicy: "Codex CLI compacts at 90% of the window anyway; no setting turns it off"},
    )
    lines = [
        f"# A context-policy stack exported by the Context Policy Playground for {CODEX}'s config.toml.",
        "# Written for openai/codex codex-rs (compact.rs at 0100b10, openai_models.rs at 0d4367d). Names no key.",
    ]
    if missing:
        lines.append(f"# Not expressible in {CODEX} as it is (replaced by its nearest, or left out):")
        lines += [f"# - {visible(str(m))}" for m in missing]
    else:
        lines.append(f"# Every policy of the stack is expressed exactly in {CODEX}.")
    if not keys:
        lines.append("# Codex CLI's defaults are the stack: no key to set.")
    lines += [f"{key} = {toml_value(value)}" for key, value in keys.items()]
    return Export("codex", "\n".join(lines) + "\n", "config.toml", "toml", tuple(missing))


# opencode -------------------------------------------------------------------------------------


def _opencode_compaction(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    _unset(spec, ("max_output_tokens",), missing, "opencode takes it from the model's limit.output")
    _unset(
        spec, ("summary_prompt",), missing, "replace it with a plugin's experimental.session.compacting hook"
    )
    part: dict[str, Any] = {"auto": True}
    for name in ("reserved", "preserve_recent_tokens", "tail_turns"):
        if v[name] is not None:
            part[name] = v[name]
    return part


def _opencode_prune(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    _unset(
        spec,
        ("protect_tokens", "minimum_tokens"),
        missing,
        "fixed in opencode (PRUNE_PROTECT, PRUNE_MINIMUM)",
    )
    return {"prune": True}


def opencode(specs: list[PolicySpec], settings: Any) -> Export:
    compaction, missing = _agent_settings(
        specs,
        {OpencodeCompactionPolicy: _opencode_compaction, OpencodePrunePolicy: _opencode_prune},
        OPENCODE,
        "opencode runs only its own compaction and prune; a plugin can do more",
        {},
        start={"auto": False, "prune": False},  # what the stack lacks, turned off
    )
    return Export(
        "opencode",
        json_text({"compaction": compaction}),
        "opencode.json",
        "json",
        tuple(missing),
        notes_in_file=False,
    )


# Gemini CLI -----------------------------------------------------------------------------------


def _gemini_compression(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> dict:
    _unset(spec, ("token_limit",), missing, "Gemini CLI takes the limit from the model")
    _unset(spec, ("summary_prompt",), missing, "Gemini CLI writes its state snapshot with its own prompt")
    return {"compressionThreshold": v["compression_threshold"]}


def gemini_cli(specs: list[PolicySpec], settings: Any) -> Export:
    model, missing = _agent_settings(
        specs,
        {GeminiChatCompressionPolicy: _gemini_compression},
        GEMINI_CLI,
        "Gemini CLI runs only its own chat compression",
        {
            GeminiChatCompressionPolicy: "Gemini CLI compresses anyway; "
            "the nearest is model.compressionThreshold 1.0"
        },
    )
    document = {"model": model} if model else {}
    return Export(
        "gemini-cli", json_text(document), "settings.json", "json", tuple(missing), notes_in_file=False
    )


# the settings file each agent reads, by the format of the transcripts it writes
AGENT_TARGETS = {"Claude Code session": "claude-code", "Codex CLI rollout": "codex"}
