"""The raw history and the compiled context at a chosen turn, every message's fate marked."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pandas as pd
import streamlit as st

from playground.engine.replay import ReplayResult, Turn
from playground.measures.fates import (
    DROPPED,
    INTACT,
    PINNED,
    STEP_KINDS,
    STUBBED,
    SUMMARIZED,
    Placed,
    event_turns,
    raw_fates,
    request_fates,
)
from playground.measures.metrics import recorded_compactions
from playground.ui import state
from playground.ui.cache import Replayed
from playground.ui.text import escape_markdown, html_text
from policies.base import counted
from policies.messages import CLIPPED

FATE_COLOURS = {
    PINNED: "#5f6368",
    INTACT: "#1e8e3e",
    CLIPPED: "#f9ab00",
    STUBBED: "#e8710a",
    SUMMARIZED: "#a142f4",
    DROPPED: "#d93025",
}
PREVIEW = 240
FULL_TEXT = 20_000  # an expanded message shows this much; the page stays light on huge outputs


def _legend() -> str:
    chips = "".join(
        f'<span style="border-left:6px solid {c};padding:0 8px;margin-right:10px">{f}</span>'
        for f, c in FATE_COLOURS.items()
    )
    return f'<div style="font-size:0.85em;margin-bottom:6px">{chips}</div>'


def _marked(text: str, facts: tuple[str, ...]) -> str:
    """``text`` as HTML with every occurrence of a lost fact in a <mark>: the text is split at
    the facts before it is escaped, so a mark never lands inside an escape (``it&#x27;s``)."""
    present = sorted({f for f in facts if f and f in text}, key=len, reverse=True)  # longest wins
    if not present:
        return html_text(text)
    pieces = re.split(f"({'|'.join(map(re.escape, present))})", text)
    return "".join(
        f'<mark title="lost at this turn">{html_text(piece)}</mark>' if odd else html_text(piece)
        for piece, odd in zip(pieces, itertools.cycle((False, True)))
    )


# Message text is shown as written: whitespace and line breaks kept, long lines wrapped inside the
# card (code and paths have no spaces to break at), tool output in a fixed-width font.
_TEXT = "white-space:pre-wrap;overflow-wrap:anywhere;margin:0"
_CODE = f"{_TEXT};font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95em"


def _card(placed: Placed, lost: tuple[str, ...] = (), show_source: bool = False) -> str:
    m = placed.message
    text = m.content
    font = _CODE if m.role == "tool" else _TEXT
    calls = "".join(
        f'<div style="{_CODE}">→ {html_text(c.name)}({html_text(c.arguments[:200])})</div>'
        for c in m.tool_calls
    )
    if m.thinking:  # folded: a reader wants the reply first
        calls = (
            f"<details><summary>thinking ({len(m.thinking):,} chars)</summary>"
            f'<div style="{_TEXT}">{html_text(m.thinking[:FULL_TEXT])}</div></details>' + calls
        )
    origin = ""
    if show_source and m.source and m.source != (placed.position,):
        first, last = m.source[0], m.source[-1]
        origin = f" · raw {first}" if first == last else f" · raw {first}–{last}"
    header = f"<b>{placed.position}</b>{origin} · {m.role}{' · ' + html_text(m.name) if m.name else ''} · {placed.tokens:,} tokens · <i>{placed.fate}</i>"
    marked = [f for f in lost if f in text]
    start = max(min(text.find(f) for f in marked) - 80, 0) if marked else 0  # show where lost facts were
    shown = text[start : start + PREVIEW]
    body = ("…" if start else "") + _marked(shown, lost) + ("…" if start + PREVIEW < len(text) else "")
    more = ""
    if len(text) > PREVIEW:
        cut = f"\n… ({len(text) - FULL_TEXT:,} more characters)" if len(text) > FULL_TEXT else ""
        full = _marked(text[:FULL_TEXT], lost) + html_text(cut)
        more = (
            f"<details><summary>full text ({len(text):,} chars)</summary>"
            f'<div style="{font}">{full}</div></details>'
        )
    faded = "opacity:0.55;" if placed.fate == DROPPED else ""
    return (
        f'<div class="msg fate-{placed.fate}" style="border-left:6px solid {FATE_COLOURS[placed.fate]};{faded}'
        f'padding:4px 8px;margin:4px 0;background:rgba(127,127,127,0.06);font-size:0.85em">'
        f'<div>{header}</div><div class="body" style="{font}">{body}</div>{calls}{more}</div>'
    )


def _step(target: int) -> None:
    st.session_state["turn"] = target


def _recorded_compactions(result: ReplayResult, turn: Turn) -> None:
    """The summary the recording agent sent in place of its history, at the first turn after
    it compacted: what the recorded baseline sent here, beside what the stack sends."""
    for compaction in recorded_compactions(result).get(turn.number, ()):
        label = f"The agent compacted its own history before this turn ({compaction.trigger or 'as logged'})"
        with st.expander(label):
            held = (
                f", written when its context held {compaction.pre_tokens:,} tokens"
                if compaction.pre_tokens
                else ""
            )
            st.caption(f"What it sent from here on instead of the history before: its summary{held}.")
            summary = compaction.summary or "(the log holds no summary text)"
            st.html(f"<pre style='white-space: pre-wrap'>{html_text(summary)}</pre>")


def show(replayed: Replayed) -> None:
    result = replayed.result
    if not result.turns:
        return
    last = len(result.turns)
    st.session_state["turn"] = min(max(int(st.session_state["turn"]), 1), last)
    current = st.session_state["turn"]
    cols = st.columns([1.6, 1.4, 1.1, 4], vertical_alignment="bottom")
    kind = state.lasting(cols[0].selectbox, "Step to", list(STEP_KINDS), key="step_kind")
    marked = event_turns(replayed.events, kind)
    steps = (
        ("◀ previous", "turn_prev_event", "previous", max((t for t in marked if t < current), default=None)),
        ("next ▶", "turn_next_event", "next", min((t for t in marked if t > current), default=None)),
    )
    for column, (label, key, which, target) in zip(cols[1:3], steps, strict=True):
        column.button(
            label,
            disabled=target is None,
            on_click=_step,
            args=(target,),
            key=key,
            help=f"The {which} turn with: {kind}" + ("" if marked else " (this replay has none)"),
        )
    if last > 1:
        cols[3].slider("Turn", 1, last, key="turn")
    turn = result.turns[st.session_state["turn"] - 1]
    row = replayed.turns.iloc[turn.number - 1]
    st.caption(
        f"Turn {turn.number}: the request before recorded reply {turn.reply_index} — "
        f"{row['context_tokens']:,} tokens sent vs {row['raw_tokens']:,} in the raw history; "
        f"{row['cache_read_tokens']:,} read from the prompt cache, {row['cache_write_tokens']:,} written."
    )
    _recorded_compactions(result, turn)
    lost = tuple(f for f in str(row["lost_facts"]).split("; ") if f)
    if lost:
        st.warning(
            f"The recorded reply at this turn uses {len(lost)} fact(s) the request no longer held: "
            + escape_markdown(", ".join(lost))
            + ". They are marked where they were in the raw history."
        )
    quotes = tuple(q for q in str(row.get("lost_quotes", "")).split("\n") if q)
    if quotes:
        shown = "; ".join(q if len(q) <= 80 else q[:79] + "…" for q in quotes[:5])
        st.warning(
            f"The recorded reply at this turn copies {counted(len(quotes), 'line')} from an earlier result that the "
            f"request no longer held: {escape_markdown(shown)}"
            + (f" and {len(quotes) - 5} more" if len(quotes) > 5 else "")
            + ". They are marked where they were in the raw history."
        )
    for violation in turn.violations:
        st.error(f"Provider would reject this request: {escape_markdown(violation)}")
    st.html(_legend())
    left, right = st.columns(2)
    raw = raw_fates(result, turn)
    sent = request_fates(result, turn)
    left.markdown(f"**Raw history** ({len(raw)} messages)")
    left.html("".join(_card(p, lost + quotes) for p in raw))  # HTML, never markdown: text shows as written
    right.markdown(f"**Compiled context sent** ({len(sent)} messages)")
    cards = [_card(p, show_source=True) for p in sent]
    broken_at = row["cache_break_at"]
    if not pd.isna(broken_at):  # where the cached prefix ends: the line the break re-pays from
        cards.insert(min(int(broken_at), len(cards)), _break_line(row))
    head = int(row.get("tokens_head", 0) or 0)
    if head:  # the request opens with what no message of the file holds
        cards.insert(0, _head_card(head, result.calibration))
    right.html("".join(cards))


def _head_card(tokens: int, calibration: Any) -> str:
    """The block every request opens with: tool definitions, and the system prompt (or, in a
    file that starts mid-session, the earlier conversation) the calibration found."""
    applied = calibration is not None and calibration.applied and calibration.prefix
    what = calibration.prefix_said if applied else "tool definitions and the reply's opening"
    return (
        '<div class="request-head" style="border:1px dashed #9aa0a6;border-radius:6px;padding:6px;'
        f'margin:4px 0;color:#5f6368;font-size:0.85em">prefix: {tokens:,} tokens, {html_text(what)} '
        "(sent with every request, untouched by every policy)</div>"
    )


def _break_line(row: pd.Series) -> str:
    policy = html_text(row["cache_break_policy"] or "no policy acted")
    return (
        '<div class="cache-break" style="border-top:3px dashed #d93025;color:#d93025;font-size:0.85em;'
        f'margin:6px 0;padding-top:2px">cache break: the prompt cache ends here; '
        f"{int(row['cache_break_repaid']):,} tokens of the previous request re-paid ({policy})</div>"
    )
