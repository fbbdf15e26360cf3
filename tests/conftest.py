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


# the tests that take seconds each: the browser's, the searches and the corpus runs, servers that
# drip or hang, the reference quality pass. `pytest -m "not slow"` leaves them out while working;
# `make test` (and CI) runs them all
SLOW_FILES = ("tests/e2e/", "tests/parity/test_autogen_parity.py")
SLOW_TESTS = (
    "test_recommend.py::",
    "test_recommend_against_own.py::",
    "test_corpus.py::test_one_process_a_pool_and_a_dask_cluster_give_the_same_figures",
    "test_memory.py::test_a_corpus_runs_peak_follows_its_largest_file_not_its_count",
    "test_hostile.py::test_a_dripping_server_is_cut_off_at_the_timeout",
    "test_hostile.py::test_a_hanging_server_costs_the_replay_budget_not_timeout_times_compactions",
    "test_quality_reference.py::",
    "test_hostile_readers.py::test_tool_call_arguments_nested_too_deep",
    "test_hostile_readers.py::test_a_reader_takes_time_linear_in_its_file",
    "test_facts.py::test_the_guarded_pattern_matches_what_the_plain_one_matches",
    "test_llm_summarizer.py::test_a_failed_summary_skips_the_compaction_and_loses_nothing[slow",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW_FILES) or any(part in item.nodeid for part in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
