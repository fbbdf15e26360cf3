"""Which summarizer endpoint may receive which API key.

The rule: the server's key (``OPENAI_API_KEY``) goes only to OpenAI or to the endpoint
the server was started with (``OPENAI_BASE_URL``). In the app, an endpoint named by an
uploaded config or typed into the page gets only a key the user pastes, and plain http
only to this machine (``PLAYGROUND_ALLOW_HTTP=1`` lifts that). The CLI runs for its own
user, who may point their key anywhere; it says which host receives it.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from playground.summaries.secrets import secret_in_url

OPENAI_HOST = "api.openai.com"


class EndpointError(ValueError):
    """A base_url that cannot be used; the message names it by host."""


def host_of(base_url: str) -> str:
    """The host a base_url sends to; OpenAI's for an empty one."""
    return (urlsplit(base_url).hostname or "") if base_url else OPENAI_HOST


def check_base_url(base_url: str) -> None:
    """A usable endpoint URL: http(s), a host, and no secret inside it."""
    if not base_url:
        return
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("base_url must be an http:// or https:// URL with a host")
    reason = secret_in_url(base_url)
    if reason:
        raise EndpointError(
            f"base_url is refused: {reason}; keys go in the environment or the app's key field"
        )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _operator_endpoints() -> set[str]:
    return {"", os.environ.get("OPENAI_BASE_URL", "").rstrip("/")}


@dataclass(frozen=True)
class KeyChoice:
    """The key a summarizer will send (None: none may be sent) and a sentence saying so."""

    key: str | None
    notice: str


def choose_key(base_url: str, pasted: str | None, *, hosted: bool) -> KeyChoice:
    """Which key goes to ``base_url``: the rule above, in one place."""
    check_base_url(base_url)
    host = host_of(base_url)
    environment_key = os.environ.get("OPENAI_API_KEY") or None
    trusted = base_url.rstrip("/") in _operator_endpoints()
    if not hosted:
        key = pasted or environment_key
        source = "OPENAI_API_KEY" if key and not pasted else "the given key" if key else "no key"
        return KeyChoice(key, f"summaries are requested from {host}, sent with {source}")
    plain_http = urlsplit(base_url).scheme == "http" and not is_loopback(host)
    if plain_http and os.environ.get("PLAYGROUND_ALLOW_HTTP") != "1":
        raise EndpointError(
            f"base_url {host}: plain http is allowed only to this machine; use https "
            "(or the server's operator sets PLAYGROUND_ALLOW_HTTP=1)"
        )
    if pasted:
        return KeyChoice(pasted, f"summaries are requested from {host} with the key you pasted")
    if trusted:
        if environment_key:
            return KeyChoice(environment_key, f"summaries are requested from {host} with the server's key")
        return KeyChoice(None, f"summaries would be requested from {host}, but no key is set: paste one")
    return KeyChoice(
        None,
        f"summaries would be requested from {host}, which this server does not trust with its own "
        "key: paste a key for it (any text, for a local server that needs none)",
    )
