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

Migrating an older knowledge base never loses a row.  On SQLite, alembic's batch mode
rebuilds a table by copying it, dropping the original and renaming the copy; with foreign
keys enforced the ``DROP`` would delete every dependent row through ``ON DELETE CASCADE``
(dropping ``runs`` empties ``run_metrics``).  So :func:`upgrade` runs the scripts with foreign
keys off (SQLite ignores that pragma inside a transaction: it is set before ``BEGIN``, as
SQLite's documentation of ``ALTER TABLE`` prescribes), then, before committing, checks that
no reference dangles (``PRAGMA foreign_key_check``) and that every table of data
(:data:`KEPT_TABLES`) holds exactly the rows it held before; otherwise the upgrade is rolled
back and refused.  Before migrating a SQLite file it writes a copy of it with SQLite's online
backup API (:func:`backup_sqlite`) and says where.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text

from metarec.exceptions import KnowledgeBaseError

__all__ = [
    "HEAD",
    "KEPT_TABLES",
    "SchemaState",
    "UpgradeReport",
    "schema_state",
    "upgrade",
    "backup_sqlite",
    "default_backup_path",
    "row_counts",
    "create_current",
    "run_scripts",
    "migrations_dir",
    "revisions",
]

#: The newest schema revision of this version of metarec (checked against the scripts by a test).
HEAD = "0007"
#: Every revision this version knows, oldest first.
KNOWN_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007")
#: Tables of data every revision has: a migration keeps each of their rows.
KEPT_TABLES = ("datasets", "algorithms", "metafeatures", "runs", "run_metrics")


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


@dataclass(frozen=True)
class UpgradeReport:
    """What :func:`upgrade` did.

    Attributes
    ----------
    from_revision : str or None
        The revision found (``None``: the database was empty and the schema was created).
    to_revision : str
        The revision now (:data:`HEAD`).
    backup : Path or None
        The copy written before migrating (``None``: nothing was migrated, the database is
        not a SQLite file, or no copy was asked for).
    rows : mapping of str to int
        Rows of each table of :data:`KEPT_TABLES`, the same before and after a migration
        (empty when nothing was migrated).
    """

    from_revision: str | None
    to_revision: str
    backup: Path | None = None
    rows: Mapping[str, int] = field(default_factory=dict)

    @property
    def migrated(self) -> bool:
        """Whether an older schema was migrated."""
        return self.from_revision is not None and self.from_revision != self.to_revision


def row_counts(conn: Connection, tables: tuple[str, ...] = KEPT_TABLES) -> dict[str, int]:
    """Rows of each of ``tables`` (one ``count(*)`` each)."""
    return {t: int(conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar()) for t in tables}


def default_backup_path(path: Path, revision: str) -> Path:
    """Return a free path beside the SQLite file ``path`` for its copy at ``revision``.

    ``kb.sqlite`` at revision 0001 gives ``kb.backup-rev0001.sqlite``, then
    ``kb.backup-rev0001-2.sqlite`` and so on: an earlier copy is never overwritten.

    Parameters
    ----------
    path : Path
        The knowledge base's SQLite file.
    revision : str
        Its schema revision.

    Returns
    -------
    Path
        A path no file occupies yet.
    """
    suffix = path.suffix or ".sqlite"
    candidate = path.with_name(f"{path.stem}.backup-rev{revision}{suffix}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.backup-rev{revision}-{number}{suffix}")
        number += 1
    return candidate


def backup_sqlite(source: Path, target: Path) -> None:
    """Copy the SQLite database ``source`` to the new file ``target`` with the backup API.

    SQLite's online backup copies a consistent state of the database, its write-ahead log
    included, while other connections may read it.  The copy is written under a temporary
    name and renamed when complete, in rollback-journal mode (one self-contained file that
    ``--db`` opens like any knowledge base).

    Raises
    ------
    KnowledgeBaseError
        ``target`` exists, or cannot be written.
    """
    from urllib.parse import quote

    from metarec._files import atomic_path
    from metarec.storage._engine import BUSY_TIMEOUT_S

    if target.exists():
        raise KnowledgeBaseError(f"cannot back up to {target}: the file exists")
    # this process's own partial file (two upgrades at once never write or delete each
    # other's), put in place never over a copy another process finished
    try:
        with atomic_path(target, replace=False) as partial:
            reader = sqlite3.connect(
                f"file:{quote(str(source.resolve()))}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S
            )
            try:
                copy = sqlite3.connect(partial)
                try:
                    reader.backup(copy)
                    copy.execute("PRAGMA journal_mode = DELETE")
                finally:
                    copy.close()
            finally:
                reader.close()
    except FileExistsError:
        raise KnowledgeBaseError(
            f"cannot back up to {target}: another process wrote that copy meanwhile (an "
            "upgrade of the same file at the same time?); run the upgrade again"
        ) from None
    except (OSError, sqlite3.Error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise KnowledgeBaseError(f"cannot write a backup copy to {target}: {reason}") from None


def upgrade(
    engine: Engine, shown_url: str, *, backup: bool | str | os.PathLike[str] = False
) -> UpgradeReport:
    """Create or migrate the schema to :data:`HEAD` in one write transaction.

    The state is looked at again under the write lock, so that of several processes opening
    one new database at once exactly one creates the schema and the others find it done.
    A migration runs with SQLite's foreign keys off and is checked before it commits (see the
    module docstring): a dangling reference or a table of :data:`KEPT_TABLES` whose row count
    changed rolls it back.

    Parameters
    ----------
    engine : Engine
        The database.
    shown_url : str
        Its URL with the password hidden, for messages.
    backup : bool or path-like, default=False
        Before migrating an older SQLite file, copy it with :func:`backup_sqlite`: to this
        path, or with ``True`` to :func:`default_backup_path`.  Ignored for other databases
        and when there is nothing to migrate.

    Returns
    -------
    UpgradeReport

    Raises
    ------
    KnowledgeBaseError
        The database is not a metarec knowledge base, the copy cannot be written, or the
        migration would lose or orphan rows (nothing is changed).
    """
    from metarec.storage._engine import sqlite_file, write_transaction

    path = sqlite_file(engine)
    copy: Path | None = None
    copied: dict[str, int] | None = None
    if backup is not False and backup is not None and path is not None:
        with engine.connect() as conn:
            state = schema_state(conn, shown_url)
            if state.kind == "old":
                copy = (
                    default_backup_path(path, str(state.revision))
                    if backup is True
                    else Path(backup)
                )
                backup_sqlite(path, copy)
                copied = row_counts(conn)
    # foreign keys off for the migration (SQLite): a rebuilt table's DROP must not cascade
    with write_transaction(engine, check_references=False) as conn:
        state = schema_state(conn, shown_url)
        if state.kind == "empty":
            create_current(conn)
            return UpgradeReport(None, HEAD)
        if state.kind == "current":
            return UpgradeReport(state.revision, HEAD, copy)
        before = row_counts(conn)
        if copied is not None and copied != before:
            raise KnowledgeBaseError(
                f"{shown_url} changed while it was being copied to {copy}; nothing was "
                "migrated: upgrade it again"
            )
        run_scripts(conn)
        _check_migrated(conn, before, shown_url, str(state.revision))
    return UpgradeReport(state.revision, HEAD, copy, before)


def _check_migrated(conn: Connection, before: dict[str, int], shown_url: str, old: str) -> None:
    """Refuse (raise, so the transaction rolls back) a migration that lost or orphaned rows."""
    refused = f"the upgrade of {shown_url} from revision {old} was rolled back, nothing changed"
    after = row_counts(conn)
    changed = [f"{t} {before[t]} -> {after[t]} rows" for t in KEPT_TABLES if after[t] != before[t]]
    if changed:
        raise KnowledgeBaseError(f"{refused}: it would change {', '.join(changed)}")
    if conn.dialect.name == "sqlite":
        dangling = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
        if dangling:
            table, rowid, parent = dangling[0][:3]
            raise KnowledgeBaseError(
                f"{refused}: {len(dangling)} row(s) would refer to missing rows "
                f"(first: {table} row {rowid} -> {parent})"
            )


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
