"""What a replay assumes where nothing names it: the model, its context window, and the
summarizer. Declared once; the settings, the config, the app and the CLI read them here."""

from __future__ import annotations

DEFAULT_MODEL = "gpt-4o"
DEFAULT_WINDOW = 128_000  # the default model's window, and a model no source knows
DEFAULT_SUMMARIZER = "extractive"
