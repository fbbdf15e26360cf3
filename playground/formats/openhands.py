"""OpenHands event streams: a trajectory saved from the UI (a list of events), a run of an
evaluation's ``output.jsonl`` (``history``, with ``metrics.token_usages`` per call), or an issue of
the resolver's ``output.jsonl``.

An event is an action or an observation with a ``source``. The actions the model took carry
``tool_call_metadata.model_response``, the raw completion: one response can yield several
actions and is repeated on each action and on its observation, so actions sharing a
``model_response.id`` are one call. Observations answer their action (``cause``) as tool
results. State changes and empty observations are passed over and counted.

The resolver before function calling wrote its history bare: no ``source``, ``id`` or
``tool_call_metadata`` (``openhands/resolver/resolver_output.py``, its ``mock_output``). There each
action of the agent was one model call (``metrics.costs`` holds one cost per call) and the
observation after it answers it; a ``message`` is the user's unless it waits for a response (the
agent asking).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from playground.engine.session import Session
from playground.formats.builder import (
    SessionBuilder,
    arguments_text,
    as_dict,
    as_list,
    reported_cost,
    summed_cost,
)
from playground.formats.given import Given
from policies.messages import ToolCall

PASSED_ACTIONS = ("change_agent_state", "recall", "null")
PASSED_OBSERVATIONS = ("agent_state_changed", "null")
# a bare event's fields that are not the action's arguments
BARE_FIELDS = ("action", "thought", "action_risk", "is_confirmed", "keep_prompt", "kernel_init_code")


def looks_like(given: Given) -> bool:
    items = given.items
    return any(_is_event(e) for e in _events(items[:20]))


def _is_event(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if "source" in item:
        return "action" in item or "observation" in item
    # a bare event of the resolver: one of the two, named (a SWE-agent step holds both as text)
    return (
        ("action" in item) != ("observation" in item) and "role" not in item and _bare_kind(item) is not None
    )


def _bare_kind(event: dict) -> str | None:
    kind = event.get("action", event.get("observation"))
    return kind if isinstance(kind, str) and kind.isidentifier() else None


def _events(items: list) -> list:
    """The events in order: an older history (the resolver's ``output.jsonl`` before 0.10) holds
    ``[action, observation]`` pairs, read as the two events."""
    if items and all(isinstance(i, list) and len(i) == 2 for i in items[:20]):
        return [event for pair in items if isinstance(pair, list) for event in pair]
    return items


def read(given: Given) -> list[Session]:
    items, file, name, container = given.items, given.file, given.name, given.container
    items = _events(items)
    builder = SessionBuilder(file, "OpenHands events")
    usages = _token_usages(container)
    passed: Counter[str] = Counter()
    calls_of: dict[str, str] = {}  # action id -> the tool call id it was made as
    open_response: str | None = None
    unanswered: str | None = None  # a bare action's call, answered by the observation after it
    for n, event in enumerate(items):
        builder.where = f"event {n}"
        if not isinstance(event, dict):
            passed["not an event object"] += 1
            continue
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        action, observation = event.get("action"), event.get("observation")
        metadata = (
            event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else {}
        )
        response = metadata.get("model_response") if isinstance(metadata.get("model_response"), dict) else {}
        if action == "system":
            builder.add("system", _text(args.get("content"), event.get("message")))
        elif action == "message" and not response:
            bare = "source" not in event
            user = not event.get("wait_for_response") if bare else event.get("source") == "user"
            text = _text(args.get("content"), _text(event.get("message"), event.get("content")))
            builder.add("user" if user else "assistant", text)
            open_response = None
        elif action is not None and "source" not in event and action not in PASSED_ACTIONS:
            unanswered = f"action-{n}" if action != "finish" else None
            arguments = {k: v for k, v in event.items() if k not in BARE_FIELDS}
            builder.add(
                "assistant",
                event.get("thought") if isinstance(event.get("thought"), str) else "",
                tool_calls=(ToolCall(unanswered, str(action), arguments_text(arguments)),)
                if unanswered
                else (),
            )
        elif action is not None and metadata:
            call_id = metadata.get("tool_call_id")
            if not isinstance(call_id, str):
                passed[f"action/{action} without a tool call id"] += 1
                continue
            calls_of[str(event.get("id"))] = call_id
            call = ToolCall(
                call_id, str(metadata.get("function_name") or action), _arguments(response, call_id, args)
            )
            thought = args.get("thought") if isinstance(args.get("thought"), str) else ""
            response_id = response.get("id") if isinstance(response.get("id"), str) else None
            if response_id is not None and response_id == open_response and builder.last_is_open_assistant():
                builder.join_last("", (call,))
                continue
            usage = response.get("usage") if isinstance(response.get("usage"), dict) else {}
            recorded = usages.get(response_id or "", {})
            builder.add(
                "assistant",
                thought,
                tool_calls=(call,),
                prompt_tokens=builder.token_count(
                    usage.get("prompt_tokens", recorded.get("prompt_tokens")), "prompt_tokens"
                ),
                cache_read=builder.cache_read(usage)
                if usage
                else builder.token_count(recorded.get("cache_read_tokens"), "cache_read_tokens"),
                cache_write=builder.token_count(
                    usage.get("cache_creation_input_tokens", recorded.get("cache_write_tokens")),
                    "cache_creation_input_tokens",
                ),
                output=builder.token_count(
                    usage.get("completion_tokens", recorded.get("completion_tokens")), "completion_tokens"
                ),
                model=response.get("model")
                if isinstance(response.get("model"), str)
                else recorded.get("model"),
                time=builder.reply_time(event.get("timestamp")),
            )
            open_response = response_id
        elif observation is not None and observation not in PASSED_OBSERVATIONS:
            call_id = metadata.get("tool_call_id") or calls_of.get(str(event.get("cause")))
            if call_id is None and "source" not in event:
                call_id, unanswered = unanswered, None
            if isinstance(call_id, str):
                builder.add(
                    "tool", _text(event.get("content"), event.get("message")), tool_call_ids=(call_id,)
                )
            elif observation == "recall" and _text(event.get("content"), ""):
                builder.add("user", _text(event.get("content"), ""))  # the context OpenHands adds
            else:
                passed[f"observation/{observation} answering no tool call"] += 1
        else:
            passed[
                f"{'action/' + str(action) if action is not None else 'observation/' + str(observation)}"
            ] += 1
    builder.warn_counts("events passed over, not messages the model was sent", dict(passed))
    bill = _recorded_costs(builder, container)
    session = builder.build(name)
    return [replace(session, reported_cost_usd=bill) if bill is not None else session]


def _recorded_costs(builder: SessionBuilder, container: dict | None) -> float | None:
    """The agent's own bill where its run records one: ``metrics.costs``, a cost per model call."""
    costs = as_dict(as_dict(container).get("metrics")).get("costs")
    if not isinstance(costs, list) or not costs:
        return None
    calls = sum(m.role == "assistant" for m in builder.messages)
    if len(costs) != calls:
        builder.warn("metrics.costs", f"{len(costs):,} costs recorded for {calls:,} model calls read")
    return summed_cost([reported_cost(c) for c in costs])


def _token_usages(container: dict | None) -> dict[str, dict]:
    metrics = container.get("metrics") if isinstance(container, dict) else None
    usages = metrics.get("token_usages") if isinstance(metrics, dict) else None
    return (
        {u["response_id"]: u for u in usages if isinstance(u, dict) and isinstance(u.get("response_id"), str)}
        if isinstance(usages, list)
        else {}
    )


def _arguments(response: dict, call_id: str, args: dict) -> str:
    """The call's arguments as the model wrote them, else the action's own arguments."""
    choices = response.get("choices") if isinstance(response.get("choices"), list) else []
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        for call in as_list(as_dict(message).get("tool_calls")):
            if (
                isinstance(call, dict)
                and call.get("id") == call_id
                and isinstance(call.get("function"), dict)
            ):
                return arguments_text(call["function"].get("arguments"))
    return arguments_text({k: v for k, v in args.items() if k != "thought"})


def _text(content: Any, fallback: Any) -> str:
    if isinstance(content, str) and content:
        return content
    return fallback if isinstance(fallback, str) else ""
