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

An import calls :func:`refresh_performance` with the (dataset, algorithm) pairs it touched, in
its own transaction, so the matrix is never out of step with the runs: a rolled-back import
rolls back its refresh too.  Many touched pairs rebuild the whole matrix, which is faster than
pair by pair.

:func:`bump_version` replaces the ``kb_state.data_version`` token; every write transaction
that changes datasets, algorithms, runs or metafeatures calls it, so the token names one
state of the data (caches key on it, see :meth:`KnowledgeBase.data_version`).
"""

from __future__ import annotations

import uuid

import numpy as np
from sqlalchemy import Connection, text

__all__ = ["rebuild_performance", "refresh_performance", "bump_version", "read_version"]

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
FROM runs r {{join}}
GROUP BY r.dataset_id, r.algorithm_id
"""
_METRICS_SELECT = """
SELECT r.dataset_id, r.algorithm_id, m.metric, AVG(m.value)
FROM run_metrics m JOIN runs r ON r.id = m.run_id {join}
WHERE r.status = 'ok' AND m.value IS NOT NULL
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
_IN_TOUCHED = (
    "WHERE EXISTS (SELECT 1 FROM metarec_touched t WHERE t.dataset_id = {0}.dataset_id "
    "AND t.algorithm_id = {0}.algorithm_id)"
)


def rebuild_performance(conn: Connection) -> None:
    """Recompute the whole performance matrix from the runs."""
    conn.execute(text("DELETE FROM performance_metrics"))
    conn.execute(text("DELETE FROM performance"))
    conn.execute(text(_PERFORMANCE_INSERT + _PERFORMANCE_SELECT.format(join="")))
    conn.execute(text(_METRICS_INSERT + _METRICS_SELECT.format(join="")))


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
    conn.execute(text(_PERFORMANCE_INSERT + _PERFORMANCE_SELECT.format(join=_TOUCHED_JOIN)))
    conn.execute(text(_METRICS_INSERT + _METRICS_SELECT.format(join=_TOUCHED_JOIN)))
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


def read_version(conn: Connection) -> str | None:
    """Return the stored data version (``None`` when none was recorded)."""
    return conn.execute(text("SELECT data_version FROM kb_state WHERE id = 1")).scalar()
