"""`playground bench --browser-compare FILE`: the Compare tab's redraw as a user sees it.

Serves the app, opens it in Debian's Chromium with Playwright (the test extra), uploads FILE,
adds six candidates, opens Compare, and times each slider step from the key press until
the compare chart's line for the stack being edited has changed. Prints figures.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median

ROOT = Path(__file__).parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# what Chromium needs on a machine with no sandbox, no GPU and only the package registries
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EDITED_LINE = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Context tokens per turn'));
  const trace = plot && plot._fullData && plot._fullData.find(t => t.name === 'stack being edited');
  return trace ? JSON.stringify(Array.from(trace.y)) : null;
}"""


@contextmanager
def served_app(env: dict[str, str] | None = None) -> Iterator[str]:
    """The app on a free local port, for as long as the block runs; yields its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
    command += ["--server.port", str(port), "--server.address", "127.0.0.1"]
    command += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not start within 60 s") from None
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


def compare_redraw(path: str, out: Callable[[str], None], moves: int = 7) -> dict:
    from playwright.sync_api import sync_playwright

    from playground.stacks.presets import PRESETS, preset_label

    with served_app() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(url)
        page.get_by_text("Peak context", exact=True).wait_for()
        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Upload transcripts")
        uploader.locator("input[type=file]").set_input_files(path)
        idle(page)
        for name in [n for n in PRESETS if PRESETS[n]][:6]:
            choose(page, "Add a built-in stack as a candidate", preset_label(name))
        page.get_by_role("tab", name="Compare").click()
        page.wait_for_function(f"() => ({EDITED_LINE})() !== null")
        slider = page.get_by_test_id("stSlider").filter(has_text="keep_last_n").get_by_role("slider")
        times = []
        for _ in range(moves):
            before = page.evaluate(EDITED_LINE)
            slider.focus()
            start = time.perf_counter()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                f"(before) => {{ const y = ({EDITED_LINE})(); return y && y !== before; }}", arg=before
            )
            times.append(time.perf_counter() - start)
            idle(page)
        browser.close()
    out(
        f"Compare tab, 6 candidates on {Path(path).name}, in Chromium: a slider step redraws in "
        f"median {median(times):.2f} s (of {moves}; min {min(times):.2f}, max {max(times):.2f}; target < 2 s)"
    )
    return {"compare_redraw_chromium_s": round(median(times), 3)}


def idle(page) -> None:
    """Wait until streamlit has finished the rerun the last action started."""
    page.wait_for_timeout(300)
    page.get_by_test_id("stStatusWidget").wait_for(state="hidden", timeout=30_000)


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_test_id("stSelectbox").filter(has_text=label)
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):  # a click that lands while a rerun redraws the box leaves it shut: again
        box.click()
        page.keyboard.type(option)  # the list draws only the options in view: filter to it
        try:
            wanted.wait_for(timeout=5_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    wanted.click()
    idle(page)
