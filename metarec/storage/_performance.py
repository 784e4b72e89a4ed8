"""The performance matrix and the data version, kept current inside every write transaction.

The recommender needs, per (dataset, algorithm), the aggregates of the runs, not the runs
themselves: ``performance`` holds them and ``performance_metrics`` the mean of every per-run
metric, both computed by one SQL ``GROUP BY`` over ``runs`` (so a 10-million-run knowledge
base is read as datasets x algorithms rows).  The rules are those of
:meth:`metarec.storage.KnowledgeBase.runs` with ``aggregate=True``:

* ``accuracy`` and every metric: mean over the runs whose status is ``ok``;
* ``fit_time`` and ``predict_time``: mean over every run that recorded one (a failed run
  used its time too);
* ``n_runs``, ``n_failed`` (runs whose status is not ``ok``);
* ``status``: ``ok`` when any run is ok, else the status of the pair's first run.

An import, in its own transaction (so the matrix is never out of step with the runs: a
rolled-back import rolls back its refresh too), calls :func:`refresh_performance` with the
(dataset, algorithm) pairs it added runs to that the matrix already held (or whose runs it
replaced), then :func:`add_new_pairs` for the pairs new to the matrix, aggregated from the
range of run ids it inserted: the work grows with the import, not with the knowledge base.
Very many stale pairs rebuild the whole matrix, which is faster than pair by pair.  When
every new pair got exactly one run (run histories of one aggregated run per dataset and
algorithm, such as TabZilla's), the import says so and their rows are the runs themselves,
copied by one scan of the new run ids without a ``GROUP BY`` (SQLite's aggregate functions
cost about half a second per million runs; the rows are the same, see :func:`add_new_pairs`).

:func:`bump_version` replaces the ``kb_state.data_version`` token; every write transaction
that changes datasets, algorithms, runs or metafeatures calls it, so the token names one
state of the data (caches key on it, see :meth:`KnowledgeBase.data_version`).
"""

from __future__ import annotations

import uuid

import numpy as np
from sqlalchemy import Connection, text

from metarec.storage._models import RUN_COLUMNS as _RUN_COLUMNS

__all__ = [
    "rebuild_performance",
    "expected_matrix",
    "refresh_performance",
    "bump_version",
    "set_builds_on",
    "read_version",
    "aggregate_runs",
    "add_new_pairs",
    "stored_pairs",
    "distinct",
    "repeated",
    "PAIR_BASE",
]


#: A (dataset_id, algorithm_id) pair coded as one integer: dataset_id * PAIR_BASE + algorithm_id.
PAIR_BASE = np.int64(2**31)

#: With more touched pairs than this, the whole matrix is rebuilt in one statement.
REBUILD_THRESHOLD = 20_000

_OK = "CASE WHEN r.status = 'ok' THEN 1 ELSE 0 END"
_PERFORMANCE_SELECT = f"""
SELECT r.dataset_id, r.algorithm_id,
       CASE WHEN SUM({_OK}) > 0 THEN 'ok' ELSE (
           SELECT r2.status FROM runs r2
           WHERE r2.dataset_id = r.dataset_id AND r2.algorithm_id = r.algorithm_id
           ORDER BY r2.id LIMIT 1) END,
       AVG(CASE WHEN r.status = 'ok' THEN r.accuracy END),
       AVG(r.fit_time), AVG(r.predict_time),
       COUNT(*), COUNT(*) - SUM({_OK})
FROM runs r {{indexed}} {{join}} {{where}}
GROUP BY r.dataset_id, r.algorithm_id
"""
#: The matrix row of a pair that has exactly one run, ``r``: what ``_PERFORMANCE_SELECT``
#: gives for a group of one (its status; its accuracy when ok; its times; 1 run, 0 or 1 failed;
#: ``+ 0.0`` turns -0.0 into 0.0 as ``AVG`` does on PostgreSQL).
_SINGLE_RUN_SELECT = f"""
SELECT r.dataset_id, r.algorithm_id, r.status,
       CASE WHEN r.status = 'ok' THEN r.accuracy + 0.0 END,
       r.fit_time + 0.0, r.predict_time + 0.0, 1, 1 - {_OK}
FROM runs r {{indexed}} {{where}}
"""
_METRICS_SELECT = """
SELECT r.dataset_id, r.algorithm_id, m.metric, AVG(m.value)
FROM run_metrics m JOIN runs r ON r.id = m.run_id {join}
WHERE r.status = 'ok' AND m.value IS NOT NULL {where}
GROUP BY r.dataset_id, r.algorithm_id, m.metric
"""
_PERFORMANCE_INSERT = (
    "INSERT INTO performance (dataset_id, algorithm_id, status, accuracy, fit_time, "
    "predict_time, n_runs, n_failed) "
)
_METRICS_INSERT = "INSERT INTO performance_metrics (dataset_id, algorithm_id, metric, value) "
_TOUCHED_JOIN = (
    "JOIN metarec_touched t ON t.dataset_id = r.dataset_id AND t.algorithm_id = r.algorithm_id"
)
#: Pairs not in the matrix yet (of the runs ``r``).
_NOT_IN_MATRIX = (
    "NOT EXISTS (SELECT 1 FROM performance p "
    "WHERE p.dataset_id = r.dataset_id AND p.algorithm_id = r.algorithm_id)"
)
_IN_TOUCHED = (
    "WHERE EXISTS (SELECT 1 FROM metarec_touched t WHERE t.dataset_id = {0}.dataset_id "
    "AND t.algorithm_id = {0}.algorithm_id)"
)


def rebuild_performance(conn: Connection, *, one_run_each: bool = False) -> None:
    """Recompute the whole performance matrix from the runs.

    ``one_run_each=True`` is a promise of the caller that no (dataset, algorithm) pair has
    more than one run: the matrix rows are then the runs themselves (no ``GROUP BY``).
    """
    conn.execute(text("DELETE FROM performance_metrics"))
    conn.execute(text("DELETE FROM performance"))
    by_id = conn.dialect.name == "sqlite"
    select = _single_run_select(by_id=by_id) if one_run_each else _performance_select()
    conn.execute(text(_PERFORMANCE_INSERT + select))
    conn.execute(text(_METRICS_INSERT + _METRICS_SELECT.format(join="", where="")))


def expected_matrix(conn: Connection):
    """The matrix :func:`rebuild_performance` would write, as two DataFrames (nothing written).

    Returns ``(pairs, metrics)``: the rows of ``performance`` (``dataset_id, algorithm_id,
    status, accuracy, fit_time, predict_time, n_runs, n_failed``) and of
    ``performance_metrics`` (``dataset_id, algorithm_id, metric, value``) computed from the
    runs by the same SQL.
    """
    import pandas as pd

    pairs = pd.DataFrame(
        conn.execute(text(_performance_select())).all(),
        columns=[
            "dataset_id", "algorithm_id", "status", "accuracy", "fit_time", "predict_time",
            "n_runs", "n_failed",
        ],
    )  # fmt: skip
    metrics = pd.DataFrame(
        conn.execute(text(_METRICS_SELECT.format(join="", where=""))).all(),
        columns=["dataset_id", "algorithm_id", "metric", "value"],
    )
    return pairs, metrics


def _performance_select(join: str = "", where: str = "", *, by_id: bool = False) -> str:
    # SQLite would scan the whole (dataset, algorithm, key) index for a GROUP BY filtered
    # on a range of run ids; NOT INDEXED makes it read only that range of the table
    indexed = "NOT INDEXED" if by_id else ""
    return _PERFORMANCE_SELECT.format(indexed=indexed, join=join, where=where)


def _single_run_select(where: str = "", *, by_id: bool = False) -> str:
    # a scan of the table (by run id on SQLite), as _performance_select
    return _SINGLE_RUN_SELECT.format(indexed="NOT INDEXED" if by_id else "", where=where)


def add_new_pairs(conn: Connection, after_id: int, *, one_run_each: bool = False) -> None:
    """Add to the matrix the pairs whose runs all have an id above ``after_id``.

    What an import calls once the pairs it touched that the matrix already held were
    refreshed (:func:`refresh_performance`): the pairs still missing from the matrix are new,
    so all their runs were inserted by this import (ids above the largest id before it), and
    one ``GROUP BY`` over that range of run ids gives their rows.  The work grows with the
    import, not with the knowledge base.

    ``one_run_each=True``: the caller knows that every new pair got at most one run (it
    counted the pairs of the rows it inserted), so each new run *is* its pair's row and is
    copied as such (``_SINGLE_RUN_SELECT``: a group of one has its run's status, its accuracy
    when ok, its times, ``n_runs = 1`` and ``n_failed`` 0 or 1, exactly what the ``GROUP BY``
    gives); the metrics are still grouped (a pair's run may carry several).
    """
    if after_id <= 0:  # no runs before: the whole matrix, read in index order without a sort
        # (grouped: rows the caller refreshed before would be copied a second time)
        rebuild_performance(conn)
        return
    by_id = conn.dialect.name == "sqlite"
    params = {"after": int(after_id)}
    # the metrics first: the NOT EXISTS test reads the matrix as it was before the new pairs
    conn.execute(
        text(
            _METRICS_INSERT
            + _METRICS_SELECT.format(join="", where=f"AND m.run_id > :after AND {_NOT_IN_MATRIX}")
        ),
        params,
    )
    where = f"WHERE r.id > :after AND {_NOT_IN_MATRIX}"
    if one_run_each:
        select = _single_run_select(where, by_id=by_id)
    else:
        select = _performance_select(where=where, by_id=by_id)
    conn.execute(text(_PERFORMANCE_INSERT + select), params)


def refresh_performance(conn: Connection, pairs) -> None:
    """Recompute the matrix rows of the given ``(dataset_id, algorithm_id)`` pairs.

    ``pairs``: an ``(n, 2)`` integer array or an iterable of pairs, without repeats.
    """
    pairs = np.asarray(list(pairs) if not isinstance(pairs, np.ndarray) else pairs)
    if len(pairs) == 0:
        return
    if len(pairs) > REBUILD_THRESHOLD:
        rebuild_performance(conn)
        return
    temporary = "TEMPORARY" if conn.dialect.name == "sqlite" else "TEMP"
    conn.execute(
        text(
            f"CREATE {temporary} TABLE IF NOT EXISTS metarec_touched "
            "(dataset_id INTEGER NOT NULL, algorithm_id INTEGER NOT NULL, "
            "PRIMARY KEY (dataset_id, algorithm_id))"
        )
    )
    conn.execute(text("DELETE FROM metarec_touched"))
    conn.execute(
        text("INSERT INTO metarec_touched (dataset_id, algorithm_id) VALUES (:d, :a)"),
        [{"d": d, "a": a} for d, a in pairs.tolist()],
    )
    conn.execute(
        text("DELETE FROM performance_metrics " + _IN_TOUCHED.format("performance_metrics"))
    )
    conn.execute(text("DELETE FROM performance " + _IN_TOUCHED.format("performance")))
    conn.execute(text(_PERFORMANCE_INSERT + _performance_select(join=_TOUCHED_JOIN)))
    conn.execute(text(_METRICS_INSERT + _METRICS_SELECT.format(join=_TOUCHED_JOIN, where="")))
    conn.execute(text("DELETE FROM metarec_touched"))


def bump_version(conn: Connection) -> str:
    """Give the knowledge base a new data version (inside the caller's transaction)."""
    version = uuid.uuid4().hex
    updated = conn.execute(
        text("UPDATE kb_state SET data_version = :v WHERE id = 1"), {"v": version}
    ).rowcount
    if not updated:
        conn.execute(text("INSERT INTO kb_state (id, data_version) VALUES (1, :v)"), {"v": version})
    return version


def set_builds_on(conn: Connection, value: str | None) -> None:
    """Record what the knowledge base builds on, with a new data version (in the caller's
    transaction): what its reads return changes."""
    version = bump_version(conn)
    conn.execute(
        text("UPDATE kb_state SET builds_on = :b WHERE id = 1 AND data_version = :v"),
        {"b": value, "v": version},
    )


def read_version(conn: Connection) -> str | None:
    """Return the stored data version (``None`` when none was recorded)."""
    return conn.execute(text("SELECT data_version FROM kb_state WHERE id = 1")).scalar()


def _strings(names, positions):
    """``names[positions]`` as a pandas string column, built without a Python object per row.

    With pandas >= 3 (whose default string dtype is backed by Arrow) the column is taken in
    Arrow from the few distinct names; otherwise an object array of shared references.
    """
    import numpy as np
    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        try:
            import pyarrow as pa
            import pyarrow.compute as pc
        except ImportError:
            return names[positions]
        taken = pc.take(pa.array(list(names), pa.large_string()), pa.array(positions))
        return pd.array(taken, dtype=pd.StringDtype("pyarrow", na_value=np.nan))
    return names[positions]


def _positions(rank, ids):
    """``rank[ids]``, with -1 (left out) for ids the name look-up did not know.

    The names are read before the matrix, on another connection: a dataset or algorithm that
    a concurrent import added in between is left out of this read, as its rows would be.
    """
    import numpy as np

    ids = np.asarray(ids, dtype=np.int64)
    known = (ids >= 0) & (ids < len(rank))
    return np.where(known, rank[np.where(known, ids, 0)], -1)


def aggregate_runs(runs):
    """One row per (dataset, algorithm) from per-run rows (see :meth:`KnowledgeBase.runs`).

    Parameters
    ----------
    runs : pandas.DataFrame
        Per-run rows, as :meth:`KnowledgeBase.runs` returns them with ``aggregate=False``:
        at least ``dataset, algorithm, status, accuracy, fit_time, predict_time``, and one
        column per per-run metric.

    Returns
    -------
    pandas.DataFrame
        Sorted by dataset and algorithm: ``dataset, algorithm, status, accuracy, fit_time,
        predict_time, n_runs, n_failed`` and the metrics.  ``accuracy`` and the metrics are
        means over the ``ok`` runs, the times means over all runs that recorded one;
        ``status`` is ``ok`` when any run is ok, else the first failure's status.
    """
    import numpy as np
    import pandas as pd

    keys = ["dataset", "algorithm"]
    value_columns = [c for c in runs.columns if c not in (*_RUN_COLUMNS,) or c == "accuracy"]
    status = runs["status"].astype(str)
    ok = status.eq("ok").to_numpy()
    frame = runs[keys].copy()
    for column in value_columns:
        frame[column] = runs[column].where(ok)
    frame["fit_time"] = runs["fit_time"]
    frame["predict_time"] = runs["predict_time"]
    frame["_ok"] = ok.astype(np.int64)
    frame["_failure"] = status.where(~ok)
    grouped = frame.groupby(keys, sort=True)
    out = grouped[[*value_columns, "fit_time", "predict_time"]].mean()
    out["n_runs"] = grouped.size()
    n_ok = grouped["_ok"].sum()
    out["n_failed"] = out["n_runs"] - n_ok
    failure = grouped["_failure"].first()
    out["status"] = np.where(n_ok > 0, "ok", failure.fillna("error"))
    out = out.reset_index()
    ordered = [
        "dataset",
        "algorithm",
        "status",
        "accuracy",
        "fit_time",
        "predict_time",
        "n_runs",
        "n_failed",
    ]
    rest = [c for c in out.columns if c not in ordered]
    out = out[ordered + rest]
    out["n_runs"] = out["n_runs"].astype("int64")
    out["n_failed"] = out["n_failed"].astype("int64")
    return out if len(out) else pd.DataFrame(columns=out.columns)


def stored_pairs(conn, codes: np.ndarray, new_datasets, new_algorithms) -> np.ndarray:
    """The pair codes among ``codes`` that the performance matrix holds (a pair with a
    dataset or algorithm this import created cannot be there)."""
    from sqlalchemy import bindparam

    d, a = codes // PAIR_BASE, codes % PAIR_BASE
    maybe = ~np.isin(d, list(new_datasets)) & ~np.isin(a, list(new_algorithms))
    if not maybe.any():
        return np.empty(0, dtype=np.int64)
    query = text(
        "SELECT dataset_id, algorithm_id FROM performance "
        "WHERE dataset_id IN :d AND algorithm_id IN :a"
    ).bindparams(bindparam("d", expanding=True), bindparam("a", expanding=True))
    algorithms = distinct(a[maybe]).tolist()
    found = []
    wanted = distinct(d[maybe])
    for datasets in np.array_split(wanted, max(1, len(wanted) // 500)):
        for first in range(0, len(algorithms), 500):
            found += conn.execute(
                query, {"d": datasets.tolist(), "a": algorithms[first : first + 500]}
            ).all()
    pairs = np.asarray(found, dtype=np.int64).reshape(-1, 2)
    stored = pairs[:, 0] * PAIR_BASE + pairs[:, 1]
    return codes[maybe][np.isin(codes[maybe], stored)]


def repeated(values) -> np.ndarray:
    """The sorted distinct values that occur more than once in an integer array."""
    values = np.sort(np.asarray(values, dtype=np.int64))
    twice = values[1:][values[1:] == values[:-1]]
    return distinct(twice)


def distinct(values) -> np.ndarray:
    """The sorted distinct values of an integer array, by sorting.

    Not ``np.unique``: since numpy 2.3 its plain call takes a hash-table path that is far
    slower on millions of integers than a sort.
    """
    values = np.sort(np.asarray(values, dtype=np.int64))
    if values.size == 0:
        return values
    return values[np.concatenate([[True], values[1:] != values[:-1]])]
