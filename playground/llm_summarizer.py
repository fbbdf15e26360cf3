"""Summaries from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio).

Every summary is cached on disk, so moving a slider or replaying again never pays twice.
An error, a timeout, a refusal or an empty reply raises: the compaction that asked is
skipped and reports why; nothing is lost. The API key is held only in memory.
"""

from __future__ import annotations

import os

from playground.summarizers import SummaryStats
from playground.summary_cache import SummaryCache, summary_key


class SummaryFailed(RuntimeError):
    """The endpoint answered, but not with a usable summary."""


class OpenAISummarizer:
    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = "",
        timeout: float = 60.0,
        max_output_tokens: int = 800,
        api_key: str | None = None,
        cache: SummaryCache | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_output_tokens = max_output_tokens
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        self.cache = cache or SummaryCache()
        self.stats = SummaryStats()
        self._client = None

    def __repr__(self) -> str:  # never the key
        return f"OpenAISummarizer(model={self.model!r}, base_url={self.base_url!r})"

    def _get_client(self):
        if self._client is None:
            from openai import OpenAI

            if not self._api_key and not self.base_url:
                raise SummaryFailed("no API key: set OPENAI_API_KEY, or enter a key in the app")
            self._client = OpenAI(
                api_key=self._api_key or "not-needed",  # local servers ignore it, the client needs one
                base_url=self.base_url or None,
                timeout=self.timeout,
                max_retries=0,
            )
        return self._client

    def summarize(self, system_prompt: str, transcript: str) -> str:
        self.stats.calls += 1
        key = summary_key(self.model, self.base_url, system_prompt, transcript)
        cached = self.cache.get(key)
        if cached is not None:
            self.stats.cache_hits += 1
            return cached
        try:
            summary = self._fetch(system_prompt, transcript)
        except Exception:
            self.stats.failures += 1
            raise
        self.cache.put(key, self.model, summary)
        return summary

    def _fetch(self, system_prompt: str, transcript: str) -> str:
        response = self._get_client().chat.completions.create(
            model=self.model,
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": transcript}],
            max_tokens=self.max_output_tokens,
        )
        if response.usage is not None:
            self.stats.prompt_tokens += response.usage.prompt_tokens or 0
            self.stats.completion_tokens += response.usage.completion_tokens or 0
        if not response.choices:
            raise SummaryFailed("the reply holds no choices")
        message = response.choices[0].message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise SummaryFailed(f"the model refused: {refusal[:200]}")
        text = (message.content or "").strip()
        if not text:
            raise SummaryFailed("the model returned an empty summary")
        return text
