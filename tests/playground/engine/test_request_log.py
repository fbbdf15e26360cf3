"""Each turn's request is stored as what changed; what it gives back must be the request sent."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playground.cli.bench import synthetic_session
from playground.engine.replay import replay
from playground.engine.request_log import RequestLog
from playground.formats import read_path
from playground.stacks.presets import PRESETS
from tests.builders import system, user
from tests.conftest import REAL_SESSION
from tests.synthetic import FOLDER as SYNTHETIC

SESSIONS = [*sorted(SYNTHETIC.glob("*.json")), REAL_SESSION]
STACKS = ["pyagentic recommended", "Sliding window of 50", "Anthropic context editing (clear tool uses)"]

# an edit from one request to the next: keep the first `keep` messages of the last one, add `new`
edits = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6)), max_size=60)


@given(edits, st.booleans())
def test_every_request_logged_comes_back_whole_and_in_order(steps, pinned_rules):
    pinned = (system("Rules."),) if pinned_rules else ()
    log, sent, context = RequestLog(), [], []
    for n, (keep, new) in enumerate(steps):
        keep = min(keep, len(context)) if n else 0
        context = context[:keep] + [user(f"m{n}.{k}") for k in range(new)]
        shared = len(pinned) + keep if n else 0
        assert log.add(pinned, shared, context) == n
        sent.append((shared, pinned + tuple(context)))
    for index, (shared, request) in enumerate(sent):
        assert log.request(index) == request and log.size(index) == len(request)
        assert all(a is b for a, b in zip(log.request(index), request, strict=True))
        assert log.tail(index, shared) == request[shared:]
    assert list(log.requests()) == [request for _, request in sent]


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_each_turns_request_costs_what_the_engine_counted_and_opens_with_the_shared_messages(path, stack):
    for session in read_path(path):
        result = replay(session, PRESETS[stack])
        count = result.counter.count
        previous: tuple = ()
        for turn, request in zip(result.turns, result.requests(), strict=True):
            assert turn.request == request and turn.size == len(request)
            fixed = turn.context_tokens - sum(count(m) for m in request)
            assert fixed == result.turns[0].context_tokens - sum(count(m) for m in result.turns[0].request)
            assert request[: turn.shared] == previous[: turn.shared]
            assert turn.tail == request[turn.shared :] and turn.context == request[len(turn.pinned) :]
            previous = request


def test_a_growing_history_is_held_in_memory_linear_in_the_session():
    session = synthetic_session(4_000)
    result = replay(session, [])  # no policy: every request is the whole history so far
    whole = sum(t.size for t in result.turns)
    held = result.turns[0].log.references()
    assert whole > 1_000_000  # stored whole, the requests would hold over a million references
    assert held < 3 * len(session.messages), (held, whole)
