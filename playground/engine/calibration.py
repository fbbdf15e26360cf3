"""Calibration to the recorded usage: what the provider counted, from what we count.

An agent's log holds the messages, not all of the request: every Claude Code call opens
with a system prompt and tool definitions no line of the file contains, and Claude's
tokenizer is not o200k; and a provider frames every message with tokens of its own (about 45
on the DeepSeek calls of a mini-swe-agent run). Per call,
``recorded ≈ prefix + ratio × counted + per_message × messages`` fits well. ``fit`` finds the
three from the calls the agent sent the whole history in: before its first compaction of its
own, and before the first call whose recorded input falls while the history only grew (the
agent trimmed its request, as Claude Code clears old tool results, without a line saying so).
``CalibratedCounter`` then reports every count as the provider would, so the bill and every
threshold a policy compares against use the same figure, as the agent's own counter did.

The fit is weighted by relative error (a small call counts as much as a large one), its
prefix never larger than the smallest recorded request, and robust: again without the calls it
misses by far (a call after an error, a resumed session whose cache went cold) until no call
is left out; the errors reported are over every call, those left out included. A fit that
leaves many calls out, or still misses by more than a few per cent, is reported and not
applied: the counts stay our own.

Some content enters the conversation without a line of the file: a Codex rollout records a
web search call, not the results the server read into the model's input. There the offset
steps up at a call and stays up. Where a line fits badly, the fit looks for such steps
(the ratio from call-to-call growth, which a step touches once; a rise of the offset that
persists to the next call is a step) and keeps them if they fit far better: each step's
tokens ride with the message before its call, so a policy that drops that message drops
them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from statistics import median

import numpy as np

from playground.engine.session import Session
from playground.engine.tokens import REPLY_PRIMING, TokenCounter
from policies import Message
from policies.agent_record import earlier_block, earlier_tokens
from policies.messages import SUMMARY

MIN_CALLS = 3  # fewer recorded calls than this fit nothing
MIN_SPREAD = 1.2  # the largest counted request must be this many times the smallest: else no slope
RATIO_RANGE = (0.5, 3.0)  # a tokenizer ratio outside this is a fit gone wrong, not a tokenizer
OUTLIER = 4.0  # a call missed by this many times the median miss is left out of the next pass
MIN_MISS = 0.01  # ... but never for missing by less than 1 % of its recorded size
MIN_GROWTH = 200  # consecutive calls this far apart (counted) give a ratio of growth
MIN_STEP = 300  # an offset rising by more than this (and 1 % of the call) that persists is a step
TRIM = 0.05  # a recorded input this much below the call before, the history having grown: a trim
MAX_LEFT_OUT = 0.2  # a fit that sets aside more than this share of the calls is not applied
MAX_MEDIAN_ERROR_PCT = 3.0  # nor one that misses the median call by more than this


@dataclass(frozen=True)
class Fit:
    """The hidden prefix and tokenizer ratio that turn our counts into the recorded ones."""

    prefix: int  # tokens every request carries that the file does not hold
    ratio: float  # the provider's tokens per token we count
    calls: int  # recorded calls the fit was made from
    left_out: int  # of them, missed by far and left out of the last pass
    median_error_pct: float  # |fitted - recorded| / recorded, over all ``calls``
    worst_error_pct: float
    worst_turn: int  # the turn of the worst call
    # content the file does not hold entering before a call: (raw index of the message it rides
    # with, tokens), in order; a request holding that message carries them
    steps: tuple[tuple[int, int], ...] = ()
    per_message: float = 0.0  # the provider's framing tokens per message, beyond our count's
    trimmed_at: int = 0  # the turn whose recorded input fell (the agent trimmed), 0: none
    # why the fit is not used ("": it is); the counts then stay our own
    refused: str = ""
    mid_session: bool = False  # the file starts mid-session: the prefix holds the conversation before it
    # of a mid-session file's fit: the conversation before its first line, held as one block of
    # the request (a message a policy can compact), the rest of the prefix being the agent's head
    earlier: int = 0
    head_seen: bool = False  # the head's size is what the file shows (else the agent's usual)

    @property
    def applied(self) -> bool:
        return not self.refused

    def tokens(self, counted: int, messages: int = 0) -> int:
        """What the provider would record for a request of ``messages`` messages we count as
        ``counted`` (the hidden steps are in ``counted`` already, with their messages)."""
        return self.prefix + round(self.ratio * counted + self.per_message * messages)

    @property
    def prefix_said(self) -> str:
        """What the hidden prefix stands for, in words."""
        if self.mid_session:
            return "the system prompt, the tool definitions and the conversation before the file's first line"
        return "the system prompt and tool definitions the file does not hold"

    @property
    def note(self) -> str:
        left = f", {self.left_out} set aside as outliers" if self.left_out else ""
        steps = (
            f"; {len(self.steps)} step(s) of content the file does not hold (server-side tool results), "
            f"{sum(t for _, t in self.steps):,} tokens in all, each with the message before its call"
            if self.steps
            else ""
        )
        framing = f" + {self.per_message:.1f} per message" if self.per_message >= 0.05 else ""
        trimmed = (
            f" (the calls before turn {self.trimmed_at}, where the recorded input falls: the agent trimmed "
            "its request there)"
            if self.trimmed_at
            else ""
        )
        hidden = self.prefix_said + (
            ": the file starts mid-session; one block opening every request, which no policy can touch"
            if self.mid_session and not self.earlier
            else ""
        )
        if self.earlier:
            head = "as its first call after a compaction reads it" if self.head_seen else "their usual size"
            hidden = (
                f"the system prompt and tool definitions, {head}; the file starts mid-session, so the "
                f"conversation before its first line, {self.earlier:,} tokens more, is one block of earlier "
                "conversation a policy can compact"
            )
        fitted = (
            f"a hidden prefix of {self.prefix:,} tokens ({hidden}) + {self.ratio:.3f} × our count{framing}"
            f"{steps}; fitted on {self.calls} calls{trimmed}"
            f"{left}: median error {self.median_error_pct:.2f} %, worst {self.worst_error_pct:.1f} % "
            f"(turn {self.worst_turn})"
        )
        if self.refused:
            return f"not calibrated to the recorded usage ({self.refused}): our own counts are used; the fit was {fitted}"
        return f"calibrated to the recorded usage: {fitted}"


# the system prompt and tool definitions a coding agent's request opens with, where its file does
# not show their size: Claude Code's first calls after a compaction read 16,496-34,260 from the
# cache in the real files seen (that head stays cached across a compaction)
USUAL_HEAD = 20_000


def split_earlier(fit: Fit, session: Session) -> Fit:
    """A mid-session file's fit with its prefix split: the agent's head (the system prompt and
    tool definitions: what its first call after a compaction of its own reads from the cache,
    where the file shows one; else ``USUAL_HEAD``) and the conversation before the file's first
    line, held apart as a block of earlier conversation (``Fit.earlier``)."""
    if not session.starts_mid_session or not fit.applied:
        return fit
    after = [_first_call_after(session, c.at) for c in session.compactions]
    seen = [session.cache_reads[i] for i in after if i is not None and session.cache_reads.get(i)]
    head = min(min(seen) if seen else USUAL_HEAD, fit.prefix)
    return replace(fit, prefix=head, earlier=fit.prefix - head, head_seen=bool(seen))


def _first_call_after(session: Session, at: int) -> int | None:
    return next(
        (i for i in range(at, len(session.messages)) if session.messages[i].role == "assistant"), None
    )


def recorded_points(session: Session, counter: TokenCounter) -> list[tuple[int, int, int]]:
    """(turn, counted request, recorded input) for each recorded call of the raw history
    before the agent's first compaction of its own."""
    return [(turn, x, y) for turn, _, x, y in _calls(session, counter)]


def _calls(session: Session, counter: TokenCounter) -> list[tuple[int, int, int, int]]:
    """(turn, raw index of the reply, counted request, recorded input) per recorded call."""
    stop = min((c.at for c in session.compactions), default=len(session.messages))
    fixed = counter.tools(session.tools) + REPLY_PRIMING
    points, counted, turn = [], 0, 0
    for index, message in enumerate(session.messages):
        if message.role == "assistant" and index not in session.held_replies:
            turn += 1
            recorded = session.usage.get(index)
            if index >= stop:
                break
            if recorded:
                points.append((turn, index, counted + fixed, recorded))
        counted += counter.count(message)
    return points


def _untrimmed(calls: list[tuple[int, int, int, int]]) -> tuple[list[tuple[int, int, int, int]], int]:
    """The calls before the first whose recorded input falls by over ``TRIM`` while the history
    grew, and stays down at the next call (the agent trimmed its request; a single call far
    off is an outlier, not a trim), and that call's turn (0: none falls)."""
    for n, ((_, _, x1, y1), (turn, _, x2, y2)) in enumerate(pairwise(calls), start=1):
        after = calls[n + 1][3] if n + 1 < len(calls) else y2
        if x2 >= x1 and max(y2, after) < (1 - TRIM) * y1:
            return calls[:n], turn
    return calls, 0


def fit(session: Session, counter: TokenCounter) -> Fit | None:
    """The calibration of ``session``'s counts to its recorded usage; None where it records
    too few calls, too little growth, or none that a line fits. A fit that sets many calls
    aside or misses by more than a few per cent is returned ``refused``, with the reason."""
    calls, trimmed_at = _untrimmed(_calls(session, counter))
    points = [(turn, index, x, y) for turn, index, x, y in calls]
    if len(points) < MIN_CALLS:
        return None
    xs = [x for _, _, x, _ in points]
    if max(xs) < MIN_SPREAD * max(min(xs), 1):
        return None
    line = _robust_line(points)
    if line is None:
        return None
    prefix, ratio, per_message, left_out = line
    model: Model = (prefix, ratio, per_message, ())
    stepped = _with_steps(calls)
    if stepped is not None and _median_error(stepped, points) < _median_error(model, points) / 2:
        model, left_out = stepped, 0
    prefix, ratio, per_message, steps = model
    if not RATIO_RANGE[0] <= ratio <= RATIO_RANGE[1]:
        return None
    errors = _errors(model, points)
    worst = max(errors)
    found = Fit(
        prefix,
        round(ratio, 4),
        len(points),
        left_out,
        round(median(e for e, _ in errors), 3),
        round(worst[0], 2),
        worst[1],
        tuple((index - 1, tokens) for index, tokens, _ in steps),
        round(per_message, 2),
        trimmed_at,
        mid_session=session.starts_mid_session,
    )
    if left_out > MAX_LEFT_OUT * len(points):
        return replace(found, refused=f"it sets {left_out} of {len(points)} calls aside")
    if found.median_error_pct > MAX_MEDIAN_ERROR_PCT:
        return replace(found, refused=f"it misses the median call by {found.median_error_pct:.1f} %")
    return found


# prefix, ratio, per message, steps: (raw index of the reply it first shows at, tokens, turn), in order
Model = tuple[int, float, float, tuple[tuple[int, int, int], ...]]
Point = tuple[int, int, int, int]  # turn, raw index of the reply (the messages before it), counted, recorded


def _errors(model: Model, points: list[Point]) -> list[tuple[float, int]]:
    """(|fitted - recorded| / recorded in %, turn) per call; steps count from their call on."""
    prefix, ratio, per_message, steps = model
    out, hidden, pending = [], 0, list(steps)
    for turn, messages, x, y in points:
        while pending and pending[0][2] <= turn:
            hidden += pending.pop(0)[1]
        out.append((100 * abs(prefix + hidden + round(ratio * x + per_message * messages) - y) / y, turn))
    return out


def _median_error(model: Model, points: list[Point]) -> float:
    return median(e for e, _ in _errors(model, points))


def _robust_line(points: list[Point]) -> tuple[int, float, float, int] | None:
    """The weighted fit, again without the calls missed by far, until none is left out:
    (prefix, ratio, per message, calls left out)."""
    used = points
    for bounded in (False, True):  # the calls far off are found before one of them bounds the prefix
        while True:
            plane = _weighted_fit(used, points[0][3] if bounded else None)
            if plane is None:
                return None
            prefix, ratio, per_message = plane
            misses = [abs(prefix + ratio * x + per_message * m - y) / y for _, m, x, y in used]
            bound = max(OUTLIER * median(misses), MIN_MISS)
            kept = [p for p, miss in zip(used, misses, strict=True) if miss <= bound]
            if len(kept) == len(used) or len(kept) < MIN_CALLS:
                break
            used = kept
    return round(prefix), ratio, per_message, len(points) - len(used)


def _weighted_fit(points: Sequence[Point], first: int | None) -> tuple[float, float, float] | None:
    """(prefix, ratio, per message) minimising the squared relative errors, with the prefix
    from 0 to the smallest recorded request, ``first`` (the first call's) included (to any size
    where ``first`` is None), and the framing not negative; None if degenerate."""
    recorded = np.array([y for *_, y in points], dtype=float)
    columns = {
        "prefix": np.ones(len(points)),
        "ratio": np.array([x for _, _, x, _ in points], dtype=float),
        "per_message": np.array([m for _, m, _, _ in points], dtype=float),
    }
    fixed: dict[str, float] = {}
    for _ in range(3):  # fix a parameter out of bounds at its bound, then solve for the rest
        free = [name for name in columns if name not in fixed]
        target = 1 - sum(value * columns[name] for name, value in fixed.items()) / recorded
        design = np.column_stack([columns[name] / recorded for name in free])
        if np.linalg.matrix_rank(design) < len(free):
            if "per_message" in free:  # no spread in the message counts: no framing term
                fixed["per_message"] = 0.0
                continue
            return None
        solved = dict(zip(free, np.linalg.lstsq(design, target, rcond=None)[0], strict=True))
        smallest = float("inf") if first is None else float(min(recorded.min(), first))
        bounds = {"prefix": (0.0, smallest), "per_message": (0.0, MAX_FRAMING)}
        out = {n: min(max(v, bounds[n][0]), bounds[n][1]) for n, v in solved.items() if n in bounds}
        clipped = {n: v for n, v in out.items() if v != solved[n]}
        if not clipped:
            return tuple(float({**fixed, **solved}[n]) for n in columns)  # type: ignore[return-value]
        fixed.update(clipped)
    return None


MAX_FRAMING = 200.0  # tokens a provider adds per message: more is a fit gone wrong


def _with_steps(calls: list[tuple[int, int, int, int]]) -> Model | None:
    """The step model: the ratio from call-to-call growth (the median, which a few steps do
    not move), the prefix from the first calls, and a step wherever the offset rises and
    stays up at the next call."""
    slopes = [
        (y2 - y1) / (x2 - x1) for (_, _, x1, y1), (_, _, x2, y2) in pairwise(calls) if x2 - x1 >= MIN_GROWTH
    ]
    if len(slopes) < MIN_CALLS:
        return None
    ratio = median(slopes)
    offsets = [y - ratio * x for _, _, x, y in calls]
    level = median(offsets[:3])
    prefix, steps = max(round(level), 0), []
    for n, ((turn, index, _, y), offset) in enumerate(zip(calls, offsets, strict=True)):
        rise = offset - level
        later = offsets[n + 1] - level if n + 1 < len(offsets) else rise
        bound = max(MIN_STEP, MIN_MISS * y)
        if rise > bound and later > bound:
            step = round(min(rise, later))
            steps.append((index, step, turn))
            level += step
    return prefix, ratio, 0.0, tuple(steps)


class CalibratedCounter(TokenCounter):
    """A counter that reports what the provider would have recorded: each message ``ratio``
    times our count and the provider's framing (plus the hidden step it carries, if any), and
    every request's head (tool definitions) plus the hidden prefix.

    It shares the counts (and tokenizer) of the counter it calibrates, so nothing is
    tokenized twice; a framework's own tokenizer (``in_encoding``) stays uncalibrated, as
    that framework counts."""

    def __init__(
        self, base: TokenCounter, calibration: Fit, messages: Sequence[Message] = ()
    ) -> None:  # no super(): shares base
        self.__dict__.update(base.__dict__)
        self.base, self.calibration = base, calibration
        self._scaled: dict[tuple, int] = {}
        # the hidden steps, by the very message (of ``messages``, the raw history) they ride with
        self._hidden = {id(messages[i]): (messages[i], tokens) for i, tokens in calibration.steps}
        self._reattached: dict[str, int] = {}
        self._opening: tuple[str, ...] = ()
        self._typical = 0
        # the conversation before a mid-session file's first line: one message, its size fitted
        self.earlier_block = earlier_block(calibration.earlier) if calibration.earlier else None

    def reattach(self, tokens_by_summary: dict[str, int], opening: tuple[str, ...] = ()) -> None:
        """Count, with each of the agent's own compaction summaries (by its text), the content the
        agent re-attached after that compaction that the file does not hold
        (``agent_changes.reattached``): a request holding the summary holds it too. A summary
        opening with one of ``opening`` (an agent's own policy compacting where the agent did
        not) re-attaches the median of those, as the agent does after any compaction."""
        self._reattached = dict(tokens_by_summary)
        self._opening = opening
        self._typical = round(median(tokens_by_summary.values())) if tokens_by_summary else 0

    def count(self, message: Message) -> int:
        said = earlier_tokens(message)
        if said is not None:  # a block of earlier conversation (or what a trim left of it): its size
            return said
        key = message.content_key()
        tokens = self._scaled.get(key)
        if tokens is None:
            fit = self.calibration
            tokens = self._scaled[key] = round(fit.ratio * self.base.count(message) + fit.per_message)
        if self._hidden:
            held = self._hidden.get(id(message))
            if held is not None and held[0] is message:
                tokens += held[1]
        if self._reattached and message.kind == SUMMARY:
            known = self._reattached.get(message.content)
            if known is None and message.content.startswith(self._opening):
                known = self._typical
            tokens += known or 0
        return tokens

    def content(self, message: Message) -> int:
        return round(self.calibration.ratio * self.base.content(message))

    def text(self, text: str) -> int:
        return round(self.calibration.ratio * self.base.text(text))

    def text_cached(self, text: str, prefix: str) -> int:
        return round(self.calibration.ratio * self.base.text_cached(text, prefix))

    def tools(self, definitions: Sequence[dict]) -> int:
        return self.calibration.prefix + round(self.calibration.ratio * self.base.tools(definitions))

    def prime(self, messages: Sequence[Message]) -> None:
        self.base.prime(messages)

    def in_encoding(self, encoding: str) -> TokenCounter:
        return self.base.in_encoding(encoding)
