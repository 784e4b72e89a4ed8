"""Shared test fixtures: every test runs with its own metarec home and no network."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Point metarec's data directory at a temporary folder and forget any METAREC_DB."""
    home = tmp_path_factory.mktemp("metarec-home")
    monkeypatch.setenv("METAREC_HOME", str(home))
    monkeypatch.delenv("METAREC_DB", raising=False)
    monkeypatch.delenv("METAREC_DEBUG", raising=False)
    return home


# Property tests draw the same examples on every run (CI must not turn red by the luck of a
# draw); `pytest --hypothesis-profile explore` draws new ones.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("default", derandomize=True)
_hypothesis_settings.register_profile("explore", derandomize=False, max_examples=500)
_hypothesis_settings.load_profile("default")
