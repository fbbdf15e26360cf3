"""`playground recommend`: the cheapest stack that loses nothing the user cares about."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from typing import Any

from playground.analyses.recommend import ANY, DEFAULT_TRIALS, PRESET, Budget, Recommendation, Tried, money
from playground.analyses.runner import default_workers
from playground.cli.common import UsageError, add_price_argument, with_prices, write_json, write_whole
from playground.stacks.config import Config
from playground.stacks.presets import FRAMEWORK_PRESETS
from policies.base import counted, visible


def add_command(commands: Any) -> None:
    rec = commands.add_parser(
        "recommend", help="search for the cheapest stack within a budget of facts lost, on your sessions"
    )
    rec.add_argument("paths", nargs="+", metavar="PATH", help="transcripts, folders of them, or zip archives")
    rec.add_argument("--model", help="model (tokenizer, prices); default: each session's recorded one")
    rec.add_argument(
        "--max-facts-lost",
        type=int,
        metavar="N",
        help="facts a stack may lose (default 0; where your agent's own policy is the reference, as many "
        "as it loses)",
    )
    rec.add_argument(
        "--max-quotes-lost",
        type=int,
        metavar="N",
        help="lines a later reply copies from an earlier tool result or user message (24 characters or "
        "more) that a stack may lose (default 0; where your agent's own policy is the reference, as many "
        "as it loses)",
    )
    rec.add_argument(
        "--must-keep",
        action="append",
        default=[],
        metavar="FACT",
        help="a fact no recommended stack may lose (text, or /regex/); repeat for more",
    )
    held = rec.add_mutually_exclusive_group()
    held.add_argument(
        "--no-must-keep-lost",
        dest="must_keep_held",
        action="store_true",
        default=True,
        help="no recommended stack may lose a must-keep fact (the default, where any is declared)",
    )
    held.add_argument(
        "--allow-must-keep-lost",
        dest="must_keep_held",
        action="store_false",
        help="must-keep facts are only shown: losing one does not rule a stack out",
    )
    rec.add_argument("--max-refetches", type=int, metavar="N", help="re-fetches a stack may cause")
    rec.add_argument(
        "--percentile",
        type=float,
        default=100.0,
        metavar="P",
        help="over several sessions, the loss limits must hold in P %% of them (default 100: in every one; "
        "no turn may be invalid in any)",
    )
    rec.add_argument(
        "--framework",
        default=ANY,
        choices=[ANY, *FRAMEWORK_PRESETS],
        help="search only this framework's policies, so the answer exports cleanly (default: any)",
    )
    rec.add_argument(
        "--trials", type=int, default=DEFAULT_TRIALS, help=f"stacks to propose (default {DEFAULT_TRIALS})"
    )
    rec.add_argument("--seed", type=int, default=0, help="the sampler's seed: a seed gives the same answer")
    rec.add_argument(
        "--workers", type=int, default=default_workers(), help="worker processes (default: the cores)"
    )
    rec.add_argument("--resume", action="store_true", help="extend the kept study of the same search")
    rec.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT", help="replay the trials on this Dask cluster instead"
    )
    add_price_argument(rec)
    rec.add_argument(
        "-o",
        "--output",
        metavar="BEST.yaml",
        help="write the recommended stack as a config, at the session's model and window",
    )
    rec.add_argument(
        "--agent-settings",
        metavar="OUT",
        help="write the recommended stack as the agent's own settings file (Claude Code settings.json, "
        "Codex config.toml), with a note for each part the agent cannot express",
    )
    rec.add_argument("--json", metavar="OUT", help="write every stack tried with its figures as JSON")


def run_recommend(args: argparse.Namespace) -> int:
    from playground.analyses.corpus import sources
    from playground.analyses.recommend import recommend
    from playground.formats import read_bytes
    from playground.measures.must_keep import MustKeepError
    from playground.measures.must_keep import parse as parse_must_keep
    from playground.models.plausible import plausible

    missing = [path for path in args.paths if not os.path.lexists(path)]
    if missing:
        raise UsageError("no such file or directory: " + ", ".join(visible(p) for p in missing))
    limits = (args.max_facts_lost, args.max_quotes_lost, args.max_refetches)
    if min(limit or 0 for limit in limits) < 0:
        raise UsageError("--max-facts-lost, --max-quotes-lost and --max-refetches must be 0 or more")
    if not 0 < args.percentile <= 100:  # NaN fails too
        raise UsageError("--percentile must be over 0 and at most 100")
    found, passed = sources(args.paths)
    for label, reason in passed:
        print(f"playground: passed over {visible(label)}: {visible(reason)}", file=sys.stderr)
    sessions = [s for source in found for s in plausible(read_bytes(source.read(), source.label))]
    if not sessions:
        raise UsageError("no transcripts found under " + ", ".join(args.paths))
    config = Config()
    if args.model:
        config.name_model(args.model)
    with_prices(config, args.price)
    try:
        must_keep = parse_must_keep(args.must_keep, "--must-keep") if args.must_keep else ()
    except MustKeepError as error:
        raise UsageError(str(error)) from None
    given = any(limit is not None for limit in limits) or args.percentile != 100 or not args.must_keep_held
    budget = (
        Budget(
            args.max_facts_lost or 0,
            args.must_keep_held,
            args.max_refetches,
            args.percentile,
            args.max_quotes_lost or 0,
        )
        if given
        else None  # the default: no more loss than the agent's own policy where it is the reference, else none
    )
    tty = sys.stderr.isatty()

    def progress(done: int, planned: int, best: Tried | None) -> None:
        if tty:
            print(f"\rplayground: {done}/{planned} stacks tried", end="", file=sys.stderr, flush=True)

    answer = recommend(
        sessions,
        [config.settings_for(s) for s in sessions],
        budget,
        pricing=config.pricing,
        must_keep=must_keep,
        framework=args.framework,
        trials=args.trials,
        seed=args.seed,
        workers=args.workers,
        resume=args.resume,
        scheduler=args.scheduler,
        progress=progress,
    )
    if tty:
        print(file=sys.stderr)
    print(report(answer, len(sessions)))
    if answer.best is not None and (args.output or args.agent_settings):
        config.stack, config.must_keep = list(answer.best.stack), tuple(must_keep)
        if not args.model:  # the model and window every session was replayed at, where they agree
            chosen = {(s.model, s.context_window) for s in (config.settings_for(x) for x in sessions)}
            if len(chosen) == 1:
                (model, window), *_ = chosen
                config.name_model(model)
                config.settings = replace(config.settings, context_window=window)
        if args.output:
            write_whole(args.output, lambda out: out.write(config.to_yaml()))
        if args.agent_settings:
            from playground.export import export
            from playground.export.agent_settings import AGENT_TARGETS

            target = AGENT_TARGETS.get(sessions[0].format)
            if target is None:
                raise UsageError(
                    f"--agent-settings: {sessions[0].format} sessions have no agent settings file"
                )
            written = export(config.stack, config.settings, target)
            for line in written.unexpressible:
                print(f"note: {visible(str(line))}", file=sys.stderr)
            write_whole(args.agent_settings, lambda out: out.write(written.text))
    if args.json:
        write_whole(args.json, lambda out: write_json(out, as_data(answer)))
    return 0


def report(answer: Recommendation, sessions: int) -> str:
    """The answer in words: the stack, its figures against the raw history, the recorded
    calls and the best preset, and what each policy does for it."""
    objective = answer.objective
    presets = sum(t.kind == PRESET for t in answer.tried)
    searched = len(answer.tried) - presets - answer.trials - 1
    lines = [
        f"searched {len(answer.tried):,} stacks on {counted(sessions, 'session')} in {answer.seconds:.1f} s: the raw "
        f"history, {presets} presets, {searched:,} from the grid and the local search (presets less a "
        f"policy among them), {answer.trials} proposed by the sampler; budget: {answer.budget.said()}"
    ]
    if answer.stopped_said():
        lines.append(answer.stopped_said())
    lines += [f"note: {note}" for note in answer.notes]
    best = answer.best
    lines.append(f"answer: {answer.verdict()}")
    if best is None:
        return "\n".join(lines)
    if not best.stack:
        lines.append("recommended: the raw history.")
    else:
        lines.append(f"recommended ({best.origin}):")
        lines += [f"  {i}. {spec.name} {json.dumps(spec.params)}" for i, spec in enumerate(best.stack, 1)]
    preset = answer.best_preset
    rows = [
        ("recommended", best),
        *([("your agent's own policy", answer.own)] if answer.own is not None else []),
        ("raw history", answer.raw),
        (f"best preset: {preset.origin}" if preset else "best preset", preset),
    ]
    width = max(len(label) for label, _ in rows)
    lines.append(f"  {'':{width}}  {'cost':>12}  facts lost  copied lines lost")
    for label, tried in rows:
        if tried is None:
            lines.append(f"  {label:{width}}  none within the budget")
            continue
        if not tried.ran:
            lines.append(f"  {label:{width}}  {'did not run' if tried.error else 'stopped early'}")
            continue
        cost = money(tried.total(objective) or 0.0, objective)
        facts, quotes = tried.total("distinct_facts_lost") or 0, tried.total("distinct_quotes_lost") or 0
        lines.append(f"  {label:{width}}  {cost:>12}  {facts:>10,.0f}  {quotes:>17,.0f}")
    recorded = [s.recorded_cost_usd for s in best.sessions]
    if objective == "cost_usd" and recorded and all(r is not None for r in recorded):
        lines.append(f"  as recorded (what the agent sent): {money(sum(recorded), objective)}")
    lines += [f"  why: {line}" for line in answer.why()]
    return "\n".join(lines)


def as_data(answer: Recommendation) -> dict[str, Any]:
    def tried(t: Tried) -> dict[str, Any]:
        return {
            "origin": t.origin,
            "kind": t.kind,
            "stack": [{s.name: s.params} for s in t.stack],
            "feasible": t.feasible,
            "error": t.error,
            "stopped": t.stopped,
            "cost": t.total(answer.objective),
            "facts_lost": t.total("distinct_facts_lost"),
            "quotes_lost": t.total("distinct_quotes_lost"),
            "sessions": [s.as_dict() for s in t.sessions],
        }

    best = answer.best
    return {
        "budget": answer.budget.said(),
        "objective": answer.objective,
        "seconds": answer.seconds,
        "study": answer.study,
        "best": None if best is None else tried(best),
        "why": answer.why(),
        "front": [tried(t) for t in answer.front()],
        "tried": [tried(t) for t in answer.tried],
    }
