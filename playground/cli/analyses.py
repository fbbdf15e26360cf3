"""`playground compare` and `playground sweep`: candidates side by side, a parameter's front."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from playground.analyses.compare import Comparison, compare, display_table, unique_name
from playground.analyses.runner import default_workers
from playground.analyses.sweep import COST_AXES, LOSS_AXES, Sweep, parse_axis, run_sweep
from playground.cli.common import add_price_argument, sessions_in, shell_word, with_prices
from playground.cli.text_table import text_table, write_csv
from playground.engine.session import Session
from playground.engine.tokens import TokenCounter
from playground.limits import LIMITS
from playground.measures.evaluate import evaluate
from playground.stacks.candidates import Candidate
from playground.stacks.config import Config, load_config
from playground.stacks.presets import PRESETS
from policies.base import visible


def add_commands(commands: Any) -> None:
    cmp = commands.add_parser("compare", help="replay one session through several stacks, side by side")
    cmp.add_argument("file", metavar="SESSION", help="the transcript")
    cmp.add_argument(
        "stacks",
        nargs="+",
        metavar="STACK",
        help="a config file (its candidates:, or its stack) or a preset's name; the first sets the "
        "model, window, pricing and summarizer",
    )
    cmp.add_argument("--baseline", help="the candidate deltas are taken against (default: the first)")
    _common(cmp)

    swp = commands.add_parser("sweep", help="replay a stack at every value of one or two parameters")
    swp.add_argument("file", metavar="SESSION", help="the transcript")
    stack = swp.add_mutually_exclusive_group()
    stack.add_argument("--config", help="stack config; default: pyagentic's recommended stack")
    stack.add_argument("--preset", help="a built-in stack by name")
    swp.add_argument(
        "--param",
        action="append",
        required=True,
        metavar="POS.NAME=RANGE",
        help="a parameter and its values: 2.keep_last_n=1:30, 1.max_chars=2000:16000:2000, "
        "3.flavour=anthropic,langchain; twice for a grid",
    )
    swp.add_argument(
        "--workers", type=int, default=default_workers(), help="worker processes (default: the core count)"
    )
    swp.add_argument(
        "--loss",
        choices=list(LOSS_AXES),
        default="distinct_facts_lost",
        help="what the front weighs cost against (default: facts lost)",
    )
    _common(swp)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", help="which session of a multi-session file: index from 0, or name")
    parser.add_argument("--model", help="model (tokenizer, prices); overrides the config's")
    add_price_argument(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", metavar="OUT", help="write the figures as JSON ('-' for stdout)")
    out.add_argument("--csv", metavar="OUT", help="write the figures as CSV ('-' for stdout)")


def load_stack(written: str) -> tuple[Config, list[Candidate]]:
    """A config file's candidates (or its stack, named by the file), or a preset by name."""
    from playground.cli.common import UsageError

    if not os.path.exists(written) and written in PRESETS:
        return Config(stack=list(PRESETS[written])), [Candidate(written, tuple(PRESETS[written]))]
    if not os.path.exists(written):
        raise UsageError(f"{written}: no such config file or preset (`playground presets` lists them)")
    config = load_config(written)
    if config.candidates:
        return config, list(config.candidates)
    return config, [Candidate(Path(written).stem, tuple(config.stack))]


def candidates_of(stacks: list[str], model: str | None) -> tuple[Config, list[Candidate]]:
    """Every candidate the arguments name and the settings of the first. On the user's own
    machine there is no cap (``max_candidates`` is the app's, for a shared server)."""

    first: Config | None = None
    found: list[Candidate] = []
    for written in stacks:
        config, candidates = load_stack(written)
        if first is None:
            first = config
        elif _settings(config) != _settings(first) and written not in PRESETS:
            print(
                f"playground: note: {visible(written)} sets another model, window, pricing or "
                f"summarizer; every candidate is replayed with {visible(stacks[0])}'s",
                file=sys.stderr,
            )
        for candidate in candidates:
            taken = [c.name for c in found]
            found.append(Candidate(unique_name(candidate.name, taken), candidate.stack))
    assert first is not None  # argparse requires one STACK
    if model:
        first.name_model(model)
    return first, found


def _settings(config: Config) -> tuple:
    return (config.settings.key(), config.pricing)


def run_compare(args: argparse.Namespace) -> int:
    from playground.cli.common import UsageError, pick_session

    config, candidates = candidates_of(args.stacks, args.model)
    with_prices(config, args.price)
    names = [c.name for c in candidates]
    if args.baseline is not None and args.baseline not in names:
        raise UsageError(f"--baseline {args.baseline!r}: not a candidate (candidates: {', '.join(names)})")
    session = pick_session(sessions_in(args.file), args.session, args.file)
    scenario = config.scenario_for(session)
    counter = TokenCounter(scenario.settings.model)
    figures = {c.name: evaluate(session, c.stack, scenario, counter).totals for c in candidates}
    comparison = compare(figures, args.baseline)
    _header(session, config, sys.stderr if _to_stdout(args) else sys.stdout)
    print(comparison_table(comparison), file=sys.stderr if _to_stdout(args) else sys.stdout)
    rows = comparison.rows()
    _write_rows(args, rows, {"baseline": comparison.baseline, "candidates": rows})
    return 0


def comparison_table(comparison: Comparison) -> str:
    """The comparison as text, the best of each row starred."""
    cells, best = display_table(comparison)
    starred = cells.where(~best, cells + " *")
    note = "* the best value of the row; (±n) the difference from the baseline"
    return starred.to_string() + "\n" + note


def run_sweep_command(args: argparse.Namespace) -> int:
    from playground.cli.common import UsageError, pick_session, preset_config
    from playground.stacks.presets import DEFAULT_PRESET

    config = load_config(args.config) if args.config else preset_config(args.preset or DEFAULT_PRESET)
    if args.model:
        config.name_model(args.model)
    with_prices(config, args.price)
    if not 1 <= args.workers <= LIMITS.max_sweep_workers:
        raise UsageError(f"--workers must be from 1 to {LIMITS.max_sweep_workers}")
    axes = [parse_axis(text, config.stack) for text in args.param]
    session = pick_session(sessions_in(args.file), args.session, args.file)
    tty = sys.stderr.isatty()
    sweep = run_sweep(
        session,
        config.stack,
        axes,
        config.settings_for(session),
        config.pricing,
        config.must_keep,
        workers=args.workers,
        progress=_progress if tty else None,
    )
    if tty:
        print(file=sys.stderr)
    out = sys.stderr if _to_stdout(args) else sys.stdout
    _header(session, config, out)
    print(sweep_table(sweep, args.loss), file=out)
    rows = sweep.rows(args.loss)
    document = {
        "axes": [
            {"entry": a.position, "policy": a.policy, "param": a.param, "values": a.values} for a in axes
        ],
        "cost": sweep.cost_axis(),
        "loss": args.loss,
        "points": rows,
    }
    _write_rows(args, rows, document)
    return 0


def sweep_table(sweep: Sweep, loss: str) -> str:
    cost = sweep.cost_axis()
    front = sweep.front(loss, cost)
    rows = []
    for point, on_front in zip(sweep.points, front, strict=True):
        row: dict[str, Any] = {a.label: v for a, v in zip(sweep.axes, point.values, strict=True)}
        row[COST_AXES[cost]] = point.totals[cost]
        row[LOSS_AXES[loss]] = point.totals[loss]
        row["invalid turns"] = point.totals.turns_with_violations
        row["front"] = "*" if on_front else ""
        row["note"] = point.error or ("requests break the API's rules" if point.invalid else "")
        rows.append(row)
    on = [
        ", ".join(f"{a.label}={v}" for a, v in zip(sweep.axes, p.values, strict=True))
        for p, f in zip(sweep.points, front, strict=True)
        if f
    ]
    return (
        text_table(rows)
        + f"\nfront (lowest {COST_AXES[cost]} for its {LOSS_AXES[loss]}): {'; '.join(on) or 'none'}"
    )


def _header(session: Session, config: Config, out: Any) -> None:
    settings = config.settings_for(session)
    print(visible(f"{session.name} ({session.file}): {len(session.messages)} messages"), file=out)
    print(visible(f"model {settings.model}, window {settings.context_window:,}"), file=out)


def _progress(done: int, planned: int) -> None:
    width = 30
    filled = width * done // max(planned, 1)
    bar = "#" * filled + "." * (width - filled)
    print(f"\rsweeping [{bar}] {done}/{planned} points", end="", file=sys.stderr, flush=True)


def _to_stdout(args: argparse.Namespace) -> bool:
    return "-" in (args.json, args.csv)


def _write_rows(args: argparse.Namespace, rows: list[dict], document: dict) -> None:
    from playground.cli.common import write_json, write_whole

    if args.json:
        write_whole(args.json, lambda out: write_json(out, document))
    if args.csv:
        write_whole(args.csv, lambda out: write_csv(rows, out))


def add_corpus_command(commands: Any) -> None:
    cor = commands.add_parser("corpus", help="replay every session of many files under one or more stacks")
    cor.add_argument(
        "paths", nargs="+", metavar="PATH", help="files, directories (recursively) or .zip archives"
    )
    cor.add_argument(
        "--config",
        action="append",
        metavar="STACK",
        help="a config file (its candidates:, or its stack) or a preset's name; repeat to compare "
        "(deltas against the first); default: pyagentic's recommended stack",
    )
    cor.add_argument("--model", help="model (tokenizer, prices); overrides the first config's")
    add_price_argument(cor)
    cor.add_argument(
        "--workers", type=int, default=default_workers(), help="worker processes (default: cores)"
    )
    cor.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask cluster instead")
    cor.add_argument("--out", default="corpus-results", help="directory for the Parquet results")
    cor.add_argument("--resume", action="store_true", help="keep what an earlier run finished, run the rest")
    cor.add_argument("--json", metavar="OUT", help="write the per-stack summary and worst sessions as JSON")


def run_corpus_command(args: argparse.Namespace) -> int:
    from playground.analyses.corpus import Job, deltas, read_sessions, run_corpus, sources, summary, worst
    from playground.cli.common import UsageError
    from playground.stacks.presets import DEFAULT_PRESET

    written = args.config or [DEFAULT_PRESET]
    config, stacks = candidates_of(written, args.model)
    with_prices(config, args.price)
    # the command that replays one session alone names the stack as it was given
    origins = (
        dict(zip([s.name for s in stacks], written, strict=False)) if len(stacks) == len(written) else {}
    )
    if not 1 <= args.workers <= LIMITS.max_sweep_workers:
        raise UsageError(f"--workers must be from 1 to {LIMITS.max_sweep_workers}")
    missing = [path for path in args.paths if not os.path.lexists(path)]
    if missing:  # a mistyped path: said before any work, not passed over among the rest
        raise UsageError("no such file or directory: " + ", ".join(visible(p) for p in missing))
    found, passed = sources(args.paths)
    for label, reason in passed:
        print(f"playground: passed over {visible(label)}: {visible(reason)}", file=sys.stderr)
    if not found:
        raise UsageError("no transcripts found under " + ", ".join(args.paths))
    job = Job(tuple(stacks), config.scenario, config.model_given)
    tty = sys.stderr.isatty()
    figures = run_corpus(
        found,
        job,
        args.out,
        workers=args.workers,
        resume=args.resume,
        scheduler=args.scheduler,
        progress=_corpus_progress if tty else None,
    )
    if tty:
        print(file=sys.stderr)
    for note in figures.notes:
        print(f"playground: note: {visible(note)}", file=sys.stderr)
    frame = read_sessions(args.out)
    names = [s.name for s in stacks]
    ran = f"{figures.done} ran in {figures.seconds:.1f} s" + (
        f", {figures.skipped} kept from before" if figures.skipped else ""
    )
    print(f"{len(found)} files ({ran}); results in {visible(args.out)}/sessions and /turns (Parquet)")
    failed = frame[frame["error"] != ""]
    for row in failed.itertuples():
        print(f"unreadable or failed: {visible(row.error)}")
    table = summary(frame, names)
    print(table.to_string(index=False, na_rep="-"))
    report: dict[str, Any] = {"summary": table.to_dict(orient="records"), "worst": {}}
    for name in names:
        for title, rows in worst(frame, name):
            if rows.empty:
                continue
            print(f"\n{visible(name)}: {title}")
            for row in rows.itertuples():
                print(
                    f"  {visible(row.session)}: {int(row.distinct_facts_lost)} fact(s) lost, "
                    f"{_money(row.saved_usd)}  ->  {replay_command(str(row.source), row.session_index, origins.get(name))}"
                )
            report["worst"].setdefault(name, {})[title] = rows.to_dict(orient="records")
    if len(names) > 1:
        changes = deltas(frame, names)
        for name in names[1:]:
            own = changes[changes["stack"] == name]
            print(
                f"\n{visible(name)} against {visible(names[0])}: cost per session median "
                f"{own['delta_cost_usd'].median():+.4f} $, higher on {(own['delta_cost_usd'] > 0).sum()} of "
                f"{len(own)}; facts lost median {own['delta_distinct_facts_lost'].median():+.1f}, more on "
                f"{(own['delta_distinct_facts_lost'] > 0).sum()}"
            )
        report["deltas"] = changes.to_dict(orient="records")
    if args.json:
        from playground.cli.common import write_json, write_whole

        write_whole(args.json, lambda out: write_json(out, report))
    return 0


def _money(saved: float | None) -> str:
    """What a stack saved against raw history on a session, in words."""
    if saved is None or saved != saved:  # no price known for the model
        return "no price known"
    return f"saved ${saved:.4f}" if saved >= 0 else f"added ${-saved:.4f}"


def replay_command(source: str, session_index: int, origin: str | None) -> str:
    """The command that replays one session of a corpus: every name in it one shell word."""
    stack = ""
    if origin in PRESETS:
        stack = f" --preset {shell_word(origin)}"
    elif origin:
        stack = f" --config {shell_word(origin)}"
    archive, _, member = source.partition(".zip:")
    replay = f"--session {int(session_index)}{stack}"
    if member:  # the CLI reads files: take the member out of the archive first
        # unzip reads a member's name as a pattern: its wildcards escaped, it names that one member
        literal = re.sub(r"([\[\]*?\\])", r"\\\1", member)
        return (
            f"unzip -p {shell_word(archive + '.zip')} {shell_word(literal)} > member.json && "
            f"playground replay member.json {replay}"
        )
    return f"playground replay {shell_word(source)} {replay}"


def _corpus_progress(figures: Any) -> None:
    width = 30
    total = figures.units - figures.skipped
    filled = width * figures.done // max(total, 1)
    rate = figures.done / figures.seconds if figures.seconds else 0.0
    eta = (total - figures.done) / rate if rate else 0.0
    print(
        f"\rcorpus [{'#' * filled}{'.' * (width - filled)}] {figures.done}/{total} files, "
        f"{rate:.1f}/s, ETA {eta:.0f} s",
        end="",
        file=sys.stderr,
        flush=True,
    )
