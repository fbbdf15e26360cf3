"""Google ADK's events compaction, token mode (``google-adk==2.13.0``: ``apps/compaction.py``,
``apps/llm_event_summarizer.py``, ``flows/llm_flows/context/_compaction.py``)."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import SUMMARY, Message
from policies.summaries import summarize_or_report, summary_message

TOOL_TEXT_LIMIT = 2_000  # the summarizer's cut of each call's arguments and each response
SUMMARY_PROMPT = (  # our own; ADK's short default lives in apps/llm_event_summarizer.py
    "Summarize these agent events so the agent can continue from the summary: the user's "
    "requests, actions taken with their results, and what is still open."
)


def _cut(text: str) -> str:
    if len(text) <= TOOL_TEXT_LIMIT:
        return text
    return f"{text[:TOOL_TEXT_LIMIT]}... [truncated {len(text) - TOOL_TEXT_LIMIT} chars]"


def adk_transcript(messages: list[Message]) -> str:
    """Events as the summarizer reads them, tool arguments and responses cut to 2,000 chars."""
    lines = []
    for m in messages:
        if m.is_tool_result:
            lines.append(f"[function response: {m.name or ''}] {_cut(m.content)}")
            continue
        if m.content:
            lines.append(f"{'model' if m.role == 'assistant' else m.role}: {m.content}")
        lines.extend(f"[function call] {c.name}({_cut(c.arguments)})" for c in m.tool_calls)
    return "\n".join(lines)


def _chars(message: Message) -> int:
    return len(message.content) + sum(len(c.arguments) + len(c.name) for c in message.tool_calls)


class AdkTokenCompactionPolicy(Policy):
    """``EventsCompactionConfig(token_threshold, event_retention_size)``: before a request,
    when this agent's last prompt token count (else chars / 4 of the events) reaches
    ``token_threshold``, every event but the last ``event_retention_size`` is summarized
    (the kept part starts earlier where a kept response's call would be cut off) into one
    model-role summary, seeded with the previous one (rolling). Skipped when what it would
    remove is no longer than the previous summary. Persistent (the summary is a new event;
    requests no longer show the raw events it covers). ADK sets no defaults; these are ours.
    """

    params = (
        Param("token_threshold", int, 100_000, "Prompt tokens at which it compacts.", 1_000, 10_000_000),
        Param("event_retention_size", int, 5, "Most recent events kept raw.", 0, 10_000),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        if not messages:
            return None
        size = event.last_usage if event.last_usage is not None else sum(map(_chars, messages)) // 4
        if size < self.token_threshold:
            return None
        start = max(len(messages) - self.event_retention_size, 0)
        wanted = {i for m in messages[start:] for i in m.tool_call_ids}
        for i in range(start - 1, -1, -1):  # a kept response keeps its call
            if any(c.id in wanted for c in messages[i].tool_calls):
                start = i
        head, tail = messages[:start], messages[start:]
        previous = [m for m in head if m.kind == SUMMARY]
        if not head or sum(map(_chars, head)) - sum(map(_chars, previous)) <= sum(map(_chars, previous)):
            return None
        summary = summarize_or_report(event, self.summary_prompt, adk_transcript(head))
        if summary is None:
            return None  # ADK sends the full history when the summarizer fails
        message = summary_message("assistant", summary, head)
        event.report("compact", message.source, f"{len(head)} event(s) compacted at {size:,} tokens")
        return [message, *tail]
