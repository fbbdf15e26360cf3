"""The agent's own compactions, as its file records them: a table of where each came, the prompt
before and after, what it cost, what it dropped and what was fetched again (``measures.compactions``)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from playground.engine.session import Session
from playground.measures.compactions import (
    COLUMNS,
    LISTS,
    CompactionRow,
    compaction_report,
    report_words,
    table_rows,
)
from playground.ui.cache import counter_for
from playground.ui.text import escape_markdown


@st.cache_data(max_entries=64, show_spinner=False)
def _report(digest: str, model: str, window: int, _session: Session) -> list[CompactionRow]:
    """The report of the session whose content hash is ``digest`` (the session itself is not hashed)."""
    return compaction_report(_session, counter_for(model), window)


def show(session: Session, model: str, window: int) -> None:
    """The table, where the agent compacted its own context; nothing elsewhere."""
    if not session.compactions:
        return
    rows = _report(session.content_hash, model, window, session)
    with st.container(key="compactions_report"):
        st.subheader("Your agent's own compactions")
        st.caption(escape_markdown(report_words(rows)))
        table = table_rows(rows)
        # a column per compaction, a row per figure: fourteen figures fit a laptop's width only so
        frame = pd.DataFrame([{k: _shown(row[k]) for k in COLUMNS} for row in table]).set_index("compaction")
        st.table(frame.T.rename(columns=lambda number: f"compaction {number}"))
        with st.expander("What each dropped and what was fetched again"):
            for row in table:
                for key in LISTS:
                    if row[key]:
                        st.markdown(f"**{row['compaction']}. {key}:** {escape_markdown(str(row[key]))}")
        st.caption(
            "The summary call's cost is estimated (the file records no line of it): the conversation read back "
            "from the cache, the summary written as output. 'rule's call' is where the agent's own rule, on the "
            "figures the file records, would have compacted."
        )


def _shown(value: object) -> str:
    """A cell as the table shows it: counts with separators, dollars as dollars, a dash for
    unknown; text (a trigger as the file writes it) as text (the table reads markdown)."""
    if value is None:
        return "—"  # a bare "-" would be a markdown list
    if isinstance(value, float):
        return f"${value:,.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return escape_markdown(str(value))
