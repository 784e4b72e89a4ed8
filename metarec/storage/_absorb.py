"""Removing from a knowledge base the copy of the built-in one an earlier metarec put there.

Before revision 0007 a knowledge base that ``metarec run`` created started as a copy of the
built-in knowledge base.  Since then the built-in knowledge base is read where metarec is
installed (:mod:`metarec.storage._layers`), and the copy is what
:meth:`KnowledgeBase.absorb_builtin_copy` removes (``metarec db upgrade`` calls it).

A stored row is a copy when it equals the built-in one of this installation:

* a run: its dataset's record has the built-in dataset's fingerprint, its algorithm the
  built-in algorithm's parameters, and ``(dataset, algorithm, protocol, seed, fold, status,
  source)`` are equal and ``accuracy`` and ``fit_time`` agree to float32 precision (the
  precision of the shipped files), missing equal to missing;
* then a dataset left without a run, whose record equals the built-in one (name and
  fingerprint), with its metafeatures; an algorithm left without a run, of the same name and
  parameters.

Everything else is the user's and is kept, a run measured again on the same fold included
(it then replaces the built-in fold in every read).
"""

from __future__ import annotations

import numpy as np

__all__ = ["absorb_builtin_copy"]


def _copies(stored, part) -> np.ndarray:
    """Positions of ``stored`` runs that equal a built-in run (see the module docstring)."""
    import pandas as pd

    keys = ["dataset", "algorithm", "protocol", "seed", "fold", "status", "source"]
    theirs = part.runs[keys + ["accuracy", "fit_time"]].copy()
    mine = stored[keys + ["accuracy", "fit_time"]].copy()
    for frame in (theirs, mine):
        for column in ("accuracy", "fit_time"):
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)
            frame[column] = np.where(np.isnan(values), "nan", values.astype(np.float32).astype(str))
        for column in ("seed", "fold"):  # whole numbers, whatever the driver returned
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
        for column in keys:
            frame[column] = frame[column].astype(str)
    columns = keys + ["accuracy", "fit_time"]
    index = pd.MultiIndex.from_frame(theirs[columns])
    return np.flatnonzero(pd.MultiIndex.from_frame(mine[columns]).isin(index))


def absorb_builtin_copy(kb) -> dict[str, int]:
    """See :meth:`KnowledgeBase.absorb_builtin_copy`; ``kb`` is not yet layered."""
    import pandas as pd
    from sqlalchemy import text

    from metarec.storage._engine import database_errors, write_transaction
    from metarec.storage._layers import (
        builtin_part,
        hidden_names,
        same_fingerprint,
        same_parameters,
    )
    from metarec.storage._performance import bump_version, refresh_performance

    removed = {"runs": 0, "datasets": 0, "algorithms": 0, "metafeatures": 0}
    part = builtin_part()
    reads = kb._reads
    own_datasets, own_algorithms = reads.datasets(), reads.algorithms()
    same_d = set(own_datasets["name"].astype(str)) & set(part.datasets["name"].astype(str))
    same_d -= hidden_names(own_datasets, part.datasets, "fingerprint", same_fingerprint)
    same_a = set(own_algorithms["name"].astype(str)) & set(part.algorithms["name"].astype(str))
    same_a -= hidden_names(own_algorithms, part.algorithms, "parameters", same_parameters)
    if not same_d or not same_a:
        return removed
    with database_errors(kb.url, "write"), write_transaction(kb.engine) as conn:
        rows = conn.execute(
            text(
                "SELECT r.id, r.dataset_id, r.algorithm_id, d.name, a.name, r.protocol, r.seed, "
                "r.fold, r.status, r.source, r.accuracy, r.fit_time FROM runs r "
                "JOIN datasets d ON d.id = r.dataset_id JOIN algorithms a ON a.id = r.algorithm_id"
            )
        ).all()
        stored = pd.DataFrame(
            rows,
            columns=["id", "dataset_id", "algorithm_id", "dataset", "algorithm", "protocol",
                     "seed", "fold", "status", "source", "accuracy", "fit_time"],
        )  # fmt: skip
        candidates = stored[
            stored["dataset"].isin(list(same_d)) & stored["algorithm"].isin(list(same_a))
        ]
        copies = candidates.iloc[_copies(candidates, part)] if len(candidates) else candidates
        if not len(copies):
            return removed
        ids = copies["id"].to_numpy(np.int64).tolist()
        for first in range(0, len(ids), 5000):
            chunk = ids[first : first + 5000]
            marks = ", ".join(str(i) for i in chunk)
            conn.execute(text(f"DELETE FROM run_metrics WHERE run_id IN ({marks})"))
            conn.execute(text(f"DELETE FROM runs WHERE id IN ({marks})"))
        removed["runs"] = len(ids)
        pairs = copies[["dataset_id", "algorithm_id"]].drop_duplicates().to_numpy(np.int64)
        refresh_performance(conn, pairs)
        left_d = {r[0] for r in conn.execute(text("SELECT DISTINCT dataset_id FROM runs"))}
        left_a = {r[0] for r in conn.execute(text("SELECT DISTINCT algorithm_id FROM runs"))}
        names = conn.execute(text("SELECT id, name FROM datasets")).all()
        gone_d = [i for i, n in names if n in same_d and i not in left_d]
        algorithms = conn.execute(text("SELECT id, name FROM algorithms")).all()
        gone_a = [i for i, n in algorithms if n in same_a and i not in left_a]
        for first in range(0, len(gone_d), 5000):
            marks = ", ".join(str(i) for i in gone_d[first : first + 5000])
            done = conn.execute(text(f"DELETE FROM metafeatures WHERE dataset_id IN ({marks})"))
            removed["metafeatures"] += int(done.rowcount or 0)
            conn.execute(text(f"DELETE FROM datasets WHERE id IN ({marks})"))
        for first in range(0, len(gone_a), 5000):
            marks = ", ".join(str(i) for i in gone_a[first : first + 5000])
            conn.execute(text(f"DELETE FROM algorithms WHERE id IN ({marks})"))
        removed["datasets"], removed["algorithms"] = len(gone_d), len(gone_a)
        bump_version(conn)
    return removed
