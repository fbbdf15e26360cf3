"""Transcripts stored compressed: Codex CLI compresses a rollout it has not touched for a while
to ``rollout-*.jsonl.zst`` (zstd) and removes the plain file, and people gzip their logs.

A compressed file is unpacked as a stream and refused once it unpacks past ``max_file_bytes``
(the limit a plain file has): a small file that unpacks to gigabytes costs no more than that.
"""

from __future__ import annotations

import gzip
import io
import zlib
from typing import Any

from playground.engine.session import TranscriptError
from playground.limits import LIMITS, over

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
GZIP_MAGIC = b"\x1f\x8b"
# the names a folder's compressed transcripts go by (a .gz of anything else is left alone)
SUFFIXES = (".jsonl.zst", ".json.zst", ".jsonl.gz", ".json.gz", ".ndjson.gz")
_CHUNK = 1 << 20


def is_compressed(data: bytes) -> bool:
    return data.startswith((ZSTD_MAGIC, GZIP_MAGIC))


def unpack(data: bytes, file: str) -> bytes:
    """The bytes a zstd or gzip file holds; TranscriptError for one that does not unpack or
    that unpacks past ``max_file_bytes``."""
    kind = "zstd" if data.startswith(ZSTD_MAGIC) else "gzip"
    try:
        stream = _zstd_stream(data) if kind == "zstd" else gzip.GzipFile(fileobj=io.BytesIO(data))
        chunks, size = [], 0
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > LIMITS.max_file_bytes:
                unpacked = f"a {kind} file that unpacks to over {LIMITS.max_file_bytes:,} bytes"
                raise TranscriptError(file, "", str(over("max_file_bytes", unpacked)))
            chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as error:  # pyarrow's ArrowIOError is an OSError
        raise TranscriptError(file, "", f"a {kind}-compressed file that does not unpack ({error})") from None
    if not size:
        raise TranscriptError(file, "", f"a {kind}-compressed file that holds nothing")
    return b"".join(chunks)


def _zstd_stream(data: bytes) -> Any:  # a pyarrow NativeFile: read(n) as a file's
    """pyarrow (already a dependency, for the corpus's Parquet files) reads zstd frames as a
    stream; imported here, when a zstd file comes, as the rest of the reader does not need it."""
    import pyarrow as pa

    return pa.CompressedInputStream(pa.BufferReader(data), "zstd")
