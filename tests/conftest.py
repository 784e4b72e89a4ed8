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
