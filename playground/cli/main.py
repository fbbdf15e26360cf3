"""`playground`: validate transcripts, replay them through a stack (or several, or a sweep), export it, benchmark.

Exit 0 on success; 2 with one line on stderr naming the file and the problem for bad
input or a bad config. Never a traceback for what a user gave us.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any, TextIO

from playground.cli.analyses import add_commands as add_compare_commands
from playground.cli.analyses import add_corpus_command, run_compare, run_corpus_command, run_sweep_command
from playground.cli.app import add_command as add_app_command
from playground.cli.app import run as run_app
from playground.cli.common import (
    UsageError,
    add_price_argument,
    default_config,
    pick_session,
    preset_config,
    sessions_in,
    with_prices,
    write_json,
    write_whole,
)
from playground.cli.compactions import add_command as add_compactions_command
from playground.cli.recommend import add_command as add_recommend_command
from playground.cli.screenshot import add_command as add_screenshot_command
from playground.cli.text_table import text_table, write_csv
from playground.engine.defaults import DEFAULT_MODEL
from playground.engine.replay import NO_TURNS, ReplayResult
from playground.engine.session import Session, TranscriptError
from playground.engine.tokens import TokenCounter
from playground.engine.validity import check_request
from playground.export import TARGETS, export
from playground.formats import contexts_file, read_path
from playground.limits import LimitError, limits_table
from playground.measures.must_keep import MustKeepError
from playground.measures.must_keep import parse as parse_must_keep
from playground.money.caching import RULES
from playground.stacks.config import Config, ConfigError, load_config
from playground.stacks.presets import PRESETS, presets_by_framework
from playground.summaries.base import SummarizerError, SummaryStats
from playground.summaries.endpoints import EndpointError, choose_key
from policies.base import counted, visible
from policies.registry import SpecError, load_plugins

if TYPE_CHECKING:  # the metrics load when a replay is reported
    from playground.analyses.own_policy import OwnPolicy
    from playground.measures.evaluate import Evaluation, Scenario
    from playground.measures.metrics import TurnTable

TABLE_COLUMNS = [
    "turn",
    "raw_tokens",
    "context_tokens",
    "recorded_prompt_tokens",
    "context_messages",
    "stubs_created",
    "stubs_held",
    "clips",
    "drops",
    "compactions",
    "thrash",
    "violations",
    "refetches",
    "facts_lost",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd",
    "raw_cost_usd",
]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playground", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    validate = commands.add_parser(
        "validate", help="read transcripts and report what they hold and what is wrong"
    )
    validate.add_argument("files", nargs="+", metavar="FILE")
    validate.add_argument("--model", default=DEFAULT_MODEL, help="model whose tokenizer counts raw tokens")

    rep = commands.add_parser("replay", help="replay sessions through a policy stack")
    rep.add_argument("files", nargs="+", metavar="FILE")
    rep.add_argument(
        "--plugins", metavar="MODULE:CLASS,...", help="custom policy classes to import and register"
    )
    stack = rep.add_mutually_exclusive_group()
    stack.add_argument("--config", help="stack config (YAML or JSON); default: pyagentic's recommended stack")
    stack.add_argument("--preset", help="a built-in stack by name (`playground presets` lists them)")
    rep.add_argument("--model", help="model (sets the tokenizer); overrides the config's")
    rep.add_argument("--session", help="which session of a multi-session file: index from 0, or name")
    rep.add_argument("--price-as", metavar="MODEL", help="price as this model (default: --model's)")
    rep.add_argument(
        "--cache",
        choices=["auto", *RULES],
        help="the provider's prompt-cache rule to price with (default: auto, the model's provider)",
    )
    add_price_argument(rep)
    rep.add_argument(
        "--must-keep",
        action="append",
        default=[],
        metavar="FACT",
        help="a fact the agent must never lose (text, or /regex/), checked at every turn; repeat for more",
    )
    rep.add_argument("--json", metavar="OUT", help="write turns, events and summary as JSON ('-' for stdout)")
    rep.add_argument("--csv", metavar="OUT", help="write the per-turn figures as CSV ('-' for stdout)")
    rep.add_argument(
        "--contexts", metavar="OUT", help="write each turn's request as JSON Lines ('-' for stdout)"
    )
    rep.add_argument(
        "--contexts-form",
        choices=contexts_file.FORMS,
        default="auto",
        help="full: every request whole; delta: what each request keeps of the previous one and "
        f"its new messages; auto (default): delta once the requests hold over "
        f"{contexts_file.AUTO_DELTA_MESSAGES:,} messages in all",
    )

    bench = commands.add_parser("bench", help="time the replay engine on a synthetic session")
    bench.add_argument("--messages", type=int, default=2000, help="messages in the synthetic session")
    bench.add_argument(
        "--large",
        type=int,
        metavar="N",
        help="also time the replay and quality pass, default and extended stack, on an N-message session",
    )
    bench.add_argument(
        "--no-policy-memory",
        type=int,
        metavar="N",
        help="also measure the peak memory of replaying an N-message session with no policy",
    )
    bench.add_argument(
        "--redraw",
        type=int,
        metavar="N",
        help="also time the app's rerun after a slider move on an N-message session",
    )
    bench.add_argument(
        "--recommend-trials",
        type=int,
        default=0,
        metavar="N",
        help="also time a recommendation proposing N stacks on the --messages session (one worker, two)",
    )
    bench.add_argument(
        "--sweep-points",
        type=int,
        default=30,
        metavar="N",
        help="time an N-point sweep on a 300-message session, 1 and 2 workers (0: skip)",
    )
    bench.add_argument(
        "--corpus",
        type=int,
        metavar="N",
        help="time a corpus run of N synthetic sessions: 1 and 2 workers, a Dask LocalCluster",
    )
    bench.add_argument(
        "--compare",
        metavar="FILE",
        help="also time the Compare tab's redraw with 6 candidates on FILE after a parameter change",
    )
    bench.add_argument(
        "--browser",
        type=int,
        default=300,
        metavar="N",
        help="time the Charts tab in Chromium on an N-message session: the first chart, a slider step "
        "and a preset change, as a user sees them (needs the test extra and chromium; 0: skip)",
    )
    bench.add_argument(
        "--first-chart",
        type=int,
        default=0,
        metavar="N",
        help="time the first chart on a server just started, beside a bare Streamlit page of one "
        "Plotly chart, N rounds (needs the test extra and chromium; 0: skip)",
    )
    bench.add_argument(
        "--browser-compare",
        metavar="FILE",
        help="time the same redraw in Chromium, as a user sees it (needs the test extra and chromium)",
    )
    bench.add_argument(
        "--startup",
        metavar="FILE",
        help="also time the CLI's replay of FILE against starting the interpreter and the encoder",
    )
    commands.add_parser("limits", help="print every limit on what one input may cost, and its setting")
    commands.add_parser("presets", help="list the built-in stacks, by the framework they come from")
    exp = commands.add_parser("export", help="write a stack as a framework's code or config")
    exp.add_argument(
        "config", metavar="CONFIG", help="stack config (YAML or JSON), or a preset's name with --preset"
    )
    exp.add_argument("--to", required=True, choices=list(TARGETS), help="the framework to write for")
    exp.add_argument("--preset", action="store_true", help="CONFIG names a built-in preset")
    exp.add_argument("-o", "--output", help="write to this file (default: stdout)")
    exp.add_argument(
        "--session",
        metavar="FILE",
        help="replay your stack and the exported one on this transcript and say both figures",
    )
    add_compare_commands(commands)
    add_corpus_command(commands)
    add_recommend_command(commands)
    add_compactions_command(commands)
    add_app_command(commands)
    add_screenshot_command(commands)
    return parser


def options_markdown() -> str:
    """Every command and its options as the docs' CLI page shows them, made from the parser."""
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    out = []
    for name, command in commands.choices.items():
        out += ["", f"### playground {name}", "", f"{(helps.get(name) or '').capitalize()}.", ""]
        out += ["| argument | what it does |", "|---|---|"]
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            flags = ", ".join(action.option_strings) or (action.metavar or action.dest)
            if action.option_strings and action.nargs != 0:
                flags += f" {action.metavar or action.dest.upper()}"
            default = action.default
            said = action.help or ""
            if default not in (None, False, argparse.SUPPRESS, []) and action.option_strings:
                said += f" (default: {default})"
            said = said.replace("|", "\\|")
            out.append(f"| `{flags}` | {said} |")
    return "\n".join(out).lstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "validate":
            return _validate(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "limits":
            return _limits()
        if args.command == "presets":
            return _presets()
        if args.command == "export":
            return _export(args)
        if args.command == "compare":
            return run_compare(args)
        if args.command == "sweep":
            return run_sweep_command(args)
        if args.command == "corpus":
            return run_corpus_command(args)
        if args.command == "app":
            return run_app(args)
        if args.command == "screenshot":
            from playground.cli.screenshot import run as take_screenshot

            return take_screenshot(args)
        if args.command == "compactions":
            from playground.cli.compactions import run as run_compactions

            return run_compactions(args)
        if args.command == "recommend":
            from playground.cli.recommend import run_recommend

            return run_recommend(args)
        return _bench(args)
    except _user_errors() as error:
        print(f"playground: {visible(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("playground: interrupted", file=sys.stderr)
        return 130


def _user_errors() -> tuple[type[Exception], ...]:
    """The errors a command reports in a line of its own, never as a traceback: evaluated when
    one is raised, so the modules only some commands use are not loaded to start."""
    from playground.analyses.corpus import CorpusError
    from playground.analyses.recommend import RecommendError
    from playground.analyses.runner import RunError
    from playground.analyses.sweep import SweepError
    from playground.export import ExportError

    return (
        TranscriptError,
        ConfigError,
        SpecError,
        SummarizerError,
        UsageError,
        LimitError,
        MustKeepError,
        ExportError,
        SweepError,
        CorpusError,
        RecommendError,
        RunError,
    )


def _presets() -> int:
    for framework, names in presets_by_framework().items():
        print(f"{framework}:")
        for name in names:
            stack = " -> ".join(spec.name for spec in PRESETS[name]) or "(no policies)"
            print(f"  {name}: {stack}")
    return 0


def _export(args: argparse.Namespace) -> int:
    """The nearest stack the target expresses, each change said; with ``--session``, both
    stacks replayed on it and their figures said, so the user knows what the file costs."""
    config = preset_config(args.config) if args.preset else load_config(args.config)
    from playground.analyses.export_check import export_check
    from playground.export.nearest import nearest_stack

    if args.session:
        session = pick_session(sessions_in(args.session), None, args.session)
        check = export_check(
            session, config.stack, config.settings_for(session), args.to, config.pricing, config.must_keep
        )
        result = check.export
    else:
        result = export(nearest_stack(config.stack, config.settings, args.to).stack, config.settings, args.to)
    if args.output:
        write_whole(args.output, lambda out: out.write(result.text))
    else:
        sys.stdout.write(result.text)
    # the changes made to fit the target, and what it cannot express: the list the output
    # opens with (if it can), where a person sees it
    for line in result.unexpressible:
        print(f"playground: {args.to}: {visible(str(line))}", file=sys.stderr)
    if args.session:
        print(f"playground: on {visible(session.name)}: {check.line()}", file=sys.stderr)
    return 0


def _limits() -> int:
    rows = limits_table()
    width = max(len(setting) for setting, _, _ in rows)
    digits = max(len(value) for _, value, _ in rows)
    for setting, value, about in rows:
        print(f"{setting:<{width}}  {value:>{digits}}  {about}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    counter = TokenCounter(args.model)
    failed = False
    for file in args.files:
        try:
            sessions = sessions_in(file)
        except TranscriptError as error:
            print(f"playground: {visible(str(error))}", file=sys.stderr)
            failed = True
            continue
        for number, session in enumerate(sessions):
            _describe(session, number, len(sessions), counter)
    return 2 if failed else 0


def _describe(session: Session, number: int, of: int, counter: TokenCounter) -> None:
    label = f"{session.file}" + (f" [session {number}: {session.name}]" if of > 1 else "")
    problems = [str(w) for w in session.warnings]
    problems += [f"message {v.position}: {v.detail}" for v in check_request(session.messages)]
    print(visible(label))
    print(f"  format:          {session.format}")
    print(f"  messages:        {len(session.messages):,}")
    print(f"  tool calls:      {session.tool_calls:,}")
    print(f"  assistant turns: {session.turns:,}")
    print(f"  raw tokens:      {counter.total(session.messages):,} ({visible(counter.encoding_note)})")
    print(f"  recorded usage:  {_recorded(session)}")
    if session.models:
        print(f"  model:           {visible(session.recorded_model)}")
    if session.parent:
        print(f"  subagent of:     {visible(session.parent)}")
    for compaction in session.compactions:
        before = f", {compaction.pre_tokens:,} tokens before" if compaction.pre_tokens is not None else ""
        print(
            f"  compaction:      before message {compaction.at} ({visible(compaction.trigger or 'trigger not recorded')}"
            f"{before}; summary {len(compaction.summary):,} characters)"
        )
    print(f"  warnings:        {len(problems)}")
    for problem in problems:
        print(f"    - {visible(problem)}")


def _recorded(session: Session) -> str:
    """What the file records of the provider's counts, summed over the replies."""
    if not session.usage:
        if session.outputs:
            return f"output tokens only: {len(session.outputs):,} replies, {sum(session.outputs.values()):,} tokens"
        return "no"
    parts = [f"{len(session.usage):,} replies, {sum(session.usage.values()):,} prompt tokens"]
    for label, figures in (
        ("cache reads", session.cache_reads),
        ("cache writes", session.cache_writes),
        ("output", session.outputs),
    ):
        if figures:
            parts.append(f"{sum(figures.values()):,} {label}")
    return ", ".join(parts)


def _replay(args: argparse.Namespace) -> int:
    plugins = ",".join(p for p in (os.environ.get("PLAYGROUND_PLUGINS"), args.plugins) if p)
    load_plugins(plugins)
    if args.preset is not None:
        config = preset_config(args.preset)
    else:
        config = load_config(args.config) if args.config else default_config()
    if args.model:
        config.name_model(args.model)
    if args.price_as or args.cache:
        config.pricing = replace(
            config.pricing,
            model=args.price_as or config.pricing.model,
            cache=args.cache or config.pricing.cache,
        )
    with_prices(config, args.price)
    if args.must_keep:
        declared = [fact.text for fact in config.must_keep] + args.must_keep
        try:
            config.must_keep = parse_must_keep(declared, "--must-keep")
        except MustKeepError as error:
            raise UsageError(str(error)) from None
    if config.settings.summarizer.fetches:  # the user should know where their key goes
        try:
            choice = choose_key(config.settings.summarizer.setting("base_url"), None, hosted=False)
        except EndpointError as error:
            raise ConfigError(f"summarizer: {error}") from None
        print(f"playground: {visible(choice.notice)}", file=sys.stderr)
    for file in args.files:
        _replay_file(file, args, config)
    return 0


def _replay_file(file: str, args: argparse.Namespace, config: Config) -> None:
    from playground.measures.baseline import file_figures, which_session
    from playground.measures.evaluate import evaluate

    sessions = sessions_in(file)
    session = pick_session(sessions, args.session, file)
    for warning in session.warnings:  # what the reader noticed and did not change: said before figures
        print(visible(f"warning: {session.name}: {warning}"), file=sys.stderr)
    slow = config.settings.summarizer.fetches and sys.stderr.isatty()
    try:
        evaluated = evaluate(
            session, config.stack, config.scenario_for(session), progress=_progress_bar if slow else None
        )
    finally:
        if slow:
            print(file=sys.stderr)
    result, table = evaluated.result, evaluated.table
    columns = TABLE_COLUMNS + (["must_keep_lost"] if config.must_keep else [])
    out = sys.stderr if _any_stdout(args) else sys.stdout
    own = reference_for(evaluated, config.scenario_for(session))
    _print_table(result, table, columns, out, which_session(session, sessions), own)
    if args.json:
        data = replay_json(result, config, table)
        data["summary"].update(file_figures(sessions, session))
        data["own_policy"] = own_policy_json(evaluated, own)
        write_whole(args.json, lambda out: write_json(out, data))
    if args.csv:
        write_whole(args.csv, lambda out: write_csv(table.rows, out))
    if args.contexts:
        form = contexts_file.chosen_form(result, args.contexts_form)
        if form != args.contexts_form:
            print(
                f"contexts: {form} form ({sum(t.size for t in result.turns):,} messages in all the "
                "requests); --contexts-form full or delta to choose",
                file=sys.stderr,
            )
        write_whole(args.contexts, lambda out: contexts_file.write(result, out, form))


def _any_stdout(args: argparse.Namespace) -> bool:
    return "-" in (args.json, args.csv, args.contexts)


def reference_for(evaluated: Evaluation, scenario: Scenario) -> OwnPolicy | None:
    """The agent's own policy replayed, where it is the reference for this session (it
    compacted, or its raw history outgrows the window); None elsewhere."""
    from playground.analyses.own_policy import needs_reference, own_policy

    session = evaluated.result.session
    if not needs_reference(session, evaluated.totals):
        return None
    return own_policy(session, scenario, evaluated.result.base_counter)


def own_policy_json(evaluated: Evaluation, own: OwnPolicy | None) -> dict[str, Any] | None:
    """The JSON's ``own_policy``: the agent's own policy replayed and this stack against it."""
    from playground.analyses.own_policy import against_own

    if own is None:
        return None
    return {
        "preset": own.preset,
        "cost_usd": own.cost_usd,
        "paid_usd": own.paid_usd,
        "residual_pct": own.residual_pct,
        "compactions": own.figures.compactions,
        "agent_compactions": own.agent_compactions,
        "as_sent_turns": own.figures.as_sent_turns,
        "cause": own.cause(),
        "raw_turns_over_window": own.raw_turns_over_window,
        **against_own(evaluated.totals, own),
    }


def _print_table(
    result: ReplayResult,
    table: TurnTable,
    columns: list[str],
    out: TextIO,
    place: str = "",
    own: OwnPolicy | None = None,
) -> None:
    """The replay's header (``place``: which session of its file), its turns and its totals;
    where the agent's own policy is the reference (``own``), it leads, and the stack is said
    against it."""
    from playground.measures.baseline import raw_window_words, recorded_words
    from playground.measures.metrics import policy_notes, totals
    from playground.measures.reasons import difference_words

    session, figures = result.session, totals(table)
    print(
        visible(
            f"{session.name} ({session.file}): {counted(len(session.messages), 'message')}, "
            f"{counted(len(result.turns), 'turn')}"
        ),
        file=out,
    )
    if place:
        print(visible(place), file=out)
    print(visible(f"model {result.settings.model}, encoding {result.encoding}"), file=out)
    from playground.models.catalogue import window_words

    if window_words(session, result.settings.context_window):
        print(visible(window_words(session, result.settings.context_window)), file=out)
    if result.calibration is not None:
        print(visible(result.calibration.note), file=out)
    print("stack: " + (" → ".join(s.name for s in result.specs if s.enabled) or "(none)"), file=out)
    if table.rows:
        print(visible(pricing_line(table.attrs)), file=out)
        print(text_table(table.rows, columns), file=out)
        priced_as = table.attrs.get("priced_as_model") or ""
        if own is not None:
            from playground.analyses.own_policy import stack_words

            print(visible(own.words()), file=out)
            same = tuple(s for s in result.specs if s.enabled) == own.stack
            print(visible(stack_words(figures, own, same)), file=out)
        print(visible(recorded_words(figures, session.reported_cost_usd, priced_as)), file=out)
        if difference_words(figures):
            print(visible(difference_words(figures)), file=out)
        window = result.settings.context_window
        raw_over = own.raw_words() if own is not None else ""
        raw_over = raw_over or raw_window_words(figures, window, len(session.compactions))
        if raw_over:
            print(visible(raw_over), file=out)
    else:
        print(NO_TURNS, file=out)
    print("totals:", file=out)
    for note in result.summary_stats.notes:
        print(f"note: {visible(note)}", file=sys.stderr)
    for level, note in policy_notes(result.events):
        print(f"{'warning' if level == 'warning' else 'note'}: {visible(note)}", file=sys.stderr)
    # a session with no reply has no figure but its count of turns (the JSON keeps every one, at 0)
    shown_figures = figures.as_dict() if figures.turns else {"turns": 0}
    for key, value in {**shown_figures, **summarizer_figures(result)}.items():
        print(f"  {key}: {value:,}" if isinstance(value, int) else f"  {key}: {value}", file=out)


def _progress_bar(turn: int, turns: int, stats: SummaryStats) -> None:
    """A progress bar on stderr while an LLM summarizer may be fetching (Ctrl-C keeps what is cached)."""
    width = 30
    done = width * turn // max(turns, 1)
    fetched = stats.calls - stats.cache_hits
    print(
        f"\rreplaying [{'#' * done}{'.' * (width - done)}] turn {turn}/{turns}, "
        f"{fetched} summaries fetched, {stats.cache_hits} from cache",
        end="",
        file=sys.stderr,
        flush=True,
    )


def summarizer_figures(result: ReplayResult) -> dict[str, int]:
    stats = result.summary_stats
    return {
        "summarizer_calls": stats.calls,
        "summarizer_cache_hits": stats.cache_hits,
        "summarizer_failures": stats.failures,
        "summarizer_prompt_tokens": stats.prompt_tokens,
        "summarizer_completion_tokens": stats.completion_tokens,
    }


def replay_json(result: ReplayResult, config: Config, table: TurnTable) -> dict[str, Any]:
    from playground.measures.metrics import event_rows, totals

    session = result.session
    return {
        "session": {
            "name": session.name,
            "file": session.file,
            "format": session.format,
            "messages": len(session.messages),
            "tool_calls": session.tool_calls,
            "turns": session.turns,
        },
        "settings": {
            **config.to_data(),
            "model": result.settings.model,  # the session's own, where neither config nor --model named one
            "context_window": result.settings.context_window,
            "encoding": result.encoding,
            "calibration": asdict(result.calibration) if result.calibration else None,
        },
        "turns": table.rows,
        "events": event_rows(result, table),
        "summary": {**totals(table).as_dict(), "summarizer": summarizer_figures(result)},
        "pricing": dict(table.attrs),
    }


def pricing_line(attrs: Mapping[str, str | None]) -> str:
    """How a replay was priced, from its turn table's ``attrs``."""
    priced = attrs.get("priced_as") or "no price known (token figures only)"
    served = f"; {attrs['cache_served']}" if attrs.get("cache_served") else ""
    return f"priced as {priced}; {attrs.get('cache_rule')}; {attrs.get('cache_timing')}{served}"


def _bench(args: argparse.Namespace) -> int:
    from playground.cli.bench import run

    if args.messages < 10:
        raise UsageError("--messages must be at least 10")
    if args.startup:
        read_path(args.startup)  # a file the CLI cannot replay is refused by name before any timing
    config = default_config()
    run(args.messages, config.stack, config.settings, print)
    if args.large:
        from playground.cli.bench import large

        large(args.large, config.stack, config.settings, print)
    if args.no_policy_memory:
        from playground.cli.bench import no_policy_memory

        no_policy_memory(args.no_policy_memory, config.settings, print)
    if args.redraw:
        from playground.cli.bench import redraw

        redraw(args.redraw, print)
    if args.sweep_points:
        from playground.cli.bench import sweep

        sweep(300, print, points=args.sweep_points)
    if args.recommend_trials:
        from playground.cli.bench import recommendation

        recommendation(args.messages, print, trials=args.recommend_trials)
    if args.corpus:
        from playground.cli.bench import corpus

        corpus(args.corpus, print)
    if args.compare:
        from playground.cli.bench import compare_redraw

        compare_redraw(print, args.compare)
    if args.browser:
        from playground.cli.bench_browser import CHROMIUM, charts_latency

        if os.path.exists(CHROMIUM):
            charts_latency(args.browser, print)
        else:
            print(f"browser latency not measured: no Chromium at {CHROMIUM} (apt-get install chromium)")
    if args.first_chart:
        from playground.cli.bench_browser import first_chart

        first_chart(args.first_chart, print)
    if args.browser_compare:
        from playground.cli.bench_browser import compare_redraw as in_chromium

        in_chromium(args.browser_compare, print)
    if args.startup:
        from playground.cli.bench import startup

        startup(args.startup, print)
    return 0
