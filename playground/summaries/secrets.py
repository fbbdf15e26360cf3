"""Recognising secrets, so that none is accepted where it would be stored or shown.

Config files, exports and logs hold no secrets (DESIGN §9); a key pasted into a field
meant for a model name or a URL is refused rather than written back out.
"""

from __future__ import annotations

import re

# The shapes of the keys people paste by mistake: OpenAI/Anthropic/DeepSeek (sk-…), Stripe-style
# (sk_live_…), AWS access key ids, GitHub and Slack tokens, Google API keys, bearer headers.
_KEY_SHAPES = re.compile(
    r"sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{8,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|bearer\s+\S{8,}",
    re.IGNORECASE,
)
_URL_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/?#]*@", re.IGNORECASE)
_URL_SECRET_QUERY = re.compile(r"[?&;](?:api[_-]?key|key|token|access[_-]?token|secret|password)=", re.I)


def secret_in(text: str) -> bool:
    """Whether ``text`` holds something shaped like an API key or a token."""
    return bool(_KEY_SHAPES.search(text))


def secret_in_url(url: str) -> str | None:
    """Why ``url`` carries a secret (credentials, a key in the query), or None."""
    if _URL_USERINFO.search(url):
        return "it holds credentials (user:password@)"
    if _URL_SECRET_QUERY.search(url):
        return "its query holds a key or token"
    if secret_in(url):
        return "it holds something shaped like an API key"
    return None


def echoes(text: str, keys: list[str]) -> bool:
    """Whether ``text`` repeats any of ``keys`` (ignoring ones too short to be keys)."""
    return any(len(key) >= 8 and key in text for key in keys)
