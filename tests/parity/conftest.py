"""Parity tests run the frameworks' own code (the ``parity`` extra) against our emulations."""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version

import pytest

PINNED = {  # as pyproject pins them
    "langchain": "1.5.2",
    "langchain-core": "1.8.3",
    "autogen-core": "0.7.5",
    "autogen-ext": "0.7.5",
    "llama-index-core": "0.14.25",
    "anthropic": "2.16.0",
    "openai-agents": "0.24.0",
}


def installed(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def pytest_report_header(config: pytest.Config) -> str:
    found = ", ".join(f"{p} {installed(p) or 'not installed'}" for p in PINNED)
    return f"parity libraries: {found}"


def require(package: str) -> str:
    """The installed version of ``package``, which must be the one pinned. Outside CI a
    missing library skips; in CI (``CI=true``) it fails: parity must be checked there."""
    found = installed(package)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{package} is not installed: `make test` installs the parity extra")
        pytest.skip(f"{package} is not installed (pip install -e '.[parity]')", allow_module_level=True)
    assert found == PINNED[package], f"parity is checked against {package} {PINNED[package]}, found {found}"
    return found
