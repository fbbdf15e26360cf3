"""Browser tests: the real app served by streamlit, driven in Debian's Chromium by Playwright."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from playground.cli.bench_browser import CHROMIUM_ARGS

ROOT = Path(__file__).parents[2]
SERVER_KEY = "sk-e2e-server-environment-key-0123456789"  # the served app's OPENAI_API_KEY


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _chromium()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(
                "Chromium is missing: CI must install it (apt-get install chromium); browser tests never skip in CI"
            )
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return path


@pytest.fixture(scope="session")
def app_url(tmp_path_factory) -> str:
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
            ],
            cwd=ROOT,
            env={
                **os.environ,
                "OPENAI_API_KEY": SERVER_KEY,
                "PLAYGROUND_CACHE_DIR": str(tmp_path_factory.mktemp("summary-cache")),
            },
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        server.terminate()
        pytest.fail(f"streamlit did not start: {log.read_text()[-2000:]}")
    yield url
    server.terminate()
    server.wait(timeout=20)


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(app_url)
    page.get_by_text("Cost with this stack", exact=True).wait_for()
    # the first run goes on after the headline (charts): a click now would interrupt it
    page.get_by_test_id("stStatusWidget").wait_for(state="hidden", timeout=60_000)
    # the page opens on a real Claude Code session; these tests tell their story on the synthetic one
    open_sample(page, LEAVE_SAMPLE)
    page.get_by_test_id("stSidebar").get_by_text("SYNTHETIC, written for teaching", exact=False).wait_for()
    yield page
    context.close()


LEAVE_SAMPLE = "sample: leave_request_hr"


def open_sample(page, option: str) -> None:
    """Pick a sample in the sidebar's Session box, as a user does, and wait for its replay."""
    from playground.cli.bench_browser import idle

    box = (
        page.get_by_test_id("stSidebar")
        .get_by_test_id("stSelectbox")
        .filter(has=page.get_by_text("Session", exact=True))
    )
    box.click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    idle(page)
