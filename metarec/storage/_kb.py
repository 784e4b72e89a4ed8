"""The :class:`KnowledgeBase`: metarec's store of datasets, metafeatures, algorithms and runs.

Everything else in metarec reads and writes the knowledge base (KB) through this class, whose
reading methods return pandas DataFrames; nobody else writes SQL.  See
:mod:`metarec.storage._models` for the tables and the natural keys that make imports
idempotent, :mod:`metarec.storage._importers` for the import rules, and
:mod:`metarec.storage._engine` for the SQLite settings (WAL, foreign keys, busy timeout).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from metarec._config import redact_url, resolve_db_url
from metarec._counts import MAX_COUNT, checked_count
from metarec.exceptions import ImportRejectedError, KnowledgeBaseError
from metarec.storage._check import Check
from metarec.storage._engine import (
    database_errors,
    make_engine,
    sqlite_path,
    sqlite_read_only_mode,
    write_transaction,
)
from metarec.storage._importers import CONFLICT_CHOICES, ImportReport, import_runs
from metarec.storage._metafeature_import import import_metafeatures
from metarec.storage._migrate import HEAD, SchemaState, UpgradeReport, schema_state
from metarec.storage._migrate import upgrade as upgrade_schema
from metarec.storage._models import ALL_TABLES, RUN_COLUMNS, TABLES, metadata
from metarec.storage._opening import (
    NoKnowledgeBaseError,
    missing_file_error,
    peek_state,
    refusal,
    refuse_data_file,
)
from metarec.storage._performance import (
    aggregate_runs,
    bump_version,
)
from metarec.storage._queries import ALGORITHM_COLUMNS, DATASET_COLUMNS, Reads

__all__ = ["KnowledgeBase", "NoKnowledgeBaseError", "RUN_COLUMNS", "aggregate_runs"]

EXPORT_FORMATS = ("csv", "parquet")


class KnowledgeBase:
    """A knowledge base of algorithm results on datasets, in any SQLAlchemy database.

    Parameters
    ----------
    url : str or path-like, optional
        An SQLAlchemy URL (``sqlite:///kb.sqlite``, ``postgresql+psycopg://user@host/db``) or
        the path of a SQLite file.  ``None``: the ``METAREC_DB`` environment variable, else
        ``kb.sqlite`` in metarec's data directory (see :mod:`metarec._config`).
    create : bool, default=True
        Create the database (a SQLite file and its folder) and the schema when missing.
        With ``False`` a SQLite file that does not exist raises
        :class:`NoKnowledgeBaseError` and an empty database
        :class:`~metarec.exceptions.KnowledgeBaseError`.
    upgrade : bool, default=False
        Migrate an older schema to this version's instead of refusing it
        (:meth:`open_for_upgrade`, ``metarec db upgrade``).
    read_only : bool or None, default=False
        Open a SQLite file read-only (writes fail).  ``None``: read-only exactly when the
        file or its folder is not writable by this process (a shared or mounted KB), with
        ``immutable=1`` when the folder is not writable (see :mod:`metarec.storage._engine`).
    backup : bool or path-like, default=True
        With ``upgrade=True``: before migrating an older SQLite file, copy it (to this path,
        or beside it with ``True``; see :func:`metarec.storage._migrate.backup_sqlite`).
        The copy's path is in :attr:`last_upgrade`.

    Attributes
    ----------
    last_upgrade : UpgradeReport or None
        What opening did to the schema: created, migrated (with the backup's path and the
        rows kept) or nothing (``None`` when the schema was already current).

    Raises
    ------
    NoKnowledgeBaseError
        ``create=False`` and the SQLite file does not exist.
    KnowledgeBaseError
        The database is unreachable, is not a metarec knowledge base, is corrupt, or was made
        by a newer metarec.  An older schema asks for ``metarec db upgrade``.

    Notes
    -----
    With ``create=False`` the database is only read until it is known to be a current
    knowledge base: an empty, foreign, older or newer database is refused without a byte of
    it changed (the schema check reads a SQLite file through a read-only connection).

    Examples
    --------
    >>> kb = KnowledgeBase("sqlite:///:memory:")
    >>> report = kb.import_runs(frame)          # doctest: +SKIP
    >>> kb.runs().head()                        # doctest: +SKIP
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        create: bool = True,
        upgrade: bool = False,
        read_only: bool | None = False,
        backup: bool | str | os.PathLike[str] = True,
    ) -> None:
        self._url = resolve_db_url(url)
        self.url = redact_url(self._url)
        self.is_builtin = False
        #: How the built-in knowledge base is opened again when unpickled (set by
        #: :func:`~metarec.storage.open_builtin`: this installation's copy, not the path)
        self.reopen_builtin = None
        path = sqlite_path(self._url)
        if not create and path is not None and not path.exists():
            raise missing_file_error(path, url, self.url)
        refuse_data_file(path, create=create or upgrade)
        mode: str | bool = bool(read_only)
        if path is not None and read_only is not False:
            mode = sqlite_read_only_mode(path) or bool(read_only)
        self.read_only = bool(mode)
        if self.read_only and (upgrade or create):
            create = upgrade = False
        self.last_upgrade: UpgradeReport | None = None
        self._tables = {name: metadata.tables[name] for name in ALL_TABLES}
        if path is not None and not (create or upgrade):
            # through a look that writes nothing, and creates nothing beside the file
            self._refuse_unless_current(path)
        self.engine = make_engine(self._url, create_dirs=create, read_only=mode)
        self._reads = Reads(self.engine, self._tables, self.url)
        try:
            self.revision = self._open(create=create, upgrade=upgrade, backup=backup)
        except BaseException:
            self.engine.dispose()
            raise

    # ----------------------------------------------------------------------- opening
    def _open(self, *, create: bool, upgrade: bool, backup) -> str | None:
        with database_errors(self.url, "open"):
            with self.engine.connect() as conn:
                state = schema_state(conn, self.url)
            refusal = self._refusal(state, create=create, upgrade=upgrade)
            if refusal is not None:
                raise refusal
            if state.kind == "current":
                return state.revision
            self.last_upgrade = upgrade_schema(self.engine, self.url, backup=backup)
            return self.last_upgrade.to_revision

    def _refusal(
        self, state: SchemaState, *, create: bool, upgrade: bool
    ) -> KnowledgeBaseError | None:
        """The error opening a database in ``state`` must raise, or ``None``."""
        return refusal(state, self._url, self.url, create=create, upgrade=upgrade)

    def _refuse_unless_current(self, path: Path) -> None:
        """Raise what :meth:`_open` would for a database that is not current, writing nothing
        (see :func:`metarec.storage._opening.peek_state`)."""
        error = self._refusal(peek_state(self._url, self.url), create=False, upgrade=False)
        if error is not None:
            raise error

    @classmethod
    def open_for_upgrade(
        cls,
        url: str | os.PathLike[str] | None = None,
        *,
        backup: bool | str | os.PathLike[str] = True,
    ) -> KnowledgeBase:
        """Open a knowledge base of any known schema revision and migrate it to the newest.

        An older SQLite file is first copied (``backup``, see :class:`KnowledgeBase`); what
        was done is in :attr:`last_upgrade`.  A migration keeps every row or is rolled back
        (see :mod:`metarec.storage._migrate`).
        """
        return cls(url, upgrade=True, backup=backup)

    def upgrade(self, *, backup: bool | str | os.PathLike[str] = True) -> str:
        """Migrate the schema to the newest revision; return it (see :meth:`open_for_upgrade`).

        Parameters
        ----------
        backup : bool or path-like, default=True
            Before migrating an older SQLite file, copy it (to this path, or beside it with
            ``True``; ignored for other databases and when there is nothing to migrate).  What
            was done, the copy's path included, is in :attr:`last_upgrade`.

        Returns
        -------
        str
            The schema revision now (the newest).
        """
        with database_errors(self.url, "upgrade"):
            self.last_upgrade = upgrade_schema(self.engine, self.url, backup=backup)
            self.revision = self.last_upgrade.to_revision
        return self.revision

    @staticmethod
    def revision_of(url: str | os.PathLike[str] | None = None) -> str | None:
        """The schema revision of the database at ``url`` (``None``: empty), changing nothing.

        Raises
        ------
        NoKnowledgeBaseError
            A SQLite file that does not exist.
        KnowledgeBaseError
            Not a metarec knowledge base, or made by a newer metarec.
        """
        resolved = resolve_db_url(url)
        path = sqlite_path(resolved)
        if path is not None and not path.exists():
            raise missing_file_error(path, url, redact_url(resolved))
        return peek_state(resolved, redact_url(resolved)).revision

    def check(self) -> list[Check]:
        """Check the knowledge base's health (``metarec db check``); nothing is written.

        Returns
        -------
        list of Check
            Integrity, schema, references, performance matrix, data version and row counts
            (see :mod:`metarec.storage._check`).
        """
        from metarec.storage._check import check_knowledge_base

        with database_errors(self.url, "check"), self.engine.connect() as conn:
            return check_knowledge_base(conn, revision=self.revision, head=HEAD)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.url!r})"

    def __deepcopy__(self, memo) -> KnowledgeBase:
        """The same object: a handle to a database is shared, not copied.

        ``sklearn.base.clone`` deep-copies an estimator's parameters; an estimator given
        ``kb=KnowledgeBase(...)`` and its clones then read and write the same database.
        """
        return self

    def __reduce__(self):
        """Pickled as the database's address: unpickling opens that database again.

        What travels is the full URL (a password in it included), whether it was opened
        read-only, and whether it is the built-in knowledge base (opened from the
        unpickling installation's copy).  An in-memory database lives only in this process
        and cannot be pickled.
        """
        if self.is_builtin and self.reopen_builtin is not None:
            return self.reopen_builtin, ()
        if _in_memory(self._url):
            raise KnowledgeBaseError(
                f"knowledge base {self.url}: an in-memory database cannot be pickled (its rows "
                "live in this process only); use a file or a database server"
            )
        return _reopen, (self._url, self.read_only)

    # ----------------------------------------------------------------------- writing
    def add_dataset(
        self,
        name: str,
        *,
        source: str | None = None,
        source_id: str | None = None,
        task: str | None = None,
        n_instances: int | None = None,
        n_features: int | None = None,
        fingerprint: str | None = None,
    ) -> None:
        """Record a dataset, or fill in / update the given fields of a stored one.

        Fields passed as ``None`` never erase stored values.

        Parameters
        ----------
        name : str
            The dataset's name, its key in the knowledge base (not empty).
        source : str, optional
            Where it comes from (``"openml"``, ``"sklearn"``, ``"file"``...).
        source_id : str, optional
            Its identifier at the source (an OpenML data id...); stored as text.
        task : str, optional
            ``"binary"``, ``"multiclass"``, ``"classification"`` or ``"regression"``.
        n_instances, n_features : int, optional
            Its numbers of rows and of feature columns (whole numbers >= 0).
        fingerprint : str, optional
            The content hash of its data (:func:`metarec.data.fingerprint`).
        """
        values = {
            "source": source,
            "source_id": None if source_id is None else str(source_id),
            "task": task,
            "n_instances": n_instances,
            "n_features": n_features,
            "fingerprint": fingerprint,
        }
        self._upsert("datasets", [(str(name), values)])

    def add_algorithm(
        self,
        name: str,
        *,
        family: str | None = None,
        library: str | None = None,
        parameters: Mapping[str, Any] | str | None = None,
    ) -> None:
        """Record an algorithm, or update the given fields of a stored one.

        ``parameters`` (a mapping) is stored as canonical JSON (sorted keys), so the same
        configuration always gives the same text.

        Parameters
        ----------
        name : str
            The algorithm's name, its key in the knowledge base (not empty).
        family : str, optional
            The kind of model (``"tree"``, ``"linear"``...).
        library : str, optional
            The library that implements it.
        parameters : mapping or str, optional
            Its hyperparameters: a mapping (stored as canonical JSON) or JSON text stored as
            given.
        """
        if parameters is not None and not isinstance(parameters, str):
            parameters = json.dumps(parameters, sort_keys=True, default=str)
        values = {"family": family, "library": library, "parameters": parameters}
        self._upsert("algorithms", [(str(name), values)])

    def add_datasets(self, frame) -> None:
        """Record many datasets at once (a frame with the columns of :meth:`datasets`).

        Parameters
        ----------
        frame : DataFrame
            A ``name`` column and any of the other columns of :meth:`datasets`; missing
            cells never erase stored values (see :meth:`add_dataset`).
        """
        self._upsert_many("datasets", frame, DATASET_COLUMNS)

    def add_algorithms(self, frame) -> None:
        """Record many algorithms at once (a frame with the columns of :meth:`algorithms`).

        Parameters
        ----------
        frame : DataFrame
            A ``name`` column and any of ``family, library, parameters``; missing cells never
            erase stored values (see :meth:`add_algorithm`).
        """
        self._upsert_many("algorithms", frame, ALGORITHM_COLUMNS)

    def _upsert_many(self, table_name: str, frame, columns) -> None:
        import pandas as pd

        if "name" not in frame.columns:
            raise KnowledgeBaseError(f"{table_name}: a 'name' column is required")
        rows = []
        for record in frame.to_dict(orient="records"):
            values = {c: record.get(c) for c in columns if c != "name"}
            values = {
                k: (None if v is None or (not isinstance(v, str) and pd.isna(v)) else v)
                for k, v in values.items()
            }
            rows.append((str(record["name"]), values))
        self._upsert(table_name, rows)

    def _upsert(self, table_name: str, rows: list[tuple[str, dict[str, Any]]]) -> None:
        from sqlalchemy import select, update

        table = self._tables[table_name]
        for name, values in rows:
            if not name.strip():
                raise KnowledgeBaseError(f"a {table_name[:-1]} needs a non-empty name")
            for key in ("n_instances", "n_features"):
                if key in values:
                    values[key] = checked_count(f"{table_name[:-1]} {name!r}", key, values[key])
        with database_errors(self.url, f"write {table_name} to"):
            with write_transaction(self.engine) as conn:
                changed = False
                for name, values in rows:
                    given = {k: v for k, v in values.items() if v is not None}
                    columns = [table.c.id, *(table.c[k] for k in given)]
                    found = conn.execute(select(*columns).where(table.c.name == name)).first()
                    if found is None:
                        conn.execute(table.insert().values(name=name, **given))
                        changed = True
                    elif given and tuple(found[1:]) != tuple(given.values()):
                        conn.execute(update(table).where(table.c.id == found[0]).values(**given))
                        changed = True
                if changed:
                    bump_version(conn)

    def import_runs(
        self,
        path_or_frame,
        *,
        skip_invalid: bool = False,
        source: str | None = None,
        protocol: str | None = None,
        progress: Callable[..., None] | None = None,
        chunksize: int | None = None,
        on_conflict: str = "error",
    ) -> ImportReport:
        """Import run rows from a CSV / TSV / Parquet file or a DataFrame, in one transaction.

        Long format: columns ``dataset, algorithm, accuracy, time`` (or ``fit_time``), optional
        ``protocol, seed, fold, status, predict_time, source, source_run_id, error, machine``,
        and any further numeric column as a per-run metric.  New datasets and algorithms are created.
        Re-importing the same rows adds nothing.

        Parameters
        ----------
        path_or_frame : str, path-like or DataFrame
            What to import.
        skip_invalid : bool, default=False
            Store the valid rows and report the invalid ones instead of rejecting the input.
        source, protocol : str, optional
            Values for rows that do not say.
        progress : callable, optional
            ``progress(n_rows, total=None)`` after each chunk.
        chunksize : int, optional
            Rows read and written at a time (memory stays bounded by it).
        on_conflict : {"error", "keep", "replace"}, default="error"
            What to do with a run whose key (``source``, ``source_run_id``) is already stored,
            or repeated in the input, with *different* values: reject the input naming both
            places (``"error"``), keep the stored / first value (``"keep"``), or store the
            new / last value (``"replace"``, reported as old -> new in the notes).  Identical
            rows are never a conflict.

        Returns
        -------
        ImportReport
            Rows added, already present, replaced, rejected, and the problems found.

        Raises
        ------
        ImportRejectedError
            An invalid row (without ``skip_invalid``), a conflict (with
            ``on_conflict="error"``), a missing or duplicated column, an unreadable file;
            nothing was stored.
        """
        if on_conflict not in CONFLICT_CHOICES:
            raise KnowledgeBaseError(
                f"on_conflict must be one of {', '.join(CONFLICT_CHOICES)}; got {on_conflict!r}"
            )
        with database_errors(self.url, "import runs into"):
            # ids resolved under the write lock: no per-row foreign-key look-ups needed
            with write_transaction(self.engine, check_references=False) as conn:
                return import_runs(
                    conn,
                    self._tables,
                    path_or_frame,
                    skip_invalid=skip_invalid,
                    source=source,
                    protocol=protocol,
                    progress=progress,
                    chunksize=chunksize,
                    on_conflict=on_conflict,
                )

    def import_datasets(self, path_or_frame) -> ImportReport:
        """Record datasets from a file or frame with the columns of :meth:`datasets`.

        What :meth:`export` writes as ``datasets``: a ``name`` column, and any of ``source,
        source_id, task`` (``binary``, ``multiclass``, ``classification`` or
        ``regression``), ``n_instances, n_features, fingerprint``.  A dataset already stored
        gets the values given (an empty cell changes nothing).  Importing it before the runs
        keeps what the runs file cannot say, such as which datasets are regression tasks.

        Parameters
        ----------
        path_or_frame : str, path-like or DataFrame
            A CSV / TSV / Parquet file, or a DataFrame, with those columns.

        Returns
        -------
        ImportReport
            Datasets added, already stored unchanged, and updated.

        Raises
        ------
        ImportRejectedError
            No ``name`` column, an unknown column, an empty name, a repeated name, an
            unknown task, a size that is not a whole number >= 0, or a dataset with runs
            turned from classification into regression or back; nothing was stored.
        """
        return self._import_records("datasets", path_or_frame, DATASET_COLUMNS)

    def import_algorithms(self, path_or_frame) -> ImportReport:
        """Record algorithms from a file or frame with the columns of :meth:`algorithms`.

        What :meth:`export` writes as ``algorithms``: a ``name`` column, and any of
        ``family, library, parameters``.  See :meth:`import_datasets`.

        Parameters
        ----------
        path_or_frame : str, path-like or DataFrame
            A CSV / TSV / Parquet file, or a DataFrame, with those columns.

        Returns
        -------
        ImportReport
            Algorithms added, already stored unchanged, and updated.

        Raises
        ------
        ImportRejectedError
            No ``name`` column, an unknown column, an empty or repeated name.
        """
        return self._import_records("algorithms", path_or_frame, ALGORITHM_COLUMNS)

    def _import_records(self, table: str, path_or_frame, columns) -> ImportReport:
        import pandas as pd

        from metarec.storage._readers import open_source

        text = [c for c in columns if c not in ("n_instances", "n_features")]
        reader = open_source(path_or_frame, string_columns=tuple(text))
        reader.check_duplicates()
        where = reader.label
        unknown = [c for c in reader.columns if c not in columns]
        if "name" not in reader.columns or unknown:
            problem = (
                f"unknown column {unknown[0]!r}"
                if unknown
                else f"no 'name' column (found: {reader.found})"
            )
            raise ImportRejectedError(
                f"{where}: {problem}; a {table} file has the columns {', '.join(columns)}"
            )
        frame = pd.concat([chunk for _, chunk in reader.chunks()], ignore_index=True)
        problem = _record_problem(frame, table)
        if problem is not None:
            row, message = problem
            line = f"line {row + 2}" if reader.kind == "text" else f"row {row + 1}"
            raise ImportRejectedError(f"{where}, {line}: {message}")
        frame = frame.assign(name=frame["name"].astype(str).str.strip())
        before = (self.datasets() if table == "datasets" else self.algorithms()).set_index("name")
        if table == "datasets" and "task" in frame.columns:
            self._refuse_task_family_changes(frame, before, where)
        self._upsert_many(table, frame, columns)
        after = (self.datasets() if table == "datasets" else self.algorithms()).set_index("name")
        names = list(frame["name"])
        added = sum(1 for n in names if n not in before.index)
        kept = [n for n in names if n in before.index]
        same = sum(
            1
            for n in kept
            if before.loc[n].astype(str).tolist() == after.loc[n].astype(str).tolist()
        )
        return ImportReport(
            added=added, present=same, rejected=0, updated=len(kept) - same, source=where,
            notes=tuple(reader.notes),
        )  # fmt: skip

    def _refuse_task_family_changes(self, frame, before, where: str) -> None:
        """A stored dataset with runs keeps its kind of task: its runs were measured as
        classification (or as regression), and relabelling the dataset would rank them as the
        other (an accuracy read as an R²)."""

        def regression(tasks):
            return tasks.astype("string").eq("regression").fillna(False)

        new = frame.loc[frame["task"].notna(), ["name", "task"]].set_index("name")["task"]
        old = before["task"].reindex(new.index)
        changed = new.index[
            old.notna().to_numpy() & (regression(new) != regression(old)).to_numpy()
        ]
        if len(changed) == 0:
            return
        with_runs = set(self.runs(datasets=list(changed))["dataset"].astype(str))
        for name in changed:
            if name in with_runs:
                raise ImportRejectedError(
                    f"{where}: dataset {name!r} is stored as {old[name]} with runs; it cannot "
                    f"become {new[name]} (its runs were measured for the other kind of task); "
                    "nothing was stored"
                )

    def import_metafeatures(
        self,
        path_or_frame,
        *,
        skip_invalid: bool = False,
        progress: Callable[..., None] | None = None,
        chunksize: int | None = None,
    ) -> ImportReport:
        """Import wide metafeatures (a ``dataset`` column, one column per metafeature).

        The datasets must already be in the knowledge base.  OpenML quality names are
        translated to metarec's (:data:`metarec.metafeatures.OPENML_QUALITY_MAP`).  Values are
        replaced in place; missing cells never erase a stored value.  One transaction.

        Parameters
        ----------
        path_or_frame : str, path-like or DataFrame
            A CSV / TSV / Parquet file, or a DataFrame: a ``dataset`` column naming stored
            datasets and one numeric column per metafeature.
        skip_invalid : bool, default=False
            Store the valid rows and report the invalid ones instead of rejecting the input.
        progress : callable, optional
            ``progress(n_rows, total=None)`` after each chunk.
        chunksize : int, optional
            Rows read and written at a time (memory stays bounded by it).

        Returns
        -------
        ImportReport
            Metafeature values added, replaced (``updated``) and already stored, rows
            rejected, and the problems found.

        Raises
        ------
        ImportRejectedError
            An invalid row (an unknown or repeated dataset, a value that is not a finite
            number) without ``skip_invalid``, no ``dataset`` column, a reserved column name,
            an unreadable file; nothing was stored.
        """
        with database_errors(self.url, "import metafeatures into"):
            with write_transaction(self.engine) as conn:
                return import_metafeatures(
                    conn,
                    self._tables,
                    path_or_frame,
                    skip_invalid=skip_invalid,
                    progress=progress,
                    chunksize=chunksize,
                )

    # ----------------------------------------------------------------------- reading
    def info(self) -> dict[str, Any]:
        """URL (password hidden), dialect, schema revision and the row count of every table.

        Also the datasets by task: ``classification_datasets`` (binary, multiclass, or no
        recorded task) and ``regression_datasets``.

        Returns
        -------
        dict of str to Any
            ``url``, ``dialect``, ``revision``, ``builtin`` (whether it is the built-in
            knowledge base), ``datasets``, ``classification_datasets``,
            ``regression_datasets``, the row count of every other table (``algorithms``
            counts every named algorithm, configurations included), ``configurations``
            (algorithms named as a configuration of another, ``lightgbm_c07``) and
            ``base_algorithms`` (the others).
        """
        from metarec._names import configuration_base

        counts = {table: self.count(table) for table in TABLES}
        tasks = self.datasets()["task"]
        regression = int((tasks == "regression").sum())
        names = set(self.algorithms()["name"].astype(str))
        configurations = {n for n in names if configuration_base(n) is not None}
        return {
            "url": self.url,
            "dialect": self.engine.dialect.name,
            "revision": self.revision,
            "builtin": self.is_builtin,
            "datasets": counts.pop("datasets"),
            "classification_datasets": len(tasks) - regression,
            "regression_datasets": regression,
            **counts,
            "configurations": len(configurations),
            "base_algorithms": len(names - configurations),
        }

    def source_run_ids(self, source: str, ids: Iterable[str]) -> list[str]:
        """Which of ``ids`` are stored as ``source_run_id`` of runs from ``source``.

        One indexed look-up per 5,000 ids (the integer run keys of named runs), without
        reading any run: what an ingester asks before downloading runs again.

        Parameters
        ----------
        source : str
            The runs' ``source`` (``"openml"``...).
        ids : iterable of str
            Run identifiers at that source (compared as text).

        Returns
        -------
        list of str
            The stored ones among ``ids``, each once.
        """
        return self._reads.source_run_ids(source, ids)

    def data_version(self) -> str:
        """A token that changes whenever datasets, algorithms, runs or metafeatures change.

        Every write transaction that changes the data stores a new random token (an import
        that adds nothing keeps it), so two reads that see the same token see the same data:
        a cache key (the fitted recommender is cached under it).

        Returns
        -------
        str
            The current token (``""`` when none has been stored yet).
        """
        return self._reads.data_version()

    def count(self, table: str) -> int:
        """Number of rows of one table (``"runs"``, ``"datasets"``...).

        Parameters
        ----------
        table : str
            A table of the knowledge base: ``"datasets"``, ``"algorithms"``,
            ``"metafeatures"``, ``"runs"``, ``"run_metrics"``...

        Returns
        -------
        int
        """
        return self._reads.count(table)

    def has_runs(self) -> bool:
        """Whether any run is stored (looks up one row; ``count`` would scan an index).

        Returns
        -------
        bool
        """
        return self._reads.has_runs()

    def datasets(self):
        """All datasets: name, source, source_id, task, n_instances, n_features, fingerprint.

        Returns
        -------
        DataFrame
            One row per dataset, sorted by name, with those columns (the sizes as nullable
            ``Int64``; a field never recorded is missing).
        """
        return self._reads.datasets()

    def algorithms(self):
        """All algorithms: name, family, library, parameters (canonical JSON text).

        Returns
        -------
        DataFrame
            One row per algorithm, sorted by name, with those columns.
        """
        return self._reads.algorithms()

    def metafeatures(
        self, *, datasets: Iterable[str] | None = None, names: Iterable[str] | None = None
    ):
        """Metafeatures, wide: one row per dataset, a ``dataset`` column and one per metafeature.

        Parameters
        ----------
        datasets : iterable of str, optional
            Only these datasets.
        names : iterable of str, optional
            Only these metafeatures.

        Returns
        -------
        DataFrame
            One row per dataset with at least one value, a ``dataset`` column and one float
            column per metafeature in name order (NaN where a dataset has no value).
        """
        return self._reads.metafeatures(datasets=datasets, names=names)

    def runs(
        self,
        *,
        aggregate: bool = True,
        datasets: Iterable[str] | None = None,
        algorithms: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ):
        """Stored runs as a DataFrame.

        Parameters
        ----------
        aggregate : bool, default=True
            ``False``: one row per stored run (fold, seed) with the columns of
            :data:`RUN_COLUMNS` and one column per per-run metric.  ``True``: one row per
            (dataset, algorithm): ``accuracy`` and every metric are means over the ``ok`` runs,
            ``fit_time`` and ``predict_time`` means over all runs that recorded one (a failed
            run used its time too), ``n_runs``, ``n_failed``, and ``status`` (``ok`` when any
            run is ok, else the first failure's status).
        datasets, algorithms : iterable of str, optional
            Only these.
        metrics : iterable of str, optional
            Only these per-run metrics (``[]``: none); all by default.

        Returns
        -------
        DataFrame
            The runs, or their aggregates, with the columns described under ``aggregate``.
        """
        return self._reads.runs(
            aggregate=aggregate, datasets=datasets, algorithms=algorithms, metrics=metrics
        )

    def export(
        self, directory: str | os.PathLike[str], *, format: str = "parquet"
    ) -> dict[str, Path]:
        """Write the whole knowledge base as four files that the ``import_*`` methods read back.

        ``runs`` (long, one row per run, metrics as columns), ``metafeatures`` (wide),
        ``datasets`` and ``algorithms``, as ``<directory>/<table>.<format>``;
        :meth:`import_datasets`, :meth:`import_algorithms`, :meth:`import_runs` and
        :meth:`import_metafeatures`, in that order, rebuild the knowledge base from them.
        The four are read in one transaction: written while other processes write, they
        hold one moment's contents, so that they import back.  They are written beside
        their places first and put in place together at the end, so that an interrupted or
        failed export leaves an earlier export in ``directory`` whole, never a mix of two
        moments.

        Parameters
        ----------
        directory : str or path-like
            The folder of the four files (created when missing; files of the same names in
            it are replaced).
        format : {"parquet", "csv"}, default="parquet"
            The files' format, also their extension.

        Returns
        -------
        dict of str to Path
            The files written, by table (``datasets``, ``algorithms``, ``runs``,
            ``metafeatures``).
        """
        if format not in EXPORT_FORMATS:
            raise KnowledgeBaseError(
                f"unknown export format {format!r}; choose one of {', '.join(EXPORT_FORMATS)}"
            )
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with self._reads.snapshot():  # the four tables of one moment, writers or not
            frames = {
                "datasets": self.datasets(),
                "algorithms": self.algorithms(),
                "runs": self.runs(aggregate=False),
                "metafeatures": self.metafeatures(),
            }
        written = {name: directory / f"{name}.{format}" for name in frames}
        taken = [str(path) for path in written.values() if path.is_dir()]
        if taken:
            raise KnowledgeBaseError(
                f"cannot export to {directory}: {', '.join(taken)} is a folder, not a file"
            )
        partial = {
            name: path.with_name(f".{path.name}.{os.getpid()}.partial")
            for name, path in written.items()
        }
        try:
            for name, frame in frames.items():
                if format == "csv":
                    frame.to_csv(partial[name], index=False)
                else:
                    frame.to_parquet(partial[name], index=False)
            for name, path in written.items():  # all four written: put them in place
                os.replace(partial[name], path)
        finally:
            for path in partial.values():
                path.unlink(missing_ok=True)
        return written


def _in_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database or ""
    return parsed.get_backend_name() == "sqlite" and (
        database in ("", ":memory:") or "mode=memory" in database
    )


def _reopen(url: str, read_only: bool) -> KnowledgeBase:
    """A pickled :class:`KnowledgeBase`, opened again (see ``KnowledgeBase.__reduce__``)."""
    return KnowledgeBase(url, read_only=read_only)


#: The tasks a dataset may be recorded with.
_TASKS = ("binary", "multiclass", "classification", "regression")


def _record_problem(frame, table: str) -> tuple[int, str] | None:
    """The first bad row of a datasets or algorithms file, as (row, message), or None."""
    import pandas as pd

    names = frame["name"].astype("string").str.strip()
    empty = np.flatnonzero(names.isna().to_numpy() | (names == "").fillna(True).to_numpy())
    if empty.size:
        return int(empty[0]), "column 'name': a name is required"
    repeated = np.flatnonzero(names.duplicated().to_numpy())
    if repeated.size:
        row = int(repeated[0])
        return row, f"column 'name': {names.iloc[row]!r} is repeated"
    if table != "datasets":
        return None
    if "task" in frame.columns:
        task = frame["task"]
        bad = np.flatnonzero((task.notna() & ~task.isin(_TASKS)).to_numpy())
        if bad.size:
            row = int(bad[0])
            return row, (
                f"column 'task': unknown task {task.iloc[row]!r}; use one of {', '.join(_TASKS)}"
            )
    for column in ("n_instances", "n_features"):
        if column not in frame.columns:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        given = frame[column].notna().to_numpy()
        with np.errstate(invalid="ignore"):
            ok = (values >= 0).to_numpy() & (values == np.floor(values)).to_numpy()
        bad = np.flatnonzero(given & ~ok)
        if bad.size:
            row = int(bad[0])
            value = frame[column].iloc[row]
            shown = repr(value) if isinstance(value, str) else str(value)
            return row, f"column {column!r}: {shown} is not a whole number >= 0"
        huge = np.flatnonzero(given & (values > MAX_COUNT).to_numpy())
        if huge.size:
            row = int(huge[0])
            return row, (
                f"column {column!r}: {frame[column].iloc[row]} is beyond the largest count a "
                f"database column holds ({MAX_COUNT:,})"
            )
    return None
