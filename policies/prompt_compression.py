"""PromptCompressionPolicy (selectools): summarize old messages once the window fills up."""

from __future__ import annotations

import json
from collections.abc import Sequence

from policies.base import PER_TURN, CompileEvent, Param, Policy
from policies.messages import Message
from policies.summaries import summarize_or_report, summary_message

SELECTOOLS_TOKENS_PER_MESSAGE = 4  # token_estimation.py: "content + role overhead ~4 tokens per message"

SUMMARIZER_SYSTEM_PROMPT = "You are a concise summarizer."
SUMMARY_INSTRUCTION = (
    "Summarize the following conversation excerpt in 3-5 sentences. "
    "Preserve key facts, decisions, and context needed to continue the conversation:\n\n"
)


class PromptCompressionPolicy(Policy):
    """Replaces older non-system messages with one ``[Compressed context]`` system message.

    As ``selectools==1.3.0`` does it (``agent/_memory_manager.py::_maybe_compress_context``):
    once per run, i.e. before the first inference after a user message, it estimates the fill
    rate as selectools does (``token_estimation.estimate_run_tokens``: the system prompt, each
    message's text plus 4, and each tool schema as compact JSON; tool-call arguments are not
    counted) and fires when it reaches ``compress_threshold`` of the context window. It keeps
    every system message (moved to the front) and the last ``compress_keep_recent`` turns,
    counted as 2 messages each, verbatim; skips when fewer than 2 messages are eligible or the
    summary fails or is empty. The summarizer reads ``ROLE: content`` lines under selectools'
    instruction. The split ignores tool calls: where it separates a call from its result, the
    validity check says so, because that is what selectools would send. The compressed history
    carries on for the rest of the run (a selectools agent with a memory starts its next run
    from the full stored history again; that is not modelled).
    """

    source = "selectools"
    summary = "`[Compressed context]` system message when the window fills to the threshold"

    timing = PER_TURN

    params = (
        Param(
            "compress_threshold",
            float,
            0.75,
            "Fill rate (context tokens / context window) at which compression fires.",
            0.05,
            1.0,
        ),
        Param(
            "compress_keep_recent",
            int,
            4,
            "Recent turns kept verbatim, 2 messages each (at least 1 message is kept).",
            0,
            50,
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        counter = event.counter
        window = event.context_window or 128_000
        if counter is None:
            return None
        before = selectools_estimate(event, messages)
        if before / window < self.compress_threshold:
            return None
        keep = max(self.compress_keep_recent * 2, 1)  # selectools' fix: the current message survives
        system = [m for m in messages if m.role == "system"]
        non_system = [m for m in messages if m.role != "system"]
        if len(non_system) <= keep:
            return None
        to_compress, recent = non_system[:-keep], non_system[-keep:]
        if len(to_compress) < 2:
            event.report("skip", (), "fewer than 2 messages eligible for compression")
            return None
        summary = summarize_or_report(
            event, SUMMARIZER_SYSTEM_PROMPT, SUMMARY_INSTRUCTION + selectools_transcript(to_compress)
        )
        if summary is None:  # selectools never crashes the agent for a failed compression
            return None
        message = summary_message("system", f"[Compressed context] {summary}", to_compress)
        out = [*system, message, *recent]
        after = selectools_estimate(event, out)
        event.report(
            "compact", message.source, f"Compressed {len(to_compress)} messages: {before:,}→{after:,} tokens"
        )
        trigger = int(self.compress_threshold * window)
        if after > trigger:
            event.report(
                "thrash", (), f"still {after:,} tokens after compaction, over the {trigger:,} trigger"
            )
        return out


def selectools_estimate(event: CompileEvent, messages: Sequence[Message]) -> int:
    """``estimate_run_tokens``' total: the system prompt (the pinned rules' text), each message's
    text plus 4, and each tool schema as compact JSON."""
    counter = event.counter
    assert counter is not None
    system = counter.text("\n\n".join(m.content for m in event.pinned)) if event.pinned else 0
    content = counter.content
    texts = sum(content(m) for m in messages) + SELECTOOLS_TOKENS_PER_MESSAGE * len(messages)
    schemas = sum(counter.text(json.dumps(tool, separators=(",", ":"))) for tool in event.tools)
    return system + texts + schemas


def selectools_transcript(messages: Sequence[Message]) -> str:
    """``_format_messages_as_text``: one ``ROLE: content`` line per message, calls left out."""
    return "\n".join(f"{m.role.upper()}: {m.content}" for m in messages)
