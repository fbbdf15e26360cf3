"""Gemini CLI's chat compression.

Read in ``google-gemini/gemini-cli`` at v0.56.0-nightly.20260822.g5411f113c:
``packages/core/src/context/chatCompressionService.ts`` (``DEFAULT_COMPRESSION_TOKEN_THRESHOLD``,
``COMPRESSION_PRESERVE_THRESHOLD``, ``COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET``,
``findCompressSplitPoint``, ``truncateHistoryToBudget``, the new history),
``core/client.ts`` (tried before every request), ``core/tokenLimits.ts`` (1,048,576 for
Gemini models), ``utils/fileUtils.ts`` (``formatTruncatedToolOutput``),
``utils/tokenCalculation.ts`` (its estimate) and ``cli/src/config/settingsSchema.ts``
(``model.compressionThreshold``).
"""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import CLIPPED, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report, summary_message

COMPRESSION_TOKEN_THRESHOLD = 0.5  # DEFAULT_COMPRESSION_TOKEN_THRESHOLD (0.7 in 2025 releases)
PRESERVE_THRESHOLD = 0.3  # COMPRESSION_PRESERVE_THRESHOLD: the newest share of history kept
FUNCTION_RESPONSE_TOKEN_BUDGET = 50_000  # COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET
TRUNCATE_TOOL_OUTPUT_CHARS = 40_000  # DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD
GEMINI_TOKEN_LIMIT = 1_048_576  # tokenLimit() of every Gemini model
ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
SUMMARY_PROMPT = (
    "Compress the conversation into a <state_snapshot>: the overall goal, key knowledge, the file "
    "system state, recent actions and the current plan, so the agent can continue from it alone."
)


def estimate(text: str) -> float:
    """Gemini CLI's estimate of a text: a quarter token per ASCII character, 1.5 per other
    character; a quarter per character past 100,000 characters."""
    if len(text) > 100_000:
        return len(text) / 4
    ascii_chars = len(text.encode("ascii", "ignore"))
    return ascii_chars / 4 + (len(text) - ascii_chars) * 1.5


def truncated_output(text: str, name: str, number: int) -> str:
    """``formatTruncatedToolOutput``: the first 20 % and last 80 % of 40,000 characters, and
    where the whole output was saved."""
    if len(text) <= TRUNCATE_TOOL_OUTPUT_CHARS:
        return text
    head_chars = TRUNCATE_TOOL_OUTPUT_CHARS // 5
    tail_chars = TRUNCATE_TOOL_OUTPUT_CHARS - head_chars
    omitted = len(text) - head_chars - tail_chars
    return (
        f"Output too large. Showing first {head_chars:,} and last {tail_chars:,} characters. "
        f"For full output see: tool-outputs/{name}_{number}.txt\n{text[:head_chars]}\n\n"
        f"... [{omitted:,} characters omitted] ...\n\n{text[-tail_chars:]}"
    )


def to_budget(history: list[Message]) -> list[Message]:
    """``truncateHistoryToBudget``: newest first, tool outputs are kept whole until 50,000
    tokens of them; each older one past the budget is cut to its head and tail."""
    spent = 0.0
    out = list(history)
    for i in range(len(history) - 1, -1, -1):
        message = history[i]
        if not message.is_tool_result:
            continue
        tokens = estimate(message.content)
        if spent + tokens <= FUNCTION_RESPONSE_TOKEN_BUDGET:
            spent += tokens
            continue
        cut = truncated_output(message.content, message.name or "unknown_tool", i)
        spent += estimate(cut)
        if cut != message.content:
            out[i] = message.replace(content=cut, kind=CLIPPED)
    return out


def _chars(message: Message) -> int:
    return len(message.content) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls) + 20


def split_point(history: list[Message], fraction: float) -> int:
    """``findCompressSplitPoint``: the first user message (not a tool response) at or after
    ``fraction`` of the characters; everything, when the history ends on a reply without
    calls; else the last such message."""
    sizes = [_chars(m) for m in history]
    target = sum(sizes) * fraction
    last, running = 0, 0
    for i, message in enumerate(history):
        if message.role == "user":
            if running >= target:
                return i
            last = i
        running += sizes[i]
    if history and history[-1].role == "assistant" and not history[-1].tool_calls:
        return len(history)
    return last


class GeminiChatCompressionPolicy(Policy):
    """Gemini CLI's chat compression, tried before every request: once the last reported
    prompt reaches ``compression_threshold`` of the model's token limit, the history (what
    was sent before; the new message or tool responses go after) has its older tool outputs
    cut to a 50,000-token budget, is split at a user message near 70 % of its characters,
    and the older part becomes a state snapshot in a user message, acknowledged by the model;
    the newest 30 % stays. A compression that would not shrink the history is dropped.
    Persistent. Its second, verifying summary call is one summary here; ``summary_prompt``
    is our own, paste yours."""

    source = "Gemini CLI (`google-gemini/gemini-cli` v0.56.0-nightly.20260822: `packages/core/src/context/chatCompressionService.ts`, `DEFAULT_COMPRESSION_TOKEN_THRESHOLD` 0.5 (0.7 in 2025), `COMPRESSION_PRESERVE_THRESHOLD` 0.3; setting `model.compressionThreshold`)"
    summary = "once the last reported prompt reaches 50% of the token limit, old tool outputs are cut to a 50,000-token budget and the oldest 70% of the history (split at a user message) becomes a user-role state snapshot the model acknowledges"

    params = (
        Param(
            "compression_threshold",
            float,
            COMPRESSION_TOKEN_THRESHOLD,
            "model.compressionThreshold: fraction of the token limit at which it compresses.",
            0.01,
            1.0,
        ),
        Param(
            "token_limit",
            int,
            None,
            "The model's token limit as Gemini CLI knows it (unset: the replay's context window).",
            1_000,
            10_000_000,
            optional=True,
        ),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        limit = self.token_limit or event.context_window
        if event.last_usage is None or event.last_usage < self.compression_threshold * limit:
            return None
        answered = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), -1)
        history, pending = messages[: answered + 1], messages[answered + 1 :]
        truncated = to_budget(history)
        split = split_point(truncated, 1 - PRESERVE_THRESHOLD)
        if split == 0:
            return None
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(history[:split]))
        if summary is None:
            return None
        snapshot = summary_message("user", summary, history[:split])
        acknowledgement = Message("assistant", ACKNOWLEDGEMENT, source=())
        out = [snapshot, acknowledgement, *truncated[split:], *pending]
        if event.counter is not None and event.counter.total(out) > event.counter.total(messages):
            event.report("skip", (), "the compressed history would be larger than the original: not used")
            return None
        event.report(
            "compact",
            sources_of(history[:split]),
            f"{split} message(s) compressed at {event.last_usage:,} prompt tokens "
            f"({self.compression_threshold:g} of {limit:,}); {len(history) - split} kept",
        )
        return out
