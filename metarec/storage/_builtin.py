"""The built-in knowledge base: resource files shipped in the package, loaded on first use.

This module owns the fallback to it: :func:`open_builtin` opens it and
:func:`open_or_builtin` opens a knowledge base, or the built-in one when that holds no runs
(what the recommending commands and :class:`metarec.Recommender` users start from).

The package carries the built-in KB as four zstd-compressed Parquet files in
``metarec/_resources/`` (``builtin_runs``, ``builtin_metafeatures``, ``builtin_datasets``,
``builtin_algorithms``; written by :func:`metarec.benchmark.export_builtin`).  The first
:func:`open_builtin` call imports them, through the ordinary import path, into a
SQLite file ``builtin-<version>-s<schema revision>-<digest>.sqlite`` in metarec's data directory; the digest of
the resource files names the file, so a new release (or rebuilt resources) never reads a stale
copy.  The file is built under a temporary name and renamed into place, so two processes
starting at once never see half a knowledge base.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from metarec._config import resolve_db_url
from metarec.exceptions import KnowledgeBaseError
from metarec.storage._engine import sqlite_path
from metarec.storage._kb import KnowledgeBase

__all__ = [
    "BUILTIN_TABLES",
    "builtin_path",
    "open_builtin",
    "open_or_builtin",
    "open_seeded",
    "resource_files",
    "seed_with_builtin",
]

BUILTIN_TABLES = ("datasets", "algorithms", "runs", "metafeatures")


def _resources() -> Path:
    return Path(__file__).resolve().parent.parent / "_resources"


def resource_files() -> dict[str, Path]:
    """Return the built-in resource files, or raise when this installation has none."""
    files = {name: _resources() / f"builtin_{name}.parquet" for name in BUILTIN_TABLES}
    missing = [str(p.name) for p in files.values() if not p.is_file()]
    if missing:
        raise KnowledgeBaseError(
            "this installation of metarec carries no built-in knowledge base "
            f"(missing {', '.join(missing)}); give a knowledge base with --db or METAREC_DB"
        )
    return files


def _digest(files: dict[str, Path]) -> str:
    h = hashlib.sha256()
    for name in BUILTIN_TABLES:
        h.update(files[name].read_bytes())
    return h.hexdigest()[:16]


def builtin_path() -> Path:
    """Return the SQLite file of the built-in knowledge base, building it if needed."""
    from metarec._config import data_dir
    from metarec._version import __version__
    from metarec.storage._migrate import HEAD

    files = resource_files()
    # the schema revision in the name: a copy built by an older schema is never opened
    target = data_dir() / f"builtin-{__version__}-s{HEAD}-{_digest(files)}.sqlite"
    if target.is_file() and target.stat().st_size > 0:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".builtin-", suffix=".sqlite", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        _load(files, tmp_path)
        os.replace(tmp_path, target)
    finally:
        for leftover in (tmp_path, *(Path(f"{tmp}{s}") for s in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
    return target


def open_builtin() -> KnowledgeBase:
    """Open the knowledge base shipped with metarec (read it, do not write to it).

    The resource files in ``metarec/_resources/`` are loaded once into a SQLite file in
    metarec's data directory, named after the package version and the files' contents,
    and reused afterwards.

    Returns
    -------
    KnowledgeBase
        With ``is_builtin`` set.

    Raises
    ------
    KnowledgeBaseError
        This installation carries no built-in knowledge base.
    """
    kb = KnowledgeBase(f"sqlite:///{builtin_path()}")
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
    """Open a knowledge base to read and grow; fill it with the built-in one if it is empty.

    A new SQLite file starts as a copy of the built-in knowledge base (the fastest start);
    an existing knowledge base without runs is filled through :func:`seed_with_builtin`.
    This is what ``metarec run`` and :class:`metarec.AutoClassifier` store their folds in.

    Parameters
    ----------
    kb : KnowledgeBase, str, path or None
        A knowledge base (returned as it is), a database URL or SQLite path, or None for the
        default one (``METAREC_DB`` or metarec's data directory).

    Returns
    -------
    (KnowledgeBase, bool)
        The knowledge base, and whether it was just filled with the built-in one.

    Raises
    ------
    KnowledgeBaseError
        The file cannot be created, or is not a knowledge base.
    """
    import shutil

    from metarec._files import link_new
    from metarec.storage._opening import refuse_data_file

    if isinstance(kb, KnowledgeBase):
        return kb, False
    url = resolve_db_url(None if kb is None else str(kb))
    path = sqlite_path(url)
    if path is not None and not path.exists():
        # The copy is linked into place only if no file is there yet: replacing one would
        # pull it from under another process that created it meanwhile and opened it (its
        # writes would go to the replaced file and be lost); that process's file is used.
        refuse_data_file(path, create=True)
        source = builtin_path()
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, tmp)
            created = link_new(tmp, path)
        except OSError as exc:
            raise KnowledgeBaseError(
                f"cannot create the knowledge base {path}: {exc.strerror or exc}"
            ) from None
        finally:
            tmp.unlink(missing_ok=True)
        if created:
            return KnowledgeBase(url), True
    opened = KnowledgeBase(url)
    return opened, seed_with_builtin(opened)


def seed_with_builtin(kb: KnowledgeBase) -> bool:
    """Fill a knowledge base that holds no runs with the built-in one's contents.

    A knowledge base that grows with use (``metarec run`` stores every fold it evaluates)
    must not start empty: a recommender fitted on a single dataset knows nothing.  The
    built-in datasets, algorithms, runs and metafeatures are imported through the ordinary
    import path, in the knowledge base's own schema.

    A dataset the knowledge base already holds (its metafeatures saved, say) is never
    overwritten: of a built-in dataset of the same name, the runs and (where the knowledge
    base has none for it) the metafeatures are taken only when the two fingerprints agree
    (the same content), and its record never.  Likewise an algorithm it holds keeps its
    record, and gets the built-in runs of its namesake only when the two have the same
    parameters (the same configuration; a record without parameters is of an unknown
    one).  So a fill interrupted after its datasets or algorithms were stored is completed
    by the next one.

    Returns
    -------
    bool
        Whether the knowledge base was filled (False: it already held runs).
    """
    if kb.has_runs():
        return False
    described = kb.metafeatures()
    _fill(
        kb,
        resource_files(),
        held=kb.datasets(),
        described=set(described.get("dataset", ())),
        algorithms=kb.algorithms(),
    )
    return True


def _fill(kb, files: dict[str, Path], held=None, described=frozenset(), algorithms=None) -> None:
    """Import the built-in files into ``kb`` around the datasets it holds (``held``), those
    it has metafeatures of (``described``) and the algorithms it holds (``algorithms``)."""
    import pandas as pd

    datasets = pd.read_parquet(files["datasets"])
    builtin_algorithms = pd.read_parquet(files["algorithms"])
    runs, metafeatures = files["runs"], files["metafeatures"]
    if algorithms is not None and len(algorithms):
        mine = dict(zip(algorithms["name"], algorithms["parameters"], strict=True))
        theirs = dict(
            zip(builtin_algorithms["name"], builtin_algorithms["parameters"], strict=True)
        )
        other = {n for n in mine if n in theirs and not _same_parameters(mine[n], theirs[n])}
        builtin_algorithms = builtin_algorithms.loc[~builtin_algorithms["name"].isin(list(mine))]
        runs = pd.read_parquet(runs) if isinstance(runs, Path) else runs
        runs = runs.loc[~runs["algorithm"].isin(list(other))]
    if held is not None and len(held):
        mine = dict(zip(held["name"], held["fingerprint"], strict=True))
        theirs = dict(zip(datasets["name"], datasets["fingerprint"], strict=True))
        other = {n for n in mine if n in theirs and (pd.isna(mine[n]) or mine[n] != theirs[n])}
        datasets = datasets.loc[~datasets["name"].isin(list(mine))]
        runs = pd.read_parquet(runs) if isinstance(runs, Path) else runs
        runs = runs.loc[~runs["dataset"].isin(list(other))]
        metafeatures = pd.read_parquet(metafeatures)
        keep_own = other | (set(mine) & set(described))
        metafeatures = metafeatures.loc[~metafeatures["dataset"].isin(list(keep_own))]
    kb.add_datasets(datasets)
    kb.add_algorithms(builtin_algorithms)
    kb.import_runs(runs)
    kb.import_metafeatures(metafeatures)


def _same_parameters(mine, theirs) -> bool:
    """Whether two stored ``parameters`` texts are the same configuration: equal as JSON
    (keys in any order, any spacing), else as text; a missing one is an unknown
    configuration, the same as none."""
    import json

    if not isinstance(mine, str) or not isinstance(theirs, str):
        return False
    try:
        return json.loads(mine) == json.loads(theirs)
    except ValueError:
        return mine == theirs


def _load(files: dict[str, Path], path: Path) -> None:
    kb = KnowledgeBase(f"sqlite:///{path}")
    try:
        _fill(kb, files)
        with kb.engine.connect() as conn:  # fold the WAL into the file before it is renamed
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        kb.close()
