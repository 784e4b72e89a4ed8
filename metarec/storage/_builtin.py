"""The built-in knowledge base: resource files shipped in the package, read where they are.

This module owns the fallback to it: :func:`open_builtin` opens it alone,
:func:`open_or_builtin` opens a knowledge base, or the built-in one when that holds no runs
(what the recommending commands and :class:`metarec.Recommender` users start from), and
:func:`open_seeded` opens a knowledge base to grow, which builds on the built-in one when
it is new or empty (what ``metarec run`` and ``benchmark`` store into).

The package carries the built-in KB as four zstd-compressed Parquet files in
``metarec/_resources/`` (``builtin_runs``, ``builtin_metafeatures``, ``builtin_datasets``,
``builtin_algorithms``; written by :func:`metarec.benchmark.export_builtin`).  They are read
as they are, once per process (:func:`metarec.storage._layers.builtin_part`); nothing is
copied into the user's database, which holds only what its user adds (see
:mod:`metarec.storage._layers` for the merge rule every read follows).
"""

from __future__ import annotations

import os

from metarec._config import resolve_db_url
from metarec.storage._engine import sqlite_path
from metarec.storage._kb import KnowledgeBase
from metarec.storage._layers import BUILTIN_TABLES, resource_files

__all__ = [
    "BUILTIN_TABLES",
    "open_builtin",
    "open_or_builtin",
    "open_seeded",
    "resource_files",
]


def open_builtin() -> KnowledgeBase:
    """Open the knowledge base shipped with metarec, alone (read it, do not write to it).

    Its rows are read from the resource files where metarec is installed; the returned
    knowledge base's own part is an empty in-memory database.

    Returns
    -------
    KnowledgeBase
        With ``is_builtin`` set and ``builds_on == "builtin"``.

    Raises
    ------
    KnowledgeBaseError
        This installation carries no built-in knowledge base.
    """
    resource_files()  # a clear error before anything is opened
    kb = KnowledgeBase("sqlite://")
    kb.build_on_builtin()
    kb.is_builtin = True
    kb.reopen_builtin = open_builtin
    return kb


def open_or_builtin(url: str | os.PathLike[str] | None = None) -> KnowledgeBase:
    """Open ``url`` (or the default KB); fall back to :func:`open_builtin` when it has no runs.

    A default SQLite file that does not exist is not created by this call.

    Parameters
    ----------
    url : str or path-like, optional
        A SQLAlchemy URL or a SQLite path; ``METAREC_DB``, else the default file, when None.

    Returns
    -------
    KnowledgeBase
    """
    resolved = resolve_db_url(url)
    path = sqlite_path(resolved)
    if path is not None and (not path.exists() or path.stat().st_size == 0):
        return open_builtin()
    kb = KnowledgeBase(resolved, read_only=None)
    if not kb.has_runs():
        kb.close()
        return open_builtin()
    return kb


def open_seeded(kb=None) -> tuple[KnowledgeBase, bool]:
    """Open a knowledge base to read and grow; a new or empty one builds on the built-in one.

    A new SQLite file is created holding nothing but the mark that it builds on the
    built-in knowledge base (:meth:`KnowledgeBase.build_on_builtin`): every read sees the
    built-in rows, read where metarec is installed, and it stores only what is added to it.
    An existing knowledge base without runs of its own is marked the same way; one with
    runs is used as it is.  This is what ``metarec run`` and :class:`metarec.AutoClassifier`
    store their folds in.

    Parameters
    ----------
    kb : KnowledgeBase, str, path or None
        A knowledge base (returned as it is), a database URL or SQLite path, or None for the
        default one (``METAREC_DB`` or metarec's data directory).

    Returns
    -------
    (KnowledgeBase, bool)
        The knowledge base, and whether it was just made to build on the built-in one.

    Raises
    ------
    KnowledgeBaseError
        The file cannot be created, or is not a knowledge base, or this installation has
        no built-in knowledge base for a new one.
    """
    from metarec.storage._opening import refuse_data_file

    if isinstance(kb, KnowledgeBase):
        return kb, False
    url = resolve_db_url(None if kb is None else str(kb))
    path = sqlite_path(url)
    if path is not None and not path.exists():
        refuse_data_file(path, create=True)
    opened = KnowledgeBase(url)
    if opened.builds_on is not None or opened.has_runs():
        return opened, False
    try:
        opened.build_on_builtin()
    except BaseException:
        opened.close()
        raise
    return opened, True
