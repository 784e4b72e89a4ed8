"""Checks of a knowledge base's health: what ``metarec db check`` reports.

Each check reads only (the caller opens the database read-only) and yields one
:class:`Check`: the database file's integrity (SQLite's ``PRAGMA integrity_check``), that the
schema is this version's, that no row refers to a missing row (every foreign key of the
schema, checked by SQL that works on any database), that the performance matrix equals the
aggregates recomputed from the runs (see :mod:`metarec.storage._performance`), that the data
version is set, and the row count of every table.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, MetaData, text

from metarec.storage._models import metadata

__all__ = ["Check", "check_knowledge_base", "FOREIGN_KEYS", "foreign_keys"]


def foreign_keys(schema: MetaData) -> tuple[tuple[str, str, str, str], ...]:
    """Every foreign key of ``schema``: ``(table, column, parent table, parent column)``.

    Parameters
    ----------
    schema : sqlalchemy.MetaData
        The tables (metarec's: :data:`metarec.storage._models.metadata`).

    Returns
    -------
    tuple of (str, str, str, str)
        The tables in dependency order (parents first), the columns of each by name.
    """
    return tuple(
        (table.name, key.parent.name, key.column.table.name, key.column.name)
        for table in schema.sorted_tables
        for key in sorted(table.foreign_keys, key=lambda k: k.parent.name)
    )


#: The foreign keys ``db check`` follows: those of the schema's tables, read from the models.
FOREIGN_KEYS = foreign_keys(metadata)
_MATRIX_COLUMNS = ("status", "accuracy", "fit_time", "predict_time", "n_runs", "n_failed")
#: Relative tolerance of the matrix comparison (averages summed in another order).
_RTOL = 1e-9


@dataclass(frozen=True)
class Check:
    """One check of a knowledge base.

    Attributes
    ----------
    name : str
        What was checked ("integrity", "references", "matrix", ...).
    ok : bool
        Whether it passed.
    detail : str
        What was found, on one line.
    """

    name: str
    ok: bool
    detail: str


def check_knowledge_base(conn: Connection, *, revision: str | None, head: str) -> list[Check]:
    """Run every check on the current knowledge base behind ``conn``.

    Parameters
    ----------
    conn : Connection
        A connection to the database (read-only is enough).
    revision, head : str
        The database's schema revision and this version's.

    Returns
    -------
    list of Check
        In the order integrity, schema, references, matrix, data version, then one row count
        per table.
    """
    from metarec.storage._models import ALL_TABLES

    checks = [_integrity(conn), Check("schema", revision == head, f"revision {revision}")]
    checks.append(_references(conn))
    checks.append(_matrix(conn))
    versions = conn.exec_driver_sql("SELECT count(*) FROM kb_state").scalar()
    checks.append(Check("data version", versions == 1, f"{versions} row(s) in kb_state"))
    for table in ALL_TABLES:
        rows = conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar()
        checks.append(Check(f"rows: {table}", True, f"{rows:,}"))
    return checks


def _integrity(conn: Connection) -> Check:
    if conn.dialect.name != "sqlite":
        return Check("integrity", True, f"not checked on {conn.dialect.name} (the server does)")
    found = [row[0] for row in conn.exec_driver_sql("PRAGMA integrity_check").all()]
    if found == ["ok"]:
        return Check("integrity", True, "ok")
    return Check("integrity", False, f"{len(found)} problem(s); first: {found[0]}")


def _references(conn: Connection) -> Check:
    dangling = []
    for table, column, parent, key in FOREIGN_KEYS:
        count = conn.exec_driver_sql(
            f"SELECT count(*) FROM {table} c WHERE c.{column} IS NOT NULL AND NOT EXISTS "
            f"(SELECT 1 FROM {parent} p WHERE p.{key} = c.{column})"
        ).scalar()
        if count:
            dangling.append(f"{table}.{column}: {count} row(s) without their {parent} row")
    if dangling:
        return Check("references", False, "; ".join(dangling))
    return Check("references", True, f"{len(FOREIGN_KEYS)} foreign keys, none dangling")


def _matrix(conn: Connection) -> Check:
    """Compare ``performance`` and ``performance_metrics`` with their recomputation."""
    import numpy as np
    import pandas as pd

    from metarec.storage._performance import expected_matrix

    expected, expected_metrics = expected_matrix(conn)
    stored = pd.DataFrame(
        conn.execute(
            text(
                "SELECT dataset_id, algorithm_id, status, accuracy, fit_time, predict_time, "
                "n_runs, n_failed FROM performance"
            )
        ).all(),
        columns=["dataset_id", "algorithm_id", *_MATRIX_COLUMNS],
    )
    stored_metrics = pd.DataFrame(
        conn.execute(
            text("SELECT dataset_id, algorithm_id, metric, value FROM performance_metrics")
        ).all(),
        columns=["dataset_id", "algorithm_id", "metric", "value"],
    )
    problems = []
    for what, left, right, keys in (
        ("pairs", stored, expected, ["dataset_id", "algorithm_id"]),
        (
            "metric values",
            stored_metrics,
            expected_metrics,
            ["dataset_id", "algorithm_id", "metric"],
        ),
    ):
        merged = left.merge(right, on=keys, how="outer", suffixes=("", "_runs"), indicator=True)
        missing = int((merged["_merge"] == "right_only").sum())
        extra = int((merged["_merge"] == "left_only").sum())
        both = merged[merged["_merge"] == "both"]
        differ = np.zeros(len(both), dtype=bool)
        for column in [c for c in left.columns if c not in keys]:
            a, b = both[column], both[f"{column}_runs"]
            if column == "status":
                differ |= (a.astype(str) != b.astype(str)).to_numpy()
                continue
            # None (an absent time) and NaN alike are missing: equal to each other only
            x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float)
            y = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float)
            close = np.isclose(x, y, rtol=_RTOL, atol=0.0) | (np.isnan(x) & np.isnan(y))
            differ |= ~close
        for count, how in (
            (missing, "missing"),
            (extra, "without runs"),
            (int(differ.sum()), "differing"),
        ):
            if count:
                problems.append(f"{count} {what} {how}")
    if problems:
        return Check("matrix", False, "; ".join(problems) + " (recomputed from the runs)")
    return Check("matrix", True, f"{len(stored):,} pairs equal their runs' aggregates")
