"""LlamaIndex's chat memory buffer (``llama-index-core==0.14.25``,
``llama_index/core/memory/chat_memory_buffer.py``).

``ChatMemoryBuffer.get()`` runs before each model call and returns a view of the stored
chat history (ephemeral, per call); the agent's system prompt is not in the memory, so the
pinned rules are never trimmed.
"""

from __future__ import annotations

from policies.base import EPHEMERAL, CompileEvent, Param, Policy
from policies.messages import Message, sources_of

# llama_index.core.utils.get_tokenizer(): tiktoken's cl100k_base, whatever the model
LLAMA_INDEX_ENCODING = "cl100k_base"


class ChatMemoryBufferPolicy(Policy):
    """``ChatMemoryBuffer(token_limit=3000)``: while the history counts more than
    ``token_limit`` tokens (cl100k_base over the message texts joined by a space: roles,
    tool calls and tool definitions are not counted) and more than one message is left, it
    drops the oldest message, then every assistant or tool message that would open the
    view; a history that still does not fit becomes its last message alone. No marker.
    A message recorded with no text counts as empty (LlamaIndex would count the word
    ``None`` for a ``None`` content)."""

    persistence = EPHEMERAL
    params = (
        Param(
            "token_limit",
            int,
            3000,
            "Tokens of message text the view may hold (from_defaults(llm=...) takes 75% of the model's window).",
            1,
            10_000_000,
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None or not messages:
            return None
        start = _kept_from(messages, self.token_limit, event.counter.in_encoding(LLAMA_INDEX_ENCODING))
        if start == 0:
            return None
        gone = messages[:start]
        event.report(
            "drop",
            sources_of(gone),
            f"{len(gone)} message(s) left out of the view to fit {self.token_limit:,} tokens",
        )
        return messages[start:]


def _kept_from(messages: list[Message], limit: int, counter) -> int:
    """Where ``ChatMemoryBuffer.get`` starts the view: the index of its first message."""
    n = len(messages)
    texts = [m.content for m in messages]
    # the count of " ".join(texts[k:]) is the first text's count plus " " + each later one:
    # the tokenizer's pre-split cuts at every joining space, except where whitespace meets
    # whitespace across it (then the joined text is counted as it is)
    spaced = [counter.text_cached(t, " ") for t in texts]
    after = [0] * (n + 1)  # after[k]: sum of spaced[k:]
    for i in range(n - 1, -1, -1):
        after[i] = after[i + 1] + spaced[i]

    def spaced_edge(text: str, at: int) -> bool:  # an empty text lets its neighbours meet
        return not text or text[at].isspace()

    joins = [i > 0 and spaced_edge(texts[i - 1], -1) and spaced_edge(texts[i], 0) for i in range(n)]
    risky_after = [0] * (n + 1)  # joins[k+1:] that need the joined text counted
    for i in range(n - 1, -1, -1):
        risky_after[i] = risky_after[i + 1] + (joins[i + 1] if i + 1 < n else 0)

    def tokens(k: int) -> int:  # the count of the last n - k messages
        if risky_after[k]:
            return counter.text(" ".join(texts[k:]))
        return counter.text_cached(texts[k]) + after[k + 1]

    count = n
    total = tokens(n - count)
    while total > limit and count > 1:
        count -= 1
        # an assistant or tool message cannot open the history: drop those too
        while count > 1 and messages[n - count].role in ("tool", "assistant"):
            count -= 1
        total = tokens(n - count)
    if total > limit or count <= 0:
        return n - 1
    return n - count
