"""The app's latency as a user sees it, in Debian's Chromium driven by Playwright (the test
extra). Each serves the app, uploads a session and prints figures:

- ``playground bench --browser N``: on a synthetic N-message session, the first chart after
  the upload, a slider step and a preset change, each from the action until the Charts
  tab's token line has changed;
- ``playground bench --browser-compare FILE``: six candidates on FILE, each slider step
  until the Compare tab's line for the stack being edited has changed;
- ``playground bench --first-chart N``: on a server just started, from opening the page to its
  first chart drawn, N times, beside a bare Streamlit page of one Plotly chart.
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
  const trace = plot && plot._fullData && plot._fullData.find(t => t.name.startsWith('stack being edited'));
  return trace ? JSON.stringify(Array.from(trace.y)) : null;
}"""
STACK_LINE = """() => {
  const plot = Array.from(document.querySelectorAll('.js-plotly-plot')).find(
    p => p.layout && p.layout.title && p.layout.title.text.includes('Tokens sent per turn'));
  const trace = plot && plot._fullData && plot._fullData.find(t => t.name === 'context (stack)');
  return trace ? JSON.stringify(Array.from(trace.y)) : null;
}"""


@contextmanager
def served_app(env: dict[str, str] | None = None, script: str = "app.py") -> Iterator[str]:
    """The app (or another Streamlit ``script``) on a free local port, for as long as the block
    runs; yields its URL."""
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true"]
    command += ["--server.port", str(port), "--server.address", "127.0.0.1"]
    command += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with _served(command, port, env) as url:
        yield url


@contextmanager
def served_as_users_start_it() -> Iterator[str]:
    """The app as ``playground app`` (and ``make run``) starts it, on no agent folder."""
    port = _free_port()
    command = [sys.executable, "-m", "playground.cli", "app", "--no-agent-folders", "--port", str(port)]
    with _served(command, port, None) as url:
        yield url


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _served(command: list[str], port: int, env: dict[str, str] | None) -> Iterator[str]:
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("streamlit did not start within 90 s") from None
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
        page.get_by_text("Cost with this stack", exact=True).wait_for()
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


def charts_latency(n_messages: int, out: Callable[[str], None], steps: int = 5) -> dict:
    """Seconds from an action to the Charts tab's redrawn token line: the first chart after an
    upload, slider steps (each value new: a new replay) and preset changes (each preset new)."""
    import json
    import tempfile

    from playwright.sync_api import sync_playwright

    from playground.cli.bench import synthetic_session
    from playground.engine.replay import Settings, replay
    from playground.formats.openai_chat import to_openai
    from playground.measures.metrics import turns_frame
    from playground.stacks.presets import PRESETS, preset_label

    session = synthetic_session(n_messages)
    # presets whose token line differs from the one before (an unchanged line would not show the redraw)
    lines, presets = [turns_frame(replay(session, PRESETS["pyagentic recommended"], Settings()))], []
    for name, stack in PRESETS.items():
        if stack and len(presets) < steps and name != "pyagentic recommended":
            line = turns_frame(replay(session, stack, Settings()))
            if not line["context_tokens"].equals(lines[-1]["context_tokens"]):
                lines.append(line)
                presets.append(name)
    with tempfile.TemporaryDirectory() as folder, served_app() as url, sync_playwright() as playwright:
        path = Path(folder) / "synthetic.json"
        path.write_text(json.dumps([to_openai(m) for m in session.messages]))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(url)
        page.wait_for_function(f"() => ({STACK_LINE})() !== null")
        idle(page)

        def until_redrawn(action: Callable[[], None]) -> float:
            before = page.evaluate(STACK_LINE)
            start = time.perf_counter()
            action()
            page.wait_for_function(
                f"(before) => {{ const y = ({STACK_LINE})(); return y && y !== before; }}", arg=before
            )
            took = time.perf_counter() - start
            idle(page)
            return took

        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Upload transcripts")
        first = until_redrawn(lambda: uploader.locator("input[type=file]").set_input_files(str(path)))
        slider = page.get_by_test_id("stSlider").filter(has_text="keep_last_n").get_by_role("slider")

        def step() -> None:
            slider.focus()
            page.keyboard.press("ArrowRight")

        slides = [until_redrawn(step) for _ in range(steps)]
        changes = []
        for name in presets:
            box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text="Preset")
            box.click()
            page.keyboard.type(preset_label(name))
            option = page.get_by_role("option", name=preset_label(name), exact=True)
            option.wait_for()
            changes.append(until_redrawn(option.click))
        browser.close()
    out(
        f"Charts tab on a {len(session.messages)}-message session, in Chromium: first chart after the upload "
        f"{first:.2f} s; a slider step median {median(slides):.2f} s (of {len(slides)}, max {max(slides):.2f}); "
        f"a preset change median {median(changes):.2f} s (of {len(changes)}, max {max(changes):.2f}); "
        "target < 1 s for a step and a change on a quiet machine"
    )
    return {
        "first_chart_chromium_s": round(first, 3),
        "slider_step_chromium_s": round(median(slides), 3),
        "preset_change_chromium_s": round(median(changes), 3),
    }


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


BARE_PAGE = """import plotly.graph_objects as go
import streamlit as st

st.title("A bare page")
st.plotly_chart(go.Figure(go.Scatter(y=[3, 1, 4, 1, 5, 9, 2, 6])))
"""


def first_chart(rounds: int, out: Callable[[str], None]) -> dict:
    """Seconds from opening the page on a server just started to its first chart drawn: the app
    on its default sample, started as users start it (``playground app``, which loads what the
    first screen needs before it listens), and a bare Streamlit page of one Plotly chart, each on
    a fresh server per round (median of ``rounds``), in Chromium."""
    import tempfile

    from playwright.sync_api import sync_playwright

    def time_to_chart(script: str) -> float:
        serving = served_as_users_start_it() if script == "app" else served_app(script=script)
        with serving as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            start = time.perf_counter()
            page.goto(url)
            page.locator(".js-plotly-plot .plot-container").first.wait_for(timeout=120_000)
            seconds = time.perf_counter() - start
            browser.close()
            return seconds

    with tempfile.TemporaryDirectory() as folder:
        bare_script = str(Path(folder) / "bare.py")
        Path(bare_script).write_text(BARE_PAGE)
        bare, app = [], []
        for _ in range(rounds):  # interleaved: both see the same machine noise
            bare.append(time_to_chart(bare_script))
            app.append(time_to_chart("app"))
    bare_s, app_s = median(bare), median(app)
    out(
        f"first chart on a server just started, in Chromium (median of {rounds}): the app {app_s:.2f} s, "
        f"a bare Streamlit page of one Plotly chart {bare_s:.2f} s ({app_s / bare_s:.2f}x)"
    )
    return {"app_first_chart_s": round(app_s, 2), "bare_first_chart_s": round(bare_s, 2)}
