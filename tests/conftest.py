from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REAL_SESSION = FIXTURES / "msa_astropy12907.traj.json"


@pytest.fixture
def real_session_path() -> Path:
    return REAL_SESSION
