"""OpenAI's agent stacks: the Agents SDK's ``ToolOutputTrimmer`` and the cookbook's trimming session."""

from __future__ import annotations

from policies.base import CLIPPING, EPHEMERAL, PER_TURN, WINDOW, CompileEvent, Param, Policy
from policies.messages import CLIPPED, STUB, SUMMARY, Message, render_transcript, sources_of
from policies.summaries import summarize_or_report


def _nth_user_from_end(messages: list[Message], n: int) -> int:
    """Index of the ``n``-th user message from the end; 0 when there are fewer."""
    seen = 0
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            seen += 1
            if seen >= n:
                return i
    return 0


class ToolOutputTrimmerPolicy(Policy):
    """``openai-agents==0.24.0`` ``agents/extensions/tool_output_trimmer.py``, as
    ``RunConfig.call_model_input_filter``: before each model call, tool outputs older than
    the last ``recent_turns`` user messages and longer than ``max_output_chars`` become
    "[Trimmed: NAME output — N chars → P char preview]" plus their first ``preview_chars``
    characters, unless that is no shorter. The name is the call's; ``trimmable_tools`` limits
    it to those tools (empty: all). With fewer user messages than ``recent_turns`` nothing is
    old, so a one-task agent run is never trimmed. Ephemeral: the session keeps every output.
    """

    place = CLIPPING
    source = "`openai-agents==0.24.0`"
    summary = "ephemeral; outputs older than the last 2 user turns become a 200-character preview"

    persistence = EPHEMERAL
    params = (
        Param(
            "recent_turns", int, 2, "User messages (from the end) whose turns are never trimmed.", 1, 1_000
        ),
        Param("max_output_chars", int, 500, "Outputs longer than this are trimmed.", 1, 10_000_000),
        Param("preview_chars", int, 200, "Characters of the output kept as a preview.", 0, 1_000_000),
        Param("trimmable_tools", list, (), "Only these tools' outputs are trimmed (empty: every tool)."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        boundary = _nth_user_from_end(messages, self.recent_turns)
        if boundary == 0:
            return None
        names = {c.id: c.name for m in messages for c in m.tool_calls}  # the last call of an id wins
        out = list(messages)
        trimmed: list[Message] = []
        for i in range(boundary):
            message = out[i]
            if not message.is_tool_result or message.kind == STUB:
                continue
            name = names.get(message.tool_call_id or "", "")
            if self.trimmable_tools and name not in self.trimmable_tools:
                continue
            length = len(message.content)
            if length <= self.max_output_chars:
                continue
            preview = message.content[: self.preview_chars]
            text = (
                f"[Trimmed: {name or 'unknown_tool'} output — {length} chars → "
                f"{self.preview_chars} char preview]\n{preview}..."
            )
            if len(text) >= length:
                continue
            out[i] = message.replace(content=text, kind=CLIPPED)
            trimmed.append(message)
        if not trimmed:
            return None
        event.report("clip", sources_of(trimmed), f"{len(trimmed)} old tool output(s) trimmed to a preview")
        return out


class TrimmingSessionPolicy(Policy):
    """The OpenAI cookbook's ``TrimmingSession(max_turns=8)``
    (``examples/agents_sdk/session_memory.ipynb``): the session keeps the last ``max_turns``
    user turns (a user message and everything until the next); older items are deleted from
    the store, with no marker. It trims as a run loads its history, so once per user turn,
    and what it drops stays dropped (persistent)."""

    place = WINDOW
    source = "OpenAI cookbook"
    summary = "once per user turn, keeps the last N user turns"

    timing = PER_TURN
    params = (Param("max_turns", int, 8, "User turns the session keeps.", 1, 10_000),)

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        start = _nth_user_from_end(messages, self.max_turns)
        if start == 0:
            return None
        event.report(
            "drop", sources_of(messages[:start]), f"{start} item(s) before the last {self.max_turns} turns"
        )
        return messages[start:]


SUMMARY_REQUEST = "Summarize the conversation we had so far."  # the synthetic user message


class SummarizingSessionPolicy(Policy):
    """The OpenAI cookbook's ``SummarizingSession(keep_last_n_turns=3, context_limit=3)``:
    once the session holds more than ``context_limit`` real user turns, everything before the
    earliest of the last ``keep_last_n_turns`` turns is summarized into a synthetic user
    message "Summarize the conversation we had so far." and an assistant summary, prepended
    to the kept turns. It runs as items are added, so once per user turn, and persists.
    (The notebook sends only role, content and name to the model; the replay keeps tool
    calls as recorded.)"""

    source = "OpenAI cookbook"
    summary = "over `context_limit` user turns, older turns become a synthetic user question and an assistant summary"

    timing = PER_TURN
    params = (
        Param("keep_last_n_turns", int, 3, "User turns kept verbatim.", 0, 1_000),
        Param("context_limit", int, 3, "Real user turns above which it summarizes.", 1, 1_000),
        Param(
            "summary_prompt",
            str,
            "Summarize the conversation so far for the assistant.",
            "Summarizer prompt.",
        ),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        real = [i for i, m in enumerate(messages) if m.role == "user" and m.kind != SUMMARY]
        if len(real) <= self.context_limit:
            return None
        start = real[-self.keep_last_n_turns] if self.keep_last_n_turns else len(messages)
        head = messages[:start]
        if not head:
            return None
        summary = summarize_or_report(event, self.summary_prompt, render_transcript(head))
        if summary is None:
            return None
        source = sources_of(head)
        made = [
            Message("user", SUMMARY_REQUEST, kind=SUMMARY, source=source),
            Message("assistant", summary, kind=SUMMARY, source=source, compacted_count=len(head)),
        ]
        event.report(
            "compact",
            source,
            f"{len(head)} item(s) before the last {self.keep_last_n_turns} turns summarized",
        )
        return [*made, *messages[start:]]
