"""Sweep one or two parameters of a stack: replay every point, and find the trade-off front.

An axis is written ``POSITION.PARAM=RANGE`` (``2.keep_last_n=1:30``), where POSITION is the
stack entry from 1 (or the policy's name when the stack holds it once) and RANGE one of

- ``START:END`` whole numbers, both ends included, step 1;
- ``START:END:STEP`` any numbers (a float range needs its step);
- ``A,B,C`` a list of values (numbers, ``true``/``false``, text such as a flavour);
- a single value.

Each point is a whole replay with the parameter(s) set; its figures are the session totals
(``metrics.totals``). With many points they run in worker processes that learn the
parent's token counts, so no message is tokenized twice per process.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from playground.analyses.runner import Counters, Runner
from playground.engine.replay import Settings
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.limits import LIMITS, LimitError, over
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.figures import Totals
from playground.measures.must_keep import MustKeep
from playground.money.cost import Pricing
from playground.summaries.base import SummarizerError
from policies.base import MAX_NUMBER, Param, ParamError, shown
from policies.registry import POLICY_TYPES, PolicySpec, SpecError

# what a point costs: dollars where every turn is priced, else the input tokens billed
COST_AXES = {"cost_usd": "session cost ($)", "billed_context_tokens": "input tokens billed"}
# what a point loses, the user's pick
LOSS_AXES = {
    "distinct_facts_lost": "facts lost",
    "turns_with_facts_lost": "turns with facts lost",
    "distinct_quotes_lost": "copied lines lost",
    "refetches": "re-fetches",
    "turns_with_violations": "invalid turns",
}


class SweepError(ValueError):
    """A sweep that cannot run as written; the message names the axis and what is wrong."""


@dataclass(frozen=True)
class Axis:
    """One swept parameter: the stack entry (from 1), the parameter, and its values in order."""

    position: int
    policy: str
    param: str
    values: tuple

    @property
    def label(self) -> str:
        return f"{self.position}.{self.param}"


def parse_axis(text: str, specs: Sequence[PolicySpec]) -> Axis:
    """``POSITION.PARAM=RANGE`` against the stack ``specs``; SweepError says what is wrong."""
    where = f"--param {shown(text)}"
    target, equals, written = text.partition("=")
    entry, dot, name = target.strip().rpartition(".")
    if not equals or not dot or not entry or not name or not written.strip():
        raise SweepError(f"{where}: write POSITION.PARAM=RANGE, as in 2.keep_last_n=1:30")
    position = _position(entry.strip(), specs, where)
    spec = specs[position - 1]
    declared = {p.name: p for p in POLICY_TYPES[spec.name].params}
    param = declared.get(name.strip())
    if param is None:
        known = ", ".join(declared) or "none"
        raise SweepError(
            f"{where}: {spec.name} has no parameter {shown(name.strip())} (its parameters: {known})"
        )
    return axis(position, spec.name, param, written.strip(), where)


def axis(position: int, policy: str, param: Param, written: str, where: str = "") -> Axis:
    """The axis over ``param`` of entry ``position`` that ``written`` describes."""
    where = where or f"{position}.{param.name}={written}"
    values = tuple(_values(param, written, where))
    for value in values:
        try:
            param.validate(value)
        except ParamError as error:
            raise SweepError(f"{where}: {error}") from None
    if len(set(values)) != len(values):
        raise SweepError(f"{where}: a value is given twice")
    return Axis(position, policy, param.name, values)


def suggested_range(param: Param) -> str:
    """A first range to try for ``param``: up to twenty round values around its default (or, where
    it has none, around where a search starts for it)."""
    if param.choices:
        return ",".join(param.choices)
    if param.type is bool:
        return "true,false"
    if param.type not in (int, float):
        return str(param.default)
    minimum = param.minimum if param.minimum is not None else 0
    maximum = param.maximum if param.maximum is not None else float("inf")
    # unset by default: around where a search starts for it (``Param.search_from``), as the recommender does
    centre = param.default if param.default is not None else param.search_from
    if isinstance(centre, int | float) and not isinstance(centre, bool) and centre > 0:
        low, high = max(minimum, centre / 4), min(maximum, centre * 3)
    else:  # not set by default: from the bottom, thresholds in tokens from a thousand
        low = max(minimum, 1000) if maximum >= 1_000_000 else minimum
        high = min(maximum, max(low * 20, 20))
    step = _round_step((high - low) / 20)
    if param.type is int:
        step = max(1, round(step))
    low = max(minimum, low - low % step)
    text = [_plain(low), _plain(high)]
    return ":".join(text) if step == 1 and param.type is int else ":".join([*text, _plain(step)])


def _round_step(step: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``step``."""
    power = 10.0 ** math.floor(math.log10(step)) if step > 0 else 1.0
    for mantissa in (1, 2, 5, 10):
        if mantissa * power >= step * (1 - 1e-9):
            return round(mantissa * power, 10)
    return round(10 * power, 10)


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def sweepable(param: Param) -> bool:
    """Whether a sweep can set this parameter: a number, a switch or a choice."""
    return param.type in (int, float, bool) or bool(param.choices)


def _position(entry: str, specs: Sequence[PolicySpec], where: str) -> int:
    listing = ", ".join(f"{n}. {s.name}" for n, s in enumerate(specs, start=1)) or "no entries"
    if entry.isdigit():
        position = int(entry)
        if not 1 <= position <= len(specs):
            raise SweepError(f"{where}: the stack has no entry {position} (it holds {listing})")
    else:
        matches = [n for n, s in enumerate(specs, start=1) if s.name == entry]
        if len(matches) != 1:
            held = "more than once" if matches else "not"
            raise SweepError(
                f"{where}: the stack holds {shown(entry)} {held}; name the entry by its number ({listing})"
            )
        position = matches[0]
    if not specs[position - 1].enabled:
        raise SweepError(f"{where}: entry {position} ({specs[position - 1].name}) is disabled")
    return position


def _values(param: Param, written: str, where: str) -> list[Any]:
    if ":" in written:
        if param.type not in (int, float) or param.choices:
            raise SweepError(f"{where}: a range needs a number parameter; list the values: a,b,c")
        parts = [_number(part, param, where) for part in written.split(":")]
        if len(parts) not in (2, 3):
            raise SweepError(f"{where}: a range is START:END or START:END:STEP")
        start, end = parts[0], parts[1]
        if len(parts) == 3:
            step = parts[2]
        elif param.type is int and isinstance(start, int) and isinstance(end, int):
            step = 1
        else:
            raise SweepError(f"{where}: a range of fractions needs a step, as in {start}:{end}:0.05")
        if step <= 0:
            raise SweepError(f"{where}: the step must be above 0, got {step}")
        if end < start:
            raise SweepError(f"{where}: the range ends ({end}) before it starts ({start})")
        span = (end - start) / step  # bounded numbers over a step above 0: finite, or inf
        count = int(span + 1e-9) + 1 if math.isfinite(span) else math.inf
        if count > LIMITS.max_sweep_points:
            raise SweepError(
                f"{where}: {over('max_sweep_points', f'the range gives {count:,.0f} points')}; "
                "give a larger step (START:END:STEP)"
            )
        values = [start + i * step for i in range(count)]
        if param.type is float or isinstance(step, float):
            values = [round(float(v), 10) for v in values]
        return [param.type(v) if param.type is int and v == int(v) else v for v in values]
    listed = written.count(",") + 1  # counted before any value is read
    if listed > LIMITS.max_sweep_points:
        raise SweepError(f"{where}: {over('max_sweep_points', f'the list gives {listed:,} values')}")
    return [_scalar(part.strip(), param, where) for part in written.split(",")]


def _number(text: str, param: Param, where: str) -> int | float:
    """A bound or step: a number within what a parameter may hold, and a step not so small
    that the range could not be counted."""
    text = text.strip()
    if len(text) > 40:
        raise SweepError(
            f"{where}: {shown(text[:20] + '…')} is too long for a number ({len(text):,} characters)"
        )
    try:
        value: int | float = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise SweepError(f"{where}: {shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise SweepError(f"{where}: {shown(text)} is not a finite number")
    if abs(value) > MAX_NUMBER:
        raise SweepError(f"{where}: {shown(text)} is out of range (at most {MAX_NUMBER:.0e} either way)")
    if value and abs(value) < 1e-9:
        raise SweepError(f"{where}: {shown(text)} is too small a step (at least 1e-9)")
    return value


def _scalar(text: str, param: Param, where: str) -> Any:
    if not text:
        raise SweepError(f"{where}: an empty value in the list")
    if param.optional and text.lower() in ("none", "null", "unset"):
        return None
    if param.type is bool:
        if text.lower() not in ("true", "false"):
            raise SweepError(f"{where}: {param.name} takes true or false, got {shown(text)}")
        return text.lower() == "true"
    if param.type in (int, float):
        return _number(text, param, where)
    if param.type is list:
        raise SweepError(f"{where}: {param.name} is a list; a sweep sets numbers, switches or choices")
    return text


def points(axes: Sequence[Axis]) -> list[tuple]:
    """Every combination of the axes' values, the first axis slowest."""
    if not 1 <= len(axes) <= 2:
        raise SweepError("a sweep takes one parameter, or two for a grid")
    if len({(a.position, a.param) for a in axes}) != len(axes):
        raise SweepError(f"{axes[0].label} is swept twice")
    size = math.prod(len(a.values) for a in axes)  # counted before the grid is built
    if size > LIMITS.max_sweep_points:
        raise SweepError(over("max_sweep_points", f"the grid has {size:,} points"))
    return list(itertools.product(*(a.values for a in axes)))


def stack_at(specs: Sequence[PolicySpec], axes: Sequence[Axis], values: tuple) -> list[PolicySpec]:
    """The stack with each axis's parameter set to its value at this point."""
    stack = list(specs)
    for ax, value in zip(axes, values, strict=True):
        spec = stack[ax.position - 1]
        stack[ax.position - 1] = replace(spec, params={**spec.params, ax.param: value})
    return stack


@dataclass(frozen=True)
class Point:
    """One point of a sweep: the values set (one per axis) and the session totals, or why
    its stack could not run."""

    values: tuple
    totals: Totals = field(default_factory=Totals)
    error: str | None = None

    @property
    def invalid(self) -> bool:
        """Whether some request of this point breaks the API's rules or the window: marked
        on the plot, never hidden."""
        return bool(self.totals.turns_with_violations or self.totals.turns_over_window)


@dataclass(frozen=True)
class Sweep:
    axes: tuple[Axis, ...]
    points: tuple[Point, ...]  # in grid order; fewer than the grid when cancelled
    planned: int
    processes: int = 1  # 1: every point ran in the calling process

    @property
    def complete(self) -> bool:
        return len(self.points) == self.planned

    def cost_axis(self) -> str:
        """Dollars when every point is priced, else tokens billed."""
        ran = [p for p in self.points if p.error is None]
        if ran and all(p.totals.cost_usd is not None for p in ran):
            return "cost_usd"
        return "billed_context_tokens"

    def front(self, loss: str, cost: str | None = None) -> list[bool]:
        """For each point, whether it is on the Pareto front of (cost, loss)."""
        cost = cost or self.cost_axis()
        pairs = [None if p.error else (p.totals[cost], p.totals[loss]) for p in self.points]
        return pareto_front(pairs)

    def rows(self, loss: str = "distinct_facts_lost") -> list[dict[str, Any]]:
        """One row per point: its values, every total, and whether it is on the front."""
        front = self.front(loss)
        rows = []
        for point, on_front in zip(self.points, front, strict=True):
            row: dict[str, Any] = {ax.label: value for ax, value in zip(self.axes, point.values, strict=True)}
            row |= {"on_front": on_front, "invalid": point.invalid, "error": point.error or ""}
            rows.append(row | point.totals.as_dict())
        return rows


def pareto_front(pairs: Sequence[tuple[float | None, float | None] | None]) -> list[bool]:
    """Whether each (cost, loss) pair is on the front, both minimised: no other pair is at
    least as good in both and better in one. Equal pairs are all on it or all off; a
    missing pair (a point that did not run) never is."""
    usable = [(i, p) for i, p in enumerate(pairs) if p is not None and None not in p]
    front = [False] * len(pairs)
    for i, (cost, loss) in usable:
        front[i] = not any(
            c <= cost and v <= loss and (c < cost or v < loss) for j, (c, v) in usable if j != i
        )
    return front


Progress = Callable[[int, int], None]
# what starting the worker processes costs (the forkserver imports the engine once, each
# worker learns the token counts): below this much work, one process is faster
WORKER_START_SECONDS = 2.0


def run_sweep(
    session: Session,
    specs: Sequence[PolicySpec],
    axes: Sequence[Axis],
    settings: Settings,
    pricing: Pricing | None = None,
    must_keep: Sequence[MustKeep] = (),
    *,
    counter: TokenCounter | None = None,
    workers: int = 1,
    api_key: str | None = None,
    hosted: bool = False,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Sweep:
    """Replay every point of the grid; ``progress(done, planned)`` after each, and stop
    early (keeping what finished) once ``cancelled()`` is true."""
    grid = points(axes)
    counter = counter or TokenCounter(settings.model)
    counter.prime(session.messages)
    job = _Job(session, Scenario(settings, pricing or Pricing(), tuple(must_keep)), api_key, hosted)
    todo = [(values, stack_at(specs, axes, values)) for values in grid]
    workers = max(1, min(workers, LIMITS.max_sweep_workers, len(grid)))
    done: dict[int, Point] = {}
    processes = 1  # where the points ran: here, unless the rest went to workers
    cancelled = cancelled or (lambda: False)
    here = Counters()
    here.add(counter)
    # the first points run here (the first pays for warming up, the second shows what a point
    # takes); the rest go to workers only when they would take longer than starting them
    with Runner(job, _point, counters=here) as runner:
        started = time.perf_counter()
        for index, point in runner.results(todo, cancelled):
            took, started = time.perf_counter() - started, time.perf_counter()
            done[index] = point
            if progress:
                progress(len(done), len(grid))
            rest = len(grid) - len(done)
            slow = took > WORKER_START_SECONDS or (index == 1 and rest * took > WORKER_START_SECONDS)
            if workers > 1 and rest and slow:
                break
    if len(done) < len(grid) and not cancelled():
        left = [index for index in range(len(grid)) if index not in done]
        known = (counter.model, counter.known())  # the workers tokenize nothing this process has
        with Runner(job, _point, workers=workers, known=known) as runner:
            processes = runner.processes
            for at, point in runner.results([todo[index] for index in left], cancelled):
                done[left[at]] = point
                if progress:
                    progress(len(done), len(grid))
    finished = tuple(done[i] for i in range(len(grid)) if i in done)
    return Sweep(tuple(axes), finished, len(grid), processes)


@dataclass(frozen=True)
class _Job:
    """What every point of one sweep shares."""

    session: Session
    scenario: Scenario
    api_key: str | None
    hosted: bool


def _point(job: _Job, counters: Counters, item: tuple[tuple, list[PolicySpec]]) -> Point:
    """One point of the grid: its values and the stack they set."""
    values, stack = item
    counter = counters(job.scenario.settings.model)
    try:
        evaluated = evaluate(
            job.session, stack, job.scenario, counter, api_key=job.api_key, hosted=job.hosted
        )
    except (SpecError, SummarizerError, LimitError) as error:
        return Point(values, error=str(error))
    return Point(values, evaluated.totals)
