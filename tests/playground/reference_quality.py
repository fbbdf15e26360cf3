"""The quality pass as first written: one search of the transcript per fact and reply, and
the whole request joined per turn. Quadratic, and plain to read: the definition that
``playground.measures.quality`` must keep meaning while being linear."""

from __future__ import annotations

from playground.engine.replay import ReplayResult, Turn
from playground.engine.validity import STANDING_RULES
from playground.measures.quality import TurnQuality, call_key, quotes_of_reply
from policies.facts import extract_facts
from policies.messages import ORIGINAL, said, said_parts


def results_of(raw) -> dict[tuple[str, str], list[int]]:
    """Each call (name, normalized arguments) -> raw indices of its results."""
    results: dict[tuple[str, str], list[int]] = {}
    call_of: dict[str, tuple[str, str]] = {}
    for index, message in enumerate(raw):
        for call in message.tool_calls:
            call_of[call.id] = call_key(call.name, call.arguments)
        for call_id in message.tool_call_ids:
            if call_id in call_of:
                results.setdefault(call_of[call_id], []).append(index)
    return results


def per_turn(result: ReplayResult) -> list[TurnQuality]:
    raw = result.session.messages
    # where each raw message starts in the whole raw text: "seen earlier" is a find() before it
    starts, parts, offset = [], [], 0
    for message in raw:
        starts.append(offset)
        text = said(message) + "\n"
        parts.append(text)
        offset += len(text)
    raw_text = "".join(parts)
    results = results_of(raw)  # call -> raw indices of its results
    return [_turn(result, turn, raw, raw_text, starts, results) for turn in result.turns]


def _turn(result, turn: Turn, raw, raw_text, starts, results_of) -> TurnQuality:
    reply = raw[turn.reply_index]
    request = turn.request
    intact = {m.source[0] for m in request if m.kind == ORIGINAL and len(m.source) == 1}
    refetched = []
    for call in reply.tool_calls:
        earlier = [i for i in results_of.get(call_key(call.name, call.arguments), []) if i < turn.reply_index]
        if earlier and not any(i in intact for i in earlier):
            refetched.append(f"{call.name}({call.arguments})")
    context_text = "\n".join(said(m) for m in request)
    before = starts[turn.reply_index]
    lost = tuple(
        fact
        for fact in extract_facts(said(reply))
        if -1 < raw_text.find(fact) < before and fact not in context_text
    )
    standing_lost = any(v.rule == STANDING_RULES for v in turn.violations)
    # a long line the reply writes that an earlier tool result or user message held
    sources = [said(m) for m in raw[: turn.reply_index] if m.role in ("tool", "user")]
    quotes = tuple(
        line
        for line in quotes_of_reply(said_parts(reply))
        if any(line in text for text in sources) and not any(line in said(m) for m in request)
    )
    return TurnQuality(turn.number, tuple(refetched), lost, standing_lost, quotes)
