"""The fact finder finds exactly what the trie-regex one found: facts lost, re-fetches and
must-keep states unchanged on every sample, the astropy session and 20,000 messages."""

import json

from tests.playground.measures.quality_reference import REFERENCE, compute


def test_the_quality_pass_gives_the_reference_results():
    assert compute() == json.loads(REFERENCE.read_text())
