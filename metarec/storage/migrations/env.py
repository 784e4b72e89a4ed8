"""Alembic environment of metarec's knowledge base.

metarec runs these migrations itself (:func:`metarec.storage._migrate.upgrade`), passing an
open connection in ``config.attributes["connection"]`` (an engine there, as pytest-alembic
passes, is connected here); no ``alembic.ini`` is needed.  For
developers, ``alembic -c metarec/storage/migrations/alembic.ini revision --autogenerate``
works against the URL in ``METAREC_DB``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from metarec._config import resolve_db_url
from metarec.storage._models import metadata

config = context.config


def _run(connection) -> None:
    if connection.dialect.name == "sqlite" and not connection.in_transaction():
        # a table rebuilt by batch mode is dropped: with foreign keys on, the DROP would
        # delete its dependent rows (ON DELETE CASCADE); the pragma only works outside a
        # transaction (metarec's own upgrade sets it before its transaction begins)
        connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if isinstance(connection, Connection):
    _run(connection)
else:  # an engine (pytest-alembic), or the alembic command line of a developer
    engine = connection or create_engine(
        resolve_db_url(config.get_main_option("sqlalchemy.url") or None)
    )
    with engine.connect() as conn:
        _run(conn)
        conn.commit()
