"""The command line: `main` (validate, replay, presets, export, limits, bench), `analyses`
(compare, sweep, corpus), what they share (`common`), the tables they print (`text_table`),
and the benches.

May import any room but `ui`.
"""
