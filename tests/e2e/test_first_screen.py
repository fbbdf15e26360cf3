"""The newcomer's first screen (issue 60): the page opens on a real session and says where it comes
from; an installed package (a wheel, no checkout) starts the same page with ``playground app``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
import venv
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import _free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ROOT = Path(__file__).parents[2]


def test_the_page_opens_on_a_real_compacted_session_with_its_source(browser, app_url):
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(app_url)
    lead = page.get_by_test_id("stMetric").filter(has_text="Agent's own policy")
    expect(lead.get_by_test_id("stMetricValue")).to_contain_text("$", timeout=60_000)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("A real session recorded by Claude Code 2.1.36")
    expect(sidebar).to_contain_text("entireio/cli")
    page.close()


def _serve(command: list[str], cwd: Path, env: dict, url: str) -> subprocess.Popen:
    server = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return server
        except OSError:
            if server.poll() is not None:
                break
            time.sleep(0.5)
    server.kill()
    pytest.fail(f"playground app did not start: {server.stdout.read().decode()[-3000:]}")


def test_a_wheel_installed_apart_from_the_checkout_starts_the_page_with_playground_app(browser, tmp_path):
    """The wheel, built from the checkout and installed in an environment of its own (its
    dependencies reached through the test environment's site-packages, never the checkout), run
    from a folder that is not the checkout: ``playground app FILE`` opens the page on that file,
    with the sample sessions the wheel carries beside it."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",  # built as pip builds it, in an isolated environment of its build requirements
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = wheels.glob("context_policy_playground-*.whl")
    env_dir = tmp_path / "installed"
    venv.create(env_dir, with_pip=False)
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    # the dependencies: the test environment's packages, as a path (its .pth hooks, and so the
    # checkout's editable install, are not run from a path added this way)
    deps = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (site / "deps.pth").write_text(deps + "\n")
    bin_dir = env_dir / "bin"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(bin_dir / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    session = elsewhere / "my_session.json"
    session.write_bytes((ROOT / "tests" / "fixtures" / "msa_astropy12907.traj.json").read_bytes())
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import playground, sys; print(playground.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in where and str(ROOT) not in where  # the wheel's copy, not the checkout's
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["HOME"] = str(elsewhere)  # no agent folders here: only the file named
    server = _serve(
        [str(bin_dir / "playground"), "app", str(session), "--port", str(port)], elsewhere, env, url
    )
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(url)
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar).to_contain_text("Your sessions on this machine", timeout=60_000)
        expect(sidebar).to_contain_text("astropy__astropy-12907", timeout=60_000)
        expect(page.get_by_text("Cost with this stack", exact=True)).to_be_visible(timeout=60_000)
        sidebar.get_by_test_id("stSelectbox").filter(has=page.get_by_text("Session", exact=True)).click()
        expect(
            page.get_by_role("option").filter(has_text="sample: claude_code_compacted").first
        ).to_be_attached()
        page.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
