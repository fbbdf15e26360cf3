"""Summaries for compaction: the offline extractive summarizer, the OpenAI-compatible one,
their disk cache, which endpoint may get which key (`endpoints`), and the secret finder.

May import: `policies` and the root modules only; the engine builds summarizers from here.
"""
