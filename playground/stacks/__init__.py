"""Stacks as data: the config file (`config`), the named candidates it lists, the presets.

May import: `policies`, the engine, `summaries`, `measures` and `money` (a config names the
summarizer, the must-keep facts and the pricing a replay uses), the root modules.
"""
