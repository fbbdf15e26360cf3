"""`playground bench`: how close the replay engine stays to tokenizing each message once.

Builds a synthetic tool-heavy session and times, for the default stack: the replay, the
floor (tokenizing every distinct message once), and a naive engine that re-encodes the
whole context every turn. Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import random
import time
import tracemalloc
from collections.abc import Callable

from playground.engine.replay import Settings, replay
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.measures import quality
from playground.measures.evaluate import Scenario
from playground.money.cost import Pricing, cost_report
from policies.clear_tool_uses import ClearToolUsesPolicy
from policies.compaction import CompactionPolicy
from policies.facts import forget_facts
from policies.messages import Message, ToolCall
from policies.prompt_compression import PromptCompressionPolicy
from policies.registry import PolicySpec
from policies.tiered_eviction import TieredEvictionPolicy
from policies.tool_eviction import ToolEvictionPolicy
from policies.tool_output_clip import ToolOutputClipPolicy

WORDS = [
    "the",
    "request",
    "returned",
    "status",
    "ok",
    "error",
    "warning",
    "config",
    "value",
    "user",
    "order",
    "invoice",
    "payment",
    "file",
    "path",
    "module",
    "function",
    "class",
    "test",
    "failed",
    "passed",
    "retry",
    "timeout",
    "cache",
    "index",
    "table",
    "row",
    "column",
    "schema",
    "field",
    "record",
    "updated",
    "created",
    "deleted",
    "build",
    "deploy",
    "service",
    "region",
    "latency",
]
# every built-in that measures the context, in the order a user would stack them
EXTENDED_STACK = [
    PolicySpec.of(ToolOutputClipPolicy, {"max_chars": 8000}),
    PolicySpec.of(ClearToolUsesPolicy, {"trigger": 30_000, "keep": 3, "clear_at_least": 0}),
    PolicySpec.of(TieredEvictionPolicy, {"budget_tokens": 20_000, "keep_recent": 6}),
    PolicySpec.of(CompactionPolicy, {"max_input_tokens": 60_000}),
    PolicySpec.of(PromptCompressionPolicy, {"compress_threshold": 0.75, "compress_keep_recent": 4}),
]
TOOLS = ("read_file", "search_docs", "http_get", "run_tests", "query_db", "list_dir")


def _text(rng: random.Random, size: int) -> str:
    parts: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS) if rng.random() < 0.8 else str(rng.randint(0, 99999))
        parts.append(word)
        length += len(word) + 1
        if rng.random() < 0.08:
            parts.append("\n")
    return " ".join(parts)[:size]


def synthetic_session(n_messages: int = 2000, seed: int = 0) -> Session:
    """Alternating tool calls and results (outputs 200 B-20 KB, mean near 2 KB), prose near
    200 B, and a user message every ~20 messages; deterministic for a seed."""
    rng = random.Random(seed)
    messages = [Message("system", "You are a careful engineering agent. Use tools.", source=(0,))]
    call = 0
    while len(messages) < n_messages:
        i = len(messages)
        pending_call = messages[-1].role == "assistant" and messages[-1].tool_calls
        if i % 20 == 1 and not pending_call:
            messages.append(Message("user", _text(rng, rng.randint(80, 400)), source=(i,)))
            continue
        if pending_call:
            size = int(min(20_000, max(200, rng.lognormvariate(7.2, 0.9))))
            tool = messages[-1].tool_calls[0]
            messages.append(
                Message("tool", _text(rng, size), tool_call_ids=(tool.id,), name=tool.name, source=(i,))
            )
            continue
        call += 1
        name = rng.choice(TOOLS)
        arguments = json.dumps({"query": _text(rng, 30), "limit": rng.randint(1, 50)})
        messages.append(
            Message(
                "assistant",
                _text(rng, rng.randint(120, 280)),
                tool_calls=(ToolCall(f"call_{call}", name, arguments),),
                source=(i,),
            )
        )
    return Session("synthetic", "synthetic", tuple(messages))


def naive_replay(session: Session, stack: list[PolicySpec], settings: Settings) -> list[int]:
    """What an engine without a token cache pays: every turn re-encodes its whole request."""
    result = replay(session, stack, settings)
    encoder = TokenCounter(settings.model)
    return [sum(encoder._encode(m) for m in turn.request) for turn in result.turns]


def _timed(fn: Callable[[], object]) -> float:
    """CPU seconds of one call: steadier than wall time on a shared machine."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def run(n_messages: int, stack: list[PolicySpec], settings: Settings, out: Callable[[str], None]) -> dict:
    session = synthetic_session(n_messages)
    tool_bytes = [len(m.content) for m in session.messages if m.role == "tool"]
    out(
        f"synthetic session: {len(session.messages):,} messages, {session.turns:,} inferences, "
        f"tool outputs mean {sum(tool_bytes) / max(len(tool_bytes), 1):,.0f} B, max {max(tool_bytes, default=0):,} B"
    )
    TokenCounter(settings.model).count(session.messages[0])  # load the encoding outside the timings

    def floor() -> None:  # as the replay does it: the session's distinct texts in one batch
        TokenCounter(settings.model).prime(session.messages)

    # priced: the replay plus its cost under Anthropic's cache rule (break-point reads, writes)
    pricing = Pricing(model="claude-sonnet-4-5")
    # interleaved, best of 5: all three see the same machine noise
    floors, replays, priced = [], [], []
    for _ in range(5):
        floors.append(_timed(floor))
        replays.append(_timed(lambda: replay(session, stack, settings)))
        priced.append(_timed(lambda: cost_report(replay(session, stack, settings), pricing)))
    floor_s, replay_s, priced_s = min(floors), min(replays), min(priced)
    measured = {"default": stack, "extended": EXTENDED_STACK}
    with_quality = {name: _replay_and_quality(session, specs, settings) for name, specs in measured.items()}
    naive_s = _timed(lambda: naive_replay(session, stack, settings))
    tracemalloc.start()
    result = replay(session, stack, settings)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    figures = {
        "messages": len(session.messages),
        "turns": len(result.turns),
        "encoding": result.encoding,
        "tokenize_once_s": round(floor_s, 3),
        "replay_s": round(replay_s, 3),
        "replay_over_floor": round(replay_s / floor_s, 2),
        "priced_replay_s": round(priced_s, 3),
        "priced_over_floor": round(priced_s / floor_s, 2),
        "priced_over_replay": round(priced_s / replay_s, 2),
        "naive_s": round(naive_s, 3),
        "naive_over_replay": round(naive_s / replay_s, 1),
        "peak_memory_mib": round(peak / 2**20, 1),
    }
    for name, (first, again) in with_quality.items():
        figures[f"{name}_with_quality_s"] = round(first, 3)
        figures[f"{name}_with_quality_over_floor"] = round(first / floor_s, 1)
        figures[f"{name}_with_quality_again_s"] = round(again, 3)
    out(f"encoding: {figures['encoding']}")
    out(f"tokenize each message once (floor): {floor_s:8.3f} s")
    out(f"replay, default stack:              {replay_s:8.3f} s  ({figures['replay_over_floor']}x the floor)")
    out(
        f"replay and price it (Anthropic):    {priced_s:8.3f} s  ({figures['priced_over_replay']}x the replay)"
    )
    out(f"naive engine (re-encode each turn): {naive_s:8.3f} s  ({figures['naive_over_replay']}x the replay)")
    for name, (first, again) in with_quality.items():
        out(
            f"replay and quality pass, {name + ' stack:':17} {first:8.3f} s  "
            f"({figures[f'{name}_with_quality_over_floor']}x the floor; "
            f"{again:.3f} s for another stack on the same session)"
        )
    out(f"peak memory of one replay:          {figures['peak_memory_mib']:8.1f} MiB")
    return figures


def _replay_and_quality(
    session: Session, stack: list[PolicySpec], settings: Settings, runs: int = 3
) -> tuple[float, float]:
    """CPU seconds of a replay and its quality pass on a session seen for the first time, and
    on one whose facts are already located (what a slider move in the app pays); each the best
    of ``runs``, as the floor is, so that one slow run on a shared machine decides neither."""

    def measured(target: Session) -> float:
        return _timed(lambda: quality.per_turn(replay(target, stack, settings)))

    firsts, agains = [], []
    for _ in range(runs):
        fresh = Session(session.name, session.format, session.messages)  # nothing cached for it yet
        forget_facts()  # nor for its texts
        firsts.append(measured(fresh))
        agains.append(measured(fresh))
    return min(firsts), min(agains)


def large(n_messages: int, stack: list[PolicySpec], settings: Settings, out: Callable[[str], None]) -> dict:
    """The replay plus quality pass at a size where quadratic work shows: default and
    extended stack, best of three each (CPU seconds), with the floor and each one's peak memory."""
    session = synthetic_session(n_messages)
    TokenCounter(settings.model).count(session.messages[0])  # load the encoding outside the timings
    # the floor is cheap: its best of five, so that one slow run does not flatter the ratios
    floor_s = min(_timed(lambda: TokenCounter(settings.model).prime(session.messages)) for _ in range(5))
    figures: dict = {"messages": len(session.messages), "tokenize_once_s": round(floor_s, 3)}
    out(f"at {len(session.messages):,} messages ({session.turns:,} inferences): floor {floor_s:.3f} s")
    for name, specs in (("default", stack), ("extended", EXTENDED_STACK)):
        first, again = _replay_and_quality(session, specs, settings)
        tracemalloc.start()
        quality.per_turn(replay(session, specs, settings))
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        figures[name] = {
            "with_quality_s": round(first, 3),
            "again_s": round(again, 3),
            "peak_mib": round(peak, 1),
        }
        out(
            f"  replay and quality pass, {name + ' stack:':17} {first:8.3f} s  ({first / floor_s:.1f}x the floor; "
            f"{again:.3f} s for another stack; peak {peak:.1f} MiB)"
        )
    return figures


def no_policy_memory(n_messages: int, settings: Settings, out: Callable[[str], None]) -> dict:
    """Peak memory of a replay with no policy, where every request is the whole history so far:
    what storing each turn's request costs (the session itself is built before tracing)."""
    session = synthetic_session(n_messages)
    TokenCounter(settings.model).count(session.messages[0])
    tracemalloc.start()
    start = time.process_time()
    result = replay(session, [], settings)
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    whole = sum(t.size for t in result.turns)
    out(
        f"no policy at {len(session.messages):,} messages: {seconds:.2f} s, peak {peak:.1f} MiB; the requests "
        f"hold {whole:,} messages in all, kept as {result.turns[-1].log.references():,} references"
    )
    return {"messages": len(session.messages), "seconds": round(seconds, 2), "peak_mib": round(peak, 1)}


def startup(path: str, out: Callable[[str], None]) -> dict:
    """Wall seconds of the CLI's ``replay`` on a file, next to starting the interpreter and
    loading the encoder alone: what a user of the command line waits for beyond the replay."""
    import subprocess
    import sys

    def wall(*args: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        return time.perf_counter() - start

    load = "from playground.engine.tokens import TokenCounter; TokenCounter('gpt-4o').text('warm')"
    wall("-m", "playground.cli", "replay", path)  # the price lookups kept, as on a user's second run
    encoder, cli = [], []
    for _ in range(5):  # interleaved, best of 5: both see the same machine noise
        encoder.append(wall("-c", load))
        cli.append(wall("-m", "playground.cli", "replay", path))
    encoder_s, cli_s = min(encoder), min(cli)
    out(
        f"CLI replay of {path}: {cli_s:.2f} s wall; interpreter and encoder alone {encoder_s:.2f} s "
        f"({cli_s / encoder_s:.2f}x)"
    )
    return {"cli_replay_s": round(cli_s, 2), "encoder_start_s": round(encoder_s, 2)}


def redraw(n_messages: int, out: Callable[[str], None], moves: int = 6) -> dict:
    """Seconds the app takes to rerun after a slider move, on an uploaded synthetic session.

    Drives the real app script with streamlit's AppTest (server side: replay, metrics,
    charts, side by side); the browser's drawing comes on top.
    """
    from pathlib import Path
    from statistics import median

    from streamlit.testing.v1 import AppTest

    from playground.formats.openai_chat import to_openai

    session = synthetic_session(n_messages)
    data = json.dumps([to_openai(m) for m in session.messages]).encode()
    app = Path(__file__).parents[2] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=120).run()
    at.file_uploader(key="session_uploads").set_value(("synthetic.json", data, "application/json"))
    first = _timed(at.run)
    eviction = next(e["id"] for e in at.session_state["stack"] if e["name"] == ToolEvictionPolicy.__name__)
    times = []
    for k in range(moves):  # each value is new: no replay cache hit
        at.slider(key=f"param_{eviction}_keep_last_n").set_value(6 + k)
        times.append(_timed(at.run))
    again = _timed(lambda: at.slider(key=f"param_{eviction}_keep_last_n").set_value(6).run())
    figures = {
        "first_load_s": round(first, 3),
        "slider_move_s": round(median(times), 3),
        "cached_s": round(again, 3),
    }
    out(
        f"app on a {len(session.messages)}-message session: first load {first:.3f} s, "
        f"slider move (new replay) median {median(times):.3f} s, back to a cached value {again:.3f} s"
    )
    return figures


def sweep(n_messages: int, out: Callable[[str], None], points: int = 30, workers: int = 2) -> dict:
    """Wall seconds of a ``points``-point sweep of keep_last_n on an ``n_messages`` session, in
    ``workers`` processes, against the same points replayed one after another in one."""
    from playground.analyses.sweep import parse_axis, run_sweep
    from playground.stacks.presets import PRESETS

    session = synthetic_session(n_messages)
    stack = list(PRESETS["pyagentic recommended"])
    axis = parse_axis(f"2.keep_last_n=1:{points}", stack)
    settings = Settings()

    def wall(n: int) -> tuple[float, int]:
        start = time.perf_counter()
        done = run_sweep(session, stack, [axis], settings, workers=n)
        return time.perf_counter() - start, done.processes

    wall(1)  # warm: imports, the forkserver's first start
    sequential, _ = wall(1)
    parallel, processes = wall(workers)
    ratio = parallel / (sequential / workers)
    how = "in worker processes" if processes > 1 else "in one process: too little work to start workers"
    out(
        f"sweep of {points} points on {len(session.messages)} messages: {sequential:.2f} s in one process, "
        f"{parallel:.2f} s offered {workers} workers, {how} ({ratio:.2f}x sequential/{workers}; target <= 3x)"
    )
    return {"sweep_sequential_s": round(sequential, 3), "sweep_parallel_s": round(parallel, 3)}


def recommendation(n_messages: int, out: Callable[[str], None], trials: int = 60, workers: int = 2) -> dict:
    """Wall seconds to a recommendation on an ``n_messages`` session (the raw history, every
    preset and ``trials`` proposed stacks, then the simplification; the budget is only "no invalid
    turn": the synthetic session outgrows the window), in one process and in
    ``workers``, and the stacks tried per second."""
    from playground.analyses.recommend import Budget, recommend

    session = synthetic_session(n_messages)
    settings = Settings(model="claude-sonnet-4-5", context_window=200_000)
    figures = {}
    for n in (1, workers):
        start = time.perf_counter()
        answer = recommend([session], [settings], Budget(max_facts_lost=10**6), trials=trials, workers=n)
        took = time.perf_counter() - start
        rate = len(answer.tried) / took
        best = "none within the budget" if answer.best is None else answer.best.origin
        out(
            f"recommendation on {len(session.messages)} messages, {n} worker(s): {took:.1f} s for "
            f"{len(answer.tried)} stacks ({trials} proposed), {rate:.1f} stacks/s; answer: {best}"
        )
        figures[f"recommend_{n}_workers_s"] = round(took, 2)
    return figures


def compare_redraw(out: Callable[[str], None], path: str, candidates: int = 6, moves: int = 5) -> dict:
    """Server-side seconds the Compare tab takes to redraw after a parameter change with
    ``candidates`` candidates on the session at ``path`` (the browser's drawing comes on top)."""
    from pathlib import Path
    from statistics import median

    from streamlit.testing.v1 import AppTest

    from playground.stacks.presets import PRESETS

    app = Path(__file__).parents[2] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=300).run()
    file = Path(path)
    at.file_uploader(key="session_uploads").set_value((file.name, file.read_bytes(), "application/json"))
    at.run()
    for name in [n for n in PRESETS if PRESETS[n]][:candidates]:
        at.selectbox(key="candidate_preset").set_value(name).run()
    at.session_state["view"] = "Compare"
    first = _timed(at.run)
    eviction = next(e["id"] for e in at.session_state["stack"] if e["name"] == ToolEvictionPolicy.__name__)
    times = []
    for k in range(moves):  # each value new: the edited stack replays, the candidates come from the cache
        at.slider(key=f"param_{eviction}_keep_last_n").set_value(6 + k)
        times.append(_timed(at.run))
    held = len(at.session_state["candidates"])
    out(
        f"compare of {held} candidates on {file.name}: first draw {first:.3f} s, after a parameter "
        f"change median {median(times):.3f} s (server side)"
    )
    return {"compare_first_s": round(first, 3), "compare_redraw_s": round(median(times), 3)}


def corpus(n_sessions: int, out: Callable[[str], None], workers: int = 2) -> dict:
    """Sessions per second of a corpus run of ``n_sessions`` synthetic sessions of mixed length
    with 1 and ``workers`` processes and a Dask LocalCluster of as many, and the parent's peak
    memory (it holds figures, not sessions) at a tenth of the corpus and at all of it."""
    import tempfile
    from pathlib import Path

    from playground.analyses.corpus import Job, run_corpus, sources
    from playground.analyses.runner import RunError, local_cluster
    from playground.formats.openai_chat import to_openai
    from playground.stacks.candidates import Candidate
    from playground.stacks.presets import PRESETS

    rng = random.Random(7)
    job = Job((Candidate("default", tuple(PRESETS["pyagentic recommended"])),), Scenario())
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for k in range(n_sessions):
            session = synthetic_session(rng.randint(20, 400), seed=k)
            (root / "in" / f"{k // 100:03d}").mkdir(parents=True, exist_ok=True)
            (root / "in" / f"{k // 100:03d}" / f"s{k:05d}.json").write_text(
                json.dumps([to_openai(m) for m in session.messages])
            )
        found, _ = sources([str(root / "in")])

        def rate(units, traced: bool = False, **how) -> tuple[float, float]:
            # the parent's memory is traced only where the work runs elsewhere: tracemalloc
            # slows every allocation of the process it traces, and would slow the replays
            if traced:
                tracemalloc.start()
            start = time.perf_counter()
            run_corpus(units, job, root / "out", **how)
            seconds = time.perf_counter() - start
            peak = tracemalloc.get_traced_memory()[1] / 2**20 if traced else 0.0
            tracemalloc.stop()
            return len(units) / seconds, peak

        one, _ = rate(found, workers=1)
        tenth_peak = rate(found[: max(1, n_sessions // 10)], traced=True, workers=workers)[1]
        pool, peak = rate(found, traced=True, workers=workers)
        figures |= {"corpus_one_per_s": round(one, 1), f"corpus_{workers}_per_s": round(pool, 1)}
        out(
            f"corpus of {n_sessions:,} sessions (20 to 400 messages): {one:.1f}/s in one process, "
            f"{pool:.1f}/s with {workers} workers ({pool / one:.2f}x); parent peak memory "
            f"{tenth_peak:.1f} MiB at {max(1, n_sessions // 10):,} sessions, {peak:.1f} MiB at {n_sessions:,}"
        )
        try:
            with local_cluster(workers) as client:
                dask, _ = rate(found, scheduler=client)
        except RunError as error:
            out(f"corpus on Dask: {error}")
            return figures
        figures["corpus_dask_per_s"] = round(dask, 1)
        out(
            f"corpus on a Dask LocalCluster of {workers} workers: {dask:.1f}/s "
            f"({dask / pool:.2f}x the process pool)"
        )
    return figures
