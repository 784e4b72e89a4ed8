"""Runs named by their origin, stored or repeated with other values: conflicts to decide.

See the "Conflicts" section of :mod:`metarec.storage._importers`.  A run named by its origin
(``source:source_run_id``) keeps its key whatever its values, so a second row under the same
key with *other* values is a decision to take (``on_conflict``), never silently dropped.
"""

from __future__ import annotations

import numpy as np

from metarec.storage._models import STORED_RUN_COLUMNS
from metarec.storage._readers import ChunkSource
from metarec.storage._runkeys import content_hashes, named_key
from metarec.storage._validation import _plain

__all__ = ["CONFLICT_CHOICES", "replace_runs"]

#: What an import does with a run stored (or repeated) under the same key with other values.
CONFLICT_CHOICES = ("error", "keep", "replace")
#: At most this many replacements are noted one by one.
MAX_NOTES = 1000


_COMPARED = (
    "dataset", "algorithm", "protocol", "seed", "fold", "status", "accuracy", "fit_time",
    "predict_time", "error",
)  # fmt: skip


class _Conflicts:
    """Finds runs whose key (``source:source_run_id``) is repeated or stored with other values.

    A run named by its origin keeps its key whatever its values, so a second row under the same
    key with *other* values is a decision to take (``on_conflict``), never silently dropped.
    The content of every named row is hashed as run keys are (:mod:`metarec.storage._runkeys`);
    ``seen`` keeps, for the whole import, the hash and position of each named key met.
    """

    def __init__(self, conn, tables, mode: str, reader: ChunkSource, metrics) -> None:
        self.conn, self.tables, self.mode, self.reader = conn, tables, mode, reader
        self.metrics = list(metrics)
        self.seen: dict[str, tuple[int, int, int]] = {}
        self.by_code: dict[int, str] = {}  # the integer run key of each named key met
        self.notes: list[str] = []
        self.kept = 0

    def examine(self, start: int, frame, checks):
        """Return ``(drop, replace)``: rows not to insert, and stored runs to overwrite
        (``[(row position, stored id, stored dataset_id, stored algorithm_id)]``)."""
        import pandas as pd

        n = len(frame)
        drop = np.zeros(n, dtype=bool)
        source = frame["source"].to_numpy(dtype=object)
        run_id = frame["source_run_id"].to_numpy(dtype=object)
        named = ~pd.isna(source) & ~pd.isna(run_id) & ~checks.bad
        if not named.any():
            return drop, []
        rows = np.flatnonzero(named)
        keys = [f"{source[i]}:{run_id[i]}" for i in rows]
        codes = [named_key(k) for k in keys]
        h1, h2 = content_hashes(frame.iloc[rows], self.metrics)
        where = self.reader.where
        for position, key, code, a, b in zip(
            rows.tolist(), keys, codes, h1.tolist(), h2.tolist(), strict=True
        ):
            other = self.by_code.setdefault(code, key)
            if other != key:  # two names, one 64-bit key: never stored silently
                checks.fail(np.arange(n) == position, "source_run_id", _collision(key, other))
                continue
            first = self.seen.get(key)
            if first is None:
                self.seen[key] = (a, b, start + position)
            elif (first[0], first[1]) != (a, b):
                if self.mode == "error":
                    checks.fail(
                        np.arange(n) == position,
                        "source_run_id",
                        lambda i, key=key, at=first[2]: (
                            f"run {key!r} appears again with other values (first at "
                            f"{where(at)}); choose with --on-conflict keep|replace"
                        ),
                    )
                elif self.mode == "keep":
                    drop[position] = True
                    self.kept += 1
                else:
                    if first[2] >= start:  # the earlier row is in this chunk: not stored yet
                        drop[first[2] - start] = True
                    self.seen[key] = (a, b, start + position)
        live = ~drop[rows] & ~checks.bad[rows]
        return drop, self._stored(
            start,
            frame,
            rows[live],
            np.asarray(keys, dtype=object)[live],
            np.asarray(codes, dtype=np.int64)[live],
            h1[live],
            h2[live],
            checks,
            drop,
        )

    def _stored(self, start, frame, rows, keys, codes, h1, h2, checks, drop):
        """Compare rows with the stored runs of the same keys; mark or collect conflicts."""
        import pandas as pd
        from sqlalchemy import select, text

        from metarec.storage._models import NAMED_RUN

        if not len(rows):
            return []
        runs, ds, alg = self.tables["runs"], self.tables["datasets"], self.tables["algorithms"]
        rm = self.tables["run_metrics"]
        columns = [
            runs.c.id, runs.c.run_key, runs.c.dataset_id, runs.c.algorithm_id, ds.c.name,
            alg.c.name, runs.c.protocol, runs.c.seed, runs.c.fold, runs.c.status,
            runs.c.accuracy, runs.c.fit_time, runs.c.predict_time, runs.c.source,
            runs.c.source_run_id, runs.c.error,
        ]  # fmt: skip
        names = [
            "id", "run_key", "dataset_id", "algorithm_id", "dataset", "algorithm", "protocol",
            "seed", "fold", "status", "accuracy", "fit_time", "predict_time", "source",
            "source_run_id", "error",
        ]  # fmt: skip
        found = []
        unique = list(dict.fromkeys(codes.tolist()))
        for first in range(0, len(unique), 5000):
            part = unique[first : first + 5000]
            query = (
                select(*columns)
                .join(ds, runs.c.dataset_id == ds.c.id)
                .join(alg, runs.c.algorithm_id == alg.c.id)
                # the partial index of named runs: its condition repeated (see _models)
                .where(runs.c.run_key.in_(part), text(NAMED_RUN))
            )
            found.extend(tuple(r) for r in self.conn.execute(query).all())
        if not found:
            return []
        stored = pd.DataFrame.from_records(found, columns=names)
        for name in ("seed", "fold", "accuracy", "fit_time", "predict_time"):
            stored[name] = pd.to_numeric(stored[name]).astype("float64")
        for metric in self.metrics:
            stored[metric] = np.nan
        if self.metrics:
            ids = stored["id"].tolist()
            position = {run: i for i, run in enumerate(ids)}
            for first in range(0, len(ids), 5000):
                query = select(rm.c.run_id, rm.c.metric, rm.c.value).where(
                    rm.c.run_id.in_(ids[first : first + 5000]), rm.c.metric.in_(self.metrics)
                )
                for run, metric, value in self.conn.execute(query).all():
                    stored.iat[position[run], stored.columns.get_loc(metric)] = value
        s1, s2 = content_hashes(stored, self.metrics)
        by_key = {int(k): i for i, k in enumerate(stored["run_key"].tolist())}
        replace = []
        for row, key, code, a, b in zip(
            rows.tolist(), keys.tolist(), codes.tolist(), h1.tolist(), h2.tolist(), strict=True
        ):
            i = by_key.get(code)
            if i is None:
                continue
            old = stored.iloc[i]
            stored_key = f"{old['source']}:{old['source_run_id']}"
            if stored_key != key:  # another named run under the same 64-bit key
                checks.fail(
                    np.arange(len(frame)) == row, "source_run_id", _collision(key, stored_key)
                )
                continue
            if (int(s1[i]), int(s2[i])) == (a, b):
                continue
            change = _differences(old, frame.iloc[row], self.metrics)
            origin = f"already stored from source {_plain(old['source'])}"
            if self.mode == "error":
                checks.fail(
                    np.arange(len(frame)) == row,
                    "source_run_id",
                    lambda _i, key=key, origin=origin, change=change: (
                        f"run {key!r} is {origin} with other values ({change}); choose with "
                        "--on-conflict keep|replace"
                    ),
                )
            elif self.mode == "keep":
                drop[row] = True
                self.kept += 1
            else:
                drop[row] = True
                replace.append(
                    (row, int(old["id"]), int(old["dataset_id"]), int(old["algorithm_id"]))
                )
                if len(self.notes) < MAX_NOTES:
                    self.notes.append(
                        f"replaced run {key!r} ({self.reader.where(start + row)}): {change}"
                    )
        return replace


def _collision(key: str, other: str):
    """The message of a named run whose 64-bit key equals another's (see _runkeys)."""
    return lambda _i: (
        f"run {key!r} has the same 64-bit run key as run {other!r} (a hash coincidence); "
        "it cannot be stored beside it: give it another source_run_id"
    )


def _differences(old, new, metrics) -> str:
    """``accuracy 0.9 -> 0.8, fit_time 1 -> 2``: the compared fields that differ."""
    import pandas as pd

    parts = []
    for name in (*_COMPARED, *metrics):
        a, b = old.get(name), new.get(name)
        a = None if a is None or (not isinstance(a, str) and pd.isna(a)) else a
        b = None if b is None or (not isinstance(b, str) and pd.isna(b)) else b
        if a is None and b is None:
            continue
        if isinstance(a, str) or isinstance(b, str):
            same = a == b
        else:
            same = a is not None and b is not None and float(a) == float(b)
        if not same:
            parts.append(f"{name} {_plain(a)} -> {_plain(b)}")
    return ", ".join(parts) or "other values"


def replace_runs(conn, runs, run_metrics, rows, is_replacement, replaced_rows) -> None:
    """Overwrite stored runs (and drop their metrics, re-inserted by the caller)."""
    from sqlalchemy import bindparam, delete, update

    values = [row for row, r in zip(rows, is_replacement.tolist(), strict=True) if r]
    names = [c for c in STORED_RUN_COLUMNS if c != "run_key"]
    statement = (
        update(runs)
        .where(runs.c.id == bindparam("r_id"))
        .values({c: bindparam(f"r_{c}") for c in names})
    )
    params = []
    for row, (run_id, _, _) in zip(values, replaced_rows, strict=True):
        params.append(
            {"r_id": run_id, **{f"r_{c}": v for c, v in zip(names, row[1:], strict=True)}}
        )
    conn.execute(statement, params)
    ids = [run_id for run_id, _, _ in replaced_rows]
    for first in range(0, len(ids), 5000):
        conn.execute(delete(run_metrics).where(run_metrics.c.run_id.in_(ids[first : first + 5000])))
