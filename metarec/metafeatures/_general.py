"""General (simple) metafeatures: sizes, attribute kinds, missing values, dimensionality.

References
----------
.. [1] Rivolli, A., Garcia, L. P. F., Soares, C., Vanschoren, J., de Carvalho, A. C. P. L. F.
       (2022). Meta-features for meta-learning. Knowledge-Based Systems 240, 108101.
.. [2] Michie, D., Spiegelhalter, D. J., Taylor, C. C. (1994). Machine Learning, Neural and
       Statistical Classification (StatLog). Ellis Horwood.
"""

from __future__ import annotations

import math

import numpy as np

from metarec.metafeatures._base import Collector, PreparedData, metafeature, summarize

GROUP = "general"


@metafeature(GROUP, "n_instances", "log_n_instances")
def sizes_instances(data: PreparedData, out: Collector) -> None:
    """Number of instances ``N`` (rows with a target) and its natural logarithm.

    References
    ----------
    .. [1] Rivolli et al. (2022), "nr_inst"; OpenML quality ``NumberOfInstances``.
    """
    out.set("n_instances", data.n)
    out.set("log_n_instances", math.log(data.n))


@metafeature(GROUP, "n_features", "log_n_features", "dimensionality")
def sizes_features(data: PreparedData, out: Collector) -> None:
    """Number of features ``d`` (target excluded), ``log(d)`` and dimensionality ``d / N``.

    With no feature at all, ``log_n_features`` is NaN (log 0 is undefined).

    References
    ----------
    .. [1] Rivolli et al. (2022), "nr_attr", "attr_to_inst".
    .. [2] arXiv:2412.07244, the normalized-metric paper: dimensionality ``d / N`` drives its
           dimensionality adjustment factor.
    """
    out.set("n_features", data.n_features)
    if data.n_features > 0:
        out.set("log_n_features", math.log(data.n_features))
    else:
        out.nan("log_n_features", "the dataset has no features (log 0 is undefined)")
    out.set("dimensionality", data.n_features / data.n)


@metafeature(
    GROUP,
    "n_numeric_features",
    "n_categorical_features",
    "n_binary_features",
    "pct_numeric_features",
    "pct_categorical_features",
    "pct_binary_features",
)
def attribute_kinds(data: PreparedData, out: Collector) -> None:
    """Counts and percentages (0-100) of numeric, categorical and binary attributes.

    Numeric: integer or floating-point columns; categorical: everything else (text,
    booleans, pandas categoricals).  Binary: an attribute with exactly two distinct
    non-missing values, whatever its kind (OpenML's ``NumberOfBinaryFeatures``).

    References
    ----------
    .. [1] Rivolli et al. (2022), "nr_num", "nr_cat", "nr_bin".
    .. [2] OpenML qualities ``NumberOfNumericFeatures``, ``NumberOfSymbolicFeatures``,
           ``NumberOfBinaryFeatures``.
    """
    n_numeric = data.numeric.shape[1]
    n_categorical = len(data.codes)
    n_binary = _count_binary_numeric(data.numeric) + int(np.sum(data.cardinalities == 2))
    out.set("n_numeric_features", n_numeric)
    out.set("n_categorical_features", n_categorical)
    out.set("n_binary_features", n_binary)
    names = ("pct_numeric_features", "pct_categorical_features", "pct_binary_features")
    if data.n_features == 0:
        out.nan_all(names, "the dataset has no features")
        return
    for name, count in zip(names, (n_numeric, n_categorical, n_binary), strict=True):
        out.set(name, 100.0 * count / data.n_features)


def _count_binary_numeric(x: np.ndarray) -> int:
    """Numeric columns with exactly two distinct non-missing values (vectorised)."""
    if x.shape[1] == 0:
        return 0
    low = np.fmin.reduce(x, axis=0)  # fmin / fmax skip NaN (all-NaN column: NaN)
    high = np.fmax.reduce(x, axis=0)
    candidates = np.flatnonzero(np.isfinite(low) & (low < high))
    if candidates.size == 0:
        return 0
    # a third distinct value among the first rows rules a column out cheaply
    head = x[:1000, candidates]
    lo, hi = low[candidates], high[candidates]
    candidates = candidates[((head == lo) | (head == hi) | np.isnan(head)).all(axis=0)]
    if candidates.size == 0:
        return 0
    xc = x[:, candidates]
    is_low_or_high = (xc == low[candidates]) | (xc == high[candidates]) | np.isnan(xc)
    return int(np.sum(is_low_or_high.all(axis=0)))


@metafeature(
    GROUP,
    "n_missing_values",
    "pct_missing_values",
    "n_instances_with_missing",
    "pct_instances_with_missing",
)
def missing_values(data: PreparedData, out: Collector) -> None:
    """Missing feature values: count, percentage of cells, rows with any, their percentage.

    Missing means NaN/None in the features, or an infinite value in a numeric feature (it is
    treated as missing by every other metafeature too).  Rows
    whose *target* is missing were dropped before extraction and are not counted.
    Percentages are on a 0-100 scale (OpenML's convention).

    References
    ----------
    .. [1] OpenML qualities ``NumberOfMissingValues``, ``PercentageOfMissingValues``,
           ``NumberOfInstancesWithMissingValues``, ``PercentageOfInstancesWithMissingValues``.
    .. [2] Rivolli et al. (2022), general group.
    """
    out.set("n_missing_values", data.n_missing)
    out.set("n_instances_with_missing", data.n_rows_with_missing)
    out.set("pct_instances_with_missing", 100.0 * data.n_rows_with_missing / data.n)
    if data.n_features == 0:
        out.nan("pct_missing_values", "the dataset has no features")
    else:
        out.set("pct_missing_values", 100.0 * data.n_missing / (data.n * data.n_features))


@metafeature(GROUP, "n_classes")
def n_classes(data: PreparedData, out: Collector) -> None:
    """Number of classes (distinct target values); 0 for regression (OpenML's convention).

    References
    ----------
    .. [1] Rivolli et al. (2022), "nr_class"; OpenML quality ``NumberOfClasses``.
    """
    out.set("n_classes", data.n_classes)


@metafeature(
    GROUP,
    "categorical_cardinality_mean",
    "categorical_cardinality_sd",
    "categorical_cardinality_min",
    "categorical_cardinality_max",
)
def categorical_cardinality(data: PreparedData, out: Collector) -> None:
    """Distinct non-missing values per categorical attribute: mean, sd, min, max.

    References
    ----------
    .. [1] OpenML qualities ``MeanNominalAttDistinctValues``, ``StdvNominalAttDistinctValues``,
           ``MinNominalAttDistinctValues``, ``MaxNominalAttDistinctValues``.
    """
    summarize(
        out,
        "categorical_cardinality",
        data.cardinalities,
        "the dataset has no categorical attributes",
        stats=("mean", "sd", "min", "max"),
    )
