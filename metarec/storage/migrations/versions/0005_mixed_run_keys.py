"""Mixed run keys: every hashed run key is recomputed from the stored run.

Revision 0004 keyed a run without a name by ``h1 XOR (h2 + k * M)``, whose two halves differ
by a constant within a (dataset, algorithm) pair, so keys of one pair repeated far more often
than 64 bits promise and an import skipped such a run as "already present" (see
:mod:`metarec.storage._runkeys`).  This revision recomputes the key of every stored run with
the importer's own :func:`~metarec.storage._runkeys.run_keys` from the values the run holds
(its normalised row and its metrics, in run-id order, so identical runs of one pair get the
occurrence indexes 0, 1, ... an import of them gives): re-importing a file adds nothing.
Named runs keep their keys (the rule for them did not change).  A run whose new key is
another run's old key in the same pair is first moved to a free temporary key, so the unique
index never sees two equal keys; the tables' layout does not change.  Downgrading is refused
(the old keys are not kept).

A run that revision 0004 skipped as "already present" was never stored: importing its file
again after this upgrade adds it.  (The metric values of such a skipped row that its
namesake lacked were attached to the stored run; they stay, and make that run's key the key
of a run with those metrics.)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_BATCH = 50_000
_SELECT = """
SELECT r.id, r.run_key, d.name AS dataset, a.name AS algorithm,
       r.protocol, r.seed, r.fold, r.status, r.accuracy, r.fit_time, r.predict_time, r.source,
       r.source_run_id, r.error
FROM runs r JOIN datasets d ON d.id = r.dataset_id JOIN algorithms a ON a.id = r.algorithm_id
WHERE r.id > :last ORDER BY r.id LIMIT :n
"""


def _frame(conn, rows):
    """The normalised run frame of stored rows (what the importer hashed) and its metrics."""
    import pandas as pd

    from metarec.storage.migrations.frozen.runkeys_0005 import NUMBER_FIELDS, STRING_FIELDS

    columns = list(rows[0]._fields)
    frame = pd.DataFrame.from_records([tuple(r) for r in rows], columns=columns)
    for name in NUMBER_FIELDS:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
    for name in STRING_FIELDS:
        frame[name] = pd.Series(
            frame[name].astype(object).where(frame[name].notna(), None), dtype=object
        )
    first, last = int(frame["id"].iloc[0]), int(frame["id"].iloc[-1])
    values = conn.execute(
        sa.text(
            "SELECT run_id, metric, value FROM run_metrics "
            "WHERE run_id BETWEEN :a AND :b AND value IS NOT NULL"
        ),
        {"a": first, "b": last},
    ).all()
    metrics: list[str] = []
    if values:
        long = pd.DataFrame.from_records([tuple(v) for v in values], columns=["id", "m", "v"])
        wide = long.pivot(index="id", columns="m", values="v")  # one value per run and metric
        metrics = [str(m) for m in wide.columns]
        wide = wide.reindex(frame["id"].to_numpy())
        for metric in metrics:
            frame[metric] = wide[metric].to_numpy(dtype="float64")
    return frame, metrics


def upgrade() -> None:
    from metarec.storage.migrations.frozen.runkeys_0005 import OccurrenceCounter, run_keys

    conn = op.get_bind()
    counter = OccurrenceCounter()
    ids, old, new = [], [], []
    last = 0
    while True:
        rows = conn.execute(sa.text(_SELECT), {"last": last, "n": _BATCH}).all()
        if not rows:
            break
        frame, metrics = _frame(conn, rows)
        ids.append(frame["id"].to_numpy(np.int64))
        old.append(frame["run_key"].to_numpy(np.int64))
        new.append(np.array(run_keys(frame, metrics, counter).tolist(), dtype=np.int64))
        last = int(ids[-1][-1])
    if not ids:
        return
    ids, old, new = (np.concatenate(x) for x in (ids, old, new))
    changed = old != new
    # runs whose old key a run takes (in any pair: the named-run index spans pairs) are
    # moved out of the way first; with 64-bit keys there are hardly ever any
    taken = changed & np.isin(old, new[changed])
    if taken.any():
        free = _free_keys(np.concatenate([old, new]), int(taken.sum()))
        _update(conn, ids[taken], free)
    _update(conn, ids[changed], new[changed])


def _free_keys(used: np.ndarray, n: int) -> np.ndarray:
    """``n`` keys that no run holds now or will hold."""
    start = np.int64(-(2**62))
    while True:
        candidates = np.arange(start, start + n, dtype=np.int64)
        if not np.isin(candidates, used).any():
            return candidates
        start += np.int64(n + 1)


def _update(conn, ids: np.ndarray, keys: np.ndarray) -> None:
    statement = sa.text("UPDATE runs SET run_key = :k WHERE id = :i")
    for first in range(0, len(ids), _BATCH):
        conn.execute(
            statement,
            [
                {"k": k, "i": i}
                for i, k in zip(
                    ids[first : first + _BATCH].tolist(),
                    keys[first : first + _BATCH].tolist(),
                    strict=True,
                )
            ],
        )


def downgrade() -> None:
    raise NotImplementedError(
        "revision 0005 recomputed the run keys of revision 0004, which are not kept: restore a "
        "copy of the knowledge base made before the upgrade"
    )
