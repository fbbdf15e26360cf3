"""A corpus run: directory and zip input with broken members, the same figures from one
process, a pool and a Dask cluster, Parquet results that pandas reads back, resume."""

import os
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from playground.analyses.corpus import CorpusError, Job, read_sessions, run_corpus, sources
from playground.cli.main import main
from playground.engine.replay import Settings
from playground.measures.evaluate import Scenario
from playground.stacks.candidates import Candidate
from playground.stacks.presets import PRESETS
from tests.builders import needs_dask
from tests.synthetic import FOLDER as SYNTHETIC

SAMPLES = SYNTHETIC
STACKS = (
    Candidate("evict", tuple(PRESETS["pyagentic recommended"])),
    Candidate("batched", tuple(PRESETS["Cache-friendly (batched eviction)"])),
)
JOB = Job(STACKS, Scenario())


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    (root / "deep" / "er").mkdir(parents=True)
    shutil.copy(SAMPLES / "leave_request_hr.json", root)
    shutil.copy(SAMPLES / "ops_incidents_multi.json", root / "deep")  # three sessions in one file
    shutil.copy(SAMPLES / "data_analyst_orders.jsonl", root / "deep" / "er")
    (root / "deep" / "broken.json").write_text('{"messages": [{"role": "user", "content": "cut')
    (root / "notes.txt").write_text("not a transcript, and not listed")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.json").write_text("[]")
    with zipfile.ZipFile(root / "more.zip", "w") as archive:
        archive.write(SAMPLES / "coding_agent_bugfix.json", "runs/coding.json")
        archive.writestr("runs/binary.json", b"\x00\x01\x02 not text")
        archive.writestr("README.md", "skipped: not a transcript")
    return root


def test_a_directory_and_a_zip_are_read_and_broken_members_listed_with_their_reason(corpus, tmp_path):
    found, passed = sources([str(corpus), str(tmp_path / "missing")])
    labels = sorted(
        str(Path(s.path).relative_to(corpus)) + (f":{s.member}" if s.member else "") for s in found
    )
    assert labels == [
        "deep/broken.json",
        "deep/er/data_analyst_orders.jsonl",
        "deep/ops_incidents_multi.json",
        "leave_request_hr.json",
        "more.zip:runs/binary.json",
        "more.zip:runs/coding.json",
    ]
    assert passed == [(str(tmp_path / "missing"), "no such file or directory")]
    out = tmp_path / "out"
    figures = run_corpus(found, JOB, out)
    assert figures.done == 6
    frame = read_sessions(out)
    errors = frame[frame["error"] != ""]
    assert sorted(s.removeprefix(str(corpus)) for s in errors["source"]) == [
        "/deep/broken.json",
        "/more.zip:runs/binary.json",
    ]
    assert any("binary data" in e for e in errors["error"])
    assert any("broken.json" in e and "JSON" in e for e in errors["error"])
    ran = frame[frame["error"] == ""]
    # 1 + 3 + 1 + 1 sessions, each under both stacks
    assert len(ran) == 12 and set(ran["stack"]) == {"evict", "batched"}
    assert sorted(ran[ran["source"].str.endswith("ops_incidents_multi.json")]["session_index"].unique()) == [
        0,
        1,
        2,
    ]


def test_parquet_results_read_back_with_pandas(corpus, tmp_path):
    found, _ = sources([str(corpus / "leave_request_hr.json")])
    run_corpus(found, JOB, tmp_path / "out")
    sessions = pd.read_parquet(tmp_path / "out" / "sessions")
    turns = pd.read_parquet(tmp_path / "out" / "turns")
    assert len(sessions) == 2 and len(turns) == 2 * 26  # 26 inferences under each stack
    evict = sessions.set_index("stack").loc["evict"]
    assert evict["billed_context_tokens"] == turns[turns["stack"] == "evict"]["context_tokens"].sum()


def _figures(out: Path) -> pd.DataFrame:
    return read_sessions(out)


def test_one_process_a_pool_and_a_dask_cluster_give_the_same_figures(corpus, tmp_path):
    found, _ = sources([str(corpus)])
    run_corpus(found, JOB, tmp_path / "one", workers=1)
    run_corpus(found, JOB, tmp_path / "pool", workers=2)
    pd.testing.assert_frame_equal(_figures(tmp_path / "one"), _figures(tmp_path / "pool"))
    try:
        distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    except ImportError:  # CI installs the dask extra: there the check must run
        if os.environ.get("CI") == "true":
            pytest.fail("distributed is not installed: `make test` installs the dask extra")
        pytest.skip("distributed is not installed (pip install -e '.[dask]')")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True)
    with cluster, distributed.Client(cluster) as client:
        run_corpus(found, JOB, tmp_path / "dask", scheduler=client)
    pd.testing.assert_frame_equal(_figures(tmp_path / "one"), _figures(tmp_path / "dask"))


def test_resume_keeps_what_an_interrupted_run_finished(corpus, tmp_path, monkeypatch):
    found, _ = sources([str(corpus)])
    out = tmp_path / "out"
    seen = []

    def interrupt(figures):
        seen.append(figures.done)
        if figures.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_corpus(found, JOB, out, progress=interrupt)
    assert len(list((out / "sessions").glob("*.parquet"))) == 2  # finished units are on disk whole
    assert not list(out.rglob("*.part"))
    calls = []
    import playground.analyses.corpus.replay as corpus_module

    real = corpus_module.replay_source
    monkeypatch.setattr(
        corpus_module, "replay_source", lambda s, *a, **k: calls.append(s) or real(s, *a, **k)
    )
    figures = run_corpus(found, JOB, out, resume=True)
    assert figures.skipped == 2 and figures.done == 4 and len(calls) == 4
    run_corpus(found, JOB, tmp_path / "whole")
    pd.testing.assert_frame_equal(_figures(out), _figures(tmp_path / "whole"))


def test_the_corpus_command_reports_per_stack_and_the_worst_sessions(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    args = [
        "corpus",
        str(corpus),
        "--config",
        "pyagentic recommended",
        "--config",
        "No policies (raw history)",
    ]
    assert main([*args, "--out", str(out), "--workers", "1"]) == 0
    printed = capsys.readouterr()
    assert "7 files" not in printed.out and "6 files (6 ran" in printed.out
    assert "unreadable or failed:" in printed.out and "broken.json" in printed.out
    assert "pyagentic recommended: most facts lost" in printed.out
    assert "playground replay " in printed.out and "--preset 'pyagentic recommended'" in printed.out
    assert "No policies (raw history) against pyagentic recommended:" in printed.out
    assert main(["corpus", str(tmp_path / "nothing-here")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["corpus", str(tmp_path / "empty")]) == 2
    assert "no transcripts found" in capsys.readouterr().err


def test_printed_replay_commands_quote_every_hostile_name(tmp_path, capsys, monkeypatch):
    from playground.cli.analyses import replay_command

    monkeypatch.chdir(tmp_path)  # whatever a pasted line would run, it runs here
    root = tmp_path / "c"
    root.mkdir()
    hostile_member = "r$(touch${IFS}x).json"
    forged = "two\nplayground replay forged.json"
    with zipfile.ZipFile(root / "evil.zip", "w") as archive:
        archive.write(SAMPLES / "leave_request_hr.json", hostile_member)
        archive.write(SAMPLES / "coding_agent_bugfix.json", forged)
    shutil.copy(SAMPLES / "data_analyst_orders.jsonl", root / "a;b $(id).jsonl")
    assert main(["corpus", str(root), "--config", "pyagentic recommended", "--workers", "1"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "->" in line]
    assert lines and not any(line.lstrip().startswith("playground replay forged") for line in lines)
    for line in lines:
        assert "playground" in _words(line.split("->", 1)[1])
    cases = [
        (f"{root}/evil.zip:{hostile_member}", hostile_member),
        (f"{root}/evil.zip:{forged}", forged),
        (str(root / "a;b $(id).jsonl"), str(root / "a;b $(id).jsonl")),
    ]
    for source, name in cases:
        command = replay_command(source, 0, "pyagentic recommended")
        assert "\n" not in command and name in _words(command)
        assert "pyagentic recommended" in _words(command)
    assert not list(tmp_path.rglob("x"))  # no $(...) ran


def _words(command: str) -> list[str]:
    """The words bash reads from a pasted line (its && and > taken as words, not run)."""
    import subprocess

    line = command.replace("&&", "").replace(">", "")
    script = 'set -f; eval "set -- $1"; for w in "$@"; do printf "%s\\0" "$w"; done'
    result = subprocess.run(["bash", "-c", script, "_", line], capture_output=True, text=True, check=True)
    return result.stdout.split("\0")


@needs_dask
@pytest.mark.parametrize("address", ["http://127.0.0.1:8786", "garbage", "tcp://host", "tcp://a b:1"])
def test_a_scheduler_address_that_is_not_one_is_refused_by_name(address, corpus, capsys):
    assert main(["corpus", str(corpus), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "not a scheduler address" in err and "\n" not in err.strip()


@needs_dask
def test_a_scheduler_that_accepts_and_never_answers_is_given_up_on_in_time(corpus, capsys, monkeypatch):
    import socket
    import time

    monkeypatch.setattr("playground.analyses.runner.SCHEDULER_SECONDS", 2.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        assert main(["corpus", str(corpus), "--scheduler", address]) == 2
        assert time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert address in err and ("no answer within 2 s" in err or "cannot reach" in err)


@needs_dask
def test_the_process_exits_after_a_scheduler_that_never_answers(corpus):
    """The connection attempt left waiting must not hold the interpreter at exit (an executor's
    thread is joined at exit: the CLI said "no answer" at 30 s and then hung)."""
    import socket
    import subprocess
    import sys

    script = (
        "import sys, playground.analyses.runner as c; c.SCHEDULER_SECONDS = 1.0; "
        "from playground.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        done = subprocess.run(
            [sys.executable, "-c", script, "corpus", str(corpus), "--scheduler", address],
            capture_output=True,
            text=True,
            timeout=60,  # hung: fails here
        )
    assert done.returncode == 2 and "no answer within 1 s" in done.stderr


def test_a_run_deletes_and_reads_only_the_files_its_manifest_lists(corpus, tmp_path, capsys):
    found, _ = sources([str(corpus)])
    out = tmp_path / "out"
    (out / "sessions").mkdir(parents=True)
    mine = out / "sessions" / "my-own-notes.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(mine)
    run_corpus(found, JOB, out)
    assert mine.exists()  # a user's file is not the run's to delete
    forged = out / "sessions" / ("f" * 24 + ".parquet")
    pd.DataFrame({"source": ["forged"], "session_index": [0], "stack_index": [0]}).to_parquet(forged)
    frame = read_sessions(out)
    assert "forged" not in set(frame["source"]) and len(frame) == len(_figures(out))
    run_corpus(found, JOB, out)  # again, not resuming: its own files replaced, the others kept
    assert mine.exists() and forged.exists()


def test_a_tampered_result_is_named_not_read(corpus, tmp_path):
    found, _ = sources([str(corpus)])
    out = tmp_path / "out"
    run_corpus(found, JOB, out)
    victim = sorted((out / "sessions").glob("*.parquet"))[0]
    victim.write_bytes(b"not parquet at all")
    with pytest.raises(CorpusError, match="changed or gone since the run wrote it"):
        read_sessions(out)
    figures = run_corpus(found, JOB, out, resume=True)  # a resume replays what was tampered with
    assert figures.done == 1 and figures.skipped == len(found) - 1
    assert len(read_sessions(out)) == len(_figures(tmp_path / "out"))


def test_resume_with_other_stacks_is_refused_and_changed_inputs_are_said(corpus, tmp_path):
    found, _ = sources([str(corpus)])
    out = tmp_path / "out"
    run_corpus(found, JOB, out)
    other = Job(STACKS[:1], Scenario())
    with pytest.raises(CorpusError, match="--resume: the stacks, settings or must-keep facts differ"):
        run_corpus(found, other, out, resume=True)
    (corpus / "leave_request_hr.json").write_text((SAMPLES / "data_analyst_orders.jsonl").read_text())
    os.utime(corpus / "leave_request_hr.json", ns=(1, 1))
    found, _ = sources([str(corpus)])
    figures = run_corpus(found, JOB, out, resume=True)
    assert figures.done == 1
    assert figures.notes == [
        "--resume: 1 input(s) new, changed or unfinished since that run are replayed; "
        "1 earlier result(s), of inputs changed or no longer given, dropped"
    ]


def test_a_full_disk_leaves_no_part_file_and_one_line(corpus, tmp_path, monkeypatch):
    found, _ = sources([str(corpus)])

    def full(self, path, **kwargs):
        Path(path).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    with pytest.raises(CorpusError, match="cannot write \\(No space left on device\\)"):
        run_corpus(found, JOB, tmp_path / "out")
    assert not list((tmp_path / "out").rglob("*.part"))


def test_a_file_name_that_is_not_utf8_or_half_a_character_is_kept_escaped_and_the_rest_go_on(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    shutil.copy(SAMPLES / "leave_request_hr.json", root / "a.json")
    (root / os.fsdecode(b"bad\xff.json")).write_bytes((SAMPLES / "leave_request_hr.json").read_bytes())
    half = '{"name": "half \\ud800", "messages": [{"role": "user", "content": "u"}, '
    (root / "z.json").write_text(half + '{"role": "assistant", "content": "a"}]}')
    found, _ = sources([str(root)])
    run_corpus(found, JOB, tmp_path / "out")
    frame = read_sessions(tmp_path / "out")
    assert len(set(frame["source"])) == 3
    assert any("bad\\udcff.json" in s for s in frame["source"])
    assert "half \\ud800" in set(frame["session"])


def test_an_archive_inflating_past_its_budget_is_passed_over_by_member(tmp_path, monkeypatch):
    from playground import limits

    monkeypatch.setattr(limits.LIMITS, "max_archive_bytes", 120_000)
    blob = (SAMPLES / "leave_request_hr.json").read_bytes()
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for n in range(4):
            archive.writestr(f"run{n}.json", blob + b" " * 10_000)
    found, passed = sources([str(tmp_path / "bomb.zip")])
    assert len(found) == 2  # 2 x 51,897 bytes fit in 120,000; the next two do not
    assert passed and all("PLAYGROUND_MAX_ARCHIVE_BYTES" in reason for _, reason in passed)


def test_each_session_of_a_corpus_replays_at_the_model_it_records_unless_one_is_named():
    from playground.analyses.corpus import session_figures
    from playground.engine.tokens import TokenCounter
    from playground.formats import read_path

    formats = Path(__file__).parents[2] / "fixtures" / "formats"
    sessions = [
        *read_path(formats / "claude-code" / "sniffly_d3ad4cdc.jsonl"),
        *read_path(formats / "codex-cli" / "codemie_rollout_019e1625.jsonl"),
    ]
    stacks = (Candidate("raw", ()),)
    own = Job(stacks, Scenario(), model_given=False)
    named = Job(stacks, Scenario(Settings(model="gpt-4.1")), model_given=True)
    counter = TokenCounter("gpt-4o")
    assert [next(session_figures(s, own, counter))[0]["model"] for s in sessions] == [
        "claude-sonnet-4-20250514",
        "gpt-5.5",
    ]
    assert {next(session_figures(s, named, counter))[0]["model"] for s in sessions} == {"gpt-4.1"}
    assert own.digest() != Job(stacks, Scenario()).digest()


def test_money_is_summed_over_the_sessions_priced_when_some_model_has_no_price():
    from playground.analyses.corpus import summary

    rows = [
        {"stack": "s", "error": "", "saved_pct": 10.0, "saved_cost_pct": 20.0, "saved_usd": 1.5,
         "distinct_facts_lost": 0, "refetches": 0, "turns_with_violations": 0, "compactions": 0,
         "saved_vs_recorded_usd": 0.5, "saved_vs_recorded_pct": 5.0},
        {"stack": "s", "error": "", "saved_pct": 30.0, "saved_cost_pct": None, "saved_usd": None,
         "distinct_facts_lost": 1, "refetches": 0, "turns_with_violations": 0, "compactions": 0,
         "saved_vs_recorded_usd": None, "saved_vs_recorded_pct": None},
    ]  # fmt: skip
    [row] = summary(pd.DataFrame(rows), ["s"]).to_dict("records")
    assert row["sessions"] == 2 and row["sessions priced"] == 1
    assert row["$ saved (total)"] == 1.5 and row["cost saved % (median)"] == 20.0
    assert row["tokens saved % (median)"] == 20.0 and row["sessions recorded"] == 1
