"""Dollars: the providers' prompt-cache rules (`caching`), prices from genai-prices (`pricing`),
and the cost of each turn of a replay (`cost`).

May import: `policies`, the engine, the root modules.
"""
