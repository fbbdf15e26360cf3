"""``playground screenshot OUT.png``: the README's picture of the page, taken from the running
app as a newcomer first sees it (``playground app`` on its default sample, a laptop's screen),
in Debian's Chromium driven by Playwright (the test extra). Run it again when the page changes."""

from __future__ import annotations

import argparse
import os
import sys

from playground.cli.bench_browser import CHROMIUM, CHROMIUM_ARGS, idle, served_as_users_start_it
from playground.cli.common import UsageError

VIEWPORT = {"width": 1440, "height": 900}


def add_command(commands: argparse._SubParsersAction) -> None:
    shot = commands.add_parser(
        "screenshot", help="take the README's picture of the page from the running app"
    )
    shot.add_argument("out", metavar="OUT.png", help="where to write the picture")


def run(args: argparse.Namespace) -> int:
    if not os.path.exists(CHROMIUM):
        raise UsageError(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with served_as_users_start_it() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        page.locator(".js-plotly-plot .plot-container").first.wait_for(timeout=120_000)
        idle(page)
        page.wait_for_timeout(1_000)  # the charts' transitions
        page.screenshot(path=args.out)
        browser.close()
    print(f"playground: the page as it opens, written to {args.out}", file=sys.stderr)
    return 0
