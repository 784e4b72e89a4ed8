"""Fixtures of the data tests: the local replay of OpenML's REST API (``tests/ingest``)."""

from tests.ingest._fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _openml_home,
    openml_config,
    replay,
)
