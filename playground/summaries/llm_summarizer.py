"""Summaries from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio).

Every summary is cached on disk, so moving a slider or replaying again never pays twice.
An error, a timeout, a refusal or an empty reply raises: the compaction that asked is
skipped and reports why; nothing is lost. The API key is held only in memory and goes
only where ``endpoints.choose_key`` allows.

Each call is bounded as a whole, not per read: ``timeout`` seconds from start to the
last byte (a server that drips a byte at a time is cut off), ``max_response_bytes`` of
reply (an endless body is not read further) and the replay's overall deadline.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterator

import httpx2  # the HTTP client the openai package is built on

from playground.limits import LIMITS, LimitError, over
from playground.summaries.base import SummaryRefused, SummaryStats
from playground.summaries.endpoints import host_of
from playground.summaries.secrets import echoes
from playground.summaries.summary_cache import SummaryCache, summary_key

MAX_REPORTED_TOKENS = 10_000_000  # a usage figure above this (or below 0) is not a count


class SummaryFailed(RuntimeError):
    """The endpoint answered, but not with a usable summary (or not in time)."""


class _Bounded(httpx2.SyncByteStream):
    """A response body read no further than a byte limit and a deadline."""

    def __init__(self, inner: httpx2.SyncByteStream, limit: int, deadline: float) -> None:
        self.inner, self.limit, self.deadline = inner, limit, deadline

    def __iter__(self) -> Iterator[bytes]:
        size = 0
        for chunk in self.inner:
            size += len(chunk)
            if size > self.limit:
                raise over("max_response_bytes", "the endpoint's reply is longer")
            if time.monotonic() > self.deadline:
                raise SummaryFailed("the reply did not arrive in time")
            yield chunk

    def close(self) -> None:
        self.inner.close()


class _BoundedTransport(httpx2.HTTPTransport):
    """Every response body this client reads is bounded by ``deadline`` and the byte limit."""

    deadline = math.inf

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        response.stream = _Bounded(response.stream, LIMITS.max_response_bytes, self.deadline)
        return response


class OpenAISummarizer:
    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = "",
        timeout: float = 60.0,
        max_output_tokens: int = 800,
        api_key: str | None = None,
        key_notice: str = "",
        cache: SummaryCache | None = None,
        deadline: float = math.inf,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_output_tokens = max_output_tokens
        self._api_key = api_key
        self.key_notice = key_notice
        self.cache = cache or SummaryCache()
        self.deadline = deadline  # the replay's: every call ends by then
        self.stats = SummaryStats()
        self._client = None
        self._transport = _BoundedTransport()

    def __repr__(self) -> str:  # never the key
        return f"OpenAISummarizer(model={self.model!r}, base_url={self.base_url!r})"

    def _get_client(self):
        if self._client is None:
            from openai import OpenAI

            if not self._api_key:
                raise SummaryFailed(f"no API key: {self.key_notice or 'set OPENAI_API_KEY'}")
            self._client = OpenAI(
                api_key=self._api_key,
                base_url=self.base_url or None,
                timeout=self.timeout,
                max_retries=0,
                http_client=httpx2.Client(transport=self._transport, timeout=self.timeout),
            )
        return self._client

    def summarize(self, system_prompt: str, transcript: str) -> str:
        key = summary_key(self.model, self.base_url, system_prompt, transcript)
        cached = self.cache.get(key)
        if self.cache.notice and self.cache.notice not in self.stats.notes:
            self.stats.notes.append(self.cache.notice)
        if cached is not None:
            self.stats.cache_hits += 1
            return cached
        summary = self._fetch_within(time.monotonic() + self.timeout, system_prompt, transcript)
        if echoes(summary, [k for k in (self._api_key, os.environ.get("OPENAI_API_KEY")) if k]):
            raise SummaryRefused("the summary repeats the API key; not used and not stored")
        size = len(summary.encode("utf-8", "replace"))
        if size > LIMITS.max_summary_bytes:  # checked here too: an oversized summary is never stored
            raise over("max_summary_bytes", f"the summary is {size:,} bytes")
        self.cache.put(key, self.model, summary)
        return summary

    def _fetch_within(self, call_deadline: float, system_prompt: str, transcript: str) -> str:
        """``_fetch`` on a worker thread, given up at the deadline however the server behaves."""
        deadline = min(call_deadline, self.deadline)
        if deadline <= time.monotonic():
            raise over("max_summarizer_seconds", "this replay's summaries took too long")
        client = self._get_client()
        self._transport.deadline = deadline
        outcome: dict[str, object] = {}

        def work() -> None:
            try:
                outcome["summary"] = self._fetch(client, system_prompt, transcript)
            except BaseException as error:  # handed to the caller's thread
                outcome["error"] = error

        worker = threading.Thread(target=work, name="summary-call", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        from openai import APITimeoutError

        late = SummaryFailed(f"no complete reply from {host_of(self.base_url)} within {self.timeout:g} s")
        if worker.is_alive():  # it ends by itself at its next read; nothing waits for it
            raise late
        if isinstance(outcome.get("error"), APITimeoutError):
            raise late from None
        if "error" in outcome:
            raise _cause(outcome["error"])
        return outcome["summary"]

    def _fetch(self, client, system_prompt: str, transcript: str) -> str:
        response = client.chat.completions.create(
            model=self.model,
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": transcript}],
            max_tokens=self.max_output_tokens,
        )
        if response.usage is not None:
            self.stats.prompt_tokens += _reported(response.usage.prompt_tokens, "prompt_tokens")
            self.stats.completion_tokens += _reported(response.usage.completion_tokens, "completion_tokens")
        if not response.choices:
            raise SummaryFailed("the reply holds no choices")
        message = response.choices[0].message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise SummaryFailed(f"the model refused: {str(refusal)[:200]}")
        text = message.content
        if not isinstance(text, str) or not text.strip():
            raise SummaryFailed("the model returned an empty summary")
        return text.strip()


def _reported(value: object, field: str) -> int:
    """A token figure the endpoint reported; an impossible one makes the reply unusable."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_REPORTED_TOKENS:
        raise SummaryFailed(f"the endpoint reported an impossible usage.{field}")
    return value


def _cause(error: BaseException) -> BaseException:
    """The error that explains a failure: ours, when the client wrapped it (a bounded read)."""
    seen = error
    while seen is not None:
        if isinstance(seen, SummaryFailed | SummaryRefused | LimitError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return error
