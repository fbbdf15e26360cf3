"""The targets whose export is Python: pyagentic, LangChain v1, the OpenAI Agents SDK,
Google ADK and selectools. Each translator turns one stack entry into source, or says why
it cannot."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playground.export.base import (
    Export,
    Raw,
    Unexpressible,
    call,
    defaults,
    only_one,
    py,
    python_header,
    translate,
    values,
)
from policies.adk import AdkTokenCompactionPolicy
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.compaction import CompactionPolicy
from policies.langchain import LangChainSummarizationPolicy
from policies.openai_agents import SummarizingSessionPolicy, ToolOutputTrimmerPolicy, TrimmingSessionPolicy
from policies.prompt_compression import PromptCompressionPolicy
from policies.registry import PolicySpec
from policies.sliding_window import SlidingWindowPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

Translator = Callable[[PolicySpec, dict[str, Any], list[Unexpressible]], str | None]

GLOB = re.compile(r"[*?\[]")


def changed(spec: PolicySpec) -> dict[str, Any]:
    """The entry's parameters that differ from their defaults (the frameworks share ours)."""
    given, default = values(spec), defaults(spec)
    return {k: v for k, v in given.items() if v != default[k]}


def listing(items: list[str]) -> str:
    """A Python list of source items, one per line (as a formatter leaves it)."""
    return "[\n" + "".join(f"    {item},\n" for item in items) + "]" if items else "[]"


def _not(spec: PolicySpec, missing: list[Unexpressible], reason: str) -> None:
    missing.append(Unexpressible(spec.name, reason))


# pyagentic: our policies are its, parameter for parameter -------------------------------------

PYAGENTIC_POLICIES = (ToolOutputClipPolicy, ToolEvictionPolicy, SlidingWindowPolicy, CompactionPolicy)


def _pyagentic(spec: PolicySpec, _: dict[str, Any], missing: list[Unexpressible]) -> str:
    return call(spec.name, changed(spec), indent="    ")


def pyagentic(specs: list[PolicySpec], settings: Any) -> Export:
    body, missing = translate(
        specs,
        dict.fromkeys(PYAGENTIC_POLICIES, _pyagentic),
        "pyagentic",
        {PromptCompressionPolicy: "use CompactionPolicy, or write a custom policy"},
    )
    used = sorted({s.name for s in specs if s.enabled and s.policy in PYAGENTIC_POLICIES})
    lines = [python_header("pyagentic", "pyagentic's pyagentic.policies API (rmikulec/pyAgentic)", missing)]
    if used:
        lines.append(f"from pyagentic.policies import {', '.join(used)}\n")
    lines.append(f"MESSAGE_POLICIES = {listing(body)}\n")
    lines.append(
        "# Attach them to your agent:\n#\n#     class MyAgent(BaseAgent):\n#         __message_policies__ = MESSAGE_POLICIES\n"
    )
    return Export("pyagentic", "\n".join(lines), "policies_pyagentic.py", "python", tuple(missing))


# LangChain v1 ---------------------------------------------------------------------------------

LANGCHAIN_VERSION = "langchain==1.5.2 (langchain-core 1.8)"


def _summary_template(prompt: str) -> str:
    """Our summarizer prompt as LangChain's template: its text, then the messages."""
    return prompt.replace("{", "{{").replace("}", "}}") + "\n\n<messages>\n{messages}\n</messages>"


def _langchain_summarization(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> str | None:
    clauses = [
        (kind, v[f"trigger_{kind}"])
        for kind in ("tokens", "messages", "fraction")
        if v[f"trigger_{kind}"] is not None
    ]
    arguments: dict[str, Any] = {"model": Raw("MODEL")}
    if clauses:
        if v["trigger_mode"] == "all" and len(clauses) > 1:
            arguments["trigger"] = Raw("{" + ", ".join(f"{py(k)}: {_number(x)}" for k, x in clauses) + "}")
        elif len(clauses) == 1:
            arguments["trigger"] = Raw(f"({py(clauses[0][0])}, {_number(clauses[0][1])})")
        else:
            arguments["trigger"] = Raw("[" + ", ".join(f"({py(k)}, {_number(x)})" for k, x in clauses) + "]")
    keep = v["keep_value"] if v["keep_kind"] == "fraction" else int(v["keep_value"])
    if (v["keep_kind"], keep) != ("messages", 20):
        arguments["keep"] = Raw(f"({py(v['keep_kind'])}, {_number(keep)})")
    if v["trim_tokens_to_summarize"] != 4_000:
        arguments["trim_tokens_to_summarize"] = v["trim_tokens_to_summarize"]
    arguments["summary_prompt"] = _summary_template(v["summary_prompt"])
    if v["chars_per_token"] not in (4.0, 3.3):
        _not(
            spec,
            missing,
            f"chars_per_token {v['chars_per_token']}: LangChain's counter uses 4 (3.3 for Anthropic chat models)",
        )
    elif v["chars_per_token"] == 3.3:
        _not(
            spec, missing, "chars_per_token 3.3: LangChain uses it only with an Anthropic chat model as MODEL"
        )
    if not v["use_reported_usage"]:
        _not(
            spec,
            missing,
            "use_reported_usage off: LangChain's built-in counter always scales by the last reply's usage",
        )
    return call("SummarizationMiddleware", arguments)


def _number(value: Any) -> str:
    return f"{value:_}" if isinstance(value, int) and value >= 10_000 else repr(value)


def _langchain_context_editing(
    spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]
) -> str | None:
    if v["flavour"] != "langchain":
        _not(
            spec,
            missing,
            "the anthropic flavour counts the whole request and clears all or nothing: set flavour: langchain to replay what LangChain does",
        )
        return None
    if v["persistence"] != "ephemeral":
        _not(
            spec, missing, "persistent: ContextEditingMiddleware edits each request and keeps the state whole"
        )
        return None
    globs = [p for p in v["exclude_tools"] if GLOB.search(p)]
    if globs:
        _not(spec, missing, f"exclude_tools patterns {', '.join(globs)}: LangChain matches exact names")
        return None
    edit = {
        k: val
        for k, val in changed(spec).items()
        if k in ("trigger", "clear_at_least", "keep", "clear_tool_inputs", "exclude_tools", "placeholder")
    }
    return call(
        "ContextEditingMiddleware",
        {"edits": Raw("[" + call("ClearToolUsesEdit", edit, indent="        ") + "]")},
    )


LANGCHAIN_ADVICE = {
    ToolOutputClipPolicy: "clip in your tool wrapper",
    ToolEvictionPolicy: "its nearest is ContextEditingMiddleware's ClearToolUsesEdit, which clears old results in each request (ClearToolUsesPolicy, flavour langchain)",
    SlidingWindowPolicy: "trim the messages in a before_model middleware",
    CompactionPolicy: "its nearest is SummarizationMiddleware (LangChainSummarizationPolicy)",
}


def langchain(specs: list[PolicySpec], settings: Any) -> Export:
    translators = {
        LangChainSummarizationPolicy: _langchain_summarization,
        ClearToolUsesPolicy: _langchain_context_editing,
    }
    body, missing = translate(specs, translators, "LangChain", LANGCHAIN_ADVICE)
    used = sorted(
        {
            name
            for b in body
            for name in ("ClearToolUsesEdit", "ContextEditingMiddleware", "SummarizationMiddleware")
            if name + "(" in b
        }
    )
    lines = [python_header("LangChain v1", LANGCHAIN_VERSION, missing)]
    lines.append("from langchain.agents import create_agent")
    if used:
        lines.append(f"from langchain.agents.middleware import {', '.join(used)}")
    lines.append(
        f"\nMODEL = {py(settings.model)}  # the model the replay counted for; init_chat_model's name\n"
    )
    lines.append(f"middleware = {listing(body)}\n")
    lines.append(
        "\ndef build_agent(tools):\n    return create_agent(model=MODEL, tools=tools, middleware=middleware)\n"
    )
    return Export("langchain", "\n".join(lines), "middleware_langchain.py", "python", tuple(missing))


# OpenAI Agents SDK ----------------------------------------------------------------------------


def _trimmer(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> str:
    arguments = changed(spec)
    if "trimmable_tools" in arguments:
        arguments["trimmable_tools"] = list(arguments["trimmable_tools"])
    return call("ToolOutputTrimmer", arguments)


OPENAI_ADVICE = {
    TrimmingSessionPolicy: "the cookbook's TrimmingSession (examples/agents_sdk/session_memory.ipynb) is not in the SDK: copy the class and pass it as session=",
    SummarizingSessionPolicy: "the cookbook's SummarizingSession (examples/agents_sdk/session_memory.ipynb) is not in the SDK: copy the class and pass it as session=",
    ToolOutputClipPolicy: "clip in your function tool",
}


def openai_agents(specs: list[PolicySpec], settings: Any) -> Export:
    body, missing = translate(specs, {ToolOutputTrimmerPolicy: _trimmer}, "OpenAI Agents SDK", OPENAI_ADVICE)
    body = only_one(
        body,
        missing,
        ToolOutputTrimmerPolicy,
        "a second trimmer: RunConfig takes one call_model_input_filter",
    )
    lines = [python_header("the OpenAI Agents SDK", "openai-agents==0.24.0", missing)]
    lines.append("from agents import RunConfig")
    if body:
        lines.append("from agents.extensions.tool_output_trimmer import ToolOutputTrimmer\n")
        lines.append(f"run_config = RunConfig(call_model_input_filter={body[0]})\n")
    else:
        lines.append("\nrun_config = RunConfig()\n")
    lines.append("# Runner.run(agent, input, run_config=run_config)\n")
    return Export("openai-agents", "\n".join(lines), "run_config_openai_agents.py", "python", tuple(missing))


# Google ADK -------------------------------------------------------------------------------------


def _adk(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> str:
    arguments: dict[str, Any] = {
        "token_threshold": v["token_threshold"],
        "event_retention_size": v["event_retention_size"],
    }
    template = v["summary_prompt"].replace("{", "{{").replace("}", "}}") + "\n\n{conversation_history}"
    arguments["summarizer"] = Raw(
        call("LlmEventSummarizer", {"llm": Raw("SUMMARIZER_LLM"), "prompt_template": template}, indent="    ")
    )
    return call("EventsCompactionConfig", arguments, indent="")


def adk(specs: list[PolicySpec], settings: Any) -> Export:
    body, missing = translate(specs, {AdkTokenCompactionPolicy: _adk}, "Google ADK", {})
    body = only_one(
        body,
        missing,
        AdkTokenCompactionPolicy,
        "a second compaction: an App takes one EventsCompactionConfig",
    )
    lines = [python_header("Google ADK", "google-adk==2.13.0", missing)]
    if body:
        lines.append("from google.adk.apps.app import EventsCompactionConfig")
        lines.append("from google.adk.apps.llm_event_summarizer import LlmEventSummarizer\n")
        lines.append(
            "SUMMARIZER_LLM = None  # set to your agent's model (a BaseLlm), e.g. root_agent.canonical_model\n"
        )
        lines.append(f"events_compaction_config = {body[0]}\n")
        lines.append(
            '# App(name="my_app", root_agent=root_agent, events_compaction_config=events_compaction_config)\n'
        )
    else:
        lines.append("events_compaction_config = None  # nothing in the stack that ADK expresses\n")
    return Export("adk", "\n".join(lines), "compaction_adk.py", "python", tuple(missing))


# selectools -------------------------------------------------------------------------------------


def _selectools(spec: PolicySpec, v: dict[str, Any], missing: list[Unexpressible]) -> str:
    return call(
        "CompressConfig",
        {"enabled": True, "threshold": v["compress_threshold"], "keep_recent": v["compress_keep_recent"]},
        indent="",
    )


def selectools(specs: list[PolicySpec], settings: Any) -> Export:
    body, missing = translate(specs, {PromptCompressionPolicy: _selectools}, "selectools", {})
    body = only_one(body, missing, PromptCompressionPolicy, "a second compression: AgentConfig takes one")
    lines = [python_header("selectools", "selectools==1.3.0", missing)]
    lines.append("from selectools import AgentConfig")
    if body:
        lines.append("from selectools.agent.config_groups import CompressConfig\n")
        lines.append(f"config = AgentConfig(compress={body[0]})\n")
    else:
        lines.append("\nconfig = AgentConfig()\n")
    return Export("selectools", "\n".join(lines), "config_selectools.py", "python", tuple(missing))
