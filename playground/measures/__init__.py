"""What a replay is judged by: per-turn tables and session totals (`metrics`), facts lost and
re-fetches (`quality`, `fact_index`), the must-keep facts the user declares, each message's fate.

May import: `policies`, the engine, `money` (the tables carry dollars), the root modules.
"""
