"""Fixtures shared by the ingest tests and the ``ingest`` command tests.

Import them into a test module (``from tests.ingest._fixtures import *``-style, by name) or
get them through ``tests/ingest/conftest.py``."""

from __future__ import annotations

import sys

import pytest

from tests.ingest._replay import ReplayServer, openml_routes


@pytest.fixture(scope="session")
def _openml_home(tmp_path_factory):
    """Import openml with its configuration and cache folders in a temporary place.

    openml reads ``XDG_CONFIG_HOME`` / ``OPENML_CACHE_DIR`` once, at import, and creates the
    folders there; the environment is restored afterwards.
    """
    home = tmp_path_factory.mktemp("openml-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(home / "config"))
        mp.setenv("XDG_CACHE_HOME", str(home / "cache"))
        mp.setenv("OPENML_CACHE_DIR", str(home / "openml-cache"))
        mp.delenv("OPENML_APIKEY", raising=False)
        already = "openml" in sys.modules
        import openml

        if already:  # imported by someone else first: point it at the temporary folders
            openml.config.set_root_cache_directory(home / "openml-cache")
    return home


@pytest.fixture
def openml_config(_openml_home, tmp_path, monkeypatch):
    """openml configured for one test (own cache, no key, one attempt); restored after."""
    import openml

    saved = openml.config.get_config_as_dict()
    monkeypatch.delenv("OPENML_APIKEY", raising=False)
    openml.config.apikey = ""
    openml.config.set_root_cache_directory(tmp_path / "openml-cache")
    openml.config.set_retry_policy("robot", 1)
    yield openml.config
    openml.config.server = saved["server"]
    openml.config.apikey = saved["apikey"]
    openml.config.set_root_cache_directory(saved["cachedir"])
    openml.config.set_retry_policy(saved["retry_policy"], saved["connection_n_retries"])


@pytest.fixture
def replay(openml_config):
    """A running replay server answering like a small OpenML; openml points at it."""
    with ReplayServer() as server:
        openml_routes(server)
        openml_config.server = server.url
        yield server


@pytest.fixture
def kb(tmp_path):
    """A fresh knowledge base in a temporary SQLite file."""
    return make_kb(f"sqlite:///{tmp_path / 'kb.sqlite'}")


def make_kb(url):
    """The real knowledge base at ``url`` (an import error of the store fails the test)."""
    from metarec.storage import KnowledgeBase

    return KnowledgeBase(url)


@pytest.fixture
def no_retry_sleep(monkeypatch):
    """Make openml's retry delays zero so retry tests stay fast."""
    import time
    import types

    import openml._api_calls as calls

    if hasattr(calls, "_robot_delay"):
        monkeypatch.setattr(calls, "_robot_delay", lambda n: 0.0)
        monkeypatch.setattr(calls, "_human_delay", lambda n: 0.0)
    else:  # openml 0.14: the delays are local functions that call time.sleep
        clock = types.SimpleNamespace(time=time.time, sleep=lambda seconds: None)
        monkeypatch.setattr(calls, "time", clock)
