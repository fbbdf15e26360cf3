import io
import json
import re
import subprocess
import sys
from importlib.metadata import version

import pandas as pd
import pytest

from playground.cli.main import default_config, main
from playground.engine.replay import replay
from playground.engine.validity import check_request
from playground.formats import read_path
from playground.formats.openai_chat import session_of as read_openai
from playground.formats.openai_chat import to_openai
from playground.measures.metrics import turns_frame
from tests.synthetic import FOLDER as SYNTHETIC


def test_replay_prints_a_table_with_one_row_per_assistant_message(real_session_path, capsys):
    assert main(["replay", str(real_session_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 64  # 64 assistant messages
    assert "totals:" in out and "peak_context_tokens" in out


def test_replay_of_a_session_with_no_reply_says_there_is_nothing_to_replay(tmp_path, capsys):
    asked = tmp_path / "asked.json"
    asked.write_text(json.dumps([{"role": "user", "content": "anyone there?"}]))
    assert main(["replay", str(asked)]) == 0
    out = capsys.readouterr().out
    assert "1 message, 0 turns" in out
    assert "This session has no assistant replies, so there is no inference to replay." in out


def test_replay_json_has_turns_events_and_summary(real_session_path, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["replay", str(real_session_path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data) == {"session", "settings", "turns", "events", "summary", "pricing", "own_policy"}
    assert data["own_policy"] is None  # a mini-swe-agent run: no policy of its own to replay
    assert data["session"]["turns"] == len(data["turns"]) == 64
    assert all(t["context_tokens"] <= t["raw_tokens"] for t in data["turns"])
    assert data["turns"][0]["recorded_prompt_tokens"] == 1689
    assert data["settings"]["stack"][0] == {"ToolOutputClipPolicy": {"max_chars": 8000}}
    assert data["summary"]["stubs_created"] > 0
    # the model that answered, as the trajectory records it (DeepSeek), not the default
    assert (
        data["pricing"]["priced_as"]
        == f"deepseek-v4-flash at Deepseek (genai-prices {version('genai-prices')}; its price changes with "
        "the hour of the day: the 12:00 UTC price is used)"
    )
    assert data["summary"]["cost_usd"] == pytest.approx(sum(t["cost_usd"] for t in data["turns"]), abs=1e-6)
    assert data["turns"][0]["recorded_cache_read_tokens"] == 1664


def test_replay_prices_as_another_model_with_its_cache_rule(real_session_path, tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["replay", str(real_session_path), "--price-as", "claude-sonnet-4-5", "--json", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "priced as claude-sonnet-4-5 at Anthropic (genai-prices " in printed
    assert "); Anthropic, 5-minute cache" in printed
    assert "cost_usd" in printed and "cache_breaks: 58" in printed
    data = json.loads(out.read_text())
    assert data["settings"]["pricing"] == {"model": "claude-sonnet-4-5"}
    breaks = [e for e in data["events"] if e["action"] == "cache_break"]
    assert len(breaks) == data["summary"]["cache_breaks"] == 58
    assert {e["policy"] for e in breaks} == {"ToolEvictionPolicy (stub)"}
    assert sum(e["tokens_before"] for e in breaks) == data["summary"]["cache_break_repaid_tokens"]
    assert data["summary"]["saved_usd"] < 0 < data["summary"]["saved_pct"]  # fewer tokens, more dollars
    assert main(["replay", str(real_session_path), "--price-as", "no-such-model"]) == 0
    assert "priced as no price known (token figures only)" in capsys.readouterr().out


def test_csv_equals_the_library_figures(real_session_path, tmp_path):
    out = tmp_path / "r.csv"
    assert main(["replay", str(real_session_path), "--csv", str(out)]) == 0
    config, session = default_config(), read_path(real_session_path)[0]
    expected = turns_frame(replay(session, config.stack, config.settings_for(session)))
    written = pd.read_csv(out)
    for column in (
        "lost_facts",
        "lost_quotes",
        "cache_break_policy",
        "lost_must_keep",
    ):  # CSV reads "" as missing
        written[column] = written[column].astype(object).fillna("")
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)


def test_contexts_are_valid_requests_with_the_system_prompt(real_session_path, tmp_path):
    out = tmp_path / "contexts.jsonl"
    assert main(["replay", str(real_session_path), "--contexts", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["turn"] for line in lines] == list(range(1, 65))
    for line in lines:
        assert line["messages"][0]["role"] == "system"
        request = read_openai(line["messages"], str(out), "turn").messages
        assert check_request(request) == []


def test_the_delta_form_of_contexts_expands_to_the_full_form_and_is_smaller(
    real_session_path, tmp_path, capsys
):
    from playground.formats.contexts_file import expand

    full, delta = tmp_path / "full.jsonl", tmp_path / "delta.jsonl"
    assert main(["replay", str(real_session_path), "--contexts", str(full), "--contexts-form", "full"]) == 0
    assert main(["replay", str(real_session_path), "--contexts", str(delta), "--contexts-form", "delta"]) == 0
    whole = [json.loads(line) for line in full.read_text().splitlines()]
    deltas = delta.read_text().splitlines()
    assert list(expand(deltas)) == whole
    assert json.loads(deltas[0])["shared"] == 0 and all("shared" in json.loads(d) for d in deltas)
    assert delta.stat().st_size < full.stat().st_size / 4  # 0.58 MB against 2.6 MB
    assert "contexts:" not in capsys.readouterr().err  # a form asked for is not announced


def test_contexts_default_to_deltas_for_a_large_session_and_say_so(tmp_path, capsys, monkeypatch):
    from playground.cli.bench import synthetic_session
    from playground.formats import contexts_file

    session = tmp_path / "long.json"
    session.write_text(json.dumps([to_openai(m) for m in synthetic_session(400).messages]))
    monkeypatch.setattr(contexts_file, "AUTO_DELTA_MESSAGES", 1_000)
    out = tmp_path / "contexts.jsonl"
    assert (
        main(["replay", str(session), "--contexts", str(out), "--preset", "No policies (raw history)"]) == 0
    )
    assert "contexts: delta form" in capsys.readouterr().err
    assert all("shared" in json.loads(line) for line in out.read_text().splitlines())


def test_stdout_output_keeps_the_table_off_stdout(real_session_path, capsys):
    assert main(["replay", str(real_session_path), "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["turns"] == 64
    assert "totals:" in captured.err


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "cont')
    assert main(["replay", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"playground: {broken}: line 1 column")
    assert "truncated" in err


def test_missing_file_and_bad_config_exit_2(real_session_path, tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "No such file" in capsys.readouterr().err
    config = tmp_path / "stack.yaml"
    config.write_text("stack: [{SlidingWindowPolicy: {max_messages: -1}}]\n")
    assert main(["replay", str(real_session_path), "--config", str(config)]) == 2
    assert "stack entry 1: SlidingWindowPolicy: max_messages must be at least 2" in capsys.readouterr().err


def test_config_file_drives_the_replay(real_session_path, tmp_path, capsys):
    config = tmp_path / "stack.yaml"
    config.write_text("version: 1\nmodel: gpt-4\nstack:\n  - SlidingWindowPolicy: {max_messages: 10}\n")
    out = tmp_path / "r.json"
    assert main(["replay", str(real_session_path), "--config", str(config), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert max(t["context_messages"] for t in data["turns"]) <= 11  # window + pinned system prompt
    assert data["settings"]["model"] == "gpt-4" and data["settings"]["encoding"] == "cl100k_base"


def test_bench_prints_its_figures(capsys):
    # the browser's latency has a test of its own (tests/e2e): Playwright runs once per process
    assert main(["bench", "--messages", "120", "--browser", "0"]) == 0
    out = capsys.readouterr().out
    for label in (
        "tokenize each message once",
        "replay, default stack",
        "naive engine",
        "replay and quality pass, default stack",
        "replay and quality pass, extended stack",
        "peak memory",
    ):
        assert label in out


def test_bench_at_a_large_size_and_with_no_policy_prints_time_and_peak_memory(capsys):
    assert (
        main(
            [
                "bench",
                "--messages",
                "60",
                "--sweep-points",
                "0",
                "--large",
                "200",
                "--no-policy-memory",
                "300",
                "--browser",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert re.search(r"at 200 messages .*floor [\d.]+ s", out)
    for stack in ("default", "extended"):
        assert re.search(rf"replay and quality pass, {stack} stack: +[\d.]+ s .*peak [\d.]+ MiB\)", out)
    assert re.search(
        r"no policy at 300 messages: [\d.]+ s, peak [\d.]+ MiB; the requests hold [\d,]+ messages", out
    )


def test_bench_refuses_a_startup_file_it_cannot_read_by_name(tmp_path, capsys):
    broken = tmp_path / "cut.json"
    broken.write_text('[{"role": "user", "content": "hi"')
    assert main(["bench", "--messages", "20", "--startup", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "cut.json" in err and "Traceback" not in err


SAMPLES = sorted(SYNTHETIC.glob("*.json*"))


def test_validate_describes_every_sample_and_the_real_session(real_session_path, capsys):
    assert main(["validate", str(real_session_path), *map(str, SAMPLES)]) == 0
    out = capsys.readouterr().out
    assert out.count("format:") == len(SAMPLES) + 1 + 2  # the ops file holds three sessions
    assert "message 129: unknown role 'exit': left out of the replay" in out
    assert "[session 2: incident-billing-worker]" in out
    for fmt in ("openai-chat", "anthropic-messages", "langchain"):
        assert f"format:          {fmt}" in out


def test_validate_reports_problems_with_their_index_and_fails_on_unreadable_files(tmp_path, capsys):
    orphan = tmp_path / "orphan.json"
    orphan.write_text(
        json.dumps(
            [
                {"role": "user", "content": "a"},
                {"role": "tool", "tool_call_id": "x", "content": "r"},
                {"role": "assistant", "content": "b"},
            ]
        )
    )
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\x00\x01binary")
    assert main(["validate", str(orphan), str(broken)]) == 2
    captured = capsys.readouterr()
    assert "message 1: tool result for call x has no assistant call before it" in captured.out
    assert captured.err == f"playground: {broken}: binary data, not a JSON or JSONL transcript\n"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_replay_runs_on_every_sample(path, tmp_path):
    out = tmp_path / "r.json"
    assert main(["replay", str(path), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["turns"] == data["session"]["turns"] > 10


def test_session_picks_one_run_by_index_or_name(tmp_path, capsys):
    multi = SYNTHETIC / "ops_incidents_multi.json"
    assert main(["replay", str(multi), "--session", "1"]) == 0
    assert capsys.readouterr().out.startswith("incident-search-indexer")
    assert main(["replay", str(multi), "--session", "incident-billing-worker"]) == 0
    assert capsys.readouterr().out.startswith("incident-billing-worker")
    assert main(["replay", str(multi), "--session", "5"]) == 2
    assert "holds 3 session(s), 0 to 2" in capsys.readouterr().err


def test_the_cli_reports_a_replay_without_pandas_and_loads_it_only_for_a_frame(real_session_path, tmp_path):
    probe = (
        "import sys; from playground.cli.main import main; main(['validate', sys.argv[1]]); "
        "print('pandas loaded:', 'pandas' in sys.modules); "
        "main(['replay', sys.argv[1], '--must-keep', 'astropy', '--json', sys.argv[2], '--csv', sys.argv[3]]); "
        "print('pandas loaded:', 'pandas' in sys.modules); "
        "from playground.measures.metrics import turns_frame; print('pandas loaded:', 'pandas' in sys.modules)"
    )
    paths = [str(real_session_path), str(tmp_path / "r.json"), str(tmp_path / "r.csv")]
    out = subprocess.run(
        [sys.executable, "-c", probe, *paths], capture_output=True, text=True, check=True
    ).stdout
    assert re.findall(r"pandas loaded: (\w+)", out) == ["False", "False", "False"]
    assert "turn  raw_tokens  context_tokens" in out and "cost_usd: " in out


def test_csv_cells_that_open_like_a_formula_are_kept_text(tmp_path):
    from playground.cli.text_table import write_csv
    from playground.measures.metrics import csv_text

    rows = [
        {"turn": 1, "lost_facts": "=cmd|' /C calc'!A0", "lost_must_keep": "@SUM(A0)", "saved": -3.5},
        {"turn": 2, "lost_facts": "+1", "lost_must_keep": "\tx", "saved": 0},
        {"turn": 3, "lost_facts": "-2+3", "lost_must_keep": "\rx", "saved": None},
    ]
    out = io.StringIO(newline="")
    write_csv(rows, out)
    import csv

    read = list(csv.DictReader(io.StringIO(out.getvalue(), newline="")))
    assert [r["lost_facts"] for r in read] == ["'=cmd|' /C calc'!A0", "'+1", "'-2+3"]
    assert [r["lost_must_keep"] for r in read] == ["'@SUM(A0)", "'\tx", "'\rx"]
    assert [r["saved"] for r in read] == ["-3.5", "0", ""]  # numbers stay numbers
    import pandas as pd

    frame = pd.read_csv(io.StringIO(csv_text(pd.DataFrame(rows[:2]))))
    assert list(frame["lost_facts"]) == ["'=cmd|' /C calc'!A0", "'+1"]
    assert list(frame["saved"][:2]) == [-3.5, 0]


def test_a_candidate_named_like_a_formula_is_text_in_compare_csv(tmp_path):
    config = tmp_path / "evil.yaml"
    config.write_text(
        "version: 1\ncandidates:\n  - name: '=HYPERLINK(\"x\")'\n    stack: [ToolEvictionPolicy]\n"
    )
    out = tmp_path / "c.csv"
    session = SAMPLES[0]
    assert main(["compare", str(session), str(config), "--csv", str(out)]) == 0
    assert "'=HYPERLINK" in out.read_text() and "\n=HYPERLINK" not in out.read_text()
    assert ",=HYPERLINK" not in out.read_text()


@pytest.mark.parametrize("member", ["a[1].json", "b*.json", "c?.json", "d\\e.json"])
def test_the_printed_unzip_command_takes_out_that_member_and_no_other(tmp_path, member):
    """Issue 49, 9: unzip reads a member name as a pattern; the command escapes its wildcards."""
    import shlex
    import shutil
    import subprocess
    import zipfile

    from playground.cli.analyses import replay_command

    if shutil.which("unzip") is None:
        pytest.skip("unzip is not installed here")
    archive = tmp_path / "runs.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr(member, "RIGHT")
        for other in ("a1.json", "bx.json", "cx.json", "de.json"):
            out.writestr(other, "WRONG")
    command = replay_command(f"{archive}:{member}", 0, None)
    unzip = command.split(" > member.json")[0]
    taken = subprocess.run(shlex.split(unzip), capture_output=True, text=True, check=True).stdout
    assert taken == "RIGHT"


def test_playground_app_names_a_path_that_is_not_there_and_starts_nothing(tmp_path, capsys):
    assert main(["app", str(tmp_path / "missing.jsonl")]) == 2
    assert f"no such file or folder: {tmp_path / 'missing.jsonl'}" in capsys.readouterr().err


def test_a_session_with_no_reply_says_so_in_a_line_and_its_json_keeps_every_figure(tmp_path, capsys):
    from playground.measures.figures import TOTALS

    path = tmp_path / "asked.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    out = tmp_path / "r.json"
    assert main(["replay", str(path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    totals_lines = printed.split("totals:\n")[1].splitlines()
    assert totals_lines[0] == "  turns: 0" and not any("cost_usd" in line for line in totals_lines)
    summary = json.loads(out.read_text())["summary"]
    assert summary["turns"] == 0 and all(f.key in summary for f in TOTALS)
