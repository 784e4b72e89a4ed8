"""The rows of the ``runs`` table as the database driver takes them, and their SQLite insert.

An import turns each normalised chunk into one Python list per stored column
(:func:`run_values`; a column missing in every row of the chunk is ``None`` and is not
written at all: SQLite spends time on every bound NULL).  On PostgreSQL those rows go through
SQLAlchemy with ``RETURNING`` (:mod:`metarec.storage._importers`); on SQLite
:func:`insert_sqlite_runs` writes them with the driver's ``executemany`` of **multi-row**
``INSERT ... VALUES (...), (...), ... ON CONFLICT DO NOTHING`` statements of
:data:`ROWS_PER_STATEMENT` rows.

Multi-row statements make SQLite pay once per statement what a one-row ``executemany``
pays per run (the design notes of the documentation, *Writing runs to SQLite*).  The rows
are inserted in their order (run ids grow with the input), a row that breaks a unique index
is skipped by ``ON CONFLICT DO NOTHING`` whatever statement it is in, and the cursor's
``rowcount`` adds up the rows really inserted.  The per-run metric values go the same way
(:func:`insert_sqlite_metrics`), each finding its run by the ``(dataset_id, algorithm_id,
run_key)`` index inside the statement.
"""

from __future__ import annotations

import functools
import itertools
import sqlite3

import numpy as np

from metarec.storage._models import STORED_RUN_COLUMNS
from metarec.storage._validation import _objects

__all__ = [
    "STATUSES",
    "ROWS_PER_STATEMENT",
    "run_values",
    "or_missing",
    "insert_sqlite_runs",
    "insert_sqlite_metrics",
]

#: The statuses a stored run may have.
STATUSES = ("ok", "timeout", "error")
#: Rows per SQLite insert statement (fewer when the bound columns would pass SQLite's limit).
ROWS_PER_STATEMENT = 200
#: SQLite's limit on the bound values of one statement before version 3.32 (and where the
#: driver cannot tell the limit of the library it was built with).
_OLD_VARIABLE_LIMIT = 999


def run_values(frame, keys, dataset_ids, algorithm_ids) -> dict[str, list | None]:
    """The driver's values of every column of :data:`STORED_RUN_COLUMNS` (``None``: all missing)."""
    import pandas as pd

    out: dict[str, list | None] = {
        "run_key": keys.tolist(),
        "dataset_id": dataset_ids.tolist(),
        "algorithm_id": algorithm_ids.tolist(),
        "status": frame["status"].tolist(),
    }
    for name in ("protocol", "source", "source_run_id", "error", "machine"):
        column = frame[name]
        # missing -> None (pandas may hold it as NaN, which PostgreSQL would store as 'NaN')
        out[name] = (
            None if pd.isna(column).all() else column.to_numpy(object, na_value=None).tolist()
        )
    for name in ("seed", "fold", "accuracy", "fit_time", "predict_time"):
        numbers = frame[name].to_numpy(dtype="float64")
        integer = name in ("seed", "fold")
        out[name] = None if np.isnan(numbers).all() else _objects(numbers, integer=integer)
    return out


def or_missing(values: list | None, n: int) -> list:
    """``values``, or ``n`` missing values for a column :func:`run_values` left out."""
    return [None] * n if values is None else values


def insert_sqlite_runs(driver, values: dict[str, list | None], keep=None) -> int:
    """Insert run rows into SQLite's ``runs``; return how many were inserted.

    Parameters
    ----------
    driver : sqlite3.Connection
        The driver connection of the import's write transaction.
    values : dict
        One list per column (:func:`run_values`).
    keep : sequence of bool, optional
        Insert only these rows (the others are written by another path).

    A row whose run is already stored (either unique index of ``runs``) is skipped.  A status
    shared by every row is written in the statement instead of bound.
    """
    names = tuple(c for c in STORED_RUN_COLUMNS if values[c] is not None)
    status = values["status"]
    common = status[0] if status and status.count(status[0]) == len(status) else None
    if common is not None:
        names = tuple(c for c in names if c != "status")
    columns = [values[c] for c in names]
    if keep is not None:
        columns = [list(itertools.compress(column, keep)) for column in columns]
    return _insert_rows(driver, columns, lambda n: _sqlite_run_insert(names, n, common))


def insert_sqlite_metrics(driver, metrics: dict, keys, dataset_ids, algorithm_ids) -> None:
    """Insert the per-run metric values of a chunk into SQLite's ``run_metrics``.

    Parameters
    ----------
    driver : sqlite3.Connection
        The driver connection of the import's write transaction.
    metrics : dict of str to ndarray
        Each metric's float values, one per row of the chunk (NaN: no value, not stored).
    keys, dataset_ids, algorithm_ids : array-like
        Each row's run key and ids: the run is found by its ``(dataset_id, algorithm_id,
        run_key)`` index inside the statement.

    A value already stored for the run and metric is kept (``ON CONFLICT DO NOTHING``), as
    the run it belongs to is.  Multi-row statements, as for the runs.
    """
    parts: list[tuple] = []
    for name, values in metrics.items():
        present = ~np.isnan(values)
        if present.any():
            parts.append((name, present, np.asarray(values)[present]))
    if not parts:
        return
    columns: list[list] = [[], [], [], [], []]
    keys = np.asarray(keys, dtype=object)
    dataset_ids, algorithm_ids = np.asarray(dataset_ids), np.asarray(algorithm_ids)
    for name, present, values in parts:
        columns[0] += dataset_ids[present].tolist()
        columns[1] += algorithm_ids[present].tolist()
        columns[2] += keys[present].tolist()
        columns[3] += [name] * len(values)
        columns[4] += values.tolist()
    _insert_rows(driver, columns, _sqlite_metric_insert)


def _insert_rows(driver, columns: list[list], statement) -> int:
    """Bind ``columns`` row after row into ``statement(n_rows)`` statements; return the rows
    inserted."""
    n, width = len(columns[0]), len(columns)
    if n == 0:
        return 0
    flat: list = [None] * (n * width)  # row after row, as the statement's placeholders are
    for position, column in enumerate(columns):
        flat[position::width] = column
    per = max(1, min(ROWS_PER_STATEMENT, _variable_limit(driver) // width))
    full, step = n // per, per * width
    added = 0
    if full:
        parts = (flat[i * step : (i + 1) * step] for i in range(full))
        added += _inserted(driver.executemany(statement(per), parts))
    if n > full * per:
        added += _inserted(driver.execute(statement(n - full * per), flat[full * step :]))
    return added


def _inserted(cursor) -> int:
    count = max(cursor.rowcount, 0)
    cursor.close()
    return count


def _variable_limit(driver) -> int:
    """The most values one statement of this connection may bind."""
    try:
        return int(driver.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))
    except (AttributeError, sqlite3.Error):  # Python < 3.11
        return _OLD_VARIABLE_LIMIT


@functools.lru_cache(maxsize=512)
def _sqlite_run_insert(names: tuple[str, ...], n_rows: int, status: str | None = None) -> str:
    """``INSERT INTO runs (names) VALUES (...) x n_rows ON CONFLICT DO NOTHING`` (a run
    already stored breaks one of the two unique indexes of :mod:`metarec.storage._models`).

    ``status``: the status of every row, written as a literal; one of :data:`STATUSES`, so
    it needs no quoting.
    """
    placeholders = ["?"] * len(names)
    if status is not None:
        if status not in STATUSES:
            raise ValueError(f"not a run status: {status!r}")
        names, placeholders = (*names, "status"), [*placeholders, f"'{status}'"]
    row = f"({', '.join(placeholders)})"
    return (
        f"INSERT INTO runs ({', '.join(names)}) VALUES {', '.join([row] * n_rows)} "
        "ON CONFLICT DO NOTHING"
    )


_METRIC_ROW = (
    "((SELECT id FROM runs WHERE dataset_id = ? AND algorithm_id = ? AND run_key = ?), ?, ?)"
)


@functools.lru_cache(maxsize=64)
def _sqlite_metric_insert(n_rows: int) -> str:
    """``INSERT INTO run_metrics`` of ``n_rows`` values, each run found by its unique
    ``(dataset_id, algorithm_id, run_key)`` index."""
    return (
        f"INSERT INTO run_metrics (run_id, metric, value) VALUES "
        f"{', '.join([_METRIC_ROW] * n_rows)} ON CONFLICT (run_id, metric) DO NOTHING"
    )
