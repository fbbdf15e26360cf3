"""Your agent's own policy, replayed: the reference every stack is measured against on a session
whose agent compacted its own context, or whose raw history outgrows the window it had (the
raw history could never have been sent there).

The agent's own policy follows what its file records while the replay is still the agent's
(``policies.agent_record``): its compactions with its own summaries, its trims, each request it
sent costing what its call records. What it cannot know (the tool results a trim cleared) is
modelled, and the residual against what the agent paid is said with its cause.
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.engine.replay import ReplayResult
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.measures.evaluate import Scenario, evaluate
from playground.measures.figures import Totals
from playground.measures.reasons import dollars
from playground.stacks.presets import PRESETS, own_preset
from policies.base import counted
from policies.registry import PolicySpec

RESIDUAL_SAID = 0.05  # percent: a residual smaller than this reads as none


@dataclass(frozen=True)
class OwnPolicy:
    """The agent's own policy replayed on one session, against what the agent paid."""

    preset: str  # the preset that is the agent's own policy
    stack: tuple[PolicySpec, ...]
    result: ReplayResult
    figures: Totals

    @property
    def paid_usd(self) -> float | None:
        """What the agent paid, like for like: each reply's output as every replay bills it."""
        return self.figures.recorded_cost_counted_output_usd

    @property
    def agent_compactions(self) -> int:
        return len(self.result.session.compactions)

    @property
    def raw_turns_over_window(self) -> int:
        return self.figures.raw_turns_over_window

    @property
    def window(self) -> int:
        return self.result.settings.context_window

    @property
    def cost_usd(self) -> float | None:
        return self.figures.cost_usd

    @property
    def on_recorded_usd(self) -> float | None:
        """The own policy replayed on the calls the file records (all, in a whole log): what is
        set against what the agent paid."""
        saved = self.figures.saved_vs_recorded_usd
        return None if saved is None or self.paid_usd is None else round(self.paid_usd - saved, 6)

    @property
    def residual_pct(self) -> float | None:
        """The own policy replayed against what the agent paid, on the calls the file records, in
        percent of what it paid."""
        if self.on_recorded_usd is None or not self.paid_usd:
            return None
        return round(100 * (self.on_recorded_usd - self.paid_usd) / self.paid_usd, 2)

    @property
    def modelled_calls(self) -> list[int]:
        """The turns whose request is not exactly the agent's: priced by the cache model."""
        return [t.number for t in self.result.turns if not t.as_sent]

    def cause(self) -> str:
        """Why the replay and the bill differ, in words."""
        result = self.result
        turns, modelled = len(result.turns), self.modelled_calls
        if not modelled:
            return f"every call ({turns:,}) is the request the agent sent, at what its call records"
        replies = [t.reply_index for t in result.turns]
        trims = [1 + sum(r < trim.at for r in replies) for trim in result.trims]
        why = []
        if trims:
            followed = {e.turn for e in result.events if e.action == "stub" and e.position}
            how = (
                "the replay clears its oldest tool results to the same size, but the file does not say "
                "which it cleared"
                if followed & set(trims)
                else "what it left out the file does not say, so the replay sends its history whole"
            )
            why.append(f"the agent sent a request smaller than its history at call {_listed(trims)}: {how}")
        departed = [n for n in modelled if n not in trims and (n - 1) not in modelled]
        if departed and not trims:
            why.append(f"the replay's requests depart from the agent's at call {_listed(departed)}")
        return (
            f"{len(modelled):,} of {turns:,} calls are priced by the cache model, not their record ("
            + "; ".join(why or ["requests the replay cannot know exactly"])
            + ")"
        )

    def words(self) -> str:
        """The lead: the own policy replayed beside what the agent paid, with the residual and its cause."""
        name = f"Your agent's own policy ({self.preset}), replayed"
        compactions = self.figures.compactions
        made = f"{counted(compactions, 'compaction')} where the agent made {self.agent_compactions}"
        if self.cost_usd is None:
            return f"{name}: {self.figures.billed_context_tokens:,} input tokens; {made}."
        if self.paid_usd is None or self.on_recorded_usd is None:
            return f"{name}: {dollars(self.cost_usd)}; {made}."
        residual = self.residual_pct or 0.0
        gap = "no residual" if abs(residual) < RESIDUAL_SAID else f"residual {residual:+.1f} %"
        calls, turns = self.figures.recorded_calls, self.figures.turns
        some = "" if calls == turns else f" on the {calls:,} of {turns:,} calls the file records"
        return (
            f"{name}: {dollars(self.on_recorded_usd)} against {dollars(self.paid_usd)} the agent paid{some} "
            f"(each reply's output counted, as every replay is billed): {gap}; {made}; {self.cause()}."
        )

    def raw_words(self) -> str:
        """The raw history beside it: never sendable where it outgrows the window."""
        if not self.raw_turns_over_window:
            return ""
        return (
            f"The raw history is never sendable: over the {self.window:,}-token window on "
            f"{counted(self.raw_turns_over_window, 'turn')}; stacks are measured against your agent's own policy."
        )


def _listed(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:6])
    return shown + (f" and {len(numbers) - 6} more" if len(numbers) > 6 else "")


def own_stack(session: Session) -> tuple[str, list[PolicySpec]] | None:
    """The preset that is the recording agent's own policy, and its stack; None for an agent
    whose policy the playground does not replay from its record."""
    preset = own_preset(session.format)
    return (preset, PRESETS[preset]) if preset else None


def needs_reference(session: Session, figures: Totals) -> bool:
    """Whether the agent's own policy is the reference: it compacted its own context, or the raw
    history outgrows the window it had (``figures``: any replay's totals of the session)."""
    return bool(session.compactions) or bool(figures.raw_turns_over_window)


def own_policy(session: Session, scenario: Scenario, counter: TokenCounter | None = None) -> OwnPolicy | None:
    """The agent's own policy replayed on ``session`` under ``scenario``; None for an agent
    whose policy is not replayed from its record."""
    found = own_stack(session)
    if found is None:
        return None
    preset, stack = found
    evaluation = evaluate(session, stack, scenario, counter)
    return OwnPolicy(preset, tuple(stack), evaluation.result, evaluation.totals)


def against_own(figures: Totals, own: OwnPolicy) -> dict[str, float | None]:
    """A stack's saving against the agent's own policy replayed: dollars and percent (None
    without a price)."""
    cost, reference = figures.cost_usd, own.cost_usd
    if cost is None or reference is None:
        return {"saved_vs_own_usd": None, "saved_vs_own_pct": None}
    saved = reference - cost
    return {
        "saved_vs_own_usd": round(saved, 6),
        "saved_vs_own_pct": round(100 * saved / reference, 1) if reference else 0.0,
    }


def stack_words(figures: Totals, own: OwnPolicy, same_stack: bool) -> str:
    """This stack's cost said against the agent's own policy replayed."""
    if same_stack:
        return "This stack is your agent's own policy."
    saved = against_own(figures, own)
    if saved["saved_vs_own_usd"] is None:
        return ""
    pct = saved["saved_vs_own_pct"] or 0.0
    if abs(pct) < RESIDUAL_SAID:
        return "This stack costs what your agent's own policy costs."
    verdict = "cheaper" if pct > 0 else "dearer"
    return (
        f"This stack: {dollars(figures.cost_usd)}, {abs(pct):.1f} % {verdict} than your agent's own "
        f"policy ({dollars(own.cost_usd or 0.0)})."
    )
