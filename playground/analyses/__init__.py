"""Many replays: compare candidates, sweep a parameter, replay a corpus, and the worker
processes they share.

May import: everything below it (`policies`, root modules, `summaries`, `engine`, `formats`,
`money`, `measures`, `stacks`). Never `charts`, `cli` or `ui`.
"""
