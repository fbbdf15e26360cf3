"""Langfuse trace exports: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json

from playground.formats import read_path
from tests.playground.formats.reading import FORMATS


def test_a_langfuse_trace_rebuilt_from_spans_counts_each_message_once():
    path = FORMATS / "langfuse" / "trace-5028c350.json"
    trace = json.loads(path.read_text())
    best: dict[str, int] = {}
    for o in trace["observations"]:
        if o["type"] == "GENERATION":
            m = o["metadata"]
            total = o["usageDetails"]["input"] + m["cacheRead"] + m["cacheWrite"]
            best[m["messageId"]] = max(best.get(m["messageId"], 0), total)
    (session,) = read_path(path)
    assert session.turns == len(best) and sum(session.usage.values()) == sum(best.values())
    assert session.tool_calls == len(
        {o["metadata"]["callId"] for o in trace["observations"] if o["name"].startswith("tool-")}
    )
