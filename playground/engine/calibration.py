"""Calibration to the recorded usage: what the provider counted, from what we count.

An agent's log holds the messages, not all of the request: every Claude Code call opens
with a system prompt and tool definitions no line of the file contains, and Claude's
tokenizer is not o200k. Per call, ``recorded ≈ prefix + ratio × counted`` fits well (on six
real Claude Code sessions: prefix 13,900–17,700 tokens, ratio 1.18–1.79, median error under
1 %). ``fit`` finds the two from the calls before the agent's first compaction of its own
(after it, the agent sent a summary instead of the history we count); ``CalibratedCounter``
then reports every count as the provider would, so the bill and every threshold a policy
compares against use the same figure, as the agent's own counter did.

The fit is robust: least squares, then again without the calls it misses by far (a call
after an error, a resumed session whose cache went cold, a request the agent trimmed), until
no call is left out; the errors reported are over every call, those left out included.

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
from dataclasses import dataclass
from itertools import pairwise
from statistics import median

from playground.engine.session import Session
from playground.engine.tokens import REPLY_PRIMING, TokenCounter
from policies import Message

MIN_CALLS = 3  # fewer recorded calls than this fit nothing
MIN_SPREAD = 1.2  # the largest counted request must be this many times the smallest: else no slope
RATIO_RANGE = (0.5, 3.0)  # a tokenizer ratio outside this is a fit gone wrong, not a tokenizer
OUTLIER = 4.0  # a call missed by this many times the median miss is left out of the next pass
MIN_MISS = 0.01  # ... but never for missing by less than 1 % of its recorded size
MIN_GROWTH = 200  # consecutive calls this far apart (counted) give a ratio of growth
MIN_STEP = 300  # an offset rising by more than this (and 1 % of the call) that persists is a step


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

    def tokens(self, counted: int) -> int:
        """What the provider would record for a request we count as ``counted`` (the hidden
        steps are in ``counted`` already, with the messages they ride with)."""
        return self.prefix + round(self.ratio * counted)

    @property
    def note(self) -> str:
        left = f", {self.left_out} set aside as outliers" if self.left_out else ""
        steps = (
            f"; {len(self.steps)} step(s) of content the file does not hold (server-side tool results), "
            f"{sum(t for _, t in self.steps):,} tokens in all, each with the message before its call"
            if self.steps
            else ""
        )
        return (
            f"calibrated to the recorded usage: a hidden prefix of {self.prefix:,} tokens (system prompt "
            f"and tool definitions the file does not hold) + {self.ratio:.3f} × our count{steps}; fitted on "
            f"{self.calls} calls{left}: median error {self.median_error_pct:.2f} %, worst "
            f"{self.worst_error_pct:.1f} % (turn {self.worst_turn})"
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
        if message.role == "assistant":
            turn += 1
            recorded = session.usage.get(index)
            if index >= stop:
                break
            if recorded:
                points.append((turn, index, counted + fixed, recorded))
        counted += counter.count(message)
    return points


def fit(session: Session, counter: TokenCounter) -> Fit | None:
    """The calibration of ``session``'s counts to its recorded usage; None where it records
    too few calls, too little growth, or none that a line fits."""
    calls = _calls(session, counter)
    points = [(turn, x, y) for turn, _, x, y in calls]
    if len(points) < MIN_CALLS:
        return None
    xs = [x for _, x, _ in points]
    if max(xs) < MIN_SPREAD * max(min(xs), 1):
        return None
    line = _robust_line(points)
    if line is None:
        return None
    prefix, ratio, left_out = line
    stepped = _with_steps(calls)
    if (
        stepped is not None
        and _median_error(stepped, points) < _median_error((prefix, ratio, ()), points) / 2
    ):
        (prefix, ratio, steps), left_out = stepped, 0
    else:
        steps = ()
    if not RATIO_RANGE[0] <= ratio <= RATIO_RANGE[1]:
        return None
    errors = _errors((prefix, ratio, steps), points)
    worst = max(errors)
    return Fit(
        prefix,
        round(ratio, 4),
        len(points),
        left_out,
        round(median(e for e, _ in errors), 3),
        round(worst[0], 2),
        worst[1],
        tuple((index - 1, tokens) for index, tokens, _ in steps),
    )


# prefix, ratio, steps: (raw index of the reply it first shows at, tokens, turn), in order
Model = tuple[int, float, tuple[tuple[int, int, int], ...]]


def _errors(model: Model, points: list[tuple[int, int, int]]) -> list[tuple[float, int]]:
    """(|fitted - recorded| / recorded in %, turn) per call; steps count from their call on."""
    prefix, ratio, steps = model
    out, hidden, pending = [], 0, list(steps)
    for turn, x, y in points:
        while pending and pending[0][2] <= turn:
            hidden += pending.pop(0)[1]
        out.append((100 * abs(prefix + hidden + round(ratio * x) - y) / y, turn))
    return out


def _median_error(model: Model, points: list[tuple[int, int, int]]) -> float:
    return median(e for e, _ in _errors(model, points))


def _robust_line(points: list[tuple[int, int, int]]) -> tuple[int, float, int] | None:
    """Least squares, again without the calls missed by far, until none is left out:
    (prefix, ratio, calls left out)."""
    used = points
    while True:
        line = _least_squares([(x, y) for _, x, y in used])
        if line is None:
            return None
        misses = [abs(line[0] + line[1] * x - y) / y for _, x, y in used]
        bound = max(OUTLIER * median(misses), MIN_MISS)
        kept = [p for p, miss in zip(used, misses, strict=True) if miss <= bound]
        if len(kept) == len(used) or len(kept) < MIN_CALLS:
            break
        used = kept
    return max(round(line[0]), 0), line[1], len(points) - len(used)


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
    return prefix, ratio, tuple(steps)


def _least_squares(points: Sequence[tuple[int, int]]) -> tuple[float, float] | None:
    """(intercept, slope) of the least-squares line through ``points``; None if vertical."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if not spread:
        return None
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    return mean_y - slope * mean_x, slope


class CalibratedCounter(TokenCounter):
    """A counter that reports what the provider would have recorded: each message ``ratio``
    times our count (plus the hidden step it carries, if any), and every request's head (tool
    definitions) plus the hidden prefix.

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

    def count(self, message: Message) -> int:
        key = message.content_key()
        tokens = self._scaled.get(key)
        if tokens is None:
            tokens = self._scaled[key] = round(self.calibration.ratio * self.base.count(message))
        if self._hidden:
            held = self._hidden.get(id(message))
            if held is not None and held[0] is message:
                tokens += held[1]
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
