"""Schema versions of the knowledge base, through the alembic migrations shipped in the package.

The migrations live in ``metarec/storage/migrations`` and run programmatically (no
``alembic.ini`` is read from the working directory).  Opening a database classifies it:

* no tables at all: a new knowledge base, created at the newest revision (:data:`HEAD`) from
  the models in one go (:func:`create_current`; the scripts, which build the same schema
  step by step, are for existing databases: a test keeps the two identical);
* an ``alembic_version`` row naming a revision of this package: a metarec knowledge base,
  current or older (an older one is migrated by :func:`upgrade`, i.e. ``metarec db upgrade``);
* a revision this package does not know: made by a newer metarec, refused with a clear error;
* tables but no metarec revision: somebody else's database, refused with a clear error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text

from metarec.exceptions import KnowledgeBaseError

__all__ = [
    "HEAD",
    "SchemaState",
    "schema_state",
    "upgrade",
    "create_current",
    "run_scripts",
    "migrations_dir",
    "revisions",
]

#: The newest schema revision of this version of metarec (checked against the scripts by a test).
HEAD = "0005"
#: Every revision this version knows, oldest first.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005")


def migrations_dir() -> Path:
    """Return the directory of the shipped alembic scripts."""
    return Path(__file__).resolve().parent / "migrations"


@dataclass(frozen=True)
class SchemaState:
    """What a database holds: ``kind`` is "empty", "current" or "old"; ``revision`` its revision."""

    kind: str
    revision: str | None


def schema_state(conn: Connection, shown_url: str) -> SchemaState:
    """Classify the database behind ``conn`` (see the module docstring).

    Raises
    ------
    KnowledgeBaseError
        Someone else's database, or a schema made by a newer metarec.
    """
    tables = set(inspect(conn).get_table_names())
    if not tables:
        return SchemaState("empty", None)
    if "alembic_version" not in tables:
        listed = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise KnowledgeBaseError(
            f"{shown_url} is not a metarec knowledge base: it holds other tables ({listed}) "
            "and no metarec schema version; give another database with --db or METAREC_DB"
        )
    rows = [r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version"))]
    if not rows:
        if tables <= {"alembic_version"}:
            return SchemaState("empty", None)
        raise KnowledgeBaseError(
            f"{shown_url} is not a metarec knowledge base (no schema revision)"
        )
    if len(rows) > 1 or rows[0] not in KNOWN_REVISIONS:
        raise KnowledgeBaseError(
            f"{shown_url} has schema revision {', '.join(rows)}, which this version of metarec "
            f"does not know (newest known: {HEAD}): it was made by a newer metarec or is not a "
            "metarec knowledge base; upgrade metarec (pip install -U metarec)"
        )
    expected = {"datasets", "algorithms", "metafeatures", "runs", "run_metrics"}
    if rows[0] == HEAD:
        expected |= {"performance", "performance_metrics", "kb_state"}
    missing = expected - tables
    if missing:
        raise KnowledgeBaseError(
            f"{shown_url} is a damaged metarec knowledge base: tables {', '.join(sorted(missing))} "
            "are missing"
        )
    return SchemaState("current" if rows[0] == HEAD else "old", rows[0])


def _config(conn: Connection):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["connection"] = conn
    return config


def upgrade(engine: Engine, shown_url: str) -> str:
    """Create or migrate the schema to :data:`HEAD` in one write transaction; return HEAD.

    The state is looked at again under the write lock, so that of several processes opening
    one new database at once exactly one creates the schema and the others find it done.
    """
    from metarec.storage._engine import write_transaction

    with write_transaction(engine) as conn:
        kind = schema_state(conn, shown_url).kind
        if kind == "empty":
            create_current(conn)
        elif kind != "current":
            run_scripts(conn)
    return HEAD


def create_current(conn: Connection) -> None:
    """Create the schema of :data:`HEAD` in an empty database, inside the caller's transaction.

    The tables of :mod:`metarec.storage._models`, alembic's version table naming HEAD, and a
    first data version: what the migration scripts leave behind, without loading alembic or
    replaying every revision (a new knowledge base is ready in milliseconds).
    """
    from metarec.storage._models import metadata
    from metarec.storage._performance import bump_version

    conn.execute(
        text(
            "CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32) NOT NULL, "
            "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))"
        )
    )
    metadata.create_all(conn)
    conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": HEAD})
    bump_version(conn)


def run_scripts(conn: Connection, target: str = "head") -> None:
    """Migrate the database behind ``conn`` to ``target`` with the shipped alembic scripts."""
    from alembic import command

    command.upgrade(_config(conn), target)


def revisions() -> list[str]:
    """Return the revisions of the shipped scripts, oldest first (used by the tests)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(migrations_dir()))
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]
