"""Importing metafeatures: a wide file or frame (a ``dataset`` column, one per metafeature).

The rules (see also :mod:`metarec.storage._importers`): the datasets must exist; OpenML quality
names are translated to metarec's; values are replaced in place and a missing cell never
erases a stored value; every row is checked (known, unrepeated dataset; finite numbers) and an
invalid row rejects the whole input unless ``skip_invalid``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from metarec.exceptions import ImportRejectedError
from metarec.storage._importers import (
    RESERVED_METAFEATURES,
    ImportReport,
    _dialect_insert,
    _NameIds,
)
from metarec.storage._performance import bump_version
from metarec.storage._readers import open_source
from metarec.storage._validation import _Checks, _numeric, _plain, _Problems, _text

__all__ = ["import_metafeatures"]


def import_metafeatures(
    conn,
    tables,
    path_or_frame,
    *,
    skip_invalid: bool = False,
    progress: Callable[..., None] | None = None,
    chunksize: int | None = None,
) -> ImportReport:
    """Import a wide metafeature file or frame into the open write transaction ``conn``.

    See the module docstring for the rules and for what the report counts.
    """
    import pandas as pd

    from metarec.metafeatures import openml_named_columns, translate_openml_columns

    kwargs = {"chunksize": chunksize} if chunksize else {}
    reader = open_source(path_or_frame, string_columns=("dataset",), **kwargs)
    _metafeature_header(reader)
    openml_columns = openml_named_columns(reader.columns)
    problems = _Problems(reader)
    _dialect_insert(conn)  # a database other than SQLite or PostgreSQL: refused before any work
    datasets = _NameIds(conn, tables["datasets"], create=False)
    seen: dict[str, int] = {}
    counts = np.zeros(3, dtype=np.int64)  # added, updated, present
    if progress is not None and reader.n_rows is not None:
        progress(0, total=reader.n_rows)
    for start, chunk in reader.chunks():
        checks, names, values = _check_metafeature_rows(reader, start, chunk, datasets, seen)
        if checks.bad.any():
            problems.add_chunk(start, checks.found, int(checks.bad.sum()))
        if progress is not None:
            progress(len(chunk))
        if problems.n_rows and not skip_invalid:
            continue
        keep = ~checks.bad
        frame = translate_openml_columns(pd.DataFrame(values).loc[keep], openml_columns)
        ids = pd.Series(names[keep]).map(datasets.ids).to_numpy(dtype="int64")
        frame.insert(0, "dataset_id", ids)
        counts += _write_metafeatures(conn, tables["metafeatures"], frame, ids)
    if problems.n_rows and not skip_invalid:
        raise problems.reject("metafeature file")
    added, updated, present = (int(c) for c in counts)
    if added or updated:
        bump_version(conn)
    return ImportReport(
        added=added,
        present=present,
        updated=updated,
        rejected=problems.n_rows,
        problems=problems.finish(),
        source=reader.label,
        notes=tuple(reader.notes),
    )


def _metafeature_header(reader) -> None:
    """Refuse a metafeature file without a ``dataset`` column or with a reserved column."""
    reader.check_duplicates()
    if "dataset" not in reader.columns:
        raise ImportRejectedError(
            f"{reader.label}, {reader.header_where}: missing required column 'dataset' "
            f"(found: {reader.found}); metafeature files are wide: a "
            "dataset column and one column per metafeature",
            [f"{reader.label}: missing required column 'dataset'"],
        )
    if len(reader.columns) < 2:
        raise ImportRejectedError(
            f"{reader.label}, {reader.header_where}: no metafeature column besides 'dataset'; "
            "metafeature files are wide: a dataset column and one column per metafeature"
        )
    reserved = [c for c in reader.columns if c in RESERVED_METAFEATURES or len(c) > 255]
    if reserved:
        raise ImportRejectedError(
            f"{reader.label}, {reader.header_where}: column {reserved[0]!r} cannot be a "
            "metafeature name (reserved, or longer than 255 characters); rename it",
            [f"{reader.label}: column {c!r} cannot be a metafeature name" for c in reserved],
        )


def _check_metafeature_rows(reader, start: int, chunk, datasets, seen: dict):
    """Check one chunk: known, unrepeated datasets and finite numbers.

    Returns ``(checks, names, values)``: the problems per row, the dataset names (None where
    missing) and each metafeature column as floats.  ``seen`` (name -> first row) is updated.
    """
    import pandas as pd

    checks = _Checks(len(chunk))
    names = _text(chunk["dataset"])
    checks.fail(pd.isna(names), "dataset", lambda i: "dataset is missing")
    datasets.lookup([n for n in names if n is not None])
    unknown = np.array([n is not None and n not in datasets.ids for n in names], dtype=bool)
    checks.fail(
        unknown,
        "dataset",
        lambda i, names=names: (
            f"unknown dataset {names[i]!r} (import its runs, or a datasets file naming it, first)"
        ),
    )
    duplicate = np.zeros(len(chunk), dtype=bool)
    for i, name in enumerate(names):
        if name is None:
            continue
        if name in seen:
            duplicate[i] = True
        else:
            seen[name] = start + i
    checks.fail(
        duplicate,
        "dataset",
        lambda i, names=names: (
            f"dataset {names[i]!r} appears again (first at {reader.where(seen[names[i]])})"
        ),
    )
    values = {c: _numeric(chunk[c], checks, c) for c in chunk.columns if c != "dataset"}
    for column, numbers in values.items():
        checks.fail(
            np.isinf(numbers),
            column,
            lambda i, numbers=numbers, column=column: (
                f"{column} {_plain(numbers[i])} is not a finite number"
            ),
        )
    return checks, names, values


def _write_metafeatures(conn, table, frame, ids) -> np.ndarray:
    """Upsert the non-missing values of ``frame`` (``dataset_id`` and one column per
    metafeature); returns the counts ``[added, updated, unchanged]``."""
    import pandas as pd
    from sqlalchemy import select

    long = frame.melt(id_vars="dataset_id", var_name="name", value_name="value")
    long = long[long["value"].notna()].reset_index(drop=True)
    if long.empty:
        return np.zeros(3, dtype=np.int64)
    stored = pd.DataFrame(
        conn.execute(
            select(table.c.dataset_id, table.c.name, table.c.value).where(
                table.c.dataset_id.in_(sorted(set(ids.tolist())))
            )
        ).all(),
        columns=["dataset_id", "name", "stored"],
    )
    merged = long.merge(stored, on=["dataset_id", "name"], how="left")
    is_new = merged["stored"].isna().to_numpy()
    same = ~is_new & (merged["stored"].to_numpy(dtype="float64") == merged["value"].to_numpy())
    changed = ~is_new & ~same
    todo = merged.loc[is_new | changed, ["dataset_id", "name", "value"]]
    if len(todo):
        statement = _dialect_insert(conn)(table)
        statement = statement.on_conflict_do_update(
            index_elements=["dataset_id", "name"], set_={"value": statement.excluded.value}
        )
        rows = [
            {"dataset_id": int(d), "name": str(n), "value": float(v)}
            for d, n, v in todo.itertuples(index=False)
        ]
        conn.execute(statement, rows)
    return np.array([is_new.sum(), changed.sum(), same.sum()], dtype=np.int64)
