"""Many replays: compare candidates (`compare`), sweep a parameter (`sweep`), replay a corpus
(`corpus`, a package), recommend a stack (`recommend`, a package), the agent's own policy as
the reference (`own_policy`), an export's nearest stack replayed (`export_check`), the replays
a server keeps (`replay_store`), and the one runner they all hand many replays to (`runner`:
here, in worker processes, or on a Dask cluster).

May import: everything below it (`policies`, root modules, `summaries`, `engine`, `formats`,
`money`, `measures`, `stacks`, `export`). Never `charts`, `cli` or `ui`.
"""
