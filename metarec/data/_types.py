"""Column kinds, task detection and content fingerprints, shared by the loader and extraction."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

__all__ = [
    "MAX_INTEGER_CLASSES",
    "MIN_MEDIAN_CLASS_ROWS",
    "FEW_CLASSES",
    "MAX_CODE_SPREAD",
    "whole_number_quantity",
    "is_numeric_column",
    "coerce_numeric_strings",
    "plain_frame",
    "infer_task",
    "fingerprint",
]

#: Whole-number targets (see :func:`whole_number_quantity`): at most this many distinct
#: values can be classes ...
MAX_INTEGER_CLASSES = 30
#: ... with more than :data:`FEW_CLASSES` of them, the median value must label at least this
#: many rows ...
MIN_MEDIAN_CLASS_ROWS = 5
#: Up to this many consecutive whole numbers are codes however few rows they label.
FEW_CLASSES = 10
#: ... and the values' range (largest - smallest + 1) may be at most this many times their
#: number: codes are (nearly) consecutive, quantities spread.
MAX_CODE_SPREAD = 2.0


def is_numeric_column(series: pd.Series) -> bool:
    """Whether a column is treated as numeric.

    Integer and floating-point columns are numeric.  Booleans, strings, pandas categoricals
    and mixed object columns are categorical (OpenML's "nominal"): a boolean is a two-valued
    nominal attribute, not a measurement.

    Parameters
    ----------
    series : Series
        A column (only its dtype is looked at).

    Returns
    -------
    bool
    """
    return is_numeric_dtype(series.dtype)


def is_numeric_dtype(dtype) -> bool:
    """Whether a column of ``dtype`` holds numbers (:func:`is_numeric_column` for a dtype).

    Parameters
    ----------
    dtype : numpy or pandas dtype
        A column's dtype.

    Returns
    -------
    bool
        True for integer and floating dtypes; False for booleans and categories.
    """
    if pd.api.types.is_bool_dtype(dtype):
        return False
    if isinstance(dtype, pd.CategoricalDtype):
        return False
    return bool(pd.api.types.is_numeric_dtype(dtype))


def coerce_numeric_strings(frame: pd.DataFrame) -> pd.DataFrame:
    """Convert text columns whose every non-missing value parses as a number to floats.

    CSV files sometimes carry numbers as text (a stray ``"?"`` read as a string, quoted
    numbers); such a column is numeric.  Columns are addressed by position, so duplicated
    column names are left intact.

    Parameters
    ----------
    frame : DataFrame
        The table as read.

    Returns
    -------
    DataFrame
        ``frame`` itself when nothing changes, else a copy with those columns as floats.
    """
    out = frame
    for i, dtype in enumerate(frame.dtypes):
        if not (pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)):
            continue
        if isinstance(dtype, pd.CategoricalDtype):
            continue
        column = frame.iloc[:, i]
        present = column.dropna()
        if present.empty or not all(isinstance(v, str) for v in present.iloc[:50]):
            continue
        if not _sample_parses(present):
            continue
        converted = pd.to_numeric(column, errors="coerce")
        if converted.notna().sum() == present.shape[0]:
            if out is frame:
                out = frame.copy()
            out.isetitem(i, converted.astype("float64"))
    return out


#: Values of a text column parsed first: one that is not a number settles that the column is
#: not numeric without parsing the others (the whole column is parsed only when these are).
PARSE_SAMPLE = 1000


def _sample_parses(present: pd.Series) -> bool:
    """Whether the first and a spread of :data:`PARSE_SAMPLE` non-missing values all parse as
    numbers (a necessary condition of the whole column parsing; cheap on a million rows)."""
    n = len(present)
    if n <= PARSE_SAMPLE:
        return True  # the column is small: parse it whole
    positions = np.unique(np.linspace(0, n - 1, PARSE_SAMPLE).astype(np.int64))
    sample = present.iloc[positions]
    return bool(pd.to_numeric(sample, errors="coerce").notna().all())


def plain_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with text column names and NumPy dtypes in place of pandas' nullable ones.

    Column names become ``str(name)`` (a frame built from an array has the integers
    ``0..d-1``; pipelines address columns by name).  A nullable column (``boolean``,
    ``Int64``, ``Float64``, ``string[python]``, Arrow-backed: every dtype whose gap is
    ``pd.NA``) with a missing value breaks the encoders and imputers of scikit-learn
    (``boolean value of NA is ambiguous``): numbers become ``float64`` with NaN (whole
    numbers without a missing value ``int64``), booleans and text ``object`` with NaN
    (booleans stay categorical, see :func:`is_numeric_column`); in a column of Python
    objects, ``None`` and ``pd.NA`` become NaN (which scikit-learn's imputers take for a gap
    there).  Other columns are left as they are; the frame is copied only when something
    changes.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
    """
    out = frame
    if not all(isinstance(c, str) for c in frame.columns):
        out = frame.set_axis([str(c) for c in frame.columns], axis=1)
    for i, dtype in enumerate(frame.dtypes):
        column = frame.iloc[:, i]
        if pd.api.types.is_object_dtype(dtype):  # None or pd.NA among objects: NaN
            gaps = column.isna()
            if not gaps.any() or column[gaps].map(_is_nan).all():
                continue
            values = column.where(~gaps, np.nan)
        elif getattr(dtype, "na_value", None) is not pd.NA or isinstance(
            dtype, pd.CategoricalDtype
        ):
            continue  # NumPy dtypes, and pandas' own that mark a gap with NaN (text, dates)
        elif pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
            values = column.astype(object).where(column.notna(), np.nan)
        elif pd.api.types.is_integer_dtype(dtype) and column.notna().all():
            values = pd.Series(column.to_numpy(dtype="int64"), index=column.index)
        else:
            values = pd.Series(
                column.to_numpy(dtype="float64", na_value=np.nan), index=column.index
            )
        if out is frame:
            out = frame.copy()
        out.isetitem(i, values)
    return out


def _is_nan(value) -> bool:
    return isinstance(value, float) and value != value


def task_family(task: str | None) -> str:
    """``"classification"`` for a classification task (binary, multiclass, or unrecorded).

    Parameters
    ----------
    task : {"classification", "binary", "multiclass", "regression"} or None
        A dataset's task as :func:`infer_task` or a knowledge base records it.

    Returns
    -------
    {"classification", "regression"}

    Raises
    ------
    InvalidInputError
        Any other value.

    Examples
    --------
    >>> task_family("multiclass"), task_family("regression")
    ('classification', 'regression')
    """
    from metarec.exceptions import InvalidInputError

    if task in ("binary", "multiclass", "classification", None):
        return "classification"
    if task == "regression":
        return "regression"
    raise InvalidInputError(f"unknown task {task!r}; use classification or regression")


def whole_number_quantity(values: np.ndarray) -> str | None:
    """Why whole numbers are a quantity (a regression target), or None: they are classes.

    Whole numbers are class codes (0/1, digits 0-9, ratings 1-5, a few categories numbered)
    only when all three hold, else they are a quantity (a count, a duration, an amount):

    1. **few in absolute terms**: at most :data:`MAX_INTEGER_CLASSES` (30) distinct values
       (a duration in seconds has hundreds);
    2. **each class has rows**: with more than :data:`FEW_CLASSES` (10) values, the median
       value labels at least :data:`MIN_MEDIAN_CLASS_ROWS` (5) rows (25 ages of a few rows
       each are measurements, not categories to learn; up to ten codes, digits or ratings,
       are classes even on a handful of rows);
    3. **codes are consecutive**: the range ``max - min + 1`` is at most
       :data:`MAX_CODE_SPREAD` (2) times the number of distinct values (28 amounts from 0
       to 250 are a quantity; categories numbered 1, 2, 3, 5, 6, 7 are codes).

    Two distinct values are always classes.  The thresholds keep every integer-coded target
    of PMLB's classification datasets as classes (at most 18 classes, all consecutive) and
    every whole-number target of the regression collection a quantity.

    Parameters
    ----------
    values : ndarray
        The target's finite values, all whole numbers.

    Returns
    -------
    str or None
        The first rule broken, in words (``"594 distinct values (classes are at most 30)"``),
        or None.
    """
    distinct, counts = np.unique(values, return_counts=True)
    k = distinct.size
    if k <= 2:
        return None
    if k > MAX_INTEGER_CLASSES:
        return f"{k} distinct values (classes are at most {MAX_INTEGER_CLASSES})"
    median = float(np.median(counts))
    if k > FEW_CLASSES and median < MIN_MEDIAN_CLASS_ROWS:
        return (
            f"a median of {median:g} row(s) per value among {k} values (classes have at "
            f"least {MIN_MEDIAN_CLASS_ROWS})"
        )
    spread = float(distinct[-1] - distinct[0] + 1)
    if spread > MAX_CODE_SPREAD * k:
        return (
            f"{k} values from {distinct[0]:g} to {distinct[-1]:g}, a range {spread / k:.1f} "
            f"times wider than their number (class codes are nearly consecutive)"
        )
    return None


def infer_task(y: pd.Series) -> str:
    """Infer the learning task from a target column (missing values ignored).

    Rule: a numeric (non-boolean) target is ``"regression"`` when it has a non-integer value,
    or when its whole numbers are a quantity rather than class codes
    (:func:`whole_number_quantity`: more than 30 distinct values, a median of fewer than 5
    rows per value, or a range more than twice their number).  Every other target is
    ``"binary"`` with two distinct values and ``"multiclass"`` with more.  A target with
    fewer than two distinct values returns ``"binary"`` only if it has exactly two, so
    callers check the class count themselves (one class is not a task).

    Parameters
    ----------
    y : Series
        The target column.

    Returns
    -------
    {"binary", "multiclass", "regression"}
    """
    present = y.dropna()
    if is_numeric_column(present):
        values = present.to_numpy(dtype="float64")
        finite = values[np.isfinite(values)]
        n_distinct = np.unique(finite).size
        if finite.size and np.any(finite != np.round(finite)):
            return "regression"
        if finite.size and whole_number_quantity(finite) is not None:
            return "regression"
        return "binary" if n_distinct <= 2 else "multiclass"
    n_distinct = present.astype(str).nunique()
    return "binary" if n_distinct <= 2 else "multiclass"


def _column_bytes(series: pd.Series) -> bytes:
    """Canonical bytes of a column: numbers as float64, everything else as text."""
    numeric = series
    if not is_numeric_column(series) and not pd.api.types.is_bool_dtype(series.dtype):
        if _sample_parses(series.dropna()):
            converted = pd.to_numeric(series, errors="coerce")
            if converted.notna().sum() == series.notna().sum():
                numeric = converted
    if is_numeric_column(numeric):
        values = numeric.to_numpy(dtype="float64", na_value=np.nan).copy()
        values[np.isnan(values)] = np.nan  # one NaN bit pattern
        values[values == 0] = 0.0  # -0.0 and 0.0 alike
        return b"f" + values.tobytes()
    text = series.astype(object).astype(str)  # str(v) of every value, in one pass
    text[series.isna().to_numpy()] = "\x00"
    return b"s" + "\x1f".join(text.tolist()).encode()


def fingerprint(X: pd.DataFrame, y: pd.Series) -> str:
    """SHA-256 hex digest of a dataset's content (column names and values of X, then y).

    Numbers hash as float64 (so ``1`` in a CSV and ``1.0`` in an ARFF file agree), text
    columns whose values all parse as numbers hash as those numbers, other values as their
    text, and missing values alike whatever their spelling; the digest is therefore the same
    for the same table read from CSV, TSV, Parquet or ARFF.

    Parameters
    ----------
    X : DataFrame
        The features.
    y : Series
        The target (its name is hashed too).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    digest = hashlib.sha256()
    for i in range(X.shape[1]):
        digest.update(str(X.columns[i]).encode() + b"\x1e")
        digest.update(_column_bytes(X.iloc[:, i]))
        digest.update(b"\x1d")
    digest.update(str(y.name).encode() + b"\x1e")
    digest.update(_column_bytes(y))
    return digest.hexdigest()
