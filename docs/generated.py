"""MkDocs hook: each ``<!-- generated: NAME -->`` marker in a page becomes the table made from the
declarations it documents, at every build, so the docs cannot drift from the code."""

from __future__ import annotations

import re
from typing import Any

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")


def _tables() -> dict[str, Any]:
    from playground.cli.main import options_markdown
    from playground.export.targets import markdown_table as exports
    from playground.formats.catalogue import markdown_table as formats
    from playground.limits import markdown_table as limits
    from playground.measures.figures import markdown_table as figures
    from policies.registry import markdown_table as policies

    return {
        "formats": formats,
        "figures": figures,
        "limits": limits,
        "policies": policies,
        "cli": options_markdown,
        "exports": exports,
    }


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    tables = _tables()

    def table(match: re.Match) -> str:
        name = match.group(1)
        if name not in tables:
            raise ValueError(f"{page.file.src_path}: no generated table named {name!r}")
        return tables[name]()

    return MARKER.sub(table, markdown)
