"""The standard checks of the alembic scripts (pytest-alembic), on SQLite and PostgreSQL.

One head; an upgrade from an empty database through every revision, one at a time; the
models (``metarec.storage._models``) equal to what the scripts build (autogenerate finds no
difference).  Revisions 0004 and 0005 rewrite the run keys and refuse to downgrade, so
pytest-alembic's up/down check stops at 0005; the one downgrade that restores its revision's
schema whole, 0003 to 0002, is checked here (0002's downgrade drops the matrix but keeps the
16-byte run keys, which cannot become the text keys of 0001 again).
"""

from __future__ import annotations

import pytest
from pytest_alembic import Config
from pytest_alembic.tests import (  # noqa: F401 - collected as tests of this module
    test_model_definitions_match_ddl,
    test_single_head_revision,
    test_upgrade,
)

from metarec.storage._migrate import migrations_dir


@pytest.fixture
def alembic_config():
    return Config(
        config_options={"script_location": str(migrations_dir())},
        minimum_downgrade_revision="0005",
    )


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def alembic_engine(request, tmp_path):
    from metarec.storage._engine import make_engine

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    else:
        from tests.storage.conftest import _create_database

        url = _create_database(request.getfixturevalue("postgres_server"))
    engine = make_engine(url)
    yield engine
    engine.dispose()


def _schema(conn) -> dict:
    from sqlalchemy import inspect

    inspector = inspect(conn)
    return {
        table: (
            sorted((c["name"], str(c["type"])) for c in inspector.get_columns(table)),
            sorted(str(i["column_names"]) for i in inspector.get_indexes(table)),
            sorted(str(u["column_names"]) for u in inspector.get_unique_constraints(table)),
        )
        for table in sorted(inspector.get_table_names())
    }


def test_the_downgrades_offered_undo_their_upgrades(alembic_engine):
    from metarec.storage._migrate import run_scripts

    schemas = {}
    for revision in ("0002", "0003"):
        with alembic_engine.begin() as conn:
            run_scripts(conn, revision)
            schemas[revision] = _schema(conn)
    assert schemas["0002"] != schemas["0003"]
    with alembic_engine.begin() as conn:
        _downgrade(conn, "0002")
        assert _schema(conn) == schemas["0002"]
    with alembic_engine.begin() as conn:
        run_scripts(conn, "0003")
        assert _schema(conn) == schemas["0003"]


def _downgrade(conn, revision: str) -> None:
    from alembic import command

    from metarec.storage._migrate import _config

    command.downgrade(_config(conn), revision)
