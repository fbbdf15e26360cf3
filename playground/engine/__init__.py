"""The replay: a session through a stack, turn by turn.

Here: what a replay assumes where nothing is named (`defaults`), the session model
(`session`), token counting (`tokens`), the running context and its counts (`running`), each
turn's request kept as what changed (`request_log`), the providers' rules a request must keep
(`validity`), and the replay itself (`replay`).

May import: `policies`, the root modules (`playground.limits`), and `playground.summaries` (the
engine builds the summarizer a replay's settings name; policies see it only through
`policies.base.Summarizer`). Nothing that measures, prices, charts or shows a replay.
"""
