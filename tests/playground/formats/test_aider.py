"""Aider chat histories: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import pytest

from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS


def test_an_aider_history_reads_its_sessions_and_says_it_has_no_tools():
    sessions = read_path(FORMATS / "aider" / "zen-mcp-server.aider.chat.history.md")
    assert len(sessions) == 2 and all(s.format == "Aider chat history" for s in sessions)
    assert "no tool structure" in str(sessions[0].warnings[0])


def test_aider_tokens_lines_are_the_rounded_usage_of_the_reply_before_them():
    text = (
        "# aider chat started at 2025-01-01 10:00:00\n\n> Main model: gpt-4o with diff edit format\n\n"
        "#### fix the bug in app.py\n\nThe bug is on line 3.\n\n> Tokens: 2.4k sent, 104 received. Cost: $0.01 message.\n\n"
        "#### thanks\n\nYou're welcome.\n\n> Tokens: 2,612 sent, 1.2k cache write, 9 received.\n"
    )
    (session,) = read_bytes(text.encode(), ".aider.chat.history.md")
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]
    assert session.usage == {1: 2400, 3: 2612} and session.outputs == {1: 104, 3: 9}
    assert session.cache_writes == {3: 1200} and session.recorded_model == "gpt-4o"


@pytest.mark.parametrize("sent", ["1.2.3", "1,2,3,4.5.6", "9" * 400, "99999999999999999k"])
def test_an_aider_tokens_line_that_does_not_read_is_said_and_the_rest_is_read(sent):
    """Issue 49, 5 and 8: a ValueError traceback, or 1e20 tokens, before."""
    log = (
        "# aider chat started at 2025-01-01 10:00:00\n\n#### fix it\n\nDone.\n\n"
        f"> Tokens: {sent} sent, 104 received. Cost: $0.01 message, $0.01 session.\n\n#### more\n\nOK.\n"
    )
    (session,) = read_bytes(log.encode(), ".aider.chat.history.md")
    assert session.turns == 2 and not session.usage
    assert any("a Tokens line that does not read" in str(w) for w in session.warnings)


def test_a_bare_aider_input_line_is_a_blank_line_of_the_same_input_not_a_reply():
    """Aider writes a blank line inside a multi-line or pasted input as ``####`` alone: part of
    the user's input. One turn per model call, as the ``> Tokens:`` lines count them."""
    log = "\n".join(
        [
            "# aider chat started at 2026-03-01 10:00:00",
            "",
            "> Main model: claude-sonnet-4-5",
            "",
            "#### Fix the parser:",
            "####  ",
            "#### def parse(x):",
            "####",
            "####     return int(x)",
            "",
            "The parser now handles spaces.",
            "",
            "> Tokens: 2.4k sent, 104 received. Cost: $0.0088 message, $0.0088 session.",
            "",
            "#### thanks",
            "",
            "You're welcome.",
            "",
            "> Tokens: 2.6k sent, 10 received. Cost: $0.0080 message, $0.0168 session.",
        ]
    )
    (session,) = read_bytes(log.encode(), ".aider.chat.history.md")
    roles = [m.role for m in session.messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert session.messages[0].content == "Fix the parser:\n\ndef parse(x):\n\n    return int(x)"
    assert session.turns == len(session.usage) == 2  # one per Tokens line
    assert session.usage[1] == 2_400 and session.messages[1].content == "The parser now handles spaces."
