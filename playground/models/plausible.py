"""Whether each call's recorded usage is one the model could have made: a prompt no larger than
the largest window the model has, an output no larger either, cache reads and writes no larger
than the prompt they are part of. A call that fails is no record of a call (an upload can write
any figure): its usage is left out with a warning that says why, and it is replayed as counted,
never billed at the absurd figure to every stack. The readers read what the file says (each
figure a count under ``MAX_RECORDED_TOKENS``); here it is held to what the model can do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from playground.engine.session import ReadWarning, Session
from playground.models.catalogue import model


@lru_cache(maxsize=64)
def _largest_window(name: str) -> int | None:
    """The largest window model ``name`` has (on request, too); None where no source knows it."""
    known = model(name)
    if known.price is None and known.window_source.startswith("no source"):
        return None
    return known.extended_window or known.window


def _why_implausible(session: Session, index: int) -> str:
    """Why the call answered at raw ``index`` records usage no call could have, or ""."""
    prompt = session.usage.get(index)
    reads, writes = session.cache_reads.get(index, 0), session.cache_writes.get(index, 0)
    output = session.outputs.get(index, 0)
    name = session.models.get(index) or session.recorded_model
    window = _largest_window(name) if name else None
    if prompt is not None and reads > prompt:
        return f"cache reads of {reads:,} tokens in a prompt of {prompt:,}"
    if prompt is not None and reads + writes > prompt:
        return f"cache reads and writes of {reads + writes:,} tokens in a prompt of {prompt:,}"
    if window is not None and prompt is not None and prompt > window:
        return f"a prompt of {prompt:,} tokens to {name}, whose largest window is {window:,}"
    if window is not None and output > window:
        return f"a reply of {output:,} tokens from {name}, whose largest window is {window:,}"
    return ""


def plausible(sessions: Iterable[Session]) -> list[Session]:
    """Each session with the usage of every call that no model could have made left out, said."""
    return [_checked(session) for session in sessions]


def _checked(session: Session) -> Session:
    recorded = {*session.usage, *session.cache_reads, *session.cache_writes, *session.outputs}
    failed = {i: why for i in sorted(recorded) if (why := _why_implausible(session, i))}
    if not failed:
        return session
    turn_of = {index: n for n, index in enumerate(session.replies, start=1)}
    warnings = [
        ReadWarning(f"turn {turn_of.get(i, '?')}", f"recorded usage no call could have: {why}; left out")
        for i, why in list(failed.items())[:10]
    ]
    if len(failed) > 10:
        warnings.append(ReadWarning("", f"{len(failed) - 10:,} more calls' usage left out as implausible"))

    def kept(figures: dict[int, int]) -> dict[int, int]:
        return {i: v for i, v in figures.items() if i not in failed}

    return replace(
        session,
        usage=kept(session.usage),
        cache_reads=kept(session.cache_reads),
        cache_writes=kept(session.cache_writes),
        cache_writes_1h=kept(session.cache_writes_1h),
        outputs=kept(session.outputs),
        warnings=(*session.warnings, *warnings),
    )
