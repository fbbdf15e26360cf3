"""Pure functions that return plotly figures: one replay's per-turn charts (`turns`), and the
overlays of Compare, Sweep and Corpus (`compare`).

May import: the engine, `measures`, `money`, `analyses`. Never `cli` or `ui`.
"""
