"""Vectorised row checks of an import, and how its problems are named and reported.

A check fails a boolean mask of rows at once (:class:`_Checks`); the import's
:class:`_Problems` turns the failures into lines naming file, line (or row) and column, keeps at
most :data:`MAX_PROBLEMS` of them and builds the one rejection error.  Values are shown as a
person writes them (``0.9``, ``inf``, ``'abc'``), never as numpy reprs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from metarec._problem import Problem
from metarec.exceptions import ImportRejectedError
from metarec.storage._readers import ChunkSource

__all__ = ["MAX_PROBLEMS"]

#: At most this many problems are listed (the counts stay exact).
MAX_PROBLEMS = 1000


class _Problems:
    """Collects problems of an import, keeping at most MAX_PROBLEMS messages."""

    def __init__(self, source: ChunkSource) -> None:
        self.source = source
        self.messages: list[Problem] = []
        self.n_rows = 0
        self.first: str | None = None

    def add_chunk(self, start: int, found: list[tuple[int, str, str]], n_bad_rows: int) -> None:
        self.n_rows += n_bad_rows
        for position, column, message in sorted(found, key=lambda item: item[0]):
            if len(self.messages) >= MAX_PROBLEMS:
                break
            label, row = self.source.label, start + position
            text = f"{label}, {self.source.where(row)}, column {column!r}: {message}"
            self.messages.append(
                Problem(text, source=label, row=row, column=column, message=message)
            )

    def finish(self) -> tuple[Problem, ...]:
        if self.n_rows > len(self.messages) and len(self.messages) >= MAX_PROBLEMS:
            more = f"... and more: {self.n_rows} invalid rows in all"
            return (*self.messages, Problem(more, source=self.source.label))
        return tuple(self.messages)

    def reject(self, what: str) -> ImportRejectedError:
        first = self.messages[0] if self.messages else "invalid rows"
        message = (
            f"{self.source.label}: {what} rejected, nothing was imported: {self.n_rows} invalid "
            f"row(s); first: {first}. Fix the file, or "
        )
        return ImportRejectedError(
            message + "pass skip_invalid=True to import the valid rows.",
            list(self.finish()),
            cli_message=message + "use --skip-invalid to import the valid rows.",
        )


class _Checks:
    """Accumulates per-row failures of one chunk as boolean masks (vectorised)."""

    def __init__(self, n: int) -> None:
        self.bad = np.zeros(n, dtype=bool)
        self.found: list[tuple[int, str, str]] = []

    def fail(self, mask, column: str, describe: Callable[[int], str]) -> None:
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            return
        self.bad |= mask
        for position in np.flatnonzero(mask)[:MAX_PROBLEMS]:
            self.found.append((int(position), column, describe(int(position))))


def _text_series(series):
    """``series`` as a pandas string column with surrounding blanks removed (missing: NA)."""
    import pandas as pd

    if isinstance(series.dtype, pd.StringDtype):  # already text (pandas 3 reads str columns)
        return series.str.strip()
    if pd.api.types.is_float_dtype(series.dtype):
        # integral floats (ids read with missing values) print without ".0"
        values = series.to_numpy(dtype="float64", na_value=np.nan)
        integral = np.isfinite(values) & (np.floor(values) == values)
        if integral.all() or not np.isfinite(values).any() or integral[np.isfinite(values)].all():
            series = series.astype("Int64")
    return series.astype("string").str.strip()


def _text_values(text) -> np.ndarray:
    """Object array of a :func:`_text_series` column: missing or empty -> None."""
    out = text.to_numpy(dtype=object, na_value=None)
    out[out == ""] = None
    return out


def _text(series):
    """Strings with surrounding blanks removed; missing or empty -> None (object array)."""
    return _text_values(_text_series(series))


def _numeric(series, checks: _Checks, column: str) -> np.ndarray:
    """float64 values of ``series``; values that are not numbers fail the row."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    coerced = pd.to_numeric(series, errors="coerce")
    values = coerced.to_numpy(dtype="float64", na_value=np.nan)
    missing = (
        series.isna().to_numpy()
        | (series.astype("string").str.strip() == "").fillna(True).to_numpy()
    )
    raw = series.to_numpy(dtype=object)
    checks.fail(~missing & np.isnan(values), column, lambda i: f"{raw[i]!r} is not a number")
    return values


def _plain(value) -> str:
    """A value as a person writes it: ``0.9``, ``3``, ``inf``, ``'abc'`` (no numpy reprs)."""
    if value is None:
        return "(missing)"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if np.isnan(value):
            return "(missing)"
        return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(str(value))


def _objects(values: np.ndarray, *, integer: bool = False) -> list:
    """Python values for the database driver: NaN -> None, integers as int."""
    present = ~np.isnan(values)
    if present.all():
        return (values.astype(np.int64) if integer else values).tolist()
    out = np.empty(len(values), dtype=object)
    if integer:
        out[present] = values[present].astype(np.int64).tolist()
    else:
        out[present] = values[present].tolist()
    return out.tolist()
