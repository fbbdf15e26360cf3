"""SWE-agent trajectories of the older format (``<run folder>/<instance>.traj``, SWE-agent 0.x).

``history`` is what the model was sent and answered (``role``, ``content``; the demonstration
as user messages marked ``is_demo``; each reply with its ``thought`` and ``action``);
``trajectory`` the steps; ``info.model_stats`` the run's totals only (``tokens_sent``,
``tokens_received``, ``api_calls``, ``instance_cost``): said, and the cost kept as the agent's
own bill. The file does not name its model: the run's folder does
(``gpt4__swe-bench-dev-easy__default__t-0.00__...``), or an ``args.yaml`` beside it, in
SWE-agent's short names (``SHORTCUTS``).
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from playground.engine.session import ReadWarning, Session
from playground.formats import openai_chat
from playground.formats.beside import may_look_beside
from playground.formats.builder import as_dict, as_list, reported_cost
from playground.formats.given import Given

FORMAT = "SWE-agent trajectory"
# SWE-agent 0.x's own names for the models it ran (sweagent/agent/models.py, its SHORTCUTS and
# model tables); "gpt4" is checked by a real run's own bill: 122,612 tokens sent at $10/M and
# 1,369 received at $30/M make its instance_cost of $1.26719
SHORTCUTS = {
    "gpt4": "gpt-4-1106-preview",
    "gpt4o": "gpt-4o-2024-05-13",
    "gpt4-turbo": "gpt-4-turbo-2024-04-09",
    "gpt35": "gpt-3.5-turbo-1106",
    "gpt4-0613": "gpt-4-0613",
    "claude-2": "claude-2.1",
    "claude-opus": "claude-3-opus-20240229",
    "claude-sonnet": "claude-3-sonnet-20240229",
    "claude-haiku": "claude-3-haiku-20240307",
    "claude-sonnet-3.5": "claude-3-5-sonnet-20240620",
}
_MODEL_LINE = re.compile(r"^\s*model_name:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)


def looks_like(given: Given) -> bool:
    data = given.data
    return (
        isinstance(data, dict)
        and isinstance(data.get("history"), list)
        and isinstance(data.get("trajectory"), list)
        and isinstance(as_dict(data.get("info")).get("model_stats"), dict)
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    messages, observations = [], 0
    for m in as_list(data["history"]):
        if not isinstance(m, dict):
            continue
        message = {"role": m.get("role"), "content": m.get("content")}
        for key in ("tool_calls", "tool_call_ids", "tool_call_id"):
            if m.get(key) is not None:
                message[key] = m[key]
        if message["role"] == "tool" and not (m.get("tool_call_ids") or m.get("tool_call_id")):
            message["role"] = "user"  # an observation with no call to answer: the model read it as text
            observations += 1
        messages.append(message)
    name = Path(file).stem if file else "SWE-agent run"
    session = openai_chat.session_of(messages, file, name)
    stats = as_dict(as_dict(data.get("info")).get("model_stats"))
    notes = []
    if observations:
        notes.append(
            ReadWarning(
                "history",
                f"{observations:,} observations of role 'tool' answer no tool call (no tool_call_id): read as "
                "user messages, the text the model was sent",
            )
        )
    totals = [stats.get(k) for k in ("api_calls", "tokens_sent", "tokens_received")]
    if all(isinstance(t, int) and not isinstance(t, bool) for t in totals):
        calls, sent, received = totals
        notes.append(
            ReadWarning(
                "info.model_stats",
                f"SWE-agent records the run's totals only: {calls:,} calls, {sent:,} tokens sent, "
                f"{received:,} received (no call's own usage)",
            )
        )
    model = _model(file)
    models = (
        dict.fromkeys((i for i, m in enumerate(session.messages) if m.role == "assistant"), model)
        if model
        else {}
    )
    if not model:
        notes.append(
            ReadWarning("", "the model is not named (neither the run's folder nor an args.yaml beside it)")
        )
    cost = stats.get("instance_cost")
    reported = reported_cost(cost)
    return [
        replace(
            session,
            format=FORMAT,
            models={k: v for k, v in models.items() if v},
            reported_cost_usd=reported,
            warnings=(*session.warnings, *notes),
        )
    ]


def _model(file: str) -> str:
    """The run's model: ``args.yaml`` beside the file (on disk only), else the run folder's first
    part of its name."""
    if not file:
        return ""
    folder = Path(file).parent
    args = folder / "args.yaml"
    if may_look_beside() and args.is_file():
        try:
            found = _MODEL_LINE.search(args.read_text(errors="replace")[: 2**16])
        except OSError:
            found = None
        if found:
            return _named(found.group(1))
    first = os.path.basename(folder).split("__")[0]
    return _named(first) if first in SHORTCUTS or "__" in os.path.basename(folder) else ""


def _named(name: str) -> str:
    name = name[:200]
    return SHORTCUTS.get(name, name)
