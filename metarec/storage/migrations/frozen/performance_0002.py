"""The performance matrix as revision 0002 builds it from the runs: a frozen copy.

Frozen at schema revision 0002's table layout (see :mod:`metarec.storage.migrations.frozen`):
one row per (dataset, algorithm) with the status (``ok`` when any run is, else the first run's),
the mean accuracy of the ok runs, the mean times, and the counts of runs and failed runs; and
the mean of each metric over the ok runs.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

__all__ = ["rebuild_performance"]

_OK = "CASE WHEN r.status = 'ok' THEN 1 ELSE 0 END"
_PERFORMANCE = f"""
INSERT INTO performance (dataset_id, algorithm_id, status, accuracy, fit_time, predict_time,
                         n_runs, n_failed)
SELECT r.dataset_id, r.algorithm_id,
       CASE WHEN SUM({_OK}) > 0 THEN 'ok' ELSE (
           SELECT r2.status FROM runs r2
           WHERE r2.dataset_id = r.dataset_id AND r2.algorithm_id = r.algorithm_id
           ORDER BY r2.id LIMIT 1) END,
       AVG(CASE WHEN r.status = 'ok' THEN r.accuracy END),
       AVG(r.fit_time), AVG(r.predict_time),
       COUNT(*), COUNT(*) - SUM({_OK})
FROM runs r
GROUP BY r.dataset_id, r.algorithm_id
"""
_METRICS = """
INSERT INTO performance_metrics (dataset_id, algorithm_id, metric, value)
SELECT r.dataset_id, r.algorithm_id, m.metric, AVG(m.value)
FROM run_metrics m JOIN runs r ON r.id = m.run_id
WHERE r.status = 'ok' AND m.value IS NOT NULL
GROUP BY r.dataset_id, r.algorithm_id, m.metric
"""


def rebuild_performance(conn: Connection) -> None:
    """Recompute the whole performance matrix from the runs."""
    conn.execute(text("DELETE FROM performance_metrics"))
    conn.execute(text("DELETE FROM performance"))
    conn.execute(text(_PERFORMANCE))
    conn.execute(text(_METRICS))
