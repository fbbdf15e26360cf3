"""What the reader tests share: the fixtures' folder and a few ways to look at a read session."""

from __future__ import annotations

import json
from pathlib import Path

from playground.engine.replay import replay
from playground.measures.metrics import totals, turn_table
from playground.stacks.config import Config
from playground.stacks.presets import PRESETS

FORMATS = Path(__file__).parents[2] / "fixtures" / "formats"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def turns_of(sessions) -> int:
    return sum(s.turns for s in sessions)


def prompt_of(sessions) -> int:
    return sum(sum(s.usage.values()) for s in sessions)


def replays_clean(session) -> dict:
    """The raw history replays with no invalid request; a stack replays too."""
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["turns_with_violations"] == 0
    replay(session, PRESETS["pyagentic recommended"], Config().settings_for(session))
    return figures
