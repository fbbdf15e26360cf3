"""Issue 48: every figure of a session's totals is declared once, with its unit and meaning,
and the tables that show them read their labels from that declaration."""

from __future__ import annotations

from pathlib import Path

from playground.analyses.compare import FIGURES as COMPARED
from playground.analyses.corpus import SAVINGS, SESSION_COLUMNS
from playground.formats import read_path
from playground.measures.evaluate import evaluate
from playground.measures.figures import FIGURES_BY_KEY, TOTALS
from playground.stacks.config import Config, parse_config

ROOT = Path(__file__).parents[3]


def test_totals_gives_every_declared_figure_and_no_other():
    (session,) = read_path(ROOT / "tests/fixtures/formats/claude-code/sniffly_d3ad4cdc.jsonl")
    config = parse_config("version: 1\nstack: [ToolEvictionPolicy: {}, CompactionPolicy: {}]", "x.yaml")
    figures = evaluate(session, config.stack, Config().scenario_for(session)).totals
    assert list(figures.as_dict()) == [f.key for f in TOTALS]


def test_every_figure_says_its_unit_and_what_it_means():
    units = {"tokens", "messages", "turns", "events", "$", "%", "facts", "lines", "calls"}
    for figure in TOTALS:
        assert (
            figure.unit in units and len(figure.meaning) > 10 and figure.better in ("lower", "higher", None)
        )
        assert figure.unit != "$" or figure.key.endswith("_usd"), figure.key


def test_the_compare_and_corpus_tables_head_a_figure_as_it_is_declared():
    assert all(f is FIGURES_BY_KEY[f.key] for f in COMPARED)
    assert {key: FIGURES_BY_KEY[key].heading for key in SESSION_COLUMNS} == SESSION_COLUMNS
    assert set(SAVINGS) == {k for k in SESSION_COLUMNS if FIGURES_BY_KEY[k].better == "higher"}


def test_every_column_of_the_per_turn_table_is_declared_in_order():
    from playground.cli.main import TABLE_COLUMNS
    from playground.measures.figures import MUST_KEEP_TURN, TURN, TURN_BY_KEY

    (session,) = read_path(ROOT / "tests/fixtures/formats/claude-code/sniffly_d3ad4cdc.jsonl")
    config = parse_config(
        "version: 1\nstack: [ToolEvictionPolicy: {}, CompactionPolicy: {}]\nmust_keep: [abc]", "x.yaml"
    )
    row = evaluate(session, config.stack, config.scenario_for(session)).table.rows[0]
    policies = ["removed_by_1_ToolEvictionPolicy", "removed_by_2_CompactionPolicy"]
    assert list(row) == [f.key for f in TURN] + policies + [f.key for f in MUST_KEEP_TURN]
    assert all(column in TURN_BY_KEY for column in TABLE_COLUMNS)  # the CLI's table shows declared figures
