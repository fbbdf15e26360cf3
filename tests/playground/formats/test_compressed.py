"""Compressed transcripts: Codex CLI's cold rollouts (.jsonl.zst) and gzipped logs read as the
plain files they hold; one that does not unpack, or unpacks past the file limit, is refused."""

from __future__ import annotations

import gzip
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pytest

from playground.analyses.corpus import sources
from playground.engine.session import TranscriptError
from playground.formats import read_bytes, read_path
from playground.limits import LIMITS

ROLLOUT = Path(__file__).parents[2] / "fixtures" / "formats" / "codex-cli" / "codemie_rollout_019e1625.jsonl"


def _zstd(data: bytes) -> bytes:
    """As Codex compresses a rollout it has not touched for a while: zstd, level 3."""
    return pa.Codec("zstd", compression_level=3).compress(data, asbytes=True)


@pytest.mark.parametrize("pack", [_zstd, gzip.compress], ids=["zstd", "gzip"])
def test_a_compressed_rollout_reads_as_the_plain_one(pack, tmp_path):
    plain = ROLLOUT.read_bytes()
    packed = tmp_path / (ROLLOUT.name + (".zst" if pack is _zstd else ".gz"))
    packed.write_bytes(pack(plain))
    (expected,) = read_path(ROLLOUT)
    (session,) = read_path(packed)
    assert len(packed.read_bytes()) < len(plain) / 3
    assert session.messages == expected.messages and session.usage == expected.usage
    assert session.turns == expected.turns > 10


@pytest.mark.parametrize("pack", [_zstd, gzip.compress], ids=["zstd", "gzip"])
def test_a_cut_compressed_file_is_refused_in_words(pack):
    packed = pack(ROLLOUT.read_bytes())
    with pytest.raises(
        TranscriptError, match=r"rollout\.jsonl\.zst: a (zstd|gzip)-compressed file that does not unpack"
    ):
        read_bytes(packed[: len(packed) // 2], "rollout.jsonl.zst")


@pytest.mark.parametrize("pack", [_zstd, gzip.compress], ids=["zstd", "gzip"])
def test_a_file_that_unpacks_past_the_limit_is_refused_without_unpacking_it_all(pack, monkeypatch):
    monkeypatch.setattr(LIMITS, "max_file_bytes", 4 * 2**20)
    bomb = pack(b"[" + b" " * (64 * 2**20) + b"]")  # 64 MiB of spaces in some 10 KB
    assert len(bomb) < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(
            TranscriptError, match=r"unpacks to over 4,194,304 bytes.*PLAYGROUND_MAX_FILE_BYTES"
        ):
            read_bytes(bomb, "bomb.json.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # the limit and a chunk past it, not the 64 MiB


def test_a_corpus_folder_finds_compressed_rollouts_and_leaves_other_archives(tmp_path):
    day = tmp_path / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    (day / "rollout-2026-11-30T09-00-00-a.jsonl.zst").write_bytes(_zstd(ROLLOUT.read_bytes()))
    (day / "rollout-2026-11-30T10-00-00-b.jsonl").write_bytes(ROLLOUT.read_bytes())
    (tmp_path / "backup.tar.gz").write_bytes(gzip.compress(b"not a transcript"))
    found, passed = sources([str(tmp_path)])
    assert sorted(Path(s.path).name for s in found) == [
        "rollout-2026-11-30T09-00-00-a.jsonl.zst",
        "rollout-2026-11-30T10-00-00-b.jsonl",
    ]
    assert passed == []
