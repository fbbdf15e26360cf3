"""Charts of several stacks at once: per-turn lines overlaid, and a sweep's cost against loss."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from playground.analyses.recommend import Recommendation, stack_said
from playground.analyses.sweep import COST_AXES, LOSS_AXES, Sweep
from playground.charts.turns import (
    COLOURS,
    LAYOUT,
    POSITION_COLOURS,
    empty_chart,
    nothing_to_chart,
    plain,
    raw_line,
)

# a candidate keeps its colour for as long as it exists; the stack being edited is drawn dashed
CANDIDATE_COLOURS = POSITION_COLOURS[:6]
EDITING_COLOUR = "#202124"

# (title, the stack's column, the raw history's column or None): the compare view's charts
COMPARE_CHARTS = (
    ("Context tokens per turn", "context_tokens", "raw_tokens"),
    ("Cumulative cost (USD)", "cumulative_cost_usd", "cumulative_raw_cost_usd"),
    ("Stubs held per turn", "stubs_held", None),
    ("Facts lost per turn", "facts_lost", None),
)


def with_cumulative_cost(turns: pd.DataFrame) -> pd.DataFrame:
    """The turns with what the stack and raw history have cost so far (summaries included)."""
    return turns.assign(
        cumulative_cost_usd=(turns["cost_usd"] + turns["summary_cost_usd"]).cumsum(),
        cumulative_raw_cost_usd=turns["raw_cost_usd"].cumsum(),
    )


def merged_identical(frames: Mapping[str, pd.DataFrame]) -> dict[str, list[str]]:
    """The stacks by what they give: each name that leads a group -> every stack whose per-turn
    figures of the compare charts equal its own (a candidate saved twice, a policy that never
    acts). Drawn apart, the later line would hide the earlier; drawn once, the legend says so."""
    columns = [c for _, column, raw in COMPARE_CHARTS for c in (column, raw) if c]
    groups: dict[tuple, list[str]] = {}
    for name, frame in frames.items():
        shown = frame.reindex(columns=columns)
        key = (len(frame), tuple(pd.util.hash_pandas_object(shown, index=False).tolist()))
        groups.setdefault(key, []).append(name)
    return {names[0]: names for names in groups.values()}


def overlay_chart(
    frames: Mapping[str, pd.DataFrame],
    colours: Mapping[str, str],
    title: str,
    column: str,
    raw_column: str | None = None,
    dashed: Sequence[str] = (),
    legend: bool = True,
    same: Mapping[str, Sequence[str]] | None = None,
) -> go.Figure:
    """One line per stack (by name, in its colour) of ``column``, over the raw history's.
    ``same`` (``merged_identical``) draws each group of stacks that give the same figures as
    one line named by all of them; ``legend=False`` leaves the legend to another chart."""
    figure = empty_chart(title)
    frames = {name: frame for name, frame in frames.items() if not frame.empty and column in frame}
    if not frames or all(frame[column].isna().all() for frame in frames.values()):
        return nothing_to_chart(figure, "No figure to draw (no price is known for this model).")
    if raw_column is not None:
        first = next(iter(frames.values()))
        figure.add_trace(raw_line(first, first[raw_column]).update(showlegend=legend))
    same = same if same is not None else {name: [name] for name in frames}
    for name, members in same.items():
        if name not in frames:
            continue
        frame = frames[name]
        line = {"color": colours[name], "width": 2.5}
        if any(m in dashed for m in members):
            line["dash"] = "dash"
        label = " = ".join(plain(m) for m in members)
        figure.add_trace(
            go.Scatter(
                x=frame["turn"], y=frame[column], name=label, line=line, showlegend=legend, legendgroup=label
            )
        )
    return figure


# the reference lines of a sweep's cost axis: (label, the totals key holding it)
SWEEP_REFERENCES = {
    "cost_usd": (("raw history", "raw_cost_usd"), ("as recorded", "recorded_cost_usd")),
    "billed_context_tokens": (("raw history", "billed_raw_tokens"), ("as recorded", "recorded_input_tokens")),
}


def sweep_chart(sweep: Sweep, loss: str) -> go.Figure:
    """Each point of a sweep as cost against loss, the front joined, invalid points crossed.

    A point's ``customdata`` is its index in ``sweep.points`` (a click loads it)."""
    cost = sweep.cost_axis()
    figure = _cost_against_loss(f"{COST_AXES[cost]} against {LOSS_AXES[loss]}", cost, loss)
    ran = [(i, p) for i, p in enumerate(sweep.points) if p.error is None]
    if not ran:
        return nothing_to_chart(figure, "No point of the sweep could run: the table says why.")
    # what the points are weighed against: the raw history and, where the session records
    # it, what the agent sent (the same for every point: the first that ran holds them)
    first = ran[0][1].totals
    references = [
        (name, first[key]) for name, key in SWEEP_REFERENCES[cost] if isinstance(first[key], int | float)
    ]
    xs = [p.totals[cost] for _, p in ran] + [value for _, value in references]
    low, high = min(xs), max(xs)
    pad = (high - low) * 0.06 or abs(high) * 0.05 or 1
    figure.update_xaxes(range=[low - pad, high + pad])  # fits the points, not from 0
    for name, value in references:
        raw = name == "raw history"
        figure.add_vline(
            x=value,
            line={"color": COLOURS["raw"] if raw else COLOURS["recorded"], "dash": "dash"},
            annotation={"text": name, "textangle": -90, "font": {"size": 11}},
            # one label at the top, the other at the bottom: two lines close together never
            # write their names over each other
            annotation_position="top left" if raw else "bottom right",
        )
    front = sweep.front(loss, cost)
    labels = [
        "<br>".join(f"{plain(a.label)} = {plain(v)}" for a, v in zip(sweep.axes, p.values, strict=True))
        for p in sweep.points
    ]
    _front_line(
        figure, [(sweep.points[i].totals[cost], sweep.points[i].totals[loss]) for i, _ in ran if front[i]]
    )
    groups = (
        (
            "on the front",
            lambda i, p: front[i] and not p.invalid,
            {"color": COLOURS["compaction"], "size": 12},
        ),
        ("dominated", lambda i, p: not front[i] and not p.invalid, {"color": COLOURS["raw"], "size": 9}),
        (
            "invalid requests",
            lambda i, p: p.invalid,
            {"color": COLOURS["window"], "size": 11, "symbol": "x"},
        ),
    )
    for name, belongs, marker in groups:
        chosen = [(i, p) for i, p in ran if belongs(i, p)]
        if not chosen:
            continue
        figure.add_trace(
            go.Scatter(
                x=[p.totals[cost] for _, p in chosen],
                y=[p.totals[loss] for _, p in chosen],
                mode="markers",
                name=name,
                marker=marker,
                customdata=[i for i, _ in chosen],
                text=[labels[i] for i, _ in chosen],
                hovertemplate="%{text}<br>" + f"{COST_AXES[cost]}: %{{x}}<br>{LOSS_AXES[loss]}: %{{y}}"
                "<extra></extra>",
            )
        )
    return figure


def corpus_chart(
    frame: pd.DataFrame, stacks: Sequence[str], column: str, title: str, colours: Mapping[str, str]
) -> go.Figure:
    """One box per stack of ``column`` over a corpus' sessions, every session a point (its
    name on hover): where a stack's figure sits, and which sessions stand out."""
    figure = go.Figure()
    for stack in stacks:
        own = frame[frame["stack"] == stack]
        figure.add_trace(
            go.Box(
                y=own[column],
                name=plain(stack),
                text=[plain(s) for s in own["session"]],
                hovertemplate="%{text}: %{y}<extra></extra>",
                marker_color=colours.get(stack),
                boxpoints="all",
                jitter=0.3,
            )
        )
    figure.update_layout(**LAYOUT)
    figure.update_layout(title=title, hovermode="closest", showlegend=False)
    return figure


def _cost_against_loss(title: str, cost: str, loss: str) -> go.Figure:
    """An empty chart of cost (x) against a loss (y), as the sweep and the recommendation draw."""
    figure = go.Figure()
    figure.update_layout(title=title, **LAYOUT)
    figure.update_layout(hovermode="closest", height=420)
    figure.update_xaxes(title={"text": COST_AXES[cost], "standoff": 4})
    figure.update_yaxes(title={"text": LOSS_AXES[loss]})
    return figure


def _front_line(figure: go.Figure, front: list[tuple[float, float]]) -> None:
    """The Pareto front joined as a staircase, under the points."""
    front = sorted(front)
    figure.add_trace(
        go.Scatter(
            x=[c for c, _ in front],
            y=[v for _, v in front],
            mode="lines",
            name="front",
            line={"color": COLOURS["compaction"], "width": 2, "shape": "hv"},
            hoverinfo="skip",
        )
    )


def recommend_chart(answer: Recommendation) -> go.Figure:
    """Every stack a recommendation tried as cost against facts lost: the front joined, the
    ones within the budget apart from those over it, the answer ringed.

    A point's ``customdata`` is its index in ``answer.tried`` (a click loads it)."""
    cost = answer.objective
    loss = "distinct_facts_lost"
    figure = _cost_against_loss(f"{COST_AXES[cost]} against facts lost, every stack tried", cost, loss)
    ran = [(i, t) for i, t in enumerate(answer.tried) if t.ran and t.total(cost) is not None]
    if not ran:
        return nothing_to_chart(figure, "No stack could run.")
    _front_line(figure, [(t.total(cost), t.total(loss)) for t in answer.front()])
    allowed = answer.budget.max_facts_lost
    figure.add_hline(
        y=allowed,
        line={"dash": "dash", "color": COLOURS["window"], "width": 1},
        annotation_text=f"budget: {allowed:,} fact{'' if allowed == 1 else 's'} lost",
        annotation_position="top right",
    )
    best = answer.best
    groups = (
        ("within the budget", lambda t: t.feasible, {"color": COLOURS["compaction"], "size": 9}),
        ("over the budget", lambda t: not t.feasible, {"color": COLOURS["window"], "size": 8, "symbol": "x"}),
        (
            "recommended",
            lambda t: t is best,
            {"color": COLOURS["recorded"], "size": 18, "symbol": "circle-open"},
        ),
    )
    for name, member, marker in groups:
        chosen = [(i, t) for i, t in ran if member(t)]
        figure.add_trace(
            go.Scatter(
                x=[t.total(cost) for _, t in chosen],
                y=[t.total(loss) for _, t in chosen],
                customdata=[[i] for i, _ in chosen],
                mode="markers",
                name=name,
                marker=marker,
                text=[plain(t.origin) + "<br>" + plain(stack_said(t.stack)) for _, t in chosen],
                hovertemplate="%{text}<br>%{x}<br>%{y} facts lost<extra></extra>",
            )
        )
    return figure
