"""Regression metafeatures: the target's distribution and Lorena et al.'s complexity measures.

Defined for a continuous target only (NaN with a reason for classification).  The complexity
measures work, as their authors prescribe, on the model matrix (z-scored numeric attributes,
missing values at the mean, one-hot encoded frequent categorical levels) with every column and
the target min-max scaled to [0, 1], so that residuals and distances are comparable across
datasets.  Measures that compare pairs of rows (S1-S4, L3, C3, C4) run on a uniform random
subsample of at most :data:`COMPLEXITY_MAX_ROWS` rows drawn with the extraction's
``random_state``; C1, C2, L1 and L2 too, so that every measure describes the same rows.

Feature correlation (higher = simpler): C1 and C2 the maximum and mean absolute Spearman
correlation of a feature with the target; C3 the smallest share of rows to remove for one
feature to reach ``|rho| >= 0.9``; C4 the share of rows that no feature's simple linear fit
explains to within 0.1.  Linearity (higher = less linear): L1 and L2 the mean absolute and
squared residuals of a least-squares linear model; L3 its squared error on rows interpolated
between neighbours in target order.  Smoothness (higher = rougher): S1 the mean target
difference along the minimum spanning tree of the inputs; S2 the mean input distance between
rows adjacent in target order; S3 the leave-one-out squared error of the nearest neighbour;
S4 the nearest neighbour's squared error on the interpolated rows.

References
----------
.. [1] Lorena, A. C., Maciel, A. I., de Miranda, P. B. C., Costa, I. G., Prudêncio, R. B. C.
       (2018). Data complexity meta-features for regression problems. Machine Learning
       107(1), 209-246.
.. [2] Joanes, D. N., Gill, C. A. (1998). Comparing measures of sample skewness and kurtosis.
       The Statistician 47(1) (the moment estimators ``g1``, ``g2``).
.. [3] Tukey, J. W. (1977). Exploratory Data Analysis (the 1.5 IQR fences).
"""

from __future__ import annotations

import numpy as np

from metarec.metafeatures._base import Collector, PreparedData, metafeature

GROUP = "regression"

#: Pairwise measures run on a uniform random subsample of at most this many rows.
COMPLEXITY_MAX_ROWS = 1_000
#: C3: the absolute Spearman correlation a feature must reach.
C3_TARGET = 0.9
#: C4: a row is explained when its absolute residual is at most this (target in [0, 1]).
C4_TOLERANCE = 0.1

_CLASSIFICATION = "classification target: defined for a continuous target only"
TARGET_NAMES = ("target_skewness", "target_kurtosis", "target_outlier_share")
CORRELATION_NAMES = ("c1_max_feature_correlation", "c2_mean_feature_correlation",
                     "c3_individual_feature_efficiency", "c4_collective_feature_efficiency")  # fmt: skip
LINEARITY_NAMES = ("l1_mean_abs_residual", "l2_mean_squared_residual", "l3_linear_nonlinearity")
SMOOTHNESS_NAMES = ("s1_output_distribution", "s2_input_distribution", "s3_nn_error",
                    "s4_nn_nonlinearity")  # fmt: skip


# ----------------------------------------------------------------------- the target
@metafeature(GROUP, *TARGET_NAMES)
def target_distribution(data: PreparedData, out: Collector) -> None:
    """Skewness, excess kurtosis and outlier share of the target.

    Skewness ``g1 = m3 / m2^1.5`` and excess kurtosis ``g2 = m4 / m2^2 - 3`` with the central
    moments ``m_k = mean((y - mean y)^k)`` [2]_; both 0 for a constant target.  The outlier
    share is the fraction of rows outside Tukey's fences ``[Q1 - 1.5 IQR, Q3 + 1.5 IQR]`` [3]_.

    References
    ----------
    .. [1] Lorena et al. (2018), Data complexity meta-features for regression problems.
    .. [2] Joanes and Gill (1998), the moment estimators g1 and g2.
    .. [3] Tukey (1977), Exploratory Data Analysis.
    """
    if data.is_classification:
        out.nan_all(TARGET_NAMES, _CLASSIFICATION)
        return
    y = data.y_values
    centred = y - y.mean()
    scale = float(np.max(np.abs(centred))) or 1.0
    z = centred / scale  # moments of values in [-1, 1] cannot overflow
    m2 = float(np.mean(z**2))
    if m2 > 0:
        out.set("target_skewness", float(np.mean(z**3)) / m2**1.5)
        out.set("target_kurtosis", float(np.mean(z**4)) / m2**2 - 3.0)
    else:
        out.set("target_skewness", 0.0)
        out.set("target_kurtosis", 0.0)
    q1, q3 = np.quantile(y, [0.25, 0.75])
    fence = 1.5 * (q3 - q1)
    out.set("target_outlier_share", float(np.mean((y < q1 - fence) | (y > q3 + fence))))


# --------------------------------------------------------------- shared preparation
def _unit(values: np.ndarray) -> np.ndarray:
    """Columns min-max scaled to [0, 1] (a constant column becomes 0).

    Each column is first divided by its largest absolute value (min-max scaling does not
    change under it), so that values near the float limits (``1e308`` and ``-1e308``) do
    not overflow the span.
    """
    scale = np.max(np.abs(values), axis=0)
    values = values / np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    low = values.min(axis=0)
    span = values.max(axis=0) - low
    return (values - low) / np.where(span > 0, span, 1.0)


def _scaled_sample(data: PreparedData) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of the subsample, both min-max scaled to [0, 1]; cached."""
    if "regression_sample" not in data.cache:
        rows = None
        if data.n > COMPLEXITY_MAX_ROWS:
            rng = np.random.default_rng(data.random_state)
            rows = np.sort(rng.choice(data.n, size=COMPLEXITY_MAX_ROWS, replace=False))
        X = data.model_matrix(rows)
        y = data.y_values if rows is None else data.y_values[rows]
        data.cache["regression_sample"] = (_unit(X), _unit(y[:, None])[:, 0])
    return data.cache["regression_sample"]


def _ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank) of each column, as Spearman's rho needs."""
    from scipy.stats import rankdata

    return rankdata(values, axis=0)


def _pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation of every column of ``a`` with ``b`` (0 for a constant column)."""
    a = a - a.mean(axis=0)
    b = b - b.mean()
    denominator = np.sqrt(np.sum(a * a, axis=0) * np.sum(b * b))
    return np.divide(a.T @ b, denominator, out=np.zeros(a.shape[1]), where=denominator > 0)


def spearman(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of every column of ``X`` with ``y`` (0 for a constant column)."""
    return _pearson(_ranks(X), _ranks(y))


# -------------------------------------------------------------- feature correlation
def _c3_feature(x: np.ndarray, y: np.ndarray, rho: float) -> int:
    """Rows to remove from one feature for ``|rho| >= C3_TARGET`` (see :func:`correlation`)."""
    if abs(rho) >= C3_TARGET:
        return 0
    rx, ry = _ranks(x), _ranks(y)
    disagreement = np.abs(rx - ry) if rho >= 0 else np.abs(rx + ry - (x.size + 1))
    order = np.argsort(-disagreement, kind="stable")

    def reached(k: int) -> bool:
        keep = np.sort(order[k:])
        if keep.size < 3:
            return True
        return abs(spearman(x[keep, None], y[keep])[0]) >= C3_TARGET

    low, high = 0, x.size - 2  # with two rows left any two distinct pairs correlate fully
    while low < high:
        middle = (low + high) // 2
        if reached(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _c4(X: np.ndarray, y: np.ndarray) -> float:
    """Share of rows left unexplained by the greedy simple-regression sequence of C4."""
    remaining = np.arange(y.size)
    unused = list(range(X.shape[1]))
    while remaining.size and unused:
        rho = np.abs(spearman(X[np.ix_(remaining, unused)], y[remaining]))
        best = unused.pop(int(np.argmax(rho)))
        x = X[remaining, best]
        design = np.column_stack([np.ones_like(x), x])
        coef, *_ = np.linalg.lstsq(design, y[remaining], rcond=None)
        residual = np.abs(y[remaining] - design @ coef)
        remaining = remaining[residual > C4_TOLERANCE]
    return remaining.size / y.size


@metafeature(GROUP, *CORRELATION_NAMES)
def correlation(data: PreparedData, out: Collector) -> None:
    """Feature-target correlation measures C1-C4 of Lorena et al. (2018).

    ``C1 = max_j |rho_j|`` and ``C2 = mean_j |rho_j|`` with ``rho_j`` the Spearman
    correlation of feature ``j`` with the target.  ``C3 = min_j k_j / n`` with ``k_j`` the
    number of rows to remove until ``|rho_j| >= 0.9``, removing first the rows whose ranks
    disagree most (``|rank x - rank y|``, or ``|rank x + rank y - (n + 1)|`` for a negative
    correlation).  The paper recomputes the ranks after each removal; here the removal order
    is fixed by the ranks of all rows and the smallest ``k`` is found by bisection, which
    costs ``O(n log^2 n)`` per feature instead of ``O(n^2 log n)`` and removes the same rows
    whenever the disagreements keep their order.  ``C4``: repeatedly take the unused feature
    most correlated with the target on the remaining rows, fit a simple linear regression on
    it, and drop the rows it predicts to within 0.1; ``C4`` is the share of rows left when
    the features or the rows run out (0 = all explained).

    References
    ----------
    .. [1] Lorena et al. (2018), Data complexity meta-features for regression problems,
           Sect. 3.1 (C1-C4).
    """
    if data.is_classification:
        out.nan_all(CORRELATION_NAMES, _CLASSIFICATION)
        return
    X, y = _scaled_sample(data)
    if X.shape[1] == 0 or y.size < 3:
        out.nan_all(CORRELATION_NAMES, "needs at least one attribute and three rows")
        return
    rho = spearman(X, y)
    out.set("c1_max_feature_correlation", float(np.max(np.abs(rho))))
    out.set("c2_mean_feature_correlation", float(np.mean(np.abs(rho))))
    removed = min(_c3_feature(X[:, j], y, rho[j]) for j in range(X.shape[1]))
    out.set("c3_individual_feature_efficiency", removed / y.size)
    out.set("c4_collective_feature_efficiency", _c4(X, y))


# ------------------------------------------------------------- linearity, smoothness
def _interpolated(X: np.ndarray, y: np.ndarray, random_state: int):
    """Rows interpolated between neighbours in target order (L3, S4): ``(X', y')``.

    Rows are sorted by the target; between each row and the next a point is drawn at a
    uniform random position ``t`` on the segment joining them, in inputs and target alike.
    """
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    t = np.random.default_rng(random_state).random(y.size - 1)
    return Xs[:-1] + t[:, None] * np.diff(Xs, axis=0), ys[:-1] + t * np.diff(ys)


def _linear(X: np.ndarray, y: np.ndarray):
    """Least-squares fit with intercept; returns the prediction function."""
    design = np.column_stack([np.ones(y.size), X])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return lambda Z: coef[0] + Z @ coef[1:]


@metafeature(GROUP, *LINEARITY_NAMES)
def linearity(data: PreparedData, out: Collector) -> None:
    """Linearity measures L1-L3 of Lorena et al. (2018): errors of a linear model.

    A least-squares linear model (with intercept) of the scaled target on the scaled inputs:
    ``L1`` is the mean absolute residual, ``L2`` the mean squared residual, and ``L3`` the
    mean squared error of the same model on rows interpolated between neighbours in target
    order (see the module docstring).  All are 0 for a target linear in the inputs.

    References
    ----------
    .. [1] Lorena et al. (2018), Data complexity meta-features for regression problems,
           Sect. 3.2 (L1-L3).
    """
    if data.is_classification:
        out.nan_all(LINEARITY_NAMES, _CLASSIFICATION)
        return
    X, y = _scaled_sample(data)
    if y.size < 2:
        out.nan_all(LINEARITY_NAMES, "needs at least two rows")
        return
    predict = _linear(X, y)
    residual = y - predict(X)
    out.set("l1_mean_abs_residual", float(np.mean(np.abs(residual))))
    out.set("l2_mean_squared_residual", float(np.mean(residual**2)))
    Xi, yi = _interpolated(X, y, data.random_state)
    out.set("l3_linear_nonlinearity", float(np.mean((predict(Xi) - yi) ** 2)))


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of ``A`` and of ``B``."""
    squared = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.sqrt(np.maximum(squared, 0.0))


@metafeature(GROUP, *SMOOTHNESS_NAMES)
def smoothness(data: PreparedData, out: Collector) -> None:
    """Smoothness measures S1-S4 of Lorena et al. (2018).

    ``S1``: mean ``|y_i - y_j|`` over the edges of the minimum spanning tree of the rows in
    input space (Euclidean).  ``S2``: mean input distance between rows adjacent when sorted by
    the target.  ``S3``: mean squared error of the nearest neighbour's target, leaving each
    row out.  ``S4``: mean squared error of the nearest neighbour (among the rows) on rows
    interpolated between neighbours in target order.  Duplicated inputs are at distance 0.

    References
    ----------
    .. [1] Lorena et al. (2018), Data complexity meta-features for regression problems,
           Sect. 3.3 (S1-S4).
    """
    if data.is_classification:
        out.nan_all(SMOOTHNESS_NAMES, _CLASSIFICATION)
        return
    from scipy.sparse.csgraph import minimum_spanning_tree

    X, y = _scaled_sample(data)
    if X.shape[1] == 0 or y.size < 2:
        out.nan_all(SMOOTHNESS_NAMES, "needs at least one attribute and two rows")
        return
    distance = _distances(X, X)
    # a zero weight is "no edge" to scipy (and so, it turns out, is a tiny one): every edge
    # of the complete graph gets 1 more, which changes no minimum spanning tree (each has
    # n - 1 edges) and joins duplicated rows
    weights = distance + 1.0
    np.fill_diagonal(weights, 0.0)
    tree = minimum_spanning_tree(weights).tocoo()
    out.set("s1_output_distribution", float(np.mean(np.abs(y[tree.row] - y[tree.col]))))
    order = np.argsort(y, kind="stable")
    out.set("s2_input_distribution", float(np.mean(np.diag(distance[order][:, order], 1))))
    np.fill_diagonal(distance, np.inf)
    out.set("s3_nn_error", float(np.mean((y[np.argmin(distance, axis=1)] - y) ** 2)))
    Xi, yi = _interpolated(X, y, data.random_state)
    nearest = np.argmin(_distances(Xi, X), axis=1)
    out.set("s4_nn_nonlinearity", float(np.mean((y[nearest] - yi) ** 2)))
