"""Google ADK's events compaction, token mode and sliding window (``google-adk==2.13.0``:
``apps/compaction.py``, ``apps/llm_event_summarizer.py``, ``flows/llm_flows/context/_compaction.py``)."""

from __future__ import annotations

from policies.base import CompileEvent, Param, Policy
from policies.messages import STANDING_ROLES, SUMMARY, Message, sources_of
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

    source = "`google-adk==2.13.0`"
    summary = "token mode: all but the last N events into one rolling model-role summary"

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


class AdkSlidingWindowCompactionPolicy(Policy):
    """``EventsCompactionConfig(compaction_interval, overlap_size)``: after an invocation (a
    user message and everything the agent did for it), once ``compaction_interval``
    invocations have completed since the last summary, the raw events from ``overlap_size``
    invocations before the first new one through the last new one are summarized into one
    model-role summary (ADK's docstring: interval 2, overlap 1 summarizes invocations 1–2,
    then 2–4). The window is cut to its longest prefix that leaves no call unanswered, and
    skipped when removing it saves no more than the last summary's size.

    ADK is append-only: summaries are new events and a request drops the raw events inside
    any summary's range, showing each summary that no later one contains where its range
    ends. So overlapping windows summarize raw events an earlier summary already stands for;
    this policy keeps the session's raw events to give them, and writes the request back
    (persistent). Summaries are never seeded with the previous one in this mode. ADK sets
    no defaults; its docs use interval 3, overlap 1.
    """

    source = "`google-adk==2.13.0`"
    summary = "after every N completed invocations, the raw events from `overlap_size` invocations earlier through the last one become a model-role summary; requests show every summary no later one contains, so overlapping windows summarize raw events again"

    params = (
        Param("compaction_interval", int, 3, "Completed invocations that trigger a summary.", 1, 10_000),
        Param("overlap_size", int, 1, "Earlier invocations each summary covers again.", 0, 10_000),
        Param("summary_prompt", str, SUMMARY_PROMPT, "System prompt of the summarizer."),
    )

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        self._start_over()

    def _start_over(self) -> None:
        self._head: list[Message] = []  # a system prompt the history opened with: never compacted
        self._events: list[Message] = []  # the session's raw events, in order
        self._invocation: list[int] = []  # the invocation of each event (a user message opens one)
        self._last_event: dict[int, int] = {}  # invocation -> its last event so far
        self._compactions: list[tuple[int, int, Message]] = []  # first event, last event, summary
        self._returned: list[Message] = []  # the request last written back

    def on_compile(self, event: CompileEvent, messages: list[Message]) -> list[Message] | None:
        self._take_in(messages)
        window = self._window()
        if window is None:
            self._returned = list(messages)
            return None
        first, last = window
        removable = self._chars(self._request()) - self._chars(self._request((first, last, None)))
        previous = _chars(self._compactions[-1][2]) if self._compactions else 0
        if removable <= previous:
            self._returned = list(messages)
            return None
        covered = self._events[first : last + 1]
        summary = summarize_or_report(event, self.summary_prompt, adk_transcript(covered))
        if summary is None:  # ADK goes on with the uncompacted history
            self._returned = list(messages)
            return None
        self._compactions.append((first, last, summary_message("assistant", summary, covered)))
        invocations = sorted(set(self._invocation[first : last + 1]))
        event.report(
            "compact",
            sources_of(covered),
            f"invocations {invocations[0]}–{invocations[-1]} ({len(covered)} event(s)) summarized",
        )
        self._returned = self._request()
        return list(self._returned)

    def _take_in(self, messages: list[Message]) -> None:
        """Add the events that arrived since the last request; start over if someone else
        rewrote the history."""
        n = len(self._returned)
        if n and len(messages) >= n and messages[:n] == self._returned:
            fresh = messages[n:]
        else:
            self._start_over()
            head = 1 if messages and messages[0].role in STANDING_ROLES else 0
            self._head, fresh = list(messages[:head]), messages[head:]
        invocation = self._invocation[-1] if self._invocation else 0
        for message in fresh:
            invocation += message.role == "user"
            self._last_event[invocation] = len(self._events)
            self._events.append(message)
            self._invocation.append(invocation)

    def _window(self) -> tuple[int, int] | None:
        """The first and last event to summarize now, or None."""
        if not self._events:
            return None
        current = self._invocation[-1]  # still running: only completed invocations count
        last_end = self._compactions[-1][1] if self._compactions else -1
        latest = self._last_event
        done = [invocation for invocation in latest if invocation != current]
        new = [inv for inv in done if latest[inv] > last_end]
        if len(new) < self.compaction_interval:
            return None
        start = done[max(done.index(new[0]) - self.overlap_size, 0)]
        first = self._invocation.index(start)
        last = latest[new[-1]]
        last = first + _self_contained(self._events[first : last + 1]) - 1
        return (first, last) if last >= first else None

    def _request(self, extra: tuple[int, int, Message | None] | None = None) -> list[Message]:
        """The request ADK assembles: raw events outside every kept summary's range, and each
        summary no other contains at the end of its range (``extra``: one more, to price it)."""
        compactions = [*self._compactions, *([extra] if extra else [])]
        kept = _uncontained([(first, last) for first, last, _ in compactions])
        at_end: dict[int, list[Message]] = {}
        covered = [False] * len(self._events)
        for k in kept:
            first, last, summary = compactions[k]
            covered[first : last + 1] = [True] * (last + 1 - first)
            if summary is not None:
                at_end.setdefault(last, []).append(summary)
        out = list(self._head)
        for i, message in enumerate(self._events):
            if not covered[i]:
                out.append(message)
            out += at_end.get(i, [])
        return out

    @staticmethod
    def _chars(messages: list[Message]) -> int:
        return sum(map(_chars, messages))


def _uncontained(ranges: list[tuple[int, int]]) -> list[int]:
    """Indices of the ranges no other contains (of identical ones, the latest), in order."""
    order = sorted(range(len(ranges)), key=lambda k: (ranges[k][0], -ranges[k][1], -k))
    kept, reach = set(), None
    for k in order:
        if reach is None or ranges[k][1] > reach:
            kept.add(k)
            reach = ranges[k][1]
    return sorted(kept)


def _self_contained(events: list[Message]) -> int:
    """Length of the longest prefix that leaves no call without its response."""
    open_ids: set[str] = set()
    safe = 0
    for n, message in enumerate(events, start=1):
        open_ids -= set(message.tool_call_ids)
        open_ids |= {c.id for c in message.tool_calls}
        if not open_ids:
            safe = n
    return safe
