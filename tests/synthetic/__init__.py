"""The synthetic sessions the tests replay, written by ``generate.py`` once per version of it
into a folder of the machine's temporary directory (``FOLDER``): the app ships real sessions."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from tests.synthetic.generate import write_all

_SOURCE = Path(__file__).with_name("generate.py")


def _folder() -> Path:
    digest = hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"playground-synthetic-{digest}"
    if not folder.is_dir():
        scratch = Path(tempfile.mkdtemp(prefix="playground-synthetic-"))
        write_all(scratch)
        try:
            os.rename(scratch, folder)  # whole or not at all: another process may have won
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
    return folder


FOLDER = _folder()
