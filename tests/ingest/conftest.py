"""Fixtures of the ingest tests (defined in ``_fixtures.py``, shared with the CLI tests)."""

from tests.ingest._fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _openml_home,
    kb,
    no_retry_sleep,
    openml_config,
    replay,
)
