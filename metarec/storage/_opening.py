"""Opening a knowledge base: what a database is, and the error for one that cannot be opened.

Reading a database never changes it: :func:`peek_state` classifies a SQLite file through a
read-only connection (an empty file without opening it), so that a refused database keeps
every byte (a read-write connection would switch it to WAL mode first).  Every refusal is said
twice (:class:`~metarec.exceptions.MetarecError`'s ``cli_message``): for Python callers with
the Python API, for the command line with its commands, and a hint only where it can work.
"""

from __future__ import annotations

from pathlib import Path

from metarec.exceptions import KnowledgeBaseError
from metarec.storage._engine import (
    database_errors,
    make_engine,
    peek_mode,
    sqlite_path,
    sqlite_read_only_mode,
)
from metarec.storage._migrate import HEAD, SchemaState, schema_state

__all__ = [
    "NoKnowledgeBaseError",
    "missing_file_error",
    "peek_state",
    "refusal",
    "refuse_data_file",
]


class NoKnowledgeBaseError(KnowledgeBaseError):
    """A knowledge base was to be read where there is none (a mistyped ``--db``).

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`~metarec.exceptions.MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see
        :class:`~metarec.exceptions.MetarecError`).
    """


def _missing_file_message(path: Path, given, shown_url: str) -> tuple[str, str]:
    """Why there is no knowledge base at ``path``, for Python and for the command line.

    The hint says how to make one only where that can work (not under a file).
    """
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        message = f"no knowledge base at {path}: {folder} is a file, not a folder"
        return message, message
    shown = given if isinstance(given, str) and "://" not in given else shown_url
    return (
        f"no knowledge base at {path}; KnowledgeBase({str(shown)!r}) creates one",
        f"no knowledge base at {path}; `metarec --db {shown} db upgrade` creates one",
    )


def _said_twice(common: str, python: str, cli: str) -> KnowledgeBaseError:
    """An error whose message ends with a hint for Python callers, and another for the CLI."""
    return KnowledgeBaseError(common + python, cli_message=common + cli)


#: File endings of data files, which a mistyped --db may name.
_DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".arff", ".gz", ".json", ".xlsx")


def refuse_data_file(path: Path | None, *, create: bool) -> None:
    """Refuse to create a knowledge base in a data file's name.

    A SQLite ``path`` that does not exist or is empty, named like a data file (``--db
    data.csv`` is a slip for a data argument), would silently become a database.

    Raises
    ------
    KnowledgeBaseError
    """
    if path is None or not create or not path.name.lower().endswith(_DATA_SUFFIXES):
        return
    if not path.exists() or path.stat().st_size == 0:
        raise KnowledgeBaseError(
            f"{path} looks like a data file, not a knowledge base: it would become a SQLite "
            "database; a knowledge base is a file such as kb.sqlite"
        )


def missing_file_error(path: Path, given, shown_url: str) -> NoKnowledgeBaseError:
    """The error for a SQLite file ``path`` that does not exist."""
    message, cli_message = _missing_file_message(path, given, shown_url)
    return NoKnowledgeBaseError(message, cli_message=cli_message)


def peek_state(url: str, shown_url: str) -> SchemaState:
    """What the database at ``url`` holds, read without writing a byte of it."""
    path = sqlite_path(url)
    if path is not None and path.is_file() and path.stat().st_size == 0:
        return SchemaState("empty", None)
    if path is not None and peek_mode(path) == "immutable":
        # nothing beside the file: look without creating a -wal / -shm there (a refused
        # database keeps its folder as it was); a writer starting at this moment could show
        # a page half-written, so any error is left to the ordinary read-only look below
        engine = make_engine(url, create_dirs=False, read_only="immutable")
        try:
            with engine.connect() as conn:
                return schema_state(conn, shown_url)
        except Exception:  # the look below says what is wrong
            pass
        finally:
            engine.dispose()
    engine = make_engine(url, create_dirs=False, read_only=path is not None)
    try:
        with database_errors(shown_url, "open"), engine.connect() as conn:
            return schema_state(conn, shown_url)
    finally:
        engine.dispose()


def refusal(
    state: SchemaState, url: str, shown_url: str, *, create: bool, upgrade: bool
) -> KnowledgeBaseError | None:
    """The error opening the database ``url`` in ``state`` must raise, or ``None``.

    Parameters
    ----------
    state : SchemaState
        What the database holds.
    url, shown_url : str
        Its URL, and the same with the password hidden.
    create, upgrade : bool
        Whether the caller may create a schema in an empty database, or migrate an older one.
    """
    path = sqlite_path(url)
    older = f"{shown_url} has schema revision {state.revision}, older than this metarec's {HEAD}"
    if state.kind == "old" and path is not None and sqlite_read_only_mode(path) is not None:
        return _said_twice(
            f"{older}, and is read-only here: its owner can upgrade it ",
            "(KnowledgeBase.open_for_upgrade)",
            "with 'metarec db upgrade'",
        )
    if state.kind == "old" and not upgrade:
        return _said_twice(
            f"{older}: upgrade it first with ",
            "KnowledgeBase.open_for_upgrade(url), which copies a SQLite file before migrating it",
            "'metarec db upgrade', which copies a SQLite file before migrating it",
        )
    if state.kind == "empty" and not create:
        if path is not None and path.suffix.lower() in _DATA_SUFFIXES:
            return _said_twice(
                f"{path} is empty and is not a knowledge base: ",
                "a KnowledgeBase URL names a knowledge-base file (such as kb.sqlite), not a "
                "data file",
                "--db names a knowledge-base file (such as kb.sqlite), not a data file",
            )
        return _said_twice(
            f"{shown_url} is empty: it is not a knowledge base yet (",
            "KnowledgeBase(url) creates one)",
            "import runs into it, or create it with 'metarec db upgrade')",
        )
    return None
