"""mini-swe-agent trajectories (``*.traj.json``, ``trajectory_format: mini-swe-agent-*``).

``messages`` are OpenAI chat messages; each reply keeps the provider's raw response under
``extra.response`` (its ``model`` and ``usage``: prompt tokens, cached tokens, completion
tokens), read by the chat reader. ``info.model_stats.instance_cost`` is the agent's own bill
of the run, kept beside ours; ``info.config.model.model_name`` names the model where a reply
does not.
"""

from __future__ import annotations

from dataclasses import replace

from playground.engine.session import ReadWarning, Session
from playground.formats import openai_chat
from playground.formats.builder import as_dict, reported_cost
from playground.formats.given import Given

FORMAT = "mini-swe-agent trajectory"


def looks_like(given: Given) -> bool:
    data = given.data
    return (
        isinstance(data, dict)
        and isinstance(data.get("trajectory_format"), str)
        and data["trajectory_format"].startswith("mini-swe-agent")
        and isinstance(data.get("messages"), list)
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    name = data.get("instance_id") if isinstance(data.get("instance_id"), str) else ""
    session = openai_chat.session_of(data["messages"], file, name[:200] or "mini-swe-agent run")
    info = as_dict(data.get("info"))
    configured = as_dict(as_dict(info.get("config")).get("model")).get("model_name")
    models = dict(session.models)
    notes: list[ReadWarning] = []
    if isinstance(configured, str) and configured:
        for index in session.usage:  # a reply that names no model: the run's configured one
            models.setdefault(index, configured[:200])
        answered = set(models.values()) - {configured}
        if answered:
            notes.append(
                ReadWarning(
                    "info.config.model",
                    f"configured as {configured[:80]}; the provider answered as {', '.join(sorted(answered))[:120]} "
                    "(each call is priced at the model that answered it)",
                )
            )
    cost = as_dict(info.get("model_stats")).get("instance_cost")
    reported = reported_cost(cost)
    return [
        replace(
            session,
            format=FORMAT,
            models=models,
            reported_cost_usd=reported,
            warnings=(*session.warnings, *notes),
        )
    ]
