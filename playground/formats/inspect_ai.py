"""Inspect AI logs: ``.json`` (``{version, eval, samples, stats}``) and ``.eval`` (a zip of
``header.json`` and ``samples/<id>_epoch_<n>.json``).

One session per sample and epoch, its turns the sample's ``model`` events: each event's
``input`` (or ``input_refs``, ranges into the sample's ``message_pool``) is the request the
harness sent, so the raw history grows by the messages each request adds, then the reply;
``output.usage`` gives input, output and cache figures per call. ``attachment://`` texts are
read from the sample's ``attachments``.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from typing import Any

from playground.engine.session import Session, TranscriptError
from playground.formats.builder import SessionBuilder, arguments_text, as_dict, as_list, digest, label_of
from playground.formats.given import Given
from playground.formats.json_text import zip_member
from playground.limits import LIMITS, over
from policies.messages import ToolCall

ZIP_MAGIC = b"PK\x03\x04"


def looks_like(given: Given) -> bool:
    data = given.data
    return (
        isinstance(data, dict)
        and isinstance(data.get("samples"), list)
        and isinstance(data.get("eval"), dict)
    )


def read(given: Given) -> list[Session]:
    data, file = given.data, given.file
    task = str(as_dict(data.get("eval")).get("task") or "inspect")[:80]
    samples = [s for s in data["samples"] if isinstance(s, dict)]
    if not samples:
        raise TranscriptError(file, "samples", "the log holds no samples (a header-only log?)")
    sessions: list[Session] = []
    held = 0  # the text of every sample so far: together held to the limit on the file's size
    for sample in samples:
        session, held = _sample(sample, file, task, held)
        sessions.append(session)
    return sessions


def looks_like_eval(given: Given) -> bool:
    """A zip archive: an Inspect AI ``.eval`` log, unless another reader claimed it (the last
    archive reader: one that is not a log says what it lacks)."""
    return isinstance(given.data, bytes)


def read_eval(given: Given) -> list[Session]:
    """A ``.eval`` zip: each sample file read under the same bounds as a transcript file."""
    data, file = given.data, given.file
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        raise TranscriptError(file, "", f"a zip archive that cannot be read ({error})") from None
    with archive:
        names = [n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json")]
        if "header.json" not in archive.namelist() or not names:
            raise TranscriptError(
                file, "", "a zip archive, but not an Inspect AI .eval log (no header.json and samples/)"
            )
        header = zip_member(archive, "header.json", file)
        task = (
            str(as_dict(header.get("eval")).get("task") or "inspect")[:80]
            if isinstance(header, dict)
            else "inspect"
        )
        total, total_text, sessions = 0, 0, []
        for name in sorted(names):
            total += archive.getinfo(name).file_size
            if total > LIMITS.max_archive_bytes:
                raise TranscriptError(
                    file, name, str(over("max_archive_bytes", "the samples inflate past it"))
                )
            sample = zip_member(archive, name, file)
            if not isinstance(sample, dict):
                raise TranscriptError(file, name, "a sample that is not an object")
            session, held = _sample(sample, f"{file}:{name}", task)
            total_text += held
            if total_text > LIMITS.max_archive_bytes:
                raise TranscriptError(
                    file,
                    name,
                    str(over("max_archive_bytes", "the samples' text, references resolved, passes it")),
                )
            sessions.append(session)
        return sessions


def _sample(sample: dict, file: str, task: str, held: int = 0) -> tuple[Session, int]:
    """The sample's session, and the text held with it (``held`` before it, as ``attachment://``
    references resolve to)."""
    builder = SessionBuilder(file, "Inspect AI log")
    builder.text_chars = held
    attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
    pool = sample.get("message_pool") if isinstance(sample.get("message_pool"), list) else []
    seen: set[str | bytes] = set()
    unread_pool = _Unread(len(pool))
    passed: Counter[str] = Counter()
    events = sample.get("events") if isinstance(sample.get("events"), list) else []
    for n, event in enumerate(events):
        if not isinstance(event, dict) or event.get("event") != "model":
            passed[label_of(event.get("event")) if isinstance(event, dict) else "not an object"] += 1
            continue
        builder.where = f"sample {sample.get('id')} event {n}"
        for message in _request(event, pool, unread_pool):
            key = message["id"] if isinstance(message.get("id"), str) else digest(message)
            if key in seen:
                continue
            seen.add(key)
            _add(builder, message, attachments)
        output = event.get("output") if isinstance(event.get("output"), dict) else {}
        choices = output.get("choices") if isinstance(output.get("choices"), list) else []
        reply = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
        if not isinstance(reply, dict):
            passed["model event without a reply"] += 1
            continue
        if isinstance(reply.get("id"), str):
            seen.add(reply["id"])
        usage = output.get("usage") if isinstance(output.get("usage"), dict) else {}
        _add(
            builder,
            reply,
            attachments,
            usage=usage,
            model=str(event.get("model") or ""),
            stamp=event.get("timestamp"),
        )
    builder.warn_counts("events passed over, not model calls", dict(passed))
    name = f"{task} sample {sample.get('id')} epoch {sample.get('epoch', 1)}"
    return builder.build(name[:200]), builder.text_chars


def _request(event: dict, pool: list, unread: _Unread) -> list[dict]:
    """The messages of a request not read before: its ``input``, or the pool messages its
    ``input_refs`` ranges name that no earlier request named (each pool message is visited
    once, however many requests name it again)."""
    if isinstance(event.get("input"), list) and event["input"]:
        return [m for m in event["input"] if isinstance(m, dict)]
    messages = []
    for span in as_list(event.get("input_refs")):
        if isinstance(span, list) and len(span) == 2 and all(type(i) is int for i in span):
            start, stop = (max(0, min(i, len(pool))) for i in span)
            messages += [m for m in (pool[i] for i in unread.take(start, stop)) if isinstance(m, dict)]
    return messages


class _Unread:
    """Indices 0..size-1 not yet taken; ``take(start, stop)`` gives and takes those in the
    range, in time proportional to what it gives (a next-unread pointer per index, paths
    halved as they are followed)."""

    def __init__(self, size: int) -> None:
        self._next = list(range(size + 1))  # size: past the end, never taken

    def _find(self, i: int) -> int:
        while self._next[i] != i:
            self._next[i] = self._next[self._next[i]]
            i = self._next[i]
        return i

    def take(self, start: int, stop: int) -> list[int]:
        taken, i = [], self._find(start)
        while i < stop:
            taken.append(i)
            self._next[i] = i + 1
            i = self._find(i + 1)
        return taken


def _add(
    builder: SessionBuilder,
    message: dict,
    attachments: dict,
    *,
    usage: dict | None = None,
    model: str = "",
    stamp: Any = None,
) -> None:
    role = message.get("role")
    text, thinking = _content(message.get("content"), attachments)
    if role == "assistant":
        calls = tuple(
            ToolCall(str(c.get("id")), str(c.get("function") or ""), arguments_text(c.get("arguments")))
            for c in as_list(message.get("tool_calls"))
            if isinstance(c, dict)
        )
        usage = usage or {}
        uncached = builder.token_count(usage.get("input_tokens"), "input_tokens")
        read_ = builder.token_count(usage.get("input_tokens_cache_read"), "input_tokens_cache_read")
        written = builder.token_count(usage.get("input_tokens_cache_write"), "input_tokens_cache_write")
        # Anthropic's input_tokens leave the cached part out; the other providers' include it
        prompt = uncached
        if uncached is not None and model.startswith("anthropic/"):
            prompt = uncached + (read_ or 0) + (written or 0)
        time = builder.reply_time(stamp)
        builder.add(
            "assistant",
            text,
            tool_calls=calls,
            thinking=thinking,
            prompt_tokens=prompt,
            cache_read=read_,
            cache_write=written,
            output=builder.token_count(usage.get("output_tokens"), "output_tokens"),
            model=model or None,
            time=time,
        )
    elif role == "tool":
        builder.add(
            "tool", text, tool_call_ids=(str(message.get("tool_call_id")),), name=message.get("function")
        )
    elif role in ("system", "user"):
        builder.add(role, text)
    else:
        builder.warn(builder.where, f"a message of role {str(role)[:20]!r} is left out")


def _content(content: Any, attachments: dict) -> tuple[str, str]:
    """Text and reasoning, ``attachment://`` references read from the sample."""
    if isinstance(content, str):
        return _attached(content, attachments), ""
    texts, thoughts = [], []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(_attached(part["text"], attachments))
        elif part.get("type") == "reasoning" and isinstance(part.get("reasoning"), str):
            thoughts.append(_attached(part["reasoning"], attachments))
    return "\n".join(texts), "\n".join(thoughts)


def _attached(text: str, attachments: dict) -> str:
    if text.startswith("attachment://"):
        found = attachments.get(text.removeprefix("attachment://"))
        return found if isinstance(found, str) else text
    return text
