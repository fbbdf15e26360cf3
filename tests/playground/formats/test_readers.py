"""Every reader together: the catalogue and its refusals, and every real file read and replayed."""

from __future__ import annotations

import json

import pytest

from playground.engine.replay import Settings, replay
from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from playground.measures.metrics import totals, turn_table
from playground.stacks.config import Config
from tests.playground.formats.reading import FORMATS


@pytest.mark.parametrize(
    "path",
    sorted(p for p in FORMATS.rglob("*") if p.is_file() and p.name not in ("SOURCES.md", "LICENSE.erk")),
)
def test_every_real_file_reads_and_replays(path):
    sessions = read_path(path)
    assert sessions
    for session in sessions:
        result = replay(session, [], Settings())
        assert len(result.turns) == session.turns


def test_the_refusal_names_every_format_of_the_catalogue():
    from playground.formats import READABLE
    from playground.formats.catalogue import FORMATS

    assert all(f.tool.split()[0] in READABLE for f in FORMATS)


def test_files_uploaded_together_go_to_their_reader_with_the_files_it_reads_beside_them():
    """Cline's ui_messages.json is read with the history of its task, not on its own (the
    pairing was the app's own rule before)."""
    from playground.formats import with_companions

    history, ui, other = (
        ("api_conversation_history.json", b"[]"),
        ("ui_messages.json", b"[1]"),
        ("a.jsonl", b"x"),
    )
    assert with_companions((other, ui, history)) == [("a.jsonl", b"x", ()), (*history, (ui,))]
    assert with_companions((ui,)) == [(*ui, ())]  # alone, it is read and says what it lacks


def test_the_raw_history_s_own_broken_pairs_are_counted_beside_the_stack_s():
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}],
        },
        {"role": "user", "content": "never mind"},  # c1 never answered: every later request breaks the rule
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "and?"},
        {"role": "assistant", "content": "done"},
    ]
    (session,) = read_bytes(json.dumps(messages).encode(), "chat.json")
    figures = totals(turn_table(replay(session, [], Config().settings_for(session))))
    assert figures["raw_turns_with_violations"] == figures["turns_with_violations"] == 2


def test_a_file_of_thousands_of_warnings_lists_fifty_and_counts_the_rest():
    """Issue 49, 6: 49,999 duplicate-id warnings were drawn one by one."""
    messages = [{"role": "user", "content": "go"}]
    for _ in range(3_000):
        call = {"id": "same", "function": {"name": "ls", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "same", "content": "x"},
        ]
    (session,) = read_bytes(json.dumps(messages).encode(), "chat.json")
    assert len(session.warnings) == 51
    assert str(session.warnings[-1]).endswith("2,949 more warnings, not listed (the first 50 are)")


def test_a_chat_whose_messages_are_mostly_of_roles_no_format_knows_is_refused_with_them():
    """Issue 57, 2: never accepted as an empty session (0 turns and a warning per message)."""
    import pytest

    chat = [{"role": "user", "content": "hi"}] + [{"role": "robot", "content": f"beep {i}"} for i in range(5)]
    with pytest.raises(
        TranscriptError, match=r"5 of 6 messages have a role no chat format knows \('robot' \(5\)\)"
    ):
        read_bytes(json.dumps(chat).encode(), "chat.json")


def test_every_reader_is_two_functions_of_a_given_and_the_catalogue_lists_them_all():
    import inspect

    from playground.formats import catalogue

    for reader in catalogue.READERS + catalogue.NOT_SESSIONS:
        for function in (reader.looks_like, reader.read):
            assert list(inspect.signature(function).parameters) == ["given"], function
