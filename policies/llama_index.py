"""LlamaIndex's chat memory buffers (``llama-index-core==0.14.25``,
``llama_index/core/memory/chat_memory_buffer.py`` and ``chat_summary_memory_buffer.py``).

``get()`` runs before each model call; the agent's system prompt is not in the memory, so
the pinned rules are never trimmed. Both count with LlamaIndex's default tokenizer,
cl100k_base, over message texts only (roles, tool calls and tool definitions are not counted).
"""

from __future__ import annotations

from policies.base import EPHEMERAL, WINDOW, CompileEvent, Param, Policy
from policies.messages import Message, sources_of
from policies.summaries import summarize_or_report, summary_message

# llama_index.core.utils.get_tokenizer(): tiktoken's cl100k_base, whatever the model
LLAMA_INDEX_ENCODING = "cl100k_base"
OPENERS = ("assistant", "tool")  # roles a LlamaIndex memory never lets open the history it returns
SUMMARY_PROMPT = (  # our own wording; LlamaIndex's one-line default is in chat_summary_memory_buffer.py
    "Summarize this conversation between a user and an assistant concisely, keeping what the "
    "assistant needs to continue."
)


class ChatMemoryBufferPolicy(Policy):
    """``ChatMemoryBuffer(token_limit=3000)``: while the history counts more than
    ``token_limit`` tokens (cl100k_base over the message texts joined by a space: roles,
    tool calls and tool definitions are not counted) and more than one message is left, it
    drops the oldest message, then every assistant or tool message that would open the
    view; a history that still does not fit becomes its last message alone. No marker.
    A message recorded with no text counts as empty (LlamaIndex would count the word
    ``None`` for a ``None`` content)."""

    place = WINDOW
    source = "`llama-index-core==0.14.25`"
    summary = "ephemeral; drops the oldest (and any assistant/tool opener) while the texts, joined and counted with cl100k_base, exceed the limit"

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
        return counter.content(messages[k]) + after[k + 1]

    count = n
    total = tokens(n - count)
    while total > limit and count > 1:
        count -= 1
        # an assistant or tool message cannot open the history: drop those too
        while count > 1 and messages[n - count].role in OPENERS:
            count -= 1
        total = tokens(n - count)
    if total > limit or count <= 0:
        return n - 1
    return n - count


class ChatSummaryMemoryBufferPolicy(Policy):
    """``ChatSummaryMemoryBuffer(token_limit=2000, llm=...)``: before each call, fills
    ``token_limit`` with the newest messages (each counted alone), moves any assistant or tool
    message that would open them to the part to summarize, and replaces that part with one
    system message, the LLM's summary of a "Transcript so far" of it. The store is rewritten
    (persistent), so a later summary folds in the earlier one; a part that is only the
    earlier summary is kept as it is. Where LlamaIndex raises on a failed summary, the
    playground keeps the history and reports it."""

    source = "`llama-index-core==0.14.25`"
    summary = "keeps the newest messages that fit word for word; the rest (and any assistant/tool opener) becomes one system-role summary, folded into the next"

    params = (
        Param("token_limit", int, 2000, "Tokens of message text kept word for word.", 1, 10_000_000),
        Param("summarize_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if event.counter is None or not messages:
            return None
        counter = event.counter.in_encoding(LLAMA_INDEX_ENCODING)
        start, total = len(messages), 0
        while start > 0:  # the newest messages that fit, each counted alone
            tokens = counter.content(messages[start - 1])
            if total + tokens > self.token_limit:
                break
            start, total = start - 1, total + tokens
        while start < len(messages) and messages[start].role in OPENERS:
            start += 1
        head, tail = messages[:start], messages[start:]
        if not head or (len(head) == 1 and head[0].role == "system"):
            return None  # nothing new to summarize: the store is written back as it was
        summary = summarize_or_report(event, self.summarize_prompt, transcript_so_far(head))
        if summary is None:
            return None
        message = summary_message("system", summary, head)
        event.report(
            "compact", message.source, f"{len(head)} message(s) summarized to fit {self.token_limit:,} tokens"
        )
        return [message, *tail]


def transcript_so_far(messages: list[Message]) -> str:
    """What ``ChatSummaryMemoryBuffer`` asks its LLM to summarize: ``role: text`` per message,
    a message with no text by its calls ("Calling a function: ..."), in one quoted block."""
    parts = ['"Transcript so far: ']
    for m in messages:
        said = m.content or "\n".join(f"Calling a function: {c.name}({c.arguments})" for c in m.tool_calls)
        parts.append(f"{m.role}: {said}\n\n")
    parts.append('"\n\n')
    return "".join(parts)
