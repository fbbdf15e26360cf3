"""The quality pass's results on the samples, the real astropy session and a synthetic
20,000-message session, under the default and the extended stack: facts lost, re-fetches,
standing rules lost per turn, and must-keep states, one digest per session and stack.

``quality_reference.json`` beside this file was written by the trie-regex fact finder
(before the compiled matcher): ``python -m tests.playground.measures.quality_reference``; the
Aho-Corasick finder gave exactly those results. It was written again once since, when what a
fact is changed on purpose (arguments decoded, labels, keywords and numbers below 100 left
out): a change of the finder alone must leave it as it is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from playground.cli.bench import EXTENDED_STACK, synthetic_session
from playground.engine.replay import Settings, replay
from playground.formats import read_path
from playground.measures import must_keep, quality
from playground.stacks.presets import PRESETS
from policies.facts import extract_facts
from policies.messages import said
from tests.synthetic import FOLDER as SYNTHETIC

HERE = Path(__file__).parent
REFERENCE = HERE / "quality_reference.json"
ROOT = Path(__file__).parents[3]
STACKS = {"default": PRESETS["pyagentic recommended"], "extended": EXTENDED_STACK}
SYNTHETIC_MESSAGES = 20_000


def sessions() -> dict[str, object]:
    found = {}
    for path in sorted(SYNTHETIC.glob("*.json*")):
        for n, session in enumerate(read_path(path)):
            found[f"{path.name}#{n}"] = session
    [found["msa_astropy12907"]] = read_path(ROOT / "tests" / "fixtures" / "msa_astropy12907.traj.json")
    found[f"synthetic-{SYNTHETIC_MESSAGES}"] = synthetic_session(SYNTHETIC_MESSAGES)
    return found


def digest(session, stack) -> str:
    result = replay(session, list(stack), Settings())
    turns = [
        (t.turn, list(t.refetched), list(t.lost_facts), t.standing_rules_lost)
        for t in quality.per_turn(result)
    ]
    # must-keep: the first three facts of the first reply that has any, as a user would declare them
    first = next(
        (f for m in session.messages if m.role == "assistant" for f in [extract_facts(said(m))] if f), []
    )
    declared = must_keep.parse(first[:3]) if first else ()
    states = must_keep.state_rows(result, declared)
    data = json.dumps({"turns": turns, "must_keep": states}, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def compute() -> dict[str, dict[str, str]]:
    return {
        name: {stack: digest(s, specs) for stack, specs in STACKS.items()} for name, s in sessions().items()
    }


if __name__ == "__main__":
    REFERENCE.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {REFERENCE}")
