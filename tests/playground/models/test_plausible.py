"""Issue 58, 13: a call whose recorded usage no call of its model could have is left out, said,
and never billed to every stack (a 1-character reply of 1e8 output tokens, a 1e8-token prompt
to a 128,000-token model and cache reads ten times the prompt were billed $1,000 with no word)."""

from __future__ import annotations

import json

from playground.cli.main import main
from playground.formats import read_bytes
from playground.models.plausible import plausible


def _chat(usages: list[dict]) -> bytes:
    messages = [{"role": "system", "content": "You help."}]
    for n, usage in enumerate(usages):
        messages += [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": "a", "usage": usage, "model": "gpt-4o"},
        ]
    return json.dumps(messages).encode()


HONEST = {"prompt_tokens": 40, "completion_tokens": 3}
ABSURD = [
    {"prompt_tokens": 60, "completion_tokens": 100_000_000},  # a 1-character reply
    {"prompt_tokens": 100_000_000, "completion_tokens": 1},  # gpt-4o's window is 128,000
    {"prompt_tokens": 80, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 800}},
]


def test_each_implausible_call_s_usage_is_left_out_with_its_reason():
    (read,) = read_bytes(_chat([HONEST, *ABSURD, HONEST]), "chat.json")
    assert len(read.usage) == 5  # the reader reads what the file says
    (session,) = plausible([read])
    replies = session.replies
    assert set(session.usage) == {replies[0], replies[4]}
    assert set(session.outputs) <= {replies[0], replies[4]} and not session.cache_reads
    said = [str(w) for w in session.warnings]
    assert any("turn 2" in w and "a reply of 100,000,000 tokens from gpt-4o" in w for w in said)
    assert any("turn 3" in w and "a prompt of 100,000,000 tokens to gpt-4o" in w for w in said)
    assert any("turn 4" in w and "cache reads of 800 tokens in a prompt of 80" in w for w in said)
    (honest,) = plausible(read_bytes(_chat([HONEST, HONEST]), "chat.json"))
    assert not honest.warnings  # a call a model could make is kept as recorded


def test_the_cli_bills_no_stack_at_an_implausible_call_s_figures(tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_bytes(_chat([HONEST, *ABSURD, HONEST]))
    out = tmp_path / "replay.json"
    assert main(["replay", str(path), "--json", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert summary["recorded_calls"] == summary["file_recorded_calls"] == 2
    assert summary["cost_usd"] < 0.01 and summary["raw_cost_usd"] < 0.01  # $1,000 before
    printed = capsys.readouterr()
    assert (printed.out + printed.err).count("recorded usage no call could have") == 3
