"""The README fits a screen or two and leads into the docs; the docs' tables are made from the
declarations they document (readers, policies, figures, limits, CLI options) at every build, so
they cannot drift; CI builds the site with ``mkdocs build --strict`` (``make docs``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import yaml

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"


def _hook():
    spec = importlib.util.spec_from_file_location("generated", DOCS / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _built(page: str) -> str:
    """A page as the build renders its markdown: every generated table in place."""
    source = (DOCS / page).read_text()
    file = SimpleNamespace(file=SimpleNamespace(src_path=page))
    return _hook().on_page_markdown(source, file, None, None)


def test_the_readme_fits_a_screen_or_two_and_links_into_the_docs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert "make run" in readme and "make test" in readme
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)", readme))
    assert linked and all((DOCS / page).is_file() for page in linked)


def test_every_page_is_in_the_nav_and_every_marker_is_replaced():
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages = {next(iter(entry.values())) for entry in nav}
    assert pages == {p.name for p in DOCS.glob("*.md")}
    for page in pages:
        assert "<!-- generated:" not in _built(page), page


def test_the_tables_are_the_declarations():
    from playground.cli.main import _parser
    from playground.formats.catalogue import FORMATS
    from playground.limits import Limits, limits_table
    from playground.measures.figures import TOTALS
    from policies.registry import BUILTINS

    transcripts, policies, figures, hosting, cli = (
        _built(p) for p in ("transcripts.md", "policies.md", "figures.md", "hosting.md", "cli.md")
    )
    assert all(f"| {f.tool} | {f.where} |" in transcripts for f in FORMATS)
    for cls in BUILTINS:
        assert cls.source and cls.summary, f"{cls.name()} declares no source or summary"
        assert f"### {cls.name()}" in policies
        assert all(f"| `{p.name}` |" in policies for p in cls.params), cls.name()
    assert all(f"| `{f.key}` |" in figures for f in TOTALS)
    assert all(f"| `{setting}` | {value} |" in hosting for setting, value, _ in limits_table(Limits()))
    from playground.export.targets import TARGETS

    exports = _built("exports.md")
    assert all(f"| `{name}` | {label} |" in exports for name, (label, _) in TARGETS.items())
    commands = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in commands.choices.items():
        assert f"### playground {name}" in cli
        assert all(
            f"`{a.option_strings[0]}" in cli
            for a in command._actions
            if a.option_strings and a.dest != "help"
        )


def test_every_command_the_readme_gives_parses():
    """A command in the README that the CLI would refuse is a lie to the newcomer who copies it."""
    import shlex

    from playground.cli.main import _parser

    readme = (ROOT / "README.md").read_text()
    commands = [
        line.split("#")[0] for line in readme.splitlines() if line.startswith(".venv/bin/playground ")
    ]
    assert len(commands) >= 4
    for command in commands:
        _parser().parse_args(shlex.split(command)[1:])  # argparse exits on what it refuses
