"""Issue 49, 3: memory a server or a corpus run keeps follows the largest file, not every
file it has seen."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from playground.engine.tokens import TokenCounter
from policies.messages import Message


def _session(path: Path, seed: int, chars: int) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    messages = [{"role": "user", "content": f"task {seed}"}]
    for i in range(chars // 2_000):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": " ".join(rng.choices(words, k=400))},
        ]
    messages.append({"role": "assistant", "content": "done"})
    path.write_text(json.dumps({"messages": messages}))


def _corpus_peak_mib(folder: Path, out: Path) -> float:
    script = (
        "import resource, sys\n"
        "from playground.cli.main import main\n"
        f"code = main(['corpus', {str(folder)!r}, '--workers', '1', '--out', {str(out)!r}])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def test_a_corpus_runs_peak_follows_its_largest_file_not_its_count(tmp_path):
    """40 files of 5 MB took 451 MB where 10 took 301 MB: each worker's token counter kept
    every file's texts."""
    few, many = tmp_path / "few", tmp_path / "many"
    few.mkdir(), many.mkdir()
    for n in range(10):
        _session(many / f"s{n}.json", n, 2_000_000)
        if n < 2:
            _session(few / f"s{n}.json", n, 2_000_000)
    small, large = _corpus_peak_mib(few, tmp_path / "a"), _corpus_peak_mib(many, tmp_path / "b")
    # eight more files of 2 M characters: each kept, they added 19 MiB; let go, nothing
    assert large < small + 8, f"peak {small:.0f} MiB with 2 files, {large:.0f} MiB with 10"


def test_a_token_counter_keeps_counts_for_a_bounded_amount_of_text():
    """The app's counter per model lived for the server's life, holding every upload's text."""
    counter = TokenCounter("gpt-4o")
    counter.max_held_chars = 50_000
    texts = [Message("tool", f"output {n} " + "x" * 1_000) for n in range(200)]  # 200 k characters
    counts = [counter.count(m) for m in texts]
    assert len(counter._cache) <= 50
    # what was let go is counted again, the same
    assert [TokenCounter("gpt-4o").count(m) for m in texts] == counts == [counter.count(m) for m in texts]
