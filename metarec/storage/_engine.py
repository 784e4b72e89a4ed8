"""Database engines for the knowledge base: SQLite tuning and clear connection errors.

Any SQLAlchemy URL works.  SQLite files get, on every new connection (a ``connect`` event):

* ``PRAGMA journal_mode=WAL`` - readers never block the writer, a crash never corrupts (set
  once per file, and retried while another process creating the same file holds it);
* ``PRAGMA foreign_keys=ON`` - SQLite does not enforce foreign keys otherwise (a run import
  turns it off for its own transaction, see :func:`write_transaction`);
* ``PRAGMA busy_timeout`` of :data:`BUSY_TIMEOUT_S` seconds - a second writer waits for the
  first instead of failing with "database is locked";
* ``PRAGMA synchronous=NORMAL`` - durable at every checkpoint, the usual WAL setting.

A knowledge base can also be opened read-only (``read_only=True``, for a shared team KB or a
read-only mount): the file is opened with the SQLite URI ``mode=ro``, or ``immutable=1`` when
its folder cannot be written (a WAL-mode reader would otherwise need to create the ``-shm``
file there); no pragma that writes is issued and any write fails.

The Python ``sqlite3`` driver's own transaction handling is switched off and SQLAlchemy
emits ``BEGIN`` itself (the recipe of SQLAlchemy's SQLite documentation), so that a write
transaction can start with ``BEGIN IMMEDIATE``: it takes the write lock at once, waiting up
to the busy timeout, instead of failing half-way when two processes import at the same time.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from metarec._config import redact_url
from metarec.exceptions import KnowledgeBaseError

__all__ = [
    "BUSY_TIMEOUT_S",
    "make_engine",
    "sqlite_file",
    "sqlite_read_only_mode",
    "write_transaction",
    "database_errors",
]

#: Seconds a SQLite writer waits for another writer before giving up.
BUSY_TIMEOUT_S = 30.0
#: SQLite page cache of a write transaction, in KiB (reset to SQLite's 2 MiB afterwards).
WRITE_CACHE_KIB = 262_144

_WRITE_OPTION = "metarec_write"
#: Key of the PostgreSQL advisory lock that serialises metarec's write transactions.
_PG_WRITE_LOCK = 0x6D65746172656301  # "metarec" + 1


def sqlite_path(url: str) -> Path | None:
    """Return the file of a SQLite URL.

    Parameters
    ----------
    url : str
        A database URL.

    Returns
    -------
    Path or None
        The SQLite file; None for an in-memory database or another database system.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def sqlite_file(engine: Engine) -> Path | None:
    """The SQLite file behind ``engine`` (opened read-write), or ``None``."""
    return sqlite_path(engine.url.render_as_string(hide_password=False))


def _check_sqlite_file(path: Path, shown_url: str) -> None:
    """Reject a file that is not a SQLite database before SQLite itself complains."""
    if not path.exists():
        return
    if path.is_dir():
        raise KnowledgeBaseError(f"{shown_url}: {path} is a directory, not a knowledge base file")
    size = path.stat().st_size
    if size == 0:
        return
    # The header is read by SQLite, never with open() and close(): closing any descriptor
    # of a file drops every POSIX lock this process holds on it, the locks of its open
    # SQLite connections included.  Another process then finds the database unused,
    # checkpoints it and deletes its WAL under those connections (the next read here fails
    # with "database disk image is malformed", a write could corrupt the file: "How To
    # Corrupt An SQLite Database File", section 2.2).  SQLite's own close of a file this
    # process has open elsewhere keeps the descriptor until the last lock is released.
    from urllib.parse import quote

    # read-only, creating nothing beside the file (see peek_mode)
    query = "immutable=1" if peek_mode(path) == "immutable" else "mode=ro"
    try:
        probe = sqlite3.connect(
            f"file:{quote(str(path.resolve()))}?{query}", uri=True, timeout=BUSY_TIMEOUT_S
        )
    except sqlite3.Error:
        return  # unreadable here: the real connection says why
    try:
        probe.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise KnowledgeBaseError(
                f"{path} is not a metarec knowledge base: it is not a SQLite database "
                "(wrong file header); give another file with --db or METAREC_DB"
            ) from None
        # locked, or a WAL file it cannot read here: the real connection says why
    finally:
        probe.close()


def _writable(path: Path) -> bool:
    """Whether this process may write ``path`` (a file or a folder)."""
    return os.access(path, os.W_OK)


def sqlite_read_only_mode(path: Path) -> str | None:
    """The read-only mode a reader must use for the SQLite file ``path``, or ``None``.

    ``"immutable"`` when the file's folder is not writable (no ``-wal``/``-shm`` can be made
    there) and no ``-shm`` file is there, ``"ro"`` when only the file is not writable, or when
    a readable ``-shm`` file is there (its owner writes it now, in WAL mode: an immutable
    reader would miss the rows in the WAL, or meet pages changing under it), ``None`` when
    both are writable or the file does not exist.

    Raises
    ------
    KnowledgeBaseError
        The folder is not writable, no ``-shm`` file is there, but a ``-wal`` file with
        rows is: an immutable reader would silently miss those rows, and any other needs
        to create the ``-shm`` file, which the folder does not allow.
    """
    if not path.is_file():
        return None
    if not _writable(path.parent):
        shm = path.with_name(path.name + "-shm")
        if shm.is_file() and os.access(shm, os.R_OK):
            return "ro"
        wal = path.with_name(path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            raise KnowledgeBaseError(
                f"{path}: its write-ahead log {wal.name} holds rows not yet in the file, and "
                f"SQLite cannot read them in a folder it cannot write ({path.parent}: it "
                "needs a -shm file beside them); copy both files to a writable folder, or "
                "have the owner open it once where it is (a writing metarec command folds "
                "the log into the file)"
            )
        return "immutable"
    if not _writable(path):
        return "ro"
    return None


def peek_mode(path: Path) -> str:
    """The read-only mode of a look that must create nothing beside ``path``: ``"immutable"``
    when no ``-wal``, ``-shm`` or ``-journal`` file is there (no connection has it open in
    WAL mode, and no rollback-journal write is under way, so the file holds every row;
    ``mode=ro`` on a WAL-mode file would create the first two), else what
    :func:`sqlite_read_only_mode` says, ``"ro"`` at least."""
    beside = ("-wal", "-shm", "-journal")
    if not any(path.with_name(path.name + extra).exists() for extra in beside):
        return "immutable"
    return sqlite_read_only_mode(path) or "ro"


def make_engine(url: str, *, create_dirs: bool = True, read_only: str | bool = False) -> Engine:
    """Return an engine for ``url``, with the SQLite settings described in the module.

    Parameters
    ----------
    url : str
        A full SQLAlchemy URL (see :func:`metarec._config.resolve_db_url`).
    create_dirs : bool, default=True
        Create the parent directory of a SQLite file if it is missing.
    read_only : bool or {"ro", "immutable"}, default=False
        Open a SQLite file read-only (``True`` means ``"ro"``; see the module docstring).

    Raises
    ------
    KnowledgeBaseError
        The URL cannot be parsed, its driver is missing, or the file is not SQLite.
    """
    shown = redact_url(url)
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise KnowledgeBaseError(f"invalid database URL {shown!r}: {exc}") from None
    path = sqlite_path(url)
    if path is not None:
        _check_sqlite_file(path, shown)
        if create_dirs and not read_only:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise KnowledgeBaseError(
                    f"cannot create the folder {path.parent} of the knowledge base {shown}: "
                    f"{exc.strerror or exc}"
                ) from None
    is_sqlite = parsed.get_backend_name() == "sqlite"
    kwargs: dict = {}
    mode = "ro" if read_only is True else (read_only or None)
    if is_sqlite and mode and path is not None:
        import sqlite3
        from urllib.parse import quote

        uri = f"file:{quote(str(path.resolve()))}?" + (
            "immutable=1" if mode == "immutable" else "mode=ro"
        )

        def connect():
            return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)

        kwargs["creator"] = connect
        parsed = make_url("sqlite://")
    elif is_sqlite:
        kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
        if path is None:
            # an in-memory database lives as long as its one connection
            from sqlalchemy.pool import StaticPool

            kwargs["poolclass"] = StaticPool
    try:
        engine = create_engine(parsed, **kwargs)
    except Exception as exc:
        raise KnowledgeBaseError(f"cannot use database {shown}: {exc}") from None
    if is_sqlite:
        _install_sqlite_events(engine, in_memory=path is None, read_only=bool(mode))
    return engine


def _install_sqlite_events(engine: Engine, *, in_memory: bool, read_only: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # pragma: no cover - trivial
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if not in_memory and not read_only:
                _use_wal(cursor)
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(_WRITE_OPTION):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def _use_wal(cursor) -> None:
    """Put the SQLite file of ``cursor`` in WAL mode (once: the mode is kept in the file).

    Switching a file to WAL takes a lock for which SQLite does not call the busy handler:
    when two processes open one new file at the same moment, the second one's switch can
    fail at once with "database is locked" (measured: about 1 in 25 such races).  So the mode
    is read first (a file already in WAL mode, as after its first connection, needs nothing)
    and a switch that finds the file busy is tried again, with growing pauses, for up to
    :data:`BUSY_TIMEOUT_S` seconds - the wait any other lock gets.
    """
    import time

    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.001
    while True:
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            return
        try:
            if cursor.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal":
                return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError("database is locked (cannot switch it to WAL mode)")
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


@contextlib.contextmanager
def write_transaction(engine: Engine, *, check_references: bool = True) -> Iterator[Connection]:
    """Yield a connection inside one write transaction, committed on success.

    On SQLite the transaction starts with ``BEGIN IMMEDIATE`` (see the module docstring), on
    PostgreSQL it first takes a transaction-level advisory lock: either way one writer at a
    time, the others wait;
    any exception rolls everything back, so an import either lands whole or not at all.

    ``check_references=False`` switches SQLite's foreign-key enforcement off for this one
    transaction (it is switched on again afterwards, whatever happens): for a writer that
    only writes ids it read or created inside the same transaction, under the write lock,
    and deletes dependent rows itself (no ``ON DELETE CASCADE``) - the run import, where the
    two parent look-ups per inserted run and per matrix row are a third of SQLite's work.
    Other databases always check.
    """
    with engine.connect() as conn:
        conn = conn.execution_options(**{_WRITE_OPTION: True})
        sqlite = conn.dialect.name == "sqlite"
        unchecked = sqlite and not check_references
        if sqlite:
            # a large page cache while writing: the unique index of the run keys takes random
            # inserts, which thrash SQLite's default 2 MiB cache on big imports (the cache
            # grows only as pages are used, and is given back after the transaction)
            driver = conn.connection.driver_connection
            driver.execute(f"PRAGMA cache_size = -{WRITE_CACHE_KIB}")
            if unchecked:  # only outside a transaction: SQLite ignores it inside one
                driver.execute("PRAGMA foreign_keys = OFF")
        try:
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    # one writer at a time, as BEGIN IMMEDIATE gives on SQLite: concurrent
                    # imports queue instead of deadlocking, and schema creation cannot race
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_WRITE_LOCK})")
                yield conn
        finally:
            if sqlite and not conn.invalidated:
                conn.connection.driver_connection.execute("PRAGMA cache_size = -2000")
                if unchecked:
                    conn.connection.driver_connection.execute("PRAGMA foreign_keys = ON")


def describe_error(exc: BaseException) -> str:
    """Return the database's own message of ``exc`` on one line."""
    original = getattr(exc, "orig", None) or exc
    return " ".join(str(original).split())


def _unwritable_hint(shown_url: str, message: str) -> str:
    """Why SQLite could not open or write a file, where the file system tells: its file or
    folder cannot be written here (a read-only mount, another user's folder)."""
    if "unable to open database file" not in message and "readonly" not in message:
        return ""
    path = sqlite_path(shown_url)
    if path is None or not path.exists():
        return ""
    for place in (path, path.parent):
        if not _writable(place):
            return f" ({place} cannot be written here: a read-only file system or folder?)"
    return ""


@contextlib.contextmanager
def database_errors(shown_url: str, action: str) -> Iterator[None]:
    """Translate SQLAlchemy / driver errors into :class:`KnowledgeBaseError`.

    Parameters
    ----------
    shown_url : str
        The redacted URL, named in the message.
    action : str
        What was being done ("open", "import runs into"...).
    """
    try:
        yield
    except KnowledgeBaseError:
        raise
    except (DBAPIError, sqlite3.Error) as exc:  # the driver's own: executemany of the runs
        message = describe_error(exc)
        if "not a database" in message or "malformed" in message:
            raise KnowledgeBaseError(
                f"{shown_url} is not a metarec knowledge base or is corrupt ({message})"
            ) from None
        raise KnowledgeBaseError(
            f"cannot {action} {shown_url}: {message}{_unwritable_hint(shown_url, message)}"
        ) from None
    except SQLAlchemyError as exc:
        raise KnowledgeBaseError(f"cannot {action} {shown_url}: {describe_error(exc)}") from None
