"""Reading a knowledge base: its tables as DataFrames, for :class:`KnowledgeBase`.

``Reads`` holds every query of the read methods of :class:`~metarec.storage.KnowledgeBase`
(which delegates to it): rows go from the DBAPI cursor to pandas a batch at a time, the
aggregated runs come from the performance matrix, the per-run rows are joined in numpy.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from metarec.exceptions import KnowledgeBaseError
from metarec.storage._engine import database_errors
from metarec.storage._models import RUN_COLUMNS, TABLES
from metarec.storage._performance import PAIR_BASE, _positions, _strings, read_version
from metarec.storage._runrows import STATUSES

__all__ = ["Reads", "DATASET_COLUMNS", "ALGORITHM_COLUMNS"]

#: Rows fetched from the database driver at a time by the read path.
FETCH_BATCH = 100_000


DATASET_COLUMNS = (
    "name", "source", "source_id", "task", "n_instances", "n_features", "fingerprint",
)  # fmt: skip
ALGORITHM_COLUMNS = ("name", "family", "library", "parameters")


class Reads:
    """The read queries of one knowledge base (its engine, tables and shown URL)."""

    def __init__(self, engine, tables: dict, url: str) -> None:
        self.engine = engine
        self._tables = tables
        self.url = url
        self._pinned = None  # the connection of a snapshot, while one is open

    @contextlib.contextmanager
    def _connection(self):
        """The snapshot's connection while one is open, else a new one (closed after)."""
        if self._pinned is not None:
            yield self._pinned
            return
        with self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def snapshot(self):
        """Every read inside sees the same committed state (one read transaction).

        SQLite gives a transaction a snapshot from its first read on (in WAL mode, writers
        go on meanwhile); other databases read at ``REPEATABLE READ``.
        """
        if self._pinned is not None:  # already in one
            yield
            return
        with database_errors(self.url, "read"), self.engine.connect() as conn:
            if conn.dialect.name != "sqlite":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                self._pinned = conn
                try:
                    yield
                finally:
                    self._pinned = None

    def _read(self, statement, columns: Iterable[str]):
        """Run a query; return its rows as a DataFrame built from the driver's plain tuples.

        The rows never pass through SQLAlchemy ``Row`` objects (pandas probes each one with
        ``hasattr``, which costs two exceptions per row inside SQLAlchemy): the DBAPI
        cursor's ``fetchmany`` tuples go straight to pandas, a batch at a time.
        """
        import pandas as pd

        columns = list(columns)
        frames = []
        for rows in self._fetch(statement):
            frames.append(pd.DataFrame.from_records(rows, columns=columns))
        if not frames:
            return pd.DataFrame.from_records([], columns=columns)
        return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)

    def _fetch(self, statement, batch: int = FETCH_BATCH):
        """Yield the rows of ``statement`` as lists of plain driver tuples, ``batch`` at a time."""
        with database_errors(self.url, "read"):
            with self._connection() as conn:
                result = conn.execute(statement)
                cursor = result.cursor  # the DBAPI cursor: plain tuples, no Row objects
                try:
                    while True:
                        rows = cursor.fetchmany(batch)
                        if not rows:
                            break
                        yield rows
                finally:
                    result.close()

    def source_run_ids(self, source: str, ids: Iterable[str]) -> list[str]:
        """See :meth:`KnowledgeBase.source_run_ids`."""
        from sqlalchemy import select, text

        from metarec.storage._models import NAMED_RUN
        from metarec.storage._runkeys import named_key

        runs = self._tables["runs"]
        wanted = [str(i) for i in dict.fromkeys(ids)]
        found: list[str] = []
        for first in range(0, len(wanted), 5000):
            part = wanted[first : first + 5000]
            keys = [named_key(f"{source}:{i}") for i in part]
            # NAMED_RUN repeated: the partial unique index of named runs answers
            query = select(runs.c.source, runs.c.source_run_id).where(
                runs.c.run_key.in_(keys), text(NAMED_RUN)
            )
            asked = set(part)  # the names behind equal keys compared: exact
            for batch in self._fetch(query):
                found.extend(str(i) for s, i in batch if s == source and i in asked)
        return found

    def data_version(self) -> str:
        """See :meth:`KnowledgeBase.data_version`."""
        with database_errors(self.url, "read"), self._connection() as conn:
            return str(read_version(conn) or "")

    def builds_on(self) -> str | None:
        """See :attr:`KnowledgeBase.builds_on` (``None`` when nothing is recorded)."""
        from sqlalchemy import text

        with database_errors(self.url, "read"), self._connection() as conn:
            value = conn.execute(text("SELECT builds_on FROM kb_state WHERE id = 1")).scalar()
        return None if value is None else str(value)

    def count(self, table: str) -> int:
        """See :meth:`KnowledgeBase.count`."""
        from sqlalchemy import func, select

        if table not in self._tables:
            raise KnowledgeBaseError(f"unknown table {table!r}; tables: {', '.join(TABLES)}")
        with database_errors(self.url, "read"), self._connection() as conn:
            return int(conn.execute(select(func.count()).select_from(self._tables[table])).scalar())

    def has_runs(self) -> bool:
        """See :meth:`KnowledgeBase.has_runs`."""
        with database_errors(self.url, "read"), self._connection() as conn:
            return conn.exec_driver_sql("SELECT 1 FROM runs LIMIT 1").first() is not None

    def datasets(self):
        """See :meth:`KnowledgeBase.datasets`."""
        from sqlalchemy import select

        table = self._tables["datasets"]
        frame = self._read(
            select(*(table.c[c] for c in DATASET_COLUMNS)).order_by(table.c.name), DATASET_COLUMNS
        )
        for column in ("n_instances", "n_features"):
            frame[column] = frame[column].astype("Int64")
        return frame

    def algorithms(self):
        """See :meth:`KnowledgeBase.algorithms`."""
        from sqlalchemy import select

        table = self._tables["algorithms"]
        return self._read(
            select(*(table.c[c] for c in ALGORITHM_COLUMNS)).order_by(table.c.name),
            ALGORITHM_COLUMNS,
        )

    def metafeatures(
        self, *, datasets: Iterable[str] | None = None, names: Iterable[str] | None = None
    ):
        """See :meth:`KnowledgeBase.metafeatures`."""
        import pandas as pd
        from sqlalchemy import select

        mf, ds = self._tables["metafeatures"], self._tables["datasets"]
        query = select(ds.c.name, mf.c.name, mf.c.value).join(ds, mf.c.dataset_id == ds.c.id)
        if names is not None:
            query = query.where(mf.c.name.in_(list(names)))
        frames = []
        for part in self._name_filter(datasets):
            q = query if part is None else query.where(ds.c.name.in_(part))
            frames.append(self._read(q, ("dataset", "name", "value")))
        long = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        if long.empty:
            return pd.DataFrame({"dataset": pd.Series(dtype=object)})
        long["value"] = long["value"].astype("float64")
        wide = long.pivot(index="dataset", columns="name", values="value")
        wide = wide.reindex(sorted(wide.columns), axis=1)
        wide.columns.name = None
        return wide.reset_index()

    @staticmethod
    def _name_filter(names: Iterable[str] | None) -> list[list[str] | None]:
        if names is None:
            return [None]
        names = [str(n) for n in dict.fromkeys(names)]
        # no names: one empty filter, which matches nothing (not no query at all)
        return [names[i : i + 500] for i in range(0, len(names), 500)] or [[]]

    def runs(
        self,
        *,
        aggregate: bool = True,
        datasets: Iterable[str] | None = None,
        algorithms: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ):
        """See :meth:`KnowledgeBase.runs`."""
        if aggregate:
            return self._performance(datasets, algorithms, metrics)
        return self._run_rows(datasets, algorithms, metrics)

    def _names(self, table_name: str):
        """``(ids, names)`` of the datasets or algorithms table, as numpy arrays."""
        import numpy as np
        from sqlalchemy import select

        table = self._tables[table_name]
        rows = [r for batch in self._fetch(select(table.c.id, table.c.name)) for r in batch]
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        names = np.array([r[1] for r in rows], dtype=object)
        return ids, names

    @staticmethod
    def _lookup(ids, names, wanted) -> tuple:
        """Map ``id -> position in name order``: (rank array indexed by id, sorted names)."""
        import numpy as np

        order = np.argsort(names.astype(str), kind="stable")
        rank = np.full(int(ids.max()) + 1 if len(ids) else 1, -1, dtype=np.int64)
        rank[ids[order]] = np.arange(len(order))
        if wanted is not None:
            keep = set(str(w) for w in wanted)
            mask = np.array([n in keep for n in names[order]], dtype=bool)
            rank[ids[order][~mask]] = -1
        return rank, names[order]

    def _performance(self, datasets, algorithms, metrics):
        """Aggregated runs from the performance matrix (see :meth:`runs`)."""
        import numpy as np
        import pandas as pd
        from sqlalchemy import BigInteger, case, cast, func, select

        perf, pm = self._tables["performance"], self._tables["performance_metrics"]
        d_rank, d_names = self._lookup(*self._names("datasets"), datasets)
        a_rank, a_names = self._lookup(*self._names("algorithms"), algorithms)
        status_code = case(
            *((perf.c.status == name, code) for code, name in enumerate(STATUSES)),
            else_=len(STATUSES) - 1,
        )
        # one integer for the pair and one for status and failures: fewer Python objects per
        # row, straight into preallocated arrays; rows come in the order the matrix was
        # written (sorted after a rebuild), reordered below only when they are not sorted
        query = select(
            cast(perf.c.dataset_id, BigInteger) * int(PAIR_BASE) + perf.c.algorithm_id,
            perf.c.n_failed * len(STATUSES) + status_code,
            perf.c.n_runs,
            perf.c.accuracy,
            perf.c.fit_time,
            perf.c.predict_time,
        )
        with database_errors(self.url, "read"):
            with self._connection() as conn:
                n = int(conn.execute(select(func.count()).select_from(perf)).scalar())
        ints = np.zeros((3, n), dtype=np.int64)
        floats = np.full((3, n), np.nan)
        at = 0
        for rows in self._fetch(query, batch=20_000):
            stop = min(at + len(rows), n)  # rows added since the count are left out
            columns = list(zip(*rows[: stop - at], strict=True))
            for k in range(3):
                ints[k, at:stop] = columns[k]
                floats[k, at:stop] = np.array(columns[3 + k], dtype=np.float64)
            at = stop
        ints, floats = ints[:, :at], floats[:, :at]
        d_pos = _positions(d_rank, ints[0] // PAIR_BASE)
        a_pos = _positions(a_rank, ints[0] % PAIR_BASE)
        keep = (d_pos >= 0) & (a_pos >= 0)
        pick: slice | np.ndarray = slice(None)
        sorted_already = keep.all() and (
            at < 2
            or bool(np.all((np.diff(d_pos) > 0) | ((np.diff(d_pos) == 0) & (np.diff(a_pos) > 0))))
        )
        if not sorted_already:  # ids not in name order, or a filter: reorder once
            order = np.lexsort((a_pos[keep], d_pos[keep]))
            pick = np.flatnonzero(keep)[order]
            d_pos, a_pos = d_pos[pick], a_pos[pick]
        statuses = np.array(STATUSES, dtype=object)
        frame = pd.DataFrame(
            {
                "dataset": _strings(d_names, d_pos),
                "algorithm": _strings(a_names, a_pos),
                "status": _strings(statuses, ints[1][pick] % len(STATUSES)),
                "accuracy": floats[0][pick],
                "fit_time": floats[1][pick],
                "predict_time": floats[2][pick],
                "n_runs": ints[2][pick],
                "n_failed": ints[1][pick] // len(STATUSES),
            }
        )
        metric_names = None if metrics is None else [str(m) for m in metrics]
        if metric_names != []:
            mq = select(pm.c.dataset_id, pm.c.algorithm_id, pm.c.metric, pm.c.value)
            if metric_names is not None:
                mq = mq.where(pm.c.metric.in_(metric_names))
            long = self._read(mq, ("d", "a", "metric", "value"))
            if len(long):
                dl = _positions(d_rank, long["d"].to_numpy(np.int64))
                al = _positions(a_rank, long["a"].to_numpy(np.int64))
                width = max(len(a_names), 1)
                position = pd.Series(np.arange(len(frame)), index=d_pos * width + a_pos)
                long = long[(dl >= 0) & (al >= 0)]
                cell = (dl * width + al)[(dl >= 0) & (al >= 0)]
                long = long.assign(row=position.reindex(cell).to_numpy())
                long = long[long["row"].notna()]
                wide = long.pivot(index="row", columns="metric", values="value").astype("float64")
                wide = wide.reindex(sorted(wide.columns), axis=1)
                wide.index = wide.index.astype(np.int64)
                wide = wide.reindex(np.arange(len(frame)))
                for name in wide.columns:
                    frame[name] = wide[name].to_numpy()
            for name in metric_names or ():
                if name not in frame.columns:
                    frame[name] = float("nan")
        return frame

    def _run_rows(self, datasets, algorithms, metrics):
        import pandas as pd
        from sqlalchemy import select

        runs, ds, alg = self._tables["runs"], self._tables["datasets"], self._tables["algorithms"]
        rm = self._tables["run_metrics"]
        base = (
            select(
                runs.c.id,
                ds.c.name,
                alg.c.name,
                runs.c.protocol,
                runs.c.seed,
                runs.c.fold,
                runs.c.status,
                runs.c.accuracy,
                runs.c.fit_time,
                runs.c.predict_time,
                runs.c.source,
                runs.c.source_run_id,
                runs.c.error,
                runs.c.machine,
            )  # fmt: skip
            .join(ds, runs.c.dataset_id == ds.c.id)
            .join(alg, runs.c.algorithm_id == alg.c.id)
        )
        metric_query = (
            select(rm.c.run_id, rm.c.metric, rm.c.value)
            .join(runs, rm.c.run_id == runs.c.id)
            .join(ds, runs.c.dataset_id == ds.c.id)
            .join(alg, runs.c.algorithm_id == alg.c.id)
        )
        if algorithms is not None:
            wanted = [str(a) for a in algorithms]
            base = base.where(alg.c.name.in_(wanted))
            metric_query = metric_query.where(alg.c.name.in_(wanted))
        metric_names = None if metrics is None else [str(m) for m in metrics]
        if metric_names is not None:
            metric_query = metric_query.where(rm.c.metric.in_(metric_names))
        frames, metric_frames = [], []
        for part in self._name_filter(datasets):
            q = base if part is None else base.where(ds.c.name.in_(part))
            frames.append(self._read(q.order_by(runs.c.id), ("id", *RUN_COLUMNS)))
            if metric_names != []:
                mq = metric_query if part is None else metric_query.where(ds.c.name.in_(part))
                metric_frames.append(self._read(mq, ("id", "metric", "value")))
        frame = pd.concat(frames, ignore_index=True)
        for column in ("accuracy", "fit_time", "predict_time"):
            frame[column] = frame[column].astype("float64")
        for column in ("seed", "fold"):
            frame[column] = frame[column].astype("Int64")
        if metric_frames:
            long = pd.concat(metric_frames, ignore_index=True)
            if len(long):
                long["value"] = long["value"].astype("float64")
                wide = long.pivot(index="id", columns="metric", values="value")
                wide = wide.reindex(sorted(wide.columns), axis=1)
                frame = frame.join(wide, on="id")
        if metric_names:
            for name in metric_names:
                if name not in frame.columns:
                    frame[name] = float("nan")
        return frame.drop(columns="id")

    # ----------------------------------------------------------------------- export
