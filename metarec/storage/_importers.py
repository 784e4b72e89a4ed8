"""Bulk, idempotent, all-or-nothing imports of run histories and metafeatures.

The run import is here; the metafeature import is in :mod:`metarec.storage._metafeature_import`.

An import streams its input in chunks (:mod:`metarec.storage._readers`) inside ONE write
transaction.  Each chunk is validated with vectorised pandas operations, then written with
executemany-style Core inserts using the dialect's ``INSERT ... ON CONFLICT DO NOTHING``
(SQLite, PostgreSQL), so rows already stored are skipped by the database itself.  A problem
anywhere rejects the whole input (:class:`~metarec.exceptions.ImportRejectedError`, the
transaction is rolled back and the knowledge base is exactly as before) unless
``skip_invalid=True``, in which case the valid rows are stored and the rest reported.

Run rows
--------
Required columns: ``dataset, algorithm, accuracy`` and ``time`` (``fit_time`` is an alias;
when both are present ``time`` wins and ``fit_time`` fills its gaps).  Optional:
``protocol, seed, fold, status, predict_time, source, source_run_id, error, machine``.  Any
other column holding numbers is a per-run metric; a column whose values in the first chunk
are all non-numeric text is ignored (and named in the report's notes).  A row is invalid when:
dataset or algorithm is empty; accuracy or a time or a metric value is not a number;
accuracy is outside [0, 1]; a time is negative; seed or fold is not an integer; status is not
``ok``, ``timeout`` or ``error``; or status is ``ok`` and accuracy is missing.  A missing
status is inferred: ``ok`` when the accuracy is present, ``error`` otherwise.

Conflicts
---------
A run named by its origin (non-empty ``source`` and ``source_run_id``, with its ``machine`` if
any) keeps its key whatever its values.  When such a run is already stored, or repeated in
the input, with *other* values (any of dataset, algorithm, protocol, seed, fold, status,
accuracy, times, error or a metric of the file), ``on_conflict`` decides: ``"error"`` (the default) makes it an invalid row whose
message names both places (file and line; "already stored from source ..." with the values
old -> new); ``"keep"`` leaves the stored (or first) run; ``"replace"`` overwrites the stored
run (and its metrics) with the input's last one, each noted old -> new.  Identical rows are
never a conflict.  Duplicate column names (``accuracy`` twice) reject the input.

After the rows are written, the import recomputes the performance matrix of the (dataset,
algorithm) pairs it touched and gives the knowledge base a new data version
(:mod:`metarec.storage._performance`), in the same transaction.

Metafeature rows
----------------
A ``dataset`` column naming datasets already in the knowledge base, and one column per
metafeature.  Columns named like OpenML qualities (``NumberOfInstances``, ...) are translated
with :func:`metarec.metafeatures.translate_openml_qualities`; a metarec-named column given
in the same file wins over a translated one.  Missing cells are skipped (they never erase a
stored value); infinite values are invalid.  Re-importing updates values in place: the report counts *values* (one per
dataset and metafeature) as ``added`` (new), ``updated`` (stored with another value) or
``present`` (stored with the same value); ``rejected`` counts rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from metarec._problem import Problem
from metarec.exceptions import ImportRejectedError, KnowledgeBaseError
from metarec.storage._conflicts import CONFLICT_CHOICES, _Conflicts, replace_runs
from metarec.storage._models import STORED_RUN_COLUMNS
from metarec.storage._performance import (
    PAIR_BASE,
    REBUILD_THRESHOLD,
    add_new_pairs,
    bump_version,
    distinct,
    rebuild_performance,
    refresh_performance,
    repeated,
    stored_pairs,
)
from metarec.storage._readers import ChunkSource, open_source
from metarec.storage._runkeys import MACHINE_SEPARATOR, OccurrenceCounter, run_keys
from metarec.storage._runrows import (
    STATUSES,
    insert_sqlite_metrics,
    insert_sqlite_runs,
    or_missing,
    run_values,
)
from metarec.storage._validation import (
    MAX_PROBLEMS,
    _Checks,
    _numeric,
    _plain,
    _Problems,
    _text_series,
    _text_values,
)

__all__ = [
    "ImportReport",
    "import_runs",
    "MAX_PROBLEMS",
    "CONFLICT_CHOICES",
]


#: Column names a run file may not use for a metric (they name metarec's own columns).
RESERVED_RUN_COLUMNS = ("id", "run_id", "run_key", "n_runs", "n_failed", "_ok", "_failure")
#: Metafeature names a metafeature file may not use.
RESERVED_METAFEATURES = ("dataset_id", "name", "value", "stored")
MAX_METRIC_NAME = 128
#: Longest text of each text column of a run (the schema's limits, the same on every database).
TEXT_LIMITS = {
    "dataset": 255,
    "algorithm": 255,
    "protocol": 64,
    "source": 64,
    "source_run_id": 255,
    "machine": 255,
}
#: The source metarec's benchmark runner writes (``metarec.benchmark``'s ``SOURCE``, which
#: storage may not import; a test keeps the two equal).  Before schema revision 0006 such a
#: run's machine followed :data:`~metarec.storage._runkeys.MACHINE_SEPARATOR` in its
#: ``source_run_id`` (as in an export written then, or the built-in resources); an import
#: moves it to ``machine``.
BENCHMARK_SOURCE = "benchmark"
#: Seeds and folds are 32-bit integers in the schema.
INT_LIMIT = 2**31 - 1
RUN_STRING_COLUMNS = (
    "dataset",
    "algorithm",
    "protocol",
    "status",
    "source",
    "source_run_id",
    "error",
    "machine",
)
RUN_KNOWN_COLUMNS = (
    *RUN_STRING_COLUMNS,
    "accuracy",
    "time",
    "fit_time",
    "predict_time",
    "seed",
    "fold",
)


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    Parameters
    ----------
    added : int
        Rows (runs) or values (metafeatures) newly stored.
    present : int
        Rows or values that were already stored, unchanged.
    rejected : int
        Invalid rows left out (only non-zero with ``skip_invalid=True``).
    problems : tuple of Problem
        One line per problem, naming file, line/row and column (at most
        :data:`MAX_PROBLEMS`, then a summary line); each also carries its ``source``,
        ``row``, ``column`` and ``message`` (:class:`~metarec.storage.Problem`).
    updated : int
        Metafeature values that were stored with another value and were replaced.
    source : str
        The file imported, or ``"<DataFrame>"``.
    notes : tuple of str
        Remarks that are not problems (ignored columns, runs kept or replaced on a conflict
        with their old -> new values...).
    replaced : int
        Stored runs replaced by a run of the input with the same key and other values
        (``on_conflict="replace"``).
    """

    added: int
    present: int
    rejected: int
    problems: tuple[Problem, ...] = ()
    updated: int = 0
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    replaced: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Return the report as a plain dictionary.

        Returns
        -------
        dict of str to Any
            Every field by name, ``problems`` and ``notes`` as lists of str.
        """
        out = asdict(self)
        out["problems"] = [str(p) for p in self.problems]
        out["notes"] = list(self.notes)
        return out


def _dialect_insert(conn):
    name = conn.dialect.name
    if name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    elif name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        raise KnowledgeBaseError(f"imports need a SQLite or PostgreSQL knowledge base, not {name}")
    return insert


class _NameIds:
    """name -> id cache of the datasets or algorithms table, creating missing names."""

    def __init__(self, conn, table, *, create: bool) -> None:
        self.conn, self.table, self.create = conn, table, create
        self.ids: dict[str, int] = {}
        self.created: set[int] = set()  # the ids of the names this import created

    def lookup(self, names) -> None:
        from sqlalchemy import select

        todo = [n for n in dict.fromkeys(names) if n not in self.ids]
        for start in range(0, len(todo), 500):
            part = todo[start : start + 500]
            query = select(self.table.c.name, self.table.c.id).where(self.table.c.name.in_(part))
            self.ids.update(dict(self.conn.execute(query).all()))

    def ensure(self, names, sources) -> None:
        """Create the names not stored yet (``sources``: the source to record for each)."""
        self.lookup(names)
        if not self.create:
            return
        missing: dict[str, Any] = {}
        for name, source in zip(names, sources, strict=True):
            if name not in self.ids and name not in missing:
                missing[name] = source
        if not missing:
            return
        insert = _dialect_insert(self.conn)
        rows = [
            {"name": n, **({"source": s} if "source" in self.table.c else {})}
            for n, s in sorted(missing.items())  # one order everywhere: no lock cycles
        ]
        self.conn.execute(insert(self.table).on_conflict_do_nothing(index_elements=["name"]), rows)
        self.lookup(list(missing))
        # the import holds the write lock: no other writer can have added one of them
        self.created.update(self.ids[n] for n in missing)

    def ids_of(self, names, sources=None) -> np.ndarray:
        """int64 ids of a column of names (created if missing, with the source of the name's
        first row), looked up once per distinct name."""
        import pandas as pd

        codes, uniques = pd.factorize(names)
        distinct = [str(n) for n in uniques]
        first = np.unique(codes, return_index=True)[1]
        if sources is None:
            first_sources = [None] * len(distinct)
        else:
            first_sources = sources.to_numpy(dtype=object, na_value=None)[first].tolist()
        self.ensure(distinct, first_sources)
        return np.array([self.ids[n] for n in distinct], dtype=np.int64)[codes]


# --------------------------------------------------------------------------------- runs


def _run_header(source: ChunkSource) -> None:
    source.check_duplicates()
    columns = set(source.columns)
    missing = [c for c in ("dataset", "algorithm", "accuracy") if c not in columns]
    if "time" not in columns and "fit_time" not in columns:
        missing.append("time")
    if missing:
        raise ImportRejectedError(
            f"{source.label}, {source.header_where}: missing required column(s) "
            f"{', '.join(repr(c) for c in missing)} (found: {source.found}); "
            "run files need dataset, algorithm, accuracy and time (or fit_time)",
            [f"{source.label}: missing required column {c!r}" for c in missing],
        )
    reserved = [c for c in source.columns if c in RESERVED_RUN_COLUMNS]
    too_long = [c for c in source.columns if len(c) > MAX_METRIC_NAME]
    for bad, why in (
        (reserved, "is reserved (metarec's own columns)"),
        (too_long, "is a metric name longer than 128 characters"),
    ):
        if bad:
            raise ImportRejectedError(
                f"{source.label}, {source.header_where}: column {bad[0]!r} {why}; rename it",
                [f"{source.label}: column {c!r} {why}" for c in bad],
            )


def _metric_columns(source: ChunkSource, first_chunk) -> tuple[list[str], list[str]]:
    """Split the extra columns into metrics and ignored text columns (decided on chunk 1)."""
    import pandas as pd

    metrics, ignored = [], []
    for column in source.columns:
        if column in RUN_KNOWN_COLUMNS:
            continue
        values = first_chunk[column]
        if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype
        ):
            metrics.append(column)
            continue
        present = values.dropna()
        coerced = pd.to_numeric(present, errors="coerce")
        if len(present) and coerced.isna().all():
            ignored.append(column)
        else:
            metrics.append(column)
    return metrics, ignored


def _normalise_runs(chunk, metrics, defaults) -> tuple[Any, _Checks]:
    """Validate a chunk; return the normalised frame (all rows) and the failures."""
    import pandas as pd

    n = len(chunk)
    checks = _Checks(n)
    empty = pd.Series([None] * n, dtype=object)
    col = {c: (chunk[c] if c in chunk.columns else empty) for c in RUN_KNOWN_COLUMNS}
    out = _run_strings(chunk, col, checks, defaults)
    accuracy, fit_time, predict_time, ints = _run_numbers(chunk, col, checks)
    status = _run_status(out["status"], accuracy, checks)
    metric_values = {name: _numeric(chunk[name], checks, name) for name in metrics}

    def strings(values):  # as they are: pandas 3 would convert them to its str dtype
        return pd.Series(values, dtype=object, copy=False)

    frame = pd.DataFrame(
        {
            "dataset": strings(out["dataset"]),
            "algorithm": strings(out["algorithm"]),
            "protocol": strings(out["protocol"]),
            "seed": ints["seed"],
            "fold": ints["fold"],
            "status": strings(status),
            "accuracy": accuracy,
            "fit_time": fit_time,
            "predict_time": predict_time,
            "source": strings(out["source"]),
            "source_run_id": strings(out["source_run_id"]),
            "error": strings(out["error"]),
            "machine": strings(out["machine"]),
            **metric_values,
        }
    )
    return frame, checks


def _run_strings(chunk, col: dict, checks: _Checks, defaults: dict) -> dict:
    """The text columns, stripped (missing: None), checked; ``defaults`` fill protocol/source."""
    import pandas as pd

    n = len(chunk)
    out: dict[str, Any] = {}
    texts = {}
    for name in RUN_STRING_COLUMNS:
        if name not in chunk.columns:  # an absent column: all missing, nothing to check
            out[name] = np.full(n, None, dtype=object)
            continue
        texts[name] = _text_series(col[name])
        out[name] = _text_values(texts[name])
    for name in ("dataset", "algorithm"):
        checks.fail(pd.isna(out[name]), name, lambda i, name=name: f"{name} is missing")
    for name, text in texts.items():
        limit = TEXT_LIMITS.get(name)
        if limit is not None:
            checks.fail(
                text.str.len().gt(limit).fillna(False).to_numpy(bool),
                name,
                lambda i, name=name, limit=limit: f"{name} is longer than {limit} characters",
            )
        checks.fail(
            text.str.contains("\x00", regex=False).fillna(False).to_numpy(bool),
            name,
            lambda i, name=name: f"{name} contains a NUL character",
        )
    for name in ("protocol", "source"):
        if defaults.get(name) is not None:
            values = out[name]
            values[pd.isna(values)] = defaults[name]
    _split_machine(out)
    return out


def _split_machine(out: dict) -> None:
    """Move the machine of a benchmark run written before revision 0006 to ``machine``.

    Such a run (source ``benchmark``, no machine) holds it in ``source_run_id`` after
    ``" | "``; its name, and so its key, stays the same (:func:`run_names`).
    """
    import pandas as pd

    run_id, machine = out["source_run_id"], out["machine"]
    packed = (out["source"] == BENCHMARK_SOURCE) & ~pd.isna(run_id) & pd.isna(machine)
    if not packed.any():
        return
    rows = np.flatnonzero(packed)
    parts = pd.Series(run_id[rows], dtype=object).str.split(MACHINE_SEPARATOR, n=1, regex=False)
    two = (parts.str.len() == 2).to_numpy(bool)
    rows, parts = rows[two], parts[two]
    run_id[rows] = parts.str[0].to_numpy(dtype=object)
    machine[rows] = parts.str[1].to_numpy(dtype=object)


def _run_numbers(chunk, col: dict, checks: _Checks):
    """Accuracy in [0, 1], times >= 0 (``time`` before ``fit_time``), integral seed and fold.

    Returns ``(accuracy, fit_time, predict_time, {"seed": ..., "fold": ...})``, NaN where
    missing.
    """
    n = len(chunk)
    accuracy = _numeric(col["accuracy"], checks, "accuracy")
    checks.fail(
        ~np.isnan(accuracy) & ((accuracy < 0) | (accuracy > 1)),
        "accuracy",
        lambda i: f"accuracy {_plain(accuracy[i])} is outside [0, 1]",
    )
    times = {}
    for name in ("time", "fit_time", "predict_time"):
        if name not in chunk.columns:
            times[name] = np.full(n, np.nan)
            continue
        values = _numeric(col[name], checks, name)
        checks.fail(
            ~np.isnan(values) & ((values < 0) | np.isinf(values)),
            name,
            lambda i, values=values, name=name: (
                f"{name} {_plain(values[i])} is negative or infinite"
            ),
        )
        times[name] = values
    fit_time = np.where(np.isnan(times["time"]), times["fit_time"], times["time"])
    if "time" not in chunk.columns:
        fit_time = times["fit_time"]
    ints = {}
    for name in ("seed", "fold"):
        values = _numeric(col[name], checks, name) if name in chunk.columns else np.full(n, np.nan)
        with np.errstate(invalid="ignore"):
            fractional = ~np.isnan(values) & (
                np.isinf(values) | (np.floor(values) != values) | (np.abs(values) > INT_LIMIT)
            )
        checks.fail(
            fractional,
            name,
            lambda i, values=values, name=name: (
                f"{name} {_plain(values[i])} is not an integer between -2**31 and 2**31 - 1"
            ),
        )
        ints[name] = values
    return accuracy, fit_time, times["predict_time"], ints


def _run_status(status: np.ndarray, accuracy: np.ndarray, checks: _Checks) -> np.ndarray:
    """Statuses lower-cased and checked; a missing one is ``ok`` with an accuracy, else
    ``error``; an ``ok`` run needs an accuracy."""
    import pandas as pd

    # lower-case the few distinct statuses, not every row
    codes, distinct = pd.factorize(status)
    distinct_lowered = np.array([s.lower() for s in distinct] + [None], dtype=object)
    lowered = distinct_lowered[codes]  # code -1 (missing) takes the trailing None
    distinct_unknown = np.array([s not in STATUSES for s in distinct_lowered[:-1]] + [False])
    unknown = distinct_unknown[codes]
    checks.fail(
        unknown, "status", lambda i: f"status {status[i]!r} is not one of ok, timeout, error"
    )
    missing_status = pd.isna(lowered)
    lowered[missing_status] = np.where(np.isnan(accuracy[missing_status]), "error", "ok")
    checks.fail(
        (lowered == "ok") & np.isnan(accuracy) & ~missing_status,
        "accuracy",
        lambda i: (
            "accuracy is missing for a run with status 'ok' (mark failed runs with status "
            "'error' or 'timeout')"
        ),
    )
    return lowered


def _stored_rows(values: dict, n: int) -> list[tuple]:
    """The chunk's runs as tuples of :data:`STORED_RUN_COLUMNS` (missing as None)."""
    return list(zip(*(or_missing(values[c], n) for c in STORED_RUN_COLUMNS), strict=True))


def _insert_runs(conn, run_insert, values: dict, n: int, is_replacement: np.ndarray):
    """Insert the chunk's runs that replace nothing; ``(runs added, all rows or None)``.

    The rows (every column) are built when some runs replace stored ones (they are then
    overwritten whole by :func:`replace_runs`) or for drivers other than SQLite's.
    """
    rows = keep_rows = None
    if is_replacement.any():  # every column: the replaced runs are overwritten whole
        rows = _stored_rows(values, n)
        keep_rows = (~is_replacement).tolist()
    if conn.dialect.name == "sqlite":
        # the driver's multi-row inserts (see metarec.storage._runrows): its rowcount
        # counts exactly the rows inserted (a conflict skips the row, adds nothing)
        return insert_sqlite_runs(conn.connection.driver_connection, values, keep_rows), rows
    # elsewhere RETURNING counts what was really inserted (the rowcount of an executemany
    # with ON CONFLICT DO NOTHING is not reliable across drivers)
    if rows is None:
        rows = _stored_rows(values, n)
        keep_rows = [True] * len(rows)
    dicts = [dict(zip(STORED_RUN_COLUMNS, row, strict=True)) for row, k in zip(rows, keep_rows, strict=True) if k]  # fmt: skip
    return (len(conn.execute(run_insert, dicts).all()) if dicts else 0), rows


def _insert_metrics(conn, metric_insert, frame, metrics, keys, dataset_ids, algorithm_ids) -> None:
    """Insert the chunk's per-run metric values (each finds its run by pair and key)."""
    if conn.dialect.name == "sqlite":
        insert_sqlite_metrics(
            conn.connection.driver_connection,
            {m: frame[m].to_numpy(dtype="float64") for m in metrics},
            keys,
            dataset_ids,
            algorithm_ids,
        )
        return
    long = (
        frame[metrics]
        .assign(m_key=keys, m_dataset=dataset_ids, m_algorithm=algorithm_ids)
        .melt(id_vars=["m_key", "m_dataset", "m_algorithm"], var_name="m_metric",
              value_name="m_value")
    )  # fmt: skip
    long = long[long["m_value"].notna()]
    if len(long):
        conn.execute(metric_insert, long.to_dict(orient="records"))


@dataclass
class _MatrixWork:
    """The performance-matrix work an import owes: which pairs it touched, chunk by chunk.

    Pair codes (``dataset_id * PAIR_BASE + algorithm_id``) of the pairs with replaced runs
    (``touched``), of those added to (``fresh``) and of those given more than one row by one
    chunk (``repeats``); past :data:`REBUILD_THRESHOLD` touched pairs the whole matrix is
    rebuilt instead.  ``last_id``: the largest run id before the import.
    """

    last_id: int
    touched: list = field(default_factory=list)
    fresh: list = field(default_factory=list)
    repeats: list = field(default_factory=list)
    n_touched: int = 0
    rebuild: bool = False

    def record(self, codes: np.ndarray, chunk_added: int, replaced_rows: list) -> None:
        """One chunk's pairs: those it added runs to, and those whose runs it replaced."""
        if chunk_added:
            self.fresh.append(distinct(codes))
            self.repeats.append(repeated(codes))
        if replaced_rows:
            old = np.array([(d, a) for _, d, a in replaced_rows], dtype=np.int64)
            self.touched.append(distinct(old[:, 0] * PAIR_BASE + old[:, 1]))
            if not self.rebuild:
                self.touched.append(distinct(codes))
                self.n_touched += len(self.touched[-1])
                if self.n_touched > REBUILD_THRESHOLD:  # the whole matrix will be rebuilt
                    self.touched, self.rebuild = [], True

    def update(self, conn, datasets, algorithms, *, any_replaced: bool) -> None:
        """Bring the matrix in step with the runs: rebuilt, or only the pairs touched."""
        empty = np.empty(0, np.int64)
        if self.rebuild:
            rebuild_performance(conn)
            return
        if not (self.touched or self.fresh):
            return
        added_to = distinct(np.concatenate(self.fresh)) if self.fresh else empty
        # a new pair given rows by two chunks, or twice by one, may have several runs
        several = np.union1d(
            np.concatenate(self.repeats) if self.repeats else empty,
            repeated(np.concatenate(self.fresh)) if self.fresh else empty,
        )
        if self.last_id <= 0:  # no runs before: the whole matrix, in one statement
            # (a replaced run may have moved to a pair that had one: then every pair groups)
            rebuild_performance(conn, one_run_each=not several.size and not any_replaced)
            return
        # the pairs the matrix held: recomputed; then the new ones from the ids inserted
        stale = np.union1d(
            np.concatenate(self.touched) if self.touched else empty,
            stored_pairs(conn, added_to, datasets.created, algorithms.created),
        )
        refresh_performance(conn, np.column_stack([stale // PAIR_BASE, stale % PAIR_BASE]))
        if len(added_to):
            add_new_pairs(conn, self.last_id, one_run_each=not np.setdiff1d(several, stale).size)


def _run_statements(conn, runs, run_metrics):
    """The insert statements of runs (returning ids) and of their metric values."""
    from sqlalchemy import bindparam, select

    insert = _dialect_insert(conn)
    run_insert = (
        # no conflict target: a run already stored breaks uq_runs_pair_key, or for a named
        # run uq_runs_named_key (see metarec.storage._models)
        insert(runs).on_conflict_do_nothing().returning(runs.c.id)
    )
    metric_insert = (
        insert(run_metrics)
        .values(
            run_id=select(runs.c.id)
            .where(
                runs.c.dataset_id == bindparam("m_dataset"),
                runs.c.algorithm_id == bindparam("m_algorithm"),
                runs.c.run_key == bindparam("m_key"),
            )
            .scalar_subquery(),
            metric=bindparam("m_metric"),
            value=bindparam("m_value"),
        )
        .on_conflict_do_nothing(index_elements=["run_id", "metric"])
    )
    return run_insert, metric_insert


class _RunWriter:
    """Writes the valid rows of an import's chunks: runs, their metrics, the matrix's work."""

    def __init__(self, conn, tables) -> None:
        from sqlalchemy import func, select

        self.conn = conn
        self.runs, self.run_metrics = tables["runs"], tables["run_metrics"]
        self.run_insert, self.metric_insert = _run_statements(conn, self.runs, self.run_metrics)
        self.datasets = _NameIds(conn, tables["datasets"], create=True)
        self.algorithms = _NameIds(conn, tables["algorithms"], create=True)
        self.counter = OccurrenceCounter()
        # runs inserted by this import get larger ids (it holds the write lock)
        last = conn.execute(select(func.max(self.runs.c.id))).scalar() or 0
        self.matrix = _MatrixWork(last_id=last)

    def write(self, frame, keep, examined, metrics) -> tuple[int, int]:
        """Insert the rows ``keep`` of ``frame`` (replacing what ``examined`` says); return
        the runs added and replaced."""
        conn = self.conn
        drop, replace, named_keys = examined.drop, examined.replace, examined.codes
        is_replacement = np.zeros(len(frame), dtype=bool)
        is_replacement[[r for r, *_ in replace]] = True
        # stored runs to overwrite, in the order their rows keep below
        replaced_rows = [(i, d, a) for _, i, d, a in sorted(replace)]
        # a named run identical to the one stored under its key has nothing to write
        insert_mask = keep & (~drop | is_replacement) & ~examined.present
        if not insert_mask.all():
            frame = frame.loc[insert_mask].reset_index(drop=True)
            is_replacement = is_replacement[insert_mask]
            named_keys = named_keys[insert_mask]
        if frame.empty:
            return 0, 0
        keys = run_keys(frame, metrics, self.counter, named_keys=named_keys)
        dataset_ids = self.datasets.ids_of(frame["dataset"], frame["source"])
        algorithm_ids = self.algorithms.ids_of(frame["algorithm"])
        values = run_values(frame, keys, dataset_ids, algorithm_ids)
        added, rows = _insert_runs(conn, self.run_insert, values, len(frame), is_replacement)
        codes = dataset_ids * PAIR_BASE + algorithm_ids
        if is_replacement.any():
            replace_runs(conn, self.runs, self.run_metrics, rows, is_replacement, replaced_rows)
        self.matrix.record(codes, added, replaced_rows if is_replacement.any() else [])
        if metrics:
            _insert_metrics(
                conn, self.metric_insert, frame, metrics, keys, dataset_ids, algorithm_ids
            )
        return added, int(is_replacement.sum())


def import_runs(
    conn,
    tables,
    path_or_frame,
    *,
    skip_invalid: bool = False,
    source: str | None = None,
    protocol: str | None = None,
    progress: Callable[..., None] | None = None,
    chunksize: int | None = None,
    on_conflict: str = "error",
) -> ImportReport:
    """Import run rows into the open write transaction ``conn`` (see the module docstring).

    Parameters
    ----------
    conn : sqlalchemy.Connection
        A connection inside the import's single write transaction.
    tables : mapping of str to sqlalchemy.Table
        The knowledge-base tables.
    path_or_frame : str, path-like or DataFrame
        The run rows.
    skip_invalid : bool, default=False
        Store the valid rows and report the others instead of rejecting the input.
    source, protocol : str, optional
        Values for rows whose ``source`` / ``protocol`` is missing.
    progress : callable, optional
        Called as ``progress(n_rows, total=None)`` after each chunk.
    chunksize : int, optional
        Rows per chunk (default :data:`metarec.storage._readers.DEFAULT_CHUNKSIZE`).
    on_conflict : {"error", "keep", "replace"}, default="error"
        A run stored, or repeated in the input, under the same ``source:source_run_id`` key
        with other values: an invalid row (``"error"``), left as stored / first seen
        (``"keep"``), or replaced by the input's last one (``"replace"``, noted old -> new).
    """
    kwargs = {"chunksize": chunksize} if chunksize else {}
    reader = open_source(path_or_frame, string_columns=RUN_STRING_COLUMNS, **kwargs)
    _run_header(reader)
    problems = _Problems(reader)
    writer = _RunWriter(conn, tables)
    defaults = {"source": source, "protocol": protocol}
    metrics: list[str] | None = None
    conflicts: _Conflicts | None = None
    notes: list[str] = list(reader.notes)
    added = valid_total = replaced = 0
    if progress is not None and reader.n_rows is not None:
        progress(0, total=reader.n_rows)
    for start, chunk in reader.chunks():
        if metrics is None:
            metrics, ignored = _metric_columns(reader, chunk)
            if ignored:
                notes.append(f"ignored non-numeric column(s): {', '.join(ignored)}")
            conflicts = _Conflicts(conn, tables, on_conflict, reader, metrics)
        frame, checks = _normalise_runs(chunk, metrics, defaults)
        examined = conflicts.examine(start, frame, checks)
        if checks.bad.any():
            problems.add_chunk(start, checks.found, int(checks.bad.sum()))
        if progress is not None:
            progress(len(chunk))
        if problems.n_rows and not skip_invalid:
            continue  # keep validating to report every problem, store nothing more
        keep = ~checks.bad
        valid_total += int(keep.sum())
        chunk_added, chunk_replaced = writer.write(frame, keep, examined, metrics)
        added += chunk_added
        replaced += chunk_replaced
    if problems.n_rows and not skip_invalid:
        raise problems.reject("run file")
    if conflicts is not None:
        notes.extend(conflicts.notes)
        if conflicts.kept:
            notes.append(
                f"kept {conflicts.kept} stored or first run(s) where the input had other values "
                "under the same source_run_id (--on-conflict keep)"
            )
    writer.matrix.update(conn, writer.datasets, writer.algorithms, any_replaced=bool(replaced))
    if added or replaced:
        bump_version(conn)
    return ImportReport(
        added=added,
        present=valid_total - added - replaced,
        rejected=problems.n_rows,
        problems=problems.finish(),
        source=reader.label,
        notes=tuple(notes),
        replaced=replaced,
    )
