"""Copied lines: a line of 24 characters or more that a reply writes verbatim from an earlier
tool result or user message is lost at a turn whose request no longer holds it."""

from __future__ import annotations

import json
from pathlib import Path

from playground.analyses.recommend import Budget, recommend
from playground.engine.replay import Settings, replay
from playground.formats import read_path
from playground.measures.metrics import totals, turn_table
from playground.stacks.config import Config
from policies.messages import Message, ToolCall
from policies.registry import PolicySpec
from tests.builders import make_session

ERK = Path(__file__).parents[2] / "fixtures" / "formats" / "claude-code-erk"
REAL = ERK / "9b9018ad-6e05-43d4-8746-1bd9ea68bf35.jsonl"
LINE = "def parse(text: str) -> list[Token]:"  # 36 characters, in a file the agent read


def _session():
    edit = json.dumps({"file_path": "p.py", "old_string": LINE, "new_string": LINE + "  # fixed"})
    return make_session(
        Message(role="user", content="fix parse"),
        Message(role="assistant", content="", tool_calls=(ToolCall("c1", "Read", '{"file_path": "p.py"}'),)),
        Message(role="tool", content=f"     1\t{LINE}\n     2\t    return []", tool_call_ids=("c1",)),
        Message(role="assistant", content="", tool_calls=(ToolCall("c2", "Bash", '{"command": "ls"}'),)),
        Message(role="tool", content="p.py", tool_call_ids=("c2",)),
        Message(role="assistant", content="", tool_calls=(ToolCall("c3", "Edit", edit),)),
        Message(role="tool", content="ok", tool_call_ids=("c3",)),
        Message(role="assistant", content="A line I write myself, long enough to count."),
    )


def test_a_line_a_reply_copies_from_a_result_the_request_dropped_is_lost_at_that_turn():
    session = _session()
    rows = turn_table(replay(session, [], Settings())).rows
    assert [r["quotes_lost"] for r in rows] == [0, 0, 0, 0]
    evicting = [PolicySpec("ToolEvictionPolicy", {"keep_last_n": 0})]
    table = turn_table(replay(session, evicting, Settings()))
    assert [r["quotes_lost"] for r in table.rows] == [0, 0, 1, 0]  # the Edit copies what the Read returned
    assert table.rows[2]["lost_quotes"] == LINE
    figures = totals(table)
    assert figures["distinct_quotes_lost"] == 1 and figures["turns_with_quotes_lost"] == 1


def _copied_lines_from_raw(path: Path) -> set[str]:
    """Every line of 24 characters or more a main-chain reply writes (its text, each string its
    tool calls pass) that an earlier tool result or user text holds, from the raw lines."""
    sources: list[str] = []
    copied: set[str] = set()
    for line in path.read_text().splitlines():
        item = json.loads(line)
        message = item.get("message")
        if (
            item.get("isSidechain")
            or not isinstance(message, dict)
            or item.get("type") not in ("user", "assistant")
        ):
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if item["type"] == "assistant":
            written = []
            for block in blocks:
                if block.get("type") == "text":
                    written.append(block["text"])
                elif block.get("type") == "tool_use":
                    written += [v for v in block["input"].values() if isinstance(v, str)]
            for text in written:
                for candidate in text.splitlines():
                    candidate = candidate.strip()
                    if len(candidate) >= 24 and any(candidate in s for s in sources):
                        copied.add(candidate)
        elif not item.get("isMeta"):
            for block in blocks:
                if block.get("type") == "text":
                    sources.append(block["text"])
                elif block.get("type") == "tool_result":
                    inner = block.get("content")
                    sources.append(
                        inner if isinstance(inner, str) else "\n".join(b.get("text", "") for b in inner or [])
                    )
    return copied


def test_on_a_real_claude_code_session_clipping_results_loses_the_lines_the_agent_copied():
    copied = _copied_lines_from_raw(REAL)
    assert len(copied) >= 3
    (session, *_) = read_path(REAL)
    settings = Config().settings_for(session)
    raw = totals(turn_table(replay(session, [], settings)))
    assert raw["distinct_quotes_lost"] == 0
    clipped = turn_table(replay(session, [PolicySpec("ToolOutputClipPolicy", {"max_chars": 100})], settings))
    lost = {q for row in clipped.rows for q in row["lost_quotes"].split("\n") if q}
    assert lost and lost <= copied
    assert totals(clipped)["distinct_quotes_lost"] == len(lost)


def test_at_the_default_budget_the_recommended_stack_loses_no_copied_line():
    (session, *_) = read_path(REAL)
    settings = Config().settings_for(session)
    answer = recommend([session], [settings], Budget(), trials=8, seed=0)
    assert answer.best is not None and "no copied line lost" in answer.budget.said()
    figures = totals(turn_table(replay(session, list(answer.best.stack), settings)))
    assert figures["distinct_quotes_lost"] == 0 and figures["distinct_facts_lost"] == 0
