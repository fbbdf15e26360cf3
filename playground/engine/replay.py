"""The replay engine: a recorded session through a policy stack, inference by inference.

Each message passes the stack's ``on_append`` hooks and joins the working context (the
raw history keeps it untouched). Right before each recorded assistant reply (an
inference, a *turn*) the ``on_compile`` hooks run in stack order and their result is
written back as the new working context. Per turn the engine keeps the compiled request
(as what changed since the previous one, references to the shared immutable messages), its
token counts, its validity, and every policy action as an event. Recorded replies are
replayed as they were.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from playground.engine.agent_changes import reattached, recorded_trims
from playground.engine.calibration import CalibratedCounter, Fit, fit, split_earlier
from playground.engine.defaults import DEFAULT_MODEL, DEFAULT_WINDOW
from playground.engine.request_log import RequestLog
from playground.engine.running import RunningContext
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.engine.validity import Violation, check_standing, check_window
from playground.limits import LimitError, check_stack_size
from playground.summaries.base import SummarizerError, SummaryStats
from playground.summaries.summarizers import SummarizerSpec, make_summarizer
from playground.summaries.summary_cache import SummaryCache
from policies.agent_record import AgentRecord, RecordedTrim
from policies.base import EPHEMERAL, PER_TURN, PERSISTENT, Action, AppendEvent, CompileEvent, Policy, counted
from policies.claude_code import CONTINUATION
from policies.codex import SUMMARY_PREFIX
from policies.messages import STANDING_ROLES, Message
from policies.registry import PolicySpec, SpecError


@dataclass(frozen=True)
class Settings:
    """Everything but the stack that a replay depends on."""

    model: str = DEFAULT_MODEL
    context_window: int = DEFAULT_WINDOW
    pin_standing_rules: bool = True
    summarizer: SummarizerSpec = field(default_factory=SummarizerSpec)
    # count as the provider recorded (engine.calibration) where the session records its usage
    calibrate: bool = True

    def key(self) -> tuple:
        return (
            self.model,
            self.context_window,
            self.pin_standing_rules,
            self.summarizer,
            self.calibrate,
        )


NO_TURNS = "This session has no assistant replies, so there is no inference to replay."
# how the summaries of the coding agents' own policies open: each re-attaches what the agent
# re-attaches after a compaction (files read again, CLAUDE.md, the todo list)
AGENT_SUMMARY_OPENINGS = (CONTINUATION, SUMMARY_PREFIX)

# event actions that record what a policy did not do: no message of the request changed
NO_EDIT = ("skip", "summary_failed", "thrash", "budget_unmet", "idle")


@dataclass(frozen=True)
class Event:
    """One policy action (or a validity violation) with the turn it shaped."""

    turn: int
    position: int  # 1-based place of the policy in the stack; 0 for the engine itself
    policy: str
    action: str
    messages: tuple[int, ...]
    tokens_before: int
    tokens_after: int
    detail: str


@dataclass(frozen=True, eq=False)
class Turn:
    """What inference ``number`` would have sent, and what the raw history holds then.

    The request itself is kept in the replay's RequestLog, as what changed since the turn
    before; ``request`` rebuilds it."""

    number: int
    reply_index: int  # raw index of the recorded assistant reply
    pinned: tuple[Message, ...]
    log: RequestLog = field(repr=False)
    index: int  # this turn's place in the log
    context_tokens: int
    raw_tokens: int
    raw_messages: int
    tokens_by_bucket: dict[str, int]
    stubs_held: int
    violations: tuple[Violation, ...]
    shared: int = 0  # messages opening the request that the previous turn's request held in place
    # the request is the one the agent sent (the session's recorded usage and cache split are its own)
    as_sent: bool = False

    @property
    def request(self) -> tuple[Message, ...]:
        """The full request of this turn, standing rules included."""
        return self.log.request(self.index)

    @property
    def context(self) -> tuple[Message, ...]:
        """The request after the pinned standing rules."""
        return self.request[len(self.pinned) :]

    @property
    def size(self) -> int:
        """Messages in the request."""
        return self.log.size(self.index)

    @property
    def tail(self) -> tuple[Message, ...]:
        """The request's messages after the ``shared`` ones: what this turn sent anew."""
        return self.log.tail(self.index, self.shared)


@dataclass
class ReplayResult:
    session: Session
    specs: list[PolicySpec]
    settings: Settings
    encoding: str
    turns: list[Turn]
    events: list[Event]
    counter: TokenCounter
    summary_stats: SummaryStats
    calibration: Fit | None = None  # how counts were calibrated to the recorded usage, if they were
    trims: tuple[RecordedTrim, ...] = ()  # requests the agent trimmed without a line, found in its usage

    @property
    def base_counter(self) -> TokenCounter:
        """The model's counter, uncalibrated: what another replay of the session can share."""
        return self.counter.base if isinstance(self.counter, CalibratedCounter) else self.counter

    def recorded_usage(self, turn: Turn) -> int | None:
        return self.session.usage.get(turn.reply_index)

    def requests(self) -> Iterator[tuple[Message, ...]]:
        """Every turn's request in order, each built from the one before (cheaper than
        ``turn.request`` for each turn)."""
        return self.turns[0].log.requests() if self.turns else iter(())


def standing_rules(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The system/developer messages that open a session: the agent's system prompt."""
    n = 0
    while n < len(messages) and messages[n].role in STANDING_ROLES:
        n += 1
    return messages[:n]


def moved_ahead(stack: list[Policy]) -> list[int]:
    """Indices of the persistent policies that run before an ephemeral one placed above them:
    the stored history is rewritten before any request is edited."""
    out, editor_above = [], False
    for index, policy in enumerate(stack):
        if policy.persistence == EPHEMERAL:
            editor_above = True
        elif editor_above and type(policy).on_compile is not Policy.on_compile:
            out.append(index)
    return out


class PolicyFailure(SpecError):
    """A policy raised where it should have returned: the stack cannot run on this session.
    The message names the policy, its position, the turn and the error's type."""


def _hook(position: int, policy: Policy, hook: str, turn: int, *args: Any) -> Any:
    """``policy.hook(*args)``; an error the policy raises becomes a PolicyFailure naming it
    (a summary over its bounds or a summarizer's refusal pass as they are)."""
    try:
        return getattr(policy, hook)(*args)
    except (LimitError, SummarizerError):
        raise
    except Exception as error:
        text = str(error)[:200]  # it may quote the transcript: cut short
        raise PolicyFailure(
            f"{position}. {policy.name()} failed in {hook} at turn {turn}: {type(error).__name__}"
            + (f": {text}" if text else "")
        ) from error


def replay(
    session: Session,
    specs: list[PolicySpec],
    settings: Settings | None = None,
    counter: TokenCounter | None = None,
    *,
    api_key: str | None = None,
    hosted: bool = False,
    summary_cache: SummaryCache | None = None,
    progress: Callable[[int, int, SummaryStats], None] | None = None,
    watch: Callable[[ReplayResult], None] | None = None,
) -> ReplayResult:
    """Replay ``session`` through the enabled policies of ``specs``.

    Raises SpecError or SummarizerError for a bad stack, PolicyFailure (a SpecError) for a
    policy that raises.
    A ``counter`` passed in keeps its cache, so replays of one session share tokenization.
    ``progress(turn, turns, summary_stats)`` is called before each inference (for slow summarizers).
    ``watch(result)`` is called after each turn with the result so far (its last turn the new
    one); what it raises ends the replay (a search stops a stack that already costs too much).
    ``api_key`` is a key the user gave; ``hosted`` applies the app's rule of which endpoint
    may receive the server's own key (``endpoints.choose_key``).
    """
    settings = settings or Settings()
    check_stack_size(len(specs))
    stack = [(pos, spec.build()) for pos, spec in enumerate(specs, start=1) if spec.enabled]
    counter = counter or TokenCounter(settings.model)
    counter.prime(session.messages)  # the session's distinct texts counted in one batch
    calibration = fit(session, counter) if settings.calibrate else None
    if calibration is not None and calibration.applied:
        calibration = split_earlier(calibration, session)
        counter = CalibratedCounter(counter, calibration, session.messages)
    trims = recorded_trims(session, counter) if len(session.usage) > 1 else ()
    if isinstance(counter, CalibratedCounter) and session.compactions:
        counter.reattach(reattached(session, counter, trims), AGENT_SUMMARY_OPENINGS)
    summarizer = make_summarizer(
        settings.summarizer, api_key=api_key, cache=summary_cache, counter=counter, hosted=hosted
    )
    run = _Run(session, stack, settings, counter, summarizer, progress, trims)
    result = ReplayResult(
        session,
        list(specs),
        settings,
        counter.encoding_note,
        run.turns,
        run.events,
        counter,
        summarizer.stats,
        calibration,
        trims,
    )
    if watch is not None:
        run.watch = lambda: watch(result)
    run.play()
    return result


class _Run:
    """The state of one replay; discarded when it ends."""

    def __init__(self, session, stack, settings, counter, summarizer, progress=None, trims=()) -> None:
        self.session: Session = session
        self.stack = stack
        # only the hooks a policy overrides are called: the base ones change nothing
        self.appenders = [(pos, p) for pos, p in stack if type(p).on_append is not Policy.on_append]
        compilers = [(pos, p) for pos, p in stack if type(p).on_compile is not Policy.on_compile]
        # the stored history is rewritten before a request is edited (as in LangChain, whose
        # before_model hooks run before its model-call wrappers): persistent policies first
        self.writers = [(pos, p) for pos, p in compilers if p.persistence == PERSISTENT]
        self.editors = [(pos, p) for pos, p in compilers if p.persistence == EPHEMERAL]
        # per writer: how much of the stored history is still exactly what it returned last time
        self.unchanged = [0] * len(self.writers)
        self.user_turn = False  # a user message arrived since the last inference
        self.user_turns = 0
        self.settings: Settings = settings
        self.counter: TokenCounter = counter
        self.summarizer = summarizer
        self.standing = standing_rules(session.messages)
        self.pinned = self.standing if settings.pin_standing_rules else ()
        self.pinned_tokens = counter.total(self.pinned)
        # reply priming and tool definitions: paid by every request
        self.fixed_tokens = counter.request((), counter.tools(session.tools))
        self.working = RunningContext(counter)  # the stored history, as persistent policies left it
        # what the last request sent, where ephemeral policies make it differ from the history
        self.view = RunningContext(counter) if self.editors else None
        self.turns: list[Turn] = []
        self.log = RequestLog()
        self.reply_index = -1  # of the reply the request being compiled gets
        self.sent = 0  # working messages in the last request
        self.events: list[Event] = []
        self.last_usage: int | None = None
        self.last_output: int | None = None
        # the stored history is still what the agent sent (no policy has changed it), so the
        # usage the session records is what its provider reported for the stack's request
        self.history_as_sent = True
        self.edited = False  # an ephemeral policy edited the request being compiled
        # what the recording agent did to its own requests, and where: a request is the one it
        # sent only while the replay has done the same (``as_sent``)
        self.agent_record = AgentRecord(
            session.format, session.agent_version, session.compactions, trims, replies=session.replies
        )
        self.previous_reply = -1  # of the reply before the request being compiled
        changes = [(c.at, n) for n, c in enumerate(session.compactions)] + [(t.at, None) for t in trims]
        self.changes = sorted(changes, key=lambda change: change[0])
        self.change_points = [at for at, _ in self.changes]
        self.following = True  # every change made so far is the agent's own, as its record has it
        self.reproduced = -1  # the agent's compaction whose result the history is (-1: none yet)
        self.progress = progress
        self.last_compaction: dict[int, int] = {}  # stack position -> turn it last compacted
        self.watch: Callable[[], None] | None = None  # called after each turn

    def play(self) -> None:
        count = self.counter.count
        raw_tokens = 0
        block = self.counter.earlier_block
        if block is not None:  # a mid-session file: what came before it opens the history, compactable
            raw_tokens += count(block)
            self.working.append(block)
        turns = self.session.turns
        for index, message in enumerate(self.session.messages):
            if message.role == "assistant" and index not in self.session.held_replies:
                if self.progress is not None:
                    self.progress(len(self.turns) + 1, turns, self.summarizer.stats)
                self.compile(index, raw_tokens)
            raw_tokens += count(message)
            if index > self.session.last_reply:
                break  # no inference follows: nothing after the last reply shapes a request
            if message.role == "user":
                self.user_turn = True
            if index < len(self.pinned):
                continue
            appended = self.append(index, message)
            if appended is not None:
                self.working.append(appended)
        self.report_idle()

    def report_idle(self) -> None:
        """An event at the last turn for each policy that never changed a request: its thresholds
        sit above what this session reaches, so tuning it here changes nothing."""
        if not self.turns:
            return
        # a policy that skipped (it was triggered, nothing was worth clearing) has not acted; one
        # that tried and failed, or could not meet its budget, has: its own event says so
        acted = {e.position for e in self.events if e.position and e.action not in ("skip", "idle")}
        last = self.turns[-1]
        peak = max(t.context_tokens for t in self.turns)
        for position, policy in self.stack:
            if position in acted:
                continue
            settings = ", ".join(
                f"{p.name} {value:,}"
                for p in policy.params
                if p.type in (int, float)
                and not isinstance(value := getattr(policy, p.name), bool | type(None))
            )
            chances, why = (
                counted(len(self.turns), "turn"),
                "its thresholds are above what this session reaches",
            )
            if policy.timing == PER_TURN:
                chances = f"the {counted(self.user_turns, 'user turn')} it runs at, of {counted(len(self.turns), 'turn')}"
                why = "it runs once per user turn, and there its thresholds were not reached"
            detail = (
                f"never acted in {chances} (peak context {peak:,} tokens"
                + (f"; {settings}" if settings else "")
                + f"): {why}"
            )
            self.events.append(
                Event(
                    last.number,
                    position,
                    policy.name(),
                    "idle",
                    (),
                    last.context_tokens,
                    last.context_tokens,
                    detail,
                )
            )

    def append(self, index: int, message: Message) -> Message | None:
        arrived = message
        appended = self.through_appenders(index, message)
        if appended is not arrived:
            self.history_as_sent = self.following = False
        return appended

    def through_appenders(self, index: int, message: Message) -> Message | None:
        turn = len(self.turns) + 1  # the inference this message will first be part of
        for position, policy in self.appenders:
            event = AppendEvent(index=index, turn=turn)
            changed = _hook(position, policy, "on_append", turn, event, message)
            if event.actions:
                after = changed if changed is not None else message
                self.record(
                    turn,
                    position,
                    policy,
                    event.actions,
                    self.counter.count(message),
                    self.counter.count(after),
                )
                if any(a.action == "veto" for a in event.actions):
                    return None
            if changed is not None:
                message = changed
        return message

    def compile(self, reply_index: int, raw_before: int) -> None:
        turn = len(self.turns) + 1
        self.reply_index = reply_index
        working = self.working
        kept = self.sent  # of the last request's working messages, how many stand in place
        self.summarizer.stats.turn = turn  # summaries made now are billed to this turn
        self.previous_reply = self.turns[-1].reply_index if self.turns else -1
        opens_turn = self.user_turn or turn == 1
        self.user_turns += opens_turn
        self.user_turn = False
        for k, (position, policy) in enumerate(self.writers):
            if policy.timing == PER_TURN and not opens_turn:
                continue
            before = working.tokens
            event = self.event(turn, working, self.unchanged[k])
            held = len(working.items)
            changed = _hook(position, policy, "on_compile", turn, event, working.items)
            if changed is not None:
                same = working.replace(changed)
                if same < held or len(changed) != held:
                    self.history_as_sent = False  # written back: the next turn starts from what was sent
                    self.follow(event)
                self.unchanged = [min(u, same) for u in self.unchanged]
                kept = min(kept, same)
            self.unchanged[k] = len(working.items)  # appends keep it; later rewrites lower it
            self.record(turn, position, policy, event.actions, before, working.tokens)
        context = working
        if self.view is not None:
            context, kept = self.edit_request(turn)
            self.following = self.following and not self.edited

        context_tokens = self.pinned_tokens + context.tokens + self.fixed_tokens
        offset = len(self.pinned)
        head = (*self.pinned, *context.items[: len(self.standing)])
        violations = tuple(
            [v.shifted(offset) for v in context.violations()]
            + check_standing(head, self.standing)
            + check_window(context_tokens, self.settings.context_window)
        )
        for v in violations:
            self.events.append(Event(turn, 0, "validity", v.rule, (), 0, 0, str(v)))
        by_bucket = context.by_bucket()
        by_bucket["system"] += self.pinned_tokens
        shared = len(self.pinned) + kept if self.turns else 0
        self.turns.append(
            Turn(
                number=turn,
                reply_index=reply_index,
                pinned=self.pinned,
                log=self.log,
                index=self.log.add(self.pinned, shared, context.items),
                context_tokens=context_tokens,
                raw_tokens=raw_before + self.fixed_tokens,
                raw_messages=reply_index,
                tokens_by_bucket=by_bucket,
                stubs_held=context.count_of("stub"),
                violations=violations,
                shared=shared,
                as_sent=self.as_sent(reply_index),
            )
        )
        self.sent = len(context.items)
        self.last_usage = context_tokens
        if self.turns[-1].as_sent:
            self.last_usage = self.session.usage.get(reply_index, context_tokens)
        reply = self.session.messages[reply_index]
        self.last_output = self.session.output_tokens(reply_index, self.counter.count(reply))
        if self.watch is not None:
            self.watch()

    def as_sent(self, reply_index: int) -> bool:
        """Whether this turn's request is the one the agent sent: the history is what the agent
        held at this point (no change of the agent's since the start, or the last one reproduced
        as it made it) and no request was edited."""
        if not (self.history_as_sent and self.following and not self.edited):
            return False
        last = bisect_right(self.change_points, reply_index) - 1
        if last < 0:
            return self.reproduced == -1
        compaction = self.changes[last][1]
        return compaction is not None and compaction == self.reproduced

    def follow(self, event: CompileEvent) -> None:
        """After a policy changed the history: still the agent's (it followed the agent's record,
        reproducing the compaction the agent made right here), or the replay's own from now on."""
        if not (event.followed and self.following):
            self.following = False
            return
        due = self.agent_record.compaction_due(self.previous_reply, self.reply_index)
        if due is not None:  # the agent's compaction, as it made it: the history is the agent's again
            self.reproduced, self.history_as_sent = due[0], True

    def edit_request(self, turn: int) -> tuple[RunningContext, int]:
        """The ephemeral policies' pass: each edits a copy of the stored history (or of the
        previous one's edit) for this request only. Returns the request and how many of its
        messages open the previous request in place."""
        view = self.view
        assert view is not None
        given = self.working  # the figures of the list the next policy gets
        kept: int | None = None
        for position, policy in self.editors:
            before = given.tokens
            event = self.event(turn, given, 0)  # it never returned this list: no prefix to trust
            changed = _hook(position, policy, "on_compile", turn, event, list(given.items))
            if changed is not None:
                same = view.replace(changed)  # against the previous request, then the previous edit
                kept = same if kept is None else min(kept, same)
                given = view
            self.record(turn, position, policy, event.actions, before, given.tokens)
        self.edited = given is not self.working
        if given is self.working:  # nobody edited: the request is the history as stored
            kept = view.replace(self.working.items)
        return view, kept if kept is not None else 0

    def event(self, turn: int, given: RunningContext, unchanged_prefix: int) -> CompileEvent:
        return CompileEvent(
            turn=turn,
            last_usage=self.last_usage,
            last_output=self.last_output,
            counter=self.counter,
            context_window=self.settings.context_window,
            summarizer=self.summarizer,
            pinned=self.pinned,
            unchanged_prefix=unchanged_prefix,
            context_tokens=self.pinned_tokens + given.tokens,
            message_tokens=given.message_tokens,
            fixed_tokens=self.fixed_tokens,
            tools=self.session.tools,
            record=self.agent_record,
            reply_index=self.reply_index,
            previous_reply=self.previous_reply,
            following_record=self.following,
            time=self.session.times.get(self.reply_index),
            previous_time=self.session.times.get(self.turns[-1].reply_index) if self.turns else None,
        )

    def record(self, turn, position, policy, actions: list[Action], before: int, after: int) -> None:
        for action in actions:
            self.events.append(
                Event(
                    turn,
                    position,
                    policy.name(),
                    action.action,
                    action.messages,
                    before,
                    after,
                    action.detail,
                )
            )
            if action.action == "compact":
                if self.last_compaction.get(position) == turn - 1:  # compaction thrash
                    detail = f"compaction fired on consecutive turns {turn - 1} and {turn}"
                    self.events.append(
                        Event(turn, position, policy.name(), "thrash", (), after, after, detail)
                    )
                self.last_compaction[position] = turn
