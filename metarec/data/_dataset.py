"""The one dataset loader every metarec command uses: :func:`load_dataset` -> :class:`Dataset`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from metarec.data import _readers
from metarec.data._types import (
    coerce_numeric_strings,
    fingerprint,
    infer_task,
    is_numeric_column,
    plain_frame,
)
from metarec.exceptions import DataError

__all__ = ["Dataset", "load_dataset", "prepare_frame", "require_classification"]


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: features, target and what the loader found out about them.

    Parameters
    ----------
    name : str
        File stem, ``"openml:61"``, ``"sklearn:iris"``, ``"frame"`` or the given name.
    X : DataFrame
        Features only (column order of the source; column names are unique).
    y : Series
        Target, without missing values.
    target : str
        Target column name.
    target_reason : str
        Why this column is the target: ``"given"``, ``"column named 'target'"``,
        ``"column named 'class'"``, ``"last column"`` or ``"openml default target"``.
    task : {"binary", "multiclass", "regression"}
        Detected task (rule in :func:`metarec.data.infer_task`).
    numeric_columns, categorical_columns : tuple of str
        Feature names by kind (rule in :func:`metarec.data.is_numeric_column`).
    n_missing : int
        Missing feature values (cells of ``X``) after dropping rows with a missing target;
        infinite values of numeric columns count as missing (no statistic is defined on them,
        and metafeature extraction treats them as missing too).
    source : {"file", "frame", "openml", "sklearn"}
    source_id : str or None
        File path, OpenML id or scikit-learn name.
    fingerprint : str
        SHA-256 of the content of ``X`` and ``y``, stable across file formats.
    n_dropped_target : int
        Rows dropped because their target value was missing.
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    target: str
    target_reason: str
    task: str
    numeric_columns: tuple[str, ...]
    categorical_columns: tuple[str, ...]
    n_missing: int
    source: str
    source_id: str | None
    fingerprint: str
    n_dropped_target: int = 0

    @property
    def n_instances(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_instances={self.n_instances}, "
            f"n_features={self.n_features}, target={self.target!r}, task={self.task!r})"
        )


def _choose_target(
    frame: pd.DataFrame, target: str | None, default: str | None, where: str
) -> tuple[int, str]:
    """Position of the target column and the reason it was chosen."""
    columns = [str(c) for c in frame.columns]
    if target is not None:
        if target not in columns:
            preview = ", ".join(repr(c) for c in columns[:8])
            more = f", ... ({len(columns)} columns)" if len(columns) > 8 else ""
            raise DataError(
                f"target column {target!r} not found in {where}; available: {preview}{more}"
            )
        return columns.index(target), "given"
    if default is not None and default in columns:
        return columns.index(default), "openml default target"
    for candidate in ("target", "class"):
        if candidate in columns:
            return columns.index(candidate), f"column named {candidate!r}"
    lowered = [c.lower() for c in columns]
    for candidate in ("target", "class"):
        if candidate in lowered:
            return lowered.index(candidate), f"column named {candidate!r}"
    return len(columns) - 1, "last column"


def prepare_frame(
    frame: pd.DataFrame,
    *,
    target: str | None = None,
    name: str,
    source: str,
    source_id: str | None = None,
    default_target: str | None = None,
    as_classes: bool = False,
    task: str | None = None,
) -> Dataset:
    """Split a frame into features and target, validate it and describe it as a :class:`Dataset`.

    Rows whose class label is missing are dropped (the count is ``n_dropped_target``): a row
    without a label can neither be learned from nor characterised.  A continuous target with
    a missing value is refused instead (a missing measurement is a defect of the data).
    Infinite feature values are kept as they are and counted in ``n_missing`` (metafeature
    extraction and the benchmark's pipelines treat them as missing).  With ``as_classes=True`` the target's values are
    class labels whatever they look like (a numeric target with many distinct values is not
    taken for regression).

    Parameters
    ----------
    frame : DataFrame
        Features and target together, at least two columns with unique names.
    target : str, optional
        Name of the target column.  By default ``default_target`` when the frame has it, else
        a column named ``target`` or ``class`` (in any case), else the last column.
    name : str
        The dataset's name (:attr:`Dataset.name`), also naming it in error messages.
    source : {"file", "frame", "openml", "sklearn"}
        Where the frame comes from (:attr:`Dataset.source`); errors about a ``"file"`` name
        its path, ``source_id``.
    source_id : str, optional
        File path, OpenML id or scikit-learn name (:attr:`Dataset.source_id`).
    default_target : str, optional
        The source's own target column (OpenML's default target), used when ``target`` is
        not given and the frame has it.
    as_classes : bool, default=False
        Treat the target's values as class labels whatever they look like.
    task : {"classification", "regression"}, optional
        The task, instead of inferring it from the target (:func:`infer_task`):
        ``"classification"`` implies ``as_classes``; ``"regression"`` requires a numeric
        target with at least three distinct values.

    Returns
    -------
    Dataset
        Features and target without the rows of a missing class label, with the detected
        task, column kinds, missing-value count and fingerprint.

    Raises
    ------
    DataError
        No columns, no rows, a repeated column name, unknown target, target entirely missing,
        a single class.
    """
    where = name if source != "file" else str(source_id)
    if task not in (None, "classification", "regression"):
        raise DataError(f"unknown task {task!r}; use classification or regression")
    as_classes = as_classes or task == "classification"
    frame = _checked_frame(frame, where)
    position, reason = _choose_target(frame, target, default_target, where)
    target_name = str(frame.columns[position])
    y = frame.iloc[:, position].rename(target_name)
    X = frame.drop(columns=frame.columns[position])
    missing_target = _missing_target(y, task, as_classes, where)
    n_dropped = int(missing_target.sum())
    if n_dropped:
        keep = ~missing_target
        X = X.loc[keep].reset_index(drop=True)
        y = y.loc[keep].reset_index(drop=True)
    task = _checked_task(y, task, as_classes, where)
    numeric = tuple(str(X.columns[i]) for i in range(X.shape[1]) if is_numeric_column(X.iloc[:, i]))
    categorical = tuple(
        str(X.columns[i]) for i in range(X.shape[1]) if not is_numeric_column(X.iloc[:, i])
    )
    return Dataset(
        name=name,
        X=X,
        y=y,
        target=target_name,
        target_reason=reason,
        task=task,
        numeric_columns=numeric,
        categorical_columns=categorical,
        n_missing=_count_missing(X),
        source=source,
        source_id=source_id,
        fingerprint=fingerprint(X, y),
        n_dropped_target=n_dropped,
    )


def _missing_target(y: pd.Series, task, as_classes: bool, where: str) -> np.ndarray:
    """The rows without a target value (dropped), or a DataError: a continuous target with a
    missing or infinite value, a regression target that is not numeric, stray text among
    numbers, a target entirely missing."""
    target_name = str(y.name)
    missing = y.isna().to_numpy().copy()
    if not is_numeric_column(y) and not as_classes and task is None:
        _check_stray_text(y, target_name, where)
    if is_numeric_column(y):
        values = y.to_numpy(dtype="float64", na_value=np.nan)
        if task == "regression" or (not as_classes and infer_task(y) == "regression"):
            _check_continuous_target(values, target_name, where)
        missing |= ~np.isfinite(values)
    elif task == "regression":
        value = y.dropna().iloc[0] if y.notna().any() else None
        raise DataError(
            f"{where}: target column {target_name!r} is not numeric (e.g. {value!r}); "
            "a regression target must be a number"
        )
    if missing.all():
        raise DataError(f"{where}: target column {target_name!r} is entirely missing")
    return missing


def _checked_frame(frame, where: str) -> pd.DataFrame:
    """``frame`` with plain column names and numbers read from text, or a DataError: not a
    frame, no columns or rows, a single column, a repeated column name."""
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"{where}: expected a pandas DataFrame, got {type(frame).__name__}")
    if frame.shape[1] == 0:
        raise DataError(f"{where} has no columns")
    if frame.shape[0] == 0:
        raise DataError(f"{where} has no rows")
    if frame.shape[1] < 2:
        raise DataError(f"{where} has a single column; a dataset needs features and a target")
    frame = plain_frame(frame)
    _readers.check_unique_columns(frame.columns, where)
    return coerce_numeric_strings(frame.reset_index(drop=True))


def _checked_task(y: pd.Series, task: str | None, as_classes: bool, where: str) -> str:
    """The task of target ``y`` (``task`` when given), or a DataError: nothing to learn."""
    target_name = str(y.name)
    given = task
    task = "regression" if task == "regression" else infer_task(y.astype(str) if as_classes else y)
    if given is None and not as_classes and task == "regression" and is_numeric_column(y):
        _note_whole_number_quantity(y, target_name, where)
    if task == "regression" and y.nunique() == 1:
        raise DataError(f"{where}: target column {target_name!r} is constant; nothing to learn")
    if task == "regression" and y.nunique() < 3:
        raise DataError(
            f"{where}: regression target {target_name!r} has {y.nunique()} distinct value(s); "
            "a continuous target needs at least three (for two, these are classes: "
            "use --task classification)"
        )
    if task != "regression" and y.astype(str).nunique() < 2:
        value = y.iloc[0]
        value = value.item() if hasattr(value, "item") else value
        raise DataError(
            f"{where}: target column {target_name!r} has a single class ({value!r}); "
            "nothing to learn"
        )
    return task


def _check_continuous_target(values: np.ndarray, target: str, where: str) -> None:
    """Refuse an infinite or missing value in a continuous target, naming the first row.

    A class label may be missing (the row is dropped: it says nothing about any class); a
    measured quantity that is missing or infinite is a defect of the data to fix at its source.
    """
    infinite = np.flatnonzero(np.isinf(values))
    if infinite.size:
        row = int(infinite[0])
        raise DataError(
            f"{where}: target column {target!r} holds {values[row]} at row {row + 1} "
            f"({infinite.size} infinite value(s)); a regression target must be finite"
        )
    missing = np.flatnonzero(np.isnan(values))
    if missing.size and missing.size < values.size:
        raise DataError(
            f"{where}: target column {target!r} has no value at row {int(missing[0]) + 1} "
            f"({missing.size} missing value(s)); a regression target needs a value on every "
            "row: drop or fill those rows"
        )


def _count_missing(X: pd.DataFrame) -> int:
    """Missing cells of ``X``: NaN/None anywhere, plus +-inf in numeric columns."""
    count = int(X.isna().to_numpy().sum())
    for i in range(X.shape[1]):
        column = X.iloc[:, i]
        if is_numeric_column(column):
            count += int(np.isinf(column.to_numpy(dtype="float64", na_value=np.nan)).sum())
    return count


def continuous_reason(dataset: Dataset) -> str:
    """Why ``dataset``'s target looks continuous: its number of distinct values, for messages.

    Parameters
    ----------
    dataset : Dataset
        A dataset with a numeric target.

    Returns
    -------
    str
        E.g. ``"54 distinct integer values among 3589 rows"``.
    """
    y = dataset.y
    n_distinct = int(y.nunique())
    values = y.to_numpy(dtype="float64", na_value=np.nan)
    integral = bool(np.all(np.mod(values[np.isfinite(values)], 1) == 0))
    if integral:
        return f"{n_distinct} distinct integer values among {len(y)} rows"
    return f"{n_distinct} distinct values among {len(y)} rows, not all integers"


def require_classification(dataset: Dataset) -> Dataset:
    """Return ``dataset`` if its task is classification; else raise a :class:`DataError`.

    The message says why the target looks continuous (its number of distinct values) and
    how to treat its values as classes if that is what they are.

    Parameters
    ----------
    dataset : Dataset
        A loaded dataset.

    Returns
    -------
    Dataset
        ``dataset`` itself, whose task is ``"binary"`` or ``"multiclass"``.

    Raises
    ------
    DataError
        The task of ``dataset`` is regression.
    """
    if dataset.task != "regression":
        return dataset
    why = continuous_reason(dataset)
    raise DataError(
        f"{dataset.name}: target column {dataset.target!r} looks continuous ({why}); class "
        "labels are needed here. If these values are class labels, add --as-classes (Python: "
        "load_dataset(..., as_classes=True)); to use another column as the target, give "
        "--target NAME"
    )


def _file_stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".gzip"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem


def _check_stray_text(y: pd.Series, target_name: str, where: str) -> None:
    """Refuse a target of numbers with a few text cells (a spreadsheet's ``#DIV/0!``).

    Read as text, such a column would make every number a class of its own; when at least
    nine in ten given values are numbers and those numbers are a regression target, the
    first text value is named instead.
    """
    given = y.dropna()
    numbers = pd.to_numeric(given, errors="coerce")
    stray = numbers.isna().to_numpy()
    if not stray.any() or stray.mean() > 0.1 or infer_task(numbers.dropna()) != "regression":
        return
    first = int(np.flatnonzero(stray)[0])
    row = int(given.index[first]) + 1
    more = int(stray.sum()) - 1
    raise DataError(
        f"{where}: target column {target_name!r} holds numbers except "
        f"{given.iloc[first]!r} (data row {row})"
        + (f" and {more} more" if more else "")
        + ": a regression target is numbers throughout; fix or empty those cells, or give "
        "--task classification to take every value as a class label"
    )


def _note_whole_number_quantity(y, target_name: str, where: str) -> None:
    """Say so when whole numbers are taken as a quantity (a regression target), and why."""
    import warnings

    from metarec.data._types import whole_number_quantity
    from metarec.exceptions import MetarecWarning

    values = y.dropna().to_numpy(dtype="float64")
    values = values[np.isfinite(values)]
    if not values.size or np.any(values != np.round(values)):
        return
    why = whole_number_quantity(values)
    if why is not None:
        warnings.warn(
            f"{where}: target {target_name!r} holds whole numbers, taken as a quantity "
            f"(regression): {why}; if they are class labels, ask for them (--task "
            "classification, or task='classification')",
            MetarecWarning,
            stacklevel=3,
        )


def load_dataset(
    source: str | os.PathLike | pd.DataFrame,
    *,
    target: str | None = None,
    name: str | None = None,
    as_classes: bool = False,
    task: str | None = None,
) -> Dataset:
    """Load a dataset from a file, a DataFrame, OpenML or scikit-learn.

    Parameters
    ----------
    source : str, path or DataFrame
        A path to a CSV, TSV or ARFF file (optionally gzip-compressed, ``.gz``) or a Parquet
        file; a DataFrame holding features and target; ``"openml:<id>"`` (downloads from
        OpenML, the only source that uses the network); ``"sklearn:<name>"`` for
        scikit-learn's bundled datasets (iris, wine, breast_cancer, digits, diabetes).
    target : str, optional
        Target column.  Without it: OpenML's default target, else a column named ``target``,
        else one named ``class`` (exact name first, then case-insensitively), else the last
        column; :attr:`Dataset.target_reason` says which rule chose it.
    name : str, optional
        Dataset name; defaults to the file stem, ``"openml:<id>"``, ``"sklearn:<name>"`` or
        ``"frame"``.
    as_classes : bool, default=False
        Treat the target's values as class labels even when they look continuous (a numeric
        target with many distinct values is otherwise detected as regression).
    task : {"classification", "regression"}, optional
        Override the detected task: ``"classification"`` is ``as_classes=True``;
        ``"regression"`` takes a numeric target as continuous even with few distinct values.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        Missing or unreadable file, unknown target column, no rows, a single class, a target
        that is entirely missing, unknown ``sklearn:`` name or malformed ``openml:`` id; for a
        regression target: non-numeric values, an infinite or a missing value, fewer than
        three distinct values.

    Examples
    --------
    >>> ds = load_dataset("sklearn:iris")
    >>> ds.task, ds.target_reason, ds.X.shape
    ('multiclass', "column named 'target'", (150, 4))
    """
    frame, name, kind, source_id, default = _frame_of(source, name)
    return prepare_frame(
        frame,
        target=target,
        name=name,
        source=kind,
        source_id=source_id,
        default_target=default,
        as_classes=as_classes,
        task=task,
    )


def _frame_of(source, name: str | None):
    """``(frame, name, source kind, source id, default target)`` of a dataset's source."""
    if isinstance(source, pd.DataFrame):
        return source, name or "frame", "frame", None, None
    if isinstance(source, str) and source.startswith("openml:"):
        raw_id = source.split(":", 1)[1].strip()
        if not raw_id.isdigit():
            raise DataError(
                f"invalid OpenML dataset id {raw_id!r} in {source!r}; use openml:<integer>"
            )
        frame, default, _openml_name = _readers.fetch_openml_frame(int(raw_id))
        return frame, name or f"openml:{int(raw_id)}", "openml", str(int(raw_id)), default
    if isinstance(source, str) and source.startswith("sklearn:"):
        key = source.split(":", 1)[1].strip()
        return _readers.load_sklearn_frame(key), name or f"sklearn:{key}", "sklearn", key, None
    if not isinstance(source, (str, os.PathLike)):
        raise DataError(
            f"cannot load a dataset from a {type(source).__name__}; give a path, a DataFrame, "
            "'openml:<id>' or 'sklearn:<name>'"
        )
    path = Path(source)
    return _readers.read_file(path), name or _file_stem(path), "file", str(path), None
