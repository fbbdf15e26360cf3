import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# `HYPOTHESIS_PROFILE=thorough pytest tests/playground/formats/test_formats_fuzz.py` for a long hunt
settings.register_profile("default", max_examples=200)
settings.register_profile("thorough", max_examples=5000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# what the code caches on disk (summaries, price lookups) goes to a folder of this test run
os.environ.setdefault("PLAYGROUND_CACHE_DIR", tempfile.mkdtemp(prefix="playground-cache-"))

FIXTURES = Path(__file__).parent / "fixtures"
REAL_SESSION = FIXTURES / "msa_astropy12907.traj.json"


@pytest.fixture
def real_session_path() -> Path:
    return REAL_SESSION
