"""any-agent traces (``AgentTrace`` exported as JSON: ``{spans: [...], final_output}``).

Each span is an OpenTelemetry span with ``gen_ai.*`` attributes as a plain mapping and its
times in nanoseconds. A ``call_llm`` span is one API call: ``gen_ai.input.messages`` (written on
the first call only: the later ones send the history so far), ``gen_ai.output`` (text, or with
``gen_ai.output.type`` json a list of ``{tool.name, tool.args}`` calls), ``gen_ai.usage.input_tokens``
and ``output_tokens``, and any-agent's own cost of the call (``input_cost``, ``output_cost``).
An ``execute_tool`` span is a tool's result (name, args, ``gen_ai.output``), answering the
earliest call of that name still open. ``invoke_agent`` spans the run.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict, deque
from dataclasses import replace
from typing import Any

from playground.engine.session import Session
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    as_dict,
    label_of,
    reported_cost,
    summed_cost,
)
from playground.formats.given import Given
from policies.messages import ToolCall

FORMAT = "any-agent trace"
OPERATIONS = ("call_llm", "execute_tool", "invoke_agent")


def looks_like(given: Given) -> bool:
    data = given.data
    spans = data.get("spans") if isinstance(data, dict) else None
    return isinstance(spans, list) and any(
        isinstance(s, dict) and as_dict(s.get("attributes")).get("gen_ai.operation.name") in OPERATIONS
        for s in spans[:50]
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    builder = SessionBuilder(file, FORMAT)
    spans = sorted(
        (s for s in data["spans"] if isinstance(s, dict)), key=lambda s: _number(s.get("start_time"))
    )
    passed: Counter[str] = Counter()
    open_calls: dict[str, deque[ToolCall]] = defaultdict(deque)  # by tool name: called, not answered yet
    costs: list[float | None] = []  # each priced call's own bill
    agent, model = "", ""
    for n, span in enumerate(spans):
        attributes = as_dict(span.get("attributes"))
        operation = attributes.get("gen_ai.operation.name")
        builder.where = f"span {n} ({label_of(span.get('name'))})"
        if operation == "call_llm":
            model = str(attributes.get("gen_ai.request.model") or model)[:200]
            if not builder.messages:
                for message in _json(attributes.get("gen_ai.input.messages"), builder) or []:
                    _input(message, builder)
            for call in _reply(builder, attributes, span, n, model):
                open_calls[call.name].append(call)
            call_cost = [attributes.get(f"gen_ai.usage.{k}_cost") for k in ("input", "output")]
            amounts = [reported_cost(c) for c in call_cost]
            if all(a is not None for a in amounts):
                costs.append(summed_cost(amounts))
        elif operation == "execute_tool":
            name = attributes.get("gen_ai.tool.name")
            waiting = open_calls.get(name) if isinstance(name, str) else None
            if not waiting:
                builder.warn(
                    builder.where, f"a result of {label_of(name)} that no open call asked for: left out"
                )
                continue
            answered = waiting.popleft()  # the oldest open call of that tool
            builder.add("tool", _text(attributes.get("gen_ai.output")), tool_call_ids=(answered.id,))
        elif operation == "invoke_agent":
            agent = str(attributes.get("gen_ai.agent.name") or agent)[:80]
        else:
            passed[label_of(operation)] += 1
    builder.warn_counts("spans passed over", dict(passed))
    session = builder.build(f"{agent or 'any-agent'} · {model}" if model else agent or "any-agent run")
    bill = summed_cost(costs)  # finite parts may add past any bill, to infinity: then none
    if bill is not None:
        return [replace(session, reported_cost_usd=round(bill, 10))]
    return [session]


def _reply(builder: SessionBuilder, attributes: dict, span: dict, n: int, model: str) -> list[ToolCall]:
    """The call's reply as an assistant message with its usage; the tool calls it makes."""
    output = attributes.get("gen_ai.output")
    calls: list[ToolCall] = []
    text = ""
    if attributes.get("gen_ai.output.type") == "json":
        for j, call in enumerate(_json(output, builder) or []):
            if isinstance(call, dict) and isinstance(call.get("tool.name"), str):
                calls.append(
                    ToolCall(f"span{n}-call{j}", call["tool.name"], arguments_text(call.get("tool.args")))
                )
    else:
        text = _text(output)
    builder.add(
        "assistant",
        text,
        tool_calls=tuple(calls),
        prompt_tokens=builder.token_count(
            attributes.get("gen_ai.usage.input_tokens"), "gen_ai.usage.input_tokens"
        ),
        output=builder.token_count(
            attributes.get("gen_ai.usage.output_tokens"), "gen_ai.usage.output_tokens"
        ),
        model=model or None,
        time=builder.reply_time(_number(span.get("start_time")) / 1e9 or None),
    )
    return calls


def _input(message: Any, builder: SessionBuilder) -> None:
    if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant", "tool"):
        builder.warn(builder.where, "an input message of no known role: left out")
        return
    content = message.get("content")
    builder.add(message["role"], content if isinstance(content, str) else arguments_text(content))


def _json(value: Any, builder: SessionBuilder) -> Any:
    """An attribute holding JSON text, as data (None, said, where it does not read)."""
    if not isinstance(value, str):
        return value
    try:
        return builder.inner_json(value, "an attribute's JSON")
    except json.JSONDecodeError:
        builder.warn(builder.where, "an attribute that should hold JSON does not: left out")
        return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else arguments_text(value)


def _number(value: Any) -> float:
    """A span's start in nanoseconds, as its order and its reply's time; one out of any clock's
    range (±1e38) is unknown, 0."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return 0.0
    try:
        number = float(value)
    except OverflowError:
        return 0.0
    return number if 0 <= number < MAX_NANOSECONDS else 0.0


MAX_NANOSECONDS = 1e20  # year 5138: later is no time
