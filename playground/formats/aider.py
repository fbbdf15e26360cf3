"""Aider's ``.aider.chat.history.md``: Markdown appended across sessions.

``# aider chat started at <time>`` starts a session; ``#### `` lines are the user's input
(slash commands included: Aider runs those itself); other lines are the assistant's reply;
``> `` lines are Aider's own notes, among them ``> Tokens: 2.4k sent, 104 received.``, the
call's usage as Aider rounds it, and ``> Main model: …``. The log has no tool structure:
edits are text in the replies.
"""

from __future__ import annotations

import re

from playground.engine.session import ReadWarning, Session, TranscriptError
from playground.formats.builder import SessionBuilder
from playground.formats.given import Given

START = "# aider chat started at"
_TOKENS = re.compile(
    r"^> Tokens: ([\d.,]+)(k?) sent(?:, ([\d.,]+)(k?) cache write)?(?:, ([\d.,]+)(k?) cache hit)?, ([\d.,]+)(k?) received"
)
_MODEL = re.compile(r"^> (?:Main model|Model): (\S+)")
_NUMBER = re.compile(r"\d{1,12}(?:\.\d{1,6})?")  # as Aider prints a count: "2.4" (k), "104"
_FIELDS = ("sent", "cache write", "cache hit", "received")


def looks_like(given: Given) -> bool:
    text = given.data
    return START in text[:4096] and text.lstrip().startswith(("#", ">"))


def read(given: Given) -> list[Session]:
    text, file = given.data, given.file
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(START):
            chunks.append((number, [line]))
        elif chunks:
            chunks[-1][1].append(line)
    sessions, empty = [], []
    for number, lines in chunks:
        session = _session(number, lines, file)
        if session is None:
            empty.append(f"line {number}")
        else:
            sessions.append(session)
    if not sessions:
        raise TranscriptError(
            file, "", f"an Aider chat history whose {len(chunks)} session(s) hold no input and no reply"
        )
    notes = [ReadWarning("", "Aider logs have no tool structure: edits and commands are text")]
    if empty:
        notes.append(
            ReadWarning("", f"{len(empty)} session(s) with no input passed over: {', '.join(empty[:5])}")
        )
    first = sessions[0]
    sessions[0] = Session(**{**first.__dict__, "warnings": (*notes, *first.warnings)})
    return sessions


def _session(start: int, lines: list[str], file: str) -> Session | None:
    builder = SessionBuilder(file, "Aider chat history")
    stamp = lines[0].removeprefix(START).strip()
    model, user, reply, commands = None, [], [], 0
    rounded = False

    def flush_user() -> None:
        if user:
            builder.add("user", "\n".join(user))
            user.clear()

    def flush_reply() -> None:
        text = "\n".join(reply).strip()
        if text:
            builder.add("assistant", text, model=model)
        reply.clear()

    for offset, raw in enumerate(lines[1:], start=1):
        builder.where = f"line {start + offset}"
        line = raw.rstrip()
        if line.startswith("#### ") or line == "####":  # a bare "####": a blank line of the same input
            flush_reply()
            body = line[5:]
            commands += body.startswith("/")
            user.append(body)
        elif line.startswith(">"):
            if found := _MODEL.match(line):
                model = found.group(1)
            elif found := _TOKENS.match(line):
                flush_user()
                flush_reply()
                _usage(builder, found)
                rounded = rounded or bool(found.group(2) or found.group(8))
        elif line.strip() or reply:
            flush_user()
            reply.append(line)
    flush_user()
    flush_reply()
    if not builder.messages:
        return None
    if commands:
        builder.warn(
            "", f"{commands} slash command(s) kept as user input; Aider runs them, the model is not sent them"
        )
    if rounded:
        builder.warn("", "token counts are as Aider prints them, rounded to hundreds ('2.4k')")
    return builder.build(f"aider {stamp}"[:200])


def _usage(builder: SessionBuilder, found: re.Match) -> None:
    reply = builder.last_reply
    if reply is None or reply in builder.usage:
        builder.warn(builder.where, "a Tokens line with no reply of its own before it: not attached")
        return

    def tokens(number: str | None, k: str | None, field: str) -> int | None:
        if number is None:
            return None
        digits = number.replace(",", "")
        if not _NUMBER.fullmatch(digits):
            raise TranscriptError(builder.file, builder.where, f"{field} {number[:40]!r} is not a number")
        return builder.token_count(round(float(digits) * (1000 if k else 1)), field)

    try:
        figures = [tokens(found.group(2 * n + 1), found.group(2 * n + 2), f) for n, f in enumerate(_FIELDS)]
    except TranscriptError as error:  # "1.2.3 sent", 400 digits, 1e20: said, the rest of the log read
        builder.warn(builder.where, f"a Tokens line that does not read ({error.what}): not attached")
        return
    sent, written, hit, received = figures
    builder.usage[reply] = sent or 0
    if written is not None:
        builder.cache_writes[reply] = written
    if hit is not None:
        builder.cache_reads[reply] = hit
    builder.outputs[reply] = received or 0
