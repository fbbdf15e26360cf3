"""Inspect AI logs: read as the files hold them (expected figures from the raw lines)."""

from __future__ import annotations

import json
import zipfile

import pytest

from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from tests.playground.formats.reading import FORMATS


def test_inspect_logs_json_and_eval_read_per_sample_with_their_usage():
    path = FORMATS / "inspect-ai" / "2025-05-12T20-27-36-04-00_browser.json"
    log = json.loads(path.read_text())
    (session,) = read_path(path)
    model_events = [e for e in log["samples"][0]["events"] if e["event"] == "model"]
    assert session.turns == len(model_events)
    (usage,) = log["stats"]["model_usage"].values()
    assert sum(session.usage.values()) == usage["input_tokens"]
    assert sum(session.cache_reads.values()) == usage["input_tokens_cache_read"]
    eval_path = FORMATS / "inspect-ai" / "log_message_deduplication.eval"
    with zipfile.ZipFile(eval_path) as archive:
        sample = json.loads(archive.read("samples/0_epoch_1.json"))
    (session,) = read_path(eval_path)
    assert session.turns == sum(1 for e in sample["events"] if e["event"] == "model")
    assert not any("attachment://" in m.content for m in session.messages)


def test_a_zip_that_is_not_an_inspect_log_is_named():
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(TranscriptError, match=r"not an Inspect AI \.eval log"):
        read_bytes(buffer.getvalue(), "x.zip")
