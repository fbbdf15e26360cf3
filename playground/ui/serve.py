"""The page served on this machine: ``playground app`` starts it (``python -m playground.ui.serve
PORT``). Before the server listens it runs the page once with no browser, so that the first
page a browser opens is drawn without waiting for the page's modules, the sample sessions, the
tokenizer or the default replay."""

from __future__ import annotations

import contextlib
import io
import logging
import sys
from pathlib import Path
from typing import Any

PAGE = str(Path(__file__).with_name("page.py"))


def settings(port: int) -> dict[str, Any]:
    """The server's settings (what a checkout's ``.streamlit/config.toml`` holds, which an
    installed package does not carry), as ``streamlit run`` takes its flags."""
    return {
        "server_port": port,
        "server_headless": True,
        "server_maxUploadSize": 50,  # the readers refuse files over 50 MiB with a clear message
        "browser_gatherUsageStats": False,
        "client_showErrorDetails": "none",  # never a traceback on the page: the server's log has it
    }


def warm() -> None:
    """Run the page once, with no browser, as a first visit runs it: every cache its first run
    reads (the samples read, the tokenizer loaded, the default stack's replay) is then filled
    with the values a browser's first run finds. Best effort: a failure is logged, and the page
    computes the same on its first visit."""
    from streamlit import logger

    # with no browser, streamlit says on every call that there is no script run context, and
    # how to run a page in one: expected here, not for the terminal
    level = logger._global_log_level
    logger.set_log_level(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            from playground.ui import page

            page.main()
    except Exception:
        logging.getLogger(__name__).exception("warming the page failed; its first visit will be slower")
    finally:
        logger.set_log_level(level)


def main(argv: list[str]) -> None:
    from streamlit import config
    from streamlit.web import bootstrap

    flags = settings(int(argv[0]))
    config._main_script_path = PAGE  # as `streamlit run PAGE` sets it, before its config is read
    bootstrap.load_config_options(flags)
    warm()
    bootstrap.run(PAGE, False, [], flags)


if __name__ == "__main__":
    main(sys.argv[1:])
