"""Chart builders: pure functions from the per-turn and event frames to plotly figures."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from playground.engine.running import BUCKETS
from playground.measures.metrics import RECORDED_COMPACTION

COLOURS = {
    "raw": "#9aa0a6",
    "context": "#1a73e8",
    "recorded": "#e37400",
    "window": "#d93025",
    "compaction": "#a142f4",
    "system": "#5f6368",
    "user": "#1e8e3e",
    "assistant": "#1a73e8",
    "tool": "#f9ab00",
    "stub": "#e8710a",
    "summary": "#a142f4",
}
LAYOUT = {
    "margin": {"l": 10, "r": 40, "t": 40, "b": 70},
    "height": 340,
    "hovermode": "x unified",
    "hoverlabel": {"namelength": -1},  # series names in full, never cut at 15 characters
    # the legend in the figure's own bottom margin, under the turn axis (never on its title), and
    # the toolbar upright at the right edge, off the title of a half-width chart
    "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
    "modebar": {"orientation": "v"},
    "yaxis": {"rangemode": "tozero"},  # an all-zero series reads 0 to 1, never -1 to 1
}
# one colour per stack position, the same in the light and the dark theme
POSITION_COLOURS = ("#1a73e8", "#e8710a", "#a142f4", "#1e8e3e", "#d93025", "#f9ab00", "#12b5cb", "#5f6368")


def empty_chart(title: str) -> go.Figure:
    # the layout given whole: nine times faster than updating an empty figure's (a redraw makes 8)
    return go.Figure(
        layout={**LAYOUT, "title": {"text": title}, "xaxis": {"title": {"text": "turn", "standoff": 4}}}
    )


def nothing_to_chart(figure: go.Figure, why: str) -> go.Figure:
    """A chart with no series: says so where the axes would be, instead of drawing empty ones."""
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    figure.add_annotation(text=why, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False)
    figure.update_layout(height=160)
    return figure


def plain(text: str) -> str:
    """Transcript or user text for a plotly label or hover: plotly reads a few HTML tags in text
    (links among them), so the angle brackets are escaped and it shows the text as written."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def raw_line(turns: pd.DataFrame, y: pd.Series) -> go.Scatter:
    """The raw history as every chart draws it: the reference, dotted grey."""
    return go.Scatter(x=turns["turn"], y=y, name="raw history", line={"color": COLOURS["raw"], "dash": "dot"})


def recorded_line(
    turns: pd.DataFrame, column: str, y: pd.Series | None = None, whole: bool = False
) -> go.Scatter | None:
    """What the agent actually sent (or paid), as its log records it: the honest baseline, a
    gap at each turn it does not record; None where it records none (or, ``whole``, where it
    misses any: a running total with gaps would mislead)."""
    missing = turns[column].isna()
    if missing.all() or (whole and missing.any()):
        return None
    values = turns[column].astype(float) if y is None else y
    return go.Scatter(
        x=turns["turn"], y=values, name="as recorded", line={"color": COLOURS["recorded"], "width": 2}
    )


def _add(figure: go.Figure, trace: go.Scatter | None) -> None:
    if trace is not None:
        figure.add_trace(trace)


def _silent_markers(x: pd.Series, y: pd.Series, name: str, marker: dict) -> go.Scatter:
    """Markers that show where something happened and leave the telling to the turn's own
    point: a marker's hover would also answer for the turns beside it. "none", not "skip":
    a marker drawn on a turn's point still takes the click that opens that turn."""
    return go.Scatter(x=x, y=y, name=name, mode="markers", marker=marker, hoverinfo="none")


def tokens_chart(turns: pd.DataFrame, events: pd.DataFrame, context_window: int) -> go.Figure:
    """Tokens held by the stack vs the raw history per turn, the window, and compactions marked."""
    figure = empty_chart("Tokens sent per turn")
    if turns.empty:
        return figure
    figure.add_trace(raw_line(turns, turns["raw_tokens"]))
    # under the stack's line: a click on a turn of the stack's line is the stack's
    _add(figure, recorded_line(turns, "recorded_prompt_tokens"))
    compactions = events[events["action"] == "compact"] if not events.empty else events
    # what happened at a turn is told on that turn's own point: a marker trace's hover would
    # also answer for the turns beside it (unified hover takes each trace's nearest point)
    notes = {turn: "" for turn in turns["turn"]}
    for row in turns[turns["over_window"] > 0].itertuples():
        notes[row.turn] += "<br><b>over the context window</b>"
    for row in compactions.itertuples():
        notes[row.turn] += (
            f"<br>compaction ({plain(row.policy)}): {row.messages} messages, "
            f"{row.tokens_before:,} → {row.tokens_after:,} tokens"
        )
    figure.add_trace(
        go.Scatter(
            x=turns["turn"],
            y=turns["context_tokens"],
            name="context (stack)",
            # markers: a click selects a point (a line alone has none), and opens that turn
            mode="lines+markers",
            marker={"size": 5},
            line={"color": COLOURS["context"], "width": 3},
            customdata=[notes[t] for t in turns["turn"]],
            hovertemplate="%{y:,} tokens%{customdata}",
        )
    )
    recorded_compactions = events[events["action"] == RECORDED_COMPACTION] if not events.empty else events
    if not recorded_compactions.empty:
        marker = {
            "symbol": "triangle-down-open",
            "size": 13,
            "color": COLOURS["recorded"],
            "line": {"width": 2},
        }
        at = turns.set_index("turn")["raw_tokens"]
        figure.add_trace(
            _silent_markers(
                recorded_compactions["turn"],
                at.reindex(recorded_compactions["turn"]).to_numpy(),
                "the agent's own compaction",
                marker,
            )
        )
    over = turns[turns["over_window"] > 0]
    if not over.empty:  # a provider would refuse these requests outright
        marker = {"color": COLOURS["window"], "size": 9, "symbol": "x"}
        figure.add_trace(
            _silent_markers(over["turn"], over["context_tokens"], "over the context window", marker)
        )
    if context_window <= 3 * float(turns["raw_tokens"].max()):
        figure.add_hline(
            y=context_window,
            line={"color": COLOURS["window"], "dash": "dash"},
            annotation_text=f"context window {context_window:,}",
        )
    else:  # drawn to scale, it would flatten every other line
        figure.add_annotation(
            text=f"context window {context_window:,} (above the chart)",
            xref="paper",
            yref="paper",
            x=1,
            y=1.02,
            showarrow=False,
            font={"color": COLOURS["window"]},
        )
    if not compactions.empty:
        marker = {"symbol": "triangle-down", "size": 13, "color": COLOURS["compaction"]}
        figure.add_trace(
            _silent_markers(compactions["turn"], compactions["tokens_after"], "compaction", marker)
        )
    figure.update_yaxes(title="tokens", rangemode="tozero")
    return figure


def _whole_step(values: pd.Series) -> int:
    """A tick step of whole numbers that gives about five ticks up to the largest of ``values``."""
    top = int(values.max()) if len(values) else 0
    step = max(1, -(-top // 5))
    magnitude = 10 ** (len(str(step)) - 1)
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= step)


def stubs_chart(turns: pd.DataFrame) -> go.Figure:
    """Stubs created per turn (bars) and stubs held in the context (line)."""
    figure = empty_chart("Stubs created and held")
    if turns.empty:
        return figure
    figure.add_trace(
        go.Bar(x=turns["turn"], y=turns["stubs_created"], name="stubs created", marker_color=COLOURS["stub"])
    )
    figure.add_trace(
        go.Scatter(
            x=turns["turn"],
            y=turns["stubs_held"],
            name="stubs held (right axis)",
            line={"color": COLOURS["context"]},
            yaxis="y2",
        )
    )
    figure.update_layout(  # counts: whole ticks only (not 6.25, 12.5)
        yaxis={
            "title": "created",
            "rangemode": "tozero",
            "tickformat": ",d",
            "dtick": _whole_step(turns["stubs_created"]),
        },
        yaxis2={
            "title": "held",
            "overlaying": "y",
            "side": "right",
            "rangemode": "tozero",
            "tickformat": ",d",
            "dtick": _whole_step(turns["stubs_held"]),
            "showgrid": False,
        },
    )
    return figure


def composition_chart(turns: pd.DataFrame) -> go.Figure:
    """Tokens of the compiled context by role, and by what the playground made (stub, summary),
    on the prefix every request opens with (tool definitions, the hidden system prompt the
    calibration found)."""
    figure = empty_chart("Context composition")
    if turns.empty:
        return figure
    if "tokens_head" in turns and turns["tokens_head"].max() > 0:
        figure.add_trace(  # every request opens with it, though no message of the file holds it
            go.Scatter(
                x=turns["turn"],
                y=turns["tokens_head"],
                name="prefix (system prompt, tools)",
                stackgroup="one",
                line={"width": 0.5, "color": "#9aa0a6"},
            )
        )
    for bucket in BUCKETS:
        figure.add_trace(
            go.Scatter(
                x=turns["turn"],
                y=turns[f"tokens_{bucket}"],
                name=bucket,
                stackgroup="one",
                line={"width": 0.5, "color": COLOURS[bucket]},
            )
        )
    figure.update_yaxes(title="tokens")
    return figure


def removed_chart(turns: pd.DataFrame) -> go.Figure:
    """Tokens each policy of the stack removed, per turn."""
    figure = empty_chart("Tokens removed by each policy")
    columns = [c for c in turns.columns if c.startswith("removed_by_")]
    if not columns:
        return nothing_to_chart(figure, "No policy is enabled: nothing is removed.")
    for column in columns:
        position, _, name = column.removeprefix("removed_by_").partition("_")
        colour = POSITION_COLOURS[(int(position) - 1) % len(POSITION_COLOURS)]
        figure.add_trace(
            go.Bar(x=turns["turn"], y=turns[column], name=f"{position}. {name}", marker_color=colour)
        )
    figure.update_layout(barmode="stack")
    return figure


def _lost_bars(turns: pd.DataFrame, column: str, name: str, colour: str, what: pd.Series) -> go.Bar:
    """Bars of what a turn lost, each telling which on hover."""
    return go.Bar(
        x=turns["turn"],
        y=turns[column],
        name=name,
        marker_color=colour,
        hovertext=what,
        hovertemplate=f"turn %{{x}}: %{{y}} {name}<br>%{{hovertext}}<extra></extra>",
    )


def quality_chart(turns: pd.DataFrame) -> go.Figure:
    """What the stack made the agent lose per turn: facts missing from the request, lines a reply
    copies that the request no longer held, re-fetches."""
    figure = empty_chart("What the agent lost")
    if turns.empty:
        return figure
    figure.add_trace(
        _lost_bars(turns, "facts_lost", "facts lost", COLOURS["window"], turns["lost_facts"].map(plain))
    )
    if "quotes_lost" in turns and turns["quotes_lost"].any():
        shown = turns["lost_quotes"].map(
            lambda cell: "<br>".join(plain(q[:80]) for q in str(cell).split("\n")[:5])
        )
        figure.add_trace(_lost_bars(turns, "quotes_lost", "copied lines lost", COLOURS["summary"], shown))
    figure.add_trace(
        go.Bar(x=turns["turn"], y=turns["refetches"], name="re-fetches", marker_color=COLOURS["tool"])
    )
    if turns["standing_rules_lost"].any():
        lost = turns[turns["standing_rules_lost"] > 0]
        figure.add_trace(
            go.Scatter(
                x=lost["turn"],
                y=[0] * len(lost),
                name="standing rules lost",
                mode="markers",
                marker={"symbol": "x", "size": 10, "color": COLOURS["system"]},
            )
        )
    figure.update_layout(barmode="group", height=240)
    figure.update_yaxes(title="count", rangemode="tozero")
    return figure


COST_PARTS = (  # (column, legend, colour): how a turn's dollars stack up
    ("cost_read_usd", "cache reads", "#81c995"),
    ("cost_write_usd", "cache writes", "#f28b82"),
    ("cost_uncached_usd", "uncached input", "#1a73e8"),
    ("cost_output_usd", "output", "#5f6368"),
    ("summary_cost_usd", "summaries", COLOURS["summary"]),
)


MANY_BREAKS = 0.3  # breaks on more than this share of the turns get a small mark, not a cross


def cost_chart(turns: pd.DataFrame) -> go.Figure:
    """Dollars per turn, stacked by what they pay for, the raw history's as a line, and each
    cache break marked with what it re-paid and the policy behind it."""
    figure = empty_chart("Cost per turn (USD)")
    if turns.empty:
        return figure
    for column, name, colour in COST_PARTS:
        if turns[column].fillna(0).abs().sum() > 0:  # a part no turn pays is no series
            figure.add_trace(go.Bar(x=turns["turn"], y=turns[column], name=name, marker_color=colour))
    figure.add_trace(raw_line(turns, turns["raw_cost_usd"]))
    _add(figure, recorded_line(turns, "recorded_cost_usd"))
    breaks = turns[turns["cache_break_at"].notna()]
    if not breaks.empty:
        # a few breaks are marked with a cross on their bars; where most turns break, a small mark
        many = len(breaks) > MANY_BREAKS * len(turns)
        figure.add_trace(
            go.Scatter(
                x=breaks["turn"],
                y=breaks["cost_usd"] + breaks["summary_cost_usd"],
                mode="markers",
                name=f"cache break ({len(breaks):,} of {len(turns):,} turns)",
                marker={
                    "symbol": "triangle-down" if many else "x",
                    "size": 6 if many else 9,
                    "color": COLOURS["window"],
                    "opacity": 0.7 if many else 1.0,
                },
                customdata=list(
                    zip(
                        breaks["cache_break_at"].astype(int),
                        breaks["cache_break_repaid"],
                        breaks["cache_break_policy"].replace("", "no policy"),
                        strict=True,
                    )
                ),
                hovertemplate="cache break at message %{customdata[0]}: %{customdata[1]:,} tokens "
                "re-paid (%{customdata[2]})<extra></extra>",
            )
        )
    figure.update_layout(barmode="stack")
    return figure


def cumulative_cost_chart(turns: pd.DataFrame) -> go.Figure:
    """Dollars spent so far: the stack, the raw history, and what the agent paid as recorded."""
    figure = empty_chart("Cumulative cost (USD)")
    if turns.empty:
        return figure
    stack = (turns["cost_usd"] + turns["summary_cost_usd"]).cumsum()
    figure.add_trace(raw_line(turns, turns["raw_cost_usd"].cumsum()))
    _add(
        figure,
        recorded_line(
            turns, "recorded_cost_usd", turns["recorded_cost_usd"].astype(float).cumsum(), whole=True
        ),
    )
    figure.add_trace(
        go.Scatter(x=turns["turn"], y=stack, name="stack", line={"color": COLOURS["context"], "width": 3})
    )
    return figure


def _running_share(part: pd.Series, whole: pd.Series) -> pd.Series:
    """100 × the running total of ``part`` over that of ``whole`` (turns without a figure skipped)."""
    known = part.notna() & whole.notna()
    return 100 * part.where(known, 0).cumsum() / whole.where(known, 0).cumsum().replace(0, float("nan"))


def cache_hit_chart(turns: pd.DataFrame) -> go.Figure:
    """Share of the input so far read from the prompt cache: stack, raw history, and what the
    provider recorded where the transcript has it."""
    figure = empty_chart("Cache hit rate so far (%)")
    if turns.empty:
        return figure
    # the share of every input token so far read from the cache: a turn that breaks the cache
    # bends the line, where a per-turn rate jumps from 0 to 100 and back
    figure.add_trace(raw_line(turns, _running_share(turns["raw_cache_read_tokens"], turns["raw_tokens"])))
    figure.add_trace(
        go.Scatter(
            x=turns["turn"],
            y=_running_share(turns["cache_read_tokens"], turns["context_tokens"]),
            name="stack",
            line={"color": COLOURS["context"], "width": 3},
        )
    )
    read = turns["recorded_cache_read_tokens"].astype(float)
    sent = turns["recorded_prompt_tokens"].astype(float)
    _add(figure, recorded_line(turns, "recorded_cache_read_tokens", _running_share(read, sent)))
    figure.update_yaxes(range=[0, 105])
    return figure


MUST_KEEP_STATES = (  # (state, colour, hover): how each declared fact stands at a turn
    ("unseen", "#dadce0", "not in the history yet"),
    ("held", COLOURS["user"], "held in the request"),
    ("lost", COLOURS["window"], "LOST: the history held it, the request does not"),
)


def must_keep_chart(states: pd.DataFrame) -> go.Figure:
    """Each declared must-keep fact (a row) at each turn: not seen yet, held, or lost."""
    figure = empty_chart("Must-keep facts per turn")
    if states.empty:
        return figure
    code = {state: n for n, (state, _, _) in enumerate(MUST_KEEP_STATES)}
    grid = states.pivot(index="fact", columns="turn", values="state")
    grid = grid.reindex(list(dict.fromkeys(states["fact"])))  # rows in the order declared
    last = len(MUST_KEEP_STATES) - 1
    scale = [
        [bound, colour]
        for n, (_, colour, _) in enumerate(MUST_KEEP_STATES)
        for bound in (n / (last + 1), (n + 1) / (last + 1))
    ]
    hover = {state: words for state, _, words in MUST_KEEP_STATES}
    figure.add_trace(
        go.Heatmap(
            z=grid.apply(lambda column: column.map(code)).to_numpy(),
            x=grid.columns,
            y=[plain(fact) for fact in grid.index],
            zmin=-0.5,
            zmax=last + 0.5,
            colorscale=scale,
            showscale=False,
            xgap=1,
            ygap=2,
            customdata=grid.apply(lambda column: column.map(hover)).to_numpy(),
            hovertemplate="turn %{x}: %{y}<br>%{customdata}<extra></extra>",
        )
    )
    for state, colour, _ in MUST_KEEP_STATES:  # a legend for the three colours
        figure.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=state, marker={"color": colour, "symbol": "square"}
            )
        )
    figure.update_layout(height=150 + 28 * len(grid), hovermode="closest")
    figure.update_yaxes(type="category", autorange="reversed")  # "2027-02-26" is a fact, not a date
    return figure
