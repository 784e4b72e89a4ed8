"""Shared machinery of the metafeature groups: prepared data, a value collector, a registry.

Every group module registers its feature functions with :func:`metafeature`.  A feature
function receives the :class:`PreparedData` (numbers already split into a float matrix of
numeric attributes and integer codes of categorical attributes) and a :class:`Collector`, and
writes one or several named values.  A value is either finite or NaN with a recorded reason;
a non-finite value without a reason is a programming error and raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metarec.data import (
    coerce_numeric_strings,
    infer_task,
    is_numeric_column,
    is_numeric_dtype,
)
from metarec.exceptions import InvalidInputError

__all__ = [
    "PreparedData",
    "Collector",
    "prepare",
    "metafeature",
    "REGISTRY",
    "FEATURE_FUNCTIONS",
    "summarize",
    "MAX_ONE_HOT_LEVELS",
]

#: Categorical attributes are one-hot encoded for learners on their most frequent levels only
#: (the rest share an all-zero code), so memory stays linear whatever the cardinality.
MAX_ONE_HOT_LEVELS = 10

FeatureFunction = Callable[["PreparedData", "Collector"], None]

#: group name -> feature functions, in registration order.
REGISTRY: dict[str, list[FeatureFunction]] = {}
#: metafeature name -> the function computing it (its docstring documents the feature).
FEATURE_FUNCTIONS: dict[str, FeatureFunction] = {}


def metafeature(group: str, *names: str) -> Callable[[FeatureFunction], FeatureFunction]:
    """Register a function computing the metafeatures ``names`` of ``group``."""

    def decorate(function: FeatureFunction) -> FeatureFunction:
        REGISTRY.setdefault(group, []).append(function)
        for name in names:
            if name in FEATURE_FUNCTIONS:  # pragma: no cover - a registration bug
                raise RuntimeError(f"metafeature {name!r} registered twice")
            FEATURE_FUNCTIONS[name] = function
        function.metafeature_names = names  # type: ignore[attr-defined]
        function.metafeature_group = group  # type: ignore[attr-defined]
        return function

    return decorate


class Collector:
    """Receives the values of one extraction; NaN values must come with a reason."""

    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.reasons: dict[str, str] = {}

    def set(self, name: str, value: float) -> None:
        """Record a finite value (raises ``FloatingPointError`` on NaN/inf: a bug)."""
        number = float(value)
        if not math.isfinite(number):
            raise FloatingPointError(
                f"metafeature {name!r} evaluated to {number} without a recorded reason"
            )
        self.values[name] = number
        self.reasons.pop(name, None)

    def nan(self, name: str, reason: str) -> None:
        """Record that ``name`` is undefined on this dataset, and why."""
        self.values[name] = math.nan
        self.reasons[name] = reason

    def nan_all(self, names, reason: str) -> None:
        """Record several undefined values sharing one reason."""
        for name in names:
            self.nan(name, reason)


STATS = ("mean", "sd", "min", "q1", "q2", "q3", "max")


def summary_names(base: str, stats=STATS) -> tuple[str, ...]:
    """``base_mean``, ``base_sd``, ... for the given statistics."""
    return tuple(f"{base}_{s}" for s in stats)


def summarize(
    out: Collector, base: str, values: np.ndarray, empty_reason: str, stats=STATS
) -> None:
    """Record mean / sd (ddof=1) / min / quartiles / max of the finite entries of ``values``.

    The summary over attributes follows Rivolli et al. (2022): a per-attribute measure is
    reduced to a fixed-length vector; the standard deviation needs two attributes.
    """
    values = np.asarray(values, dtype="float64")
    values = values[np.isfinite(values)]
    if values.size == 0:
        out.nan_all(summary_names(base, stats), empty_reason)
        return
    scale = float(np.max(np.abs(values))) or 1.0  # keeps sums of huge values finite
    quartiles = np.quantile(values, [0.25, 0.5, 0.75])
    computed = {
        "mean": (values / scale).mean() * scale,
        "min": values.min(),
        "max": values.max(),
        "q1": quartiles[0],
        "q2": quartiles[1],
        "q3": quartiles[2],
    }
    for stat in stats:
        name = f"{base}_{stat}"
        if stat == "sd":
            if values.size < 2:
                out.nan(name, "standard deviation needs at least two attributes")
            else:
                sd = (values / scale).std(ddof=1) * scale
                if math.isfinite(sd):
                    out.set(name, sd)
                else:
                    out.nan(name, "exceeds the floating-point range")
        else:
            out.set(name, computed[stat])


@dataclass
class PreparedData:
    """The dataset split into the arrays the feature functions work on.

    ``numeric`` holds the numeric attributes as float64 with infinities replaced by NaN
    (infinite values are treated as missing by every group except the missing-value counts);
    ``codes`` holds each categorical attribute as integer codes (``-1`` = missing).
    """

    n: int
    n_features: int
    numeric: np.ndarray
    codes: list[np.ndarray]
    cardinalities: np.ndarray
    n_missing: int
    n_rows_with_missing: int
    task: str
    y_codes: np.ndarray | None
    class_counts: np.ndarray | None
    y_values: np.ndarray | None
    random_state: int
    n_dropped_target: int = 0
    cache: dict = field(default_factory=dict)

    @property
    def is_classification(self) -> bool:
        return self.task in ("binary", "multiclass")

    @property
    def n_classes(self) -> int:
        return 0 if self.class_counts is None else int(self.class_counts.size)

    def scaled(self) -> tuple[np.ndarray, np.ndarray]:
        """``(numeric / max|column|, max|column|)``: values in [-1, 1], so that sums of
        powers cannot overflow whatever the magnitude (1e300 is a valid value); cached."""
        if "scaled" not in self.cache:
            x = self.numeric
            if x.shape[1] == 0:
                self.cache["scaled"] = (x, np.ones(0))
            else:
                maxabs = np.fmax.reduce(np.abs(x), axis=0)  # fmax skips NaN
                maxabs = np.where(maxabs > 0, maxabs, 1.0)  # also an all-missing column
                self.cache["scaled"] = (x / maxabs, maxabs)
        return self.cache["scaled"]

    def standardized(self) -> np.ndarray:
        """Numeric attributes z-scored column-wise, missing -> 0 (the mean), constant -> 0."""
        if "standardized" not in self.cache:
            x, _ = self.scaled()
            if x.shape[1] == 0:
                z = np.zeros((self.n, 0))
            else:
                finite_count = np.sum(~np.isnan(x), axis=0)
                safe = np.maximum(finite_count, 1)
                mean = np.nansum(x, axis=0) / safe
                z = x - mean
                z[np.isnan(z)] = 0.0
                sd = np.sqrt(np.sum(z * z, axis=0) / safe)
                # values lie in [-1, 1]: an sd below 1e-12 is a constant up to rounding
                z /= np.where(sd > 1e-12, sd, np.inf)
            self.cache["standardized"] = z
        return self.cache["standardized"]

    def model_matrix(self, rows: np.ndarray | None = None) -> np.ndarray:
        """A float matrix for learners: standardized numerics + one-hot top categorical levels.

        Each categorical attribute contributes an indicator column for each of its
        :data:`MAX_ONE_HOT_LEVELS` most frequent levels; rarer levels and missing values are
        all-zero.  ``rows`` selects a subset of instances.
        """
        z = self.standardized()
        index = slice(None) if rows is None else rows
        blocks = [z[index]]
        for codes in self.codes:
            c = codes[index]
            counts = np.bincount(codes[codes >= 0]) if np.any(codes >= 0) else np.zeros(0, int)
            top = np.argsort(-counts, kind="stable")[:MAX_ONE_HOT_LEVELS]
            top = top[counts[top] > 0]
            if top.size == 0:
                continue
            blocks.append((c[:, None] == top[None, :]).astype("float64"))
        return np.hstack(blocks) if len(blocks) > 1 else np.ascontiguousarray(blocks[0])


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True)
    if isinstance(X, pd.Series):
        return X.to_frame().reset_index(drop=True)
    array = np.asarray(X)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise InvalidInputError(f"X must be two-dimensional, got shape {array.shape}")
    frame = pd.DataFrame(array, columns=[f"x{i}" for i in range(array.shape[1])])
    return frame.infer_objects()


def prepare(X, y, *, task: str | None = None, random_state: int = 0) -> PreparedData:
    """Validate ``X``/``y`` and build the :class:`PreparedData` the groups use.

    Rows whose target is missing (NaN, None, or infinite for a numeric target) are dropped.

    Raises
    ------
    InvalidInputError
        Lengths differ, no rows, the target is entirely missing, or an unknown ``task``.
    """
    frame = coerce_numeric_strings(_as_frame(X))
    target = (
        y.reset_index(drop=True)
        if isinstance(y, pd.Series)
        else pd.Series(np.asarray(y).ravel() if np.ndim(y) else [y])
    )
    if frame.shape[0] != target.shape[0]:
        raise InvalidInputError(f"X has {frame.shape[0]} rows but y has {target.shape[0]} values")
    if frame.shape[0] == 0:
        raise InvalidInputError("the dataset has no rows")
    missing = target.isna().to_numpy().copy()
    if is_numeric_column(target):
        missing |= ~np.isfinite(target.to_numpy(dtype="float64", na_value=np.nan))
    if missing.all():
        raise InvalidInputError("the target is entirely missing")
    n_dropped = int(missing.sum())
    if n_dropped:
        frame = frame.loc[~missing].reset_index(drop=True)
        target = target.loc[~missing].reset_index(drop=True)
    if task is None:
        task = infer_task(target)
    elif task not in ("binary", "multiclass", "regression"):
        raise InvalidInputError(f"unknown task {task!r}; use binary, multiclass or regression")

    kinds = [is_numeric_dtype(dtype) for dtype in frame.dtypes]
    numeric_positions = [i for i, numeric in enumerate(kinds) if numeric]
    if numeric_positions:
        # one conversion of the whole numeric block (positions, so duplicated names are fine)
        numeric = frame.iloc[:, numeric_positions].to_numpy(
            dtype="float64", na_value=np.nan, copy=True
        )
    else:
        numeric = np.zeros((frame.shape[0], 0))
    is_missing = frame.isna().to_numpy().copy()
    bad = ~np.isfinite(numeric)
    if bad.any():
        numeric[bad] = np.nan
        # an infinite value is missing: no statistic is defined on it (Dataset.n_missing agrees)
        is_missing[:, numeric_positions] |= bad
    codes = []
    for i, is_num in enumerate(kinds):
        if not is_num:
            column_codes, _ = pd.factorize(frame.iloc[:, i], use_na_sentinel=True)
            codes.append(np.asarray(column_codes, dtype=np.int64))
    cardinalities = np.array([int(c.max()) + 1 if c.size and c.max() >= 0 else 0 for c in codes])

    y_codes = class_counts = y_values = None
    if task == "regression":
        y_values = target.to_numpy(dtype="float64", na_value=np.nan)
    else:
        y_codes, _ = pd.factorize(target, use_na_sentinel=True)
        y_codes = np.asarray(y_codes, dtype=np.int64)
        class_counts = np.bincount(y_codes)
    return PreparedData(
        n=int(frame.shape[0]),
        n_features=int(frame.shape[1]),
        numeric=numeric,
        codes=codes,
        cardinalities=cardinalities,
        n_missing=int(is_missing.sum()),
        n_rows_with_missing=int(is_missing.any(axis=1).sum()) if frame.shape[1] else 0,
        task=task,
        y_codes=y_codes,
        class_counts=class_counts,
        y_values=y_values,
        random_state=int(random_state),
        n_dropped_target=n_dropped,
    )
