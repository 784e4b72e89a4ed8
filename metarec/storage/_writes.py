"""The writing methods of :class:`~metarec.storage.KnowledgeBase` (records and imports).

Kept apart from the opening and reading of a knowledge base (``_kb.py``): every write goes
to the knowledge base's own database, in one transaction, keeping the performance matrix and
the data version current (see :mod:`metarec.storage._importers`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from metarec._counts import MAX_COUNT, checked_count
from metarec.exceptions import ImportRejectedError, KnowledgeBaseError
from metarec.storage._engine import database_errors, write_transaction
from metarec.storage._importers import CONFLICT_CHOICES, ImportReport, import_runs
from metarec.storage._metafeature_import import import_metafeatures
from metarec.storage._performance import bump_version
from metarec.storage._queries import ALGORITHM_COLUMNS, DATASET_COLUMNS

__all__ = ["Writes"]


class Writes:
    """Records and imports: the writing half of :class:`~metarec.storage.KnowledgeBase`.

    Expects the attributes a knowledge base sets when it opens: ``engine``, ``url``,
    ``read_only``, ``_tables`` and ``_reads`` (the reads of its own database).
    """

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
        before = (
            self._reads.datasets() if table == "datasets" else self._reads.algorithms()
        ).set_index("name")
        if table == "datasets" and "task" in frame.columns:
            self._refuse_task_family_changes(frame, before, where)
        self._upsert_many(table, frame, columns)
        after = (
            self._reads.datasets() if table == "datasets" else self._reads.algorithms()
        ).set_index("name")
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
            old.notna().to_numpy(dtype=bool)
            & (regression(new) != regression(old)).to_numpy(dtype=bool, na_value=False)
        ]
        if len(changed) == 0:
            return
        with_runs = set(self._reads.runs(datasets=list(changed))["dataset"].astype(str))
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
