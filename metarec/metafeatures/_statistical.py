"""Statistical metafeatures of the numeric attributes.

Only numeric attributes take part (categorical ones have no moments); infinite values count
as missing and every statistic uses the present values of each attribute.  Attributes that
are constant on their present values have no skewness, kurtosis or correlation and are left
out of those summaries.  Correlation-based features (mean absolute correlation, principal
components, canonical correlation) work on z-scored attributes whose missing values are
replaced by the attribute mean (i.e. 0), and on a random subset of at most
:data:`STAT_MAX_FEATURES` attributes when there are more (their cost is quadratic in the
number of attributes, never in the number of rows).

References
----------
.. [1] Michie, D., Spiegelhalter, D. J., Taylor, C. C. (1994). Machine Learning, Neural and
       Statistical Classification (StatLog), ch. 7.
.. [2] Rivolli, A., Garcia, L. P. F., Soares, C., Vanschoren, J., de Carvalho, A. C. P. L. F.
       (2022). Meta-features for meta-learning. Knowledge-Based Systems 240, 108101.
.. [3] Brazdil, P., Giraud-Carrier, C., Soares, C., Vilalta, R. (2009). Metalearning:
       Applications to Data Mining. Springer, ch. 4.
"""

from __future__ import annotations

import numpy as np

from metarec.metafeatures._base import (
    Collector,
    PreparedData,
    metafeature,
    summarize,
    summary_names,
)

GROUP = "statistical"

#: Correlation-based features use at most this many numeric attributes (a random subset).
STAT_MAX_FEATURES = 1000
#: Tukey's "far out" fence multiplier used by ``pct_attributes_with_outliers``.
OUTLIER_IQR_FACTOR = 3.0
#: Share of the total variance the principal components must explain.
PCA_VARIANCE = 0.95
_RANK_TOLERANCE = 1e-10

_NO_NUMERIC = "no numeric attribute"


def _moments(data: PreparedData):
    """Per-attribute (count, mean, m2, m3, m4) over present values, cached.

    Computed on the attributes divided by their largest absolute value (so powers cannot
    overflow): ``mean`` and ``m2`` are therefore in units of that scale, which the
    scale-free skewness and kurtosis do not mind; :func:`means_and_deviations` rescales.
    """
    if "moments" not in data.cache:
        x, _ = data.scaled()
        missing = np.isnan(x)
        any_missing = bool(missing.any())
        count = (x.shape[0] - missing.sum(axis=0)).astype("float64")
        safe = np.maximum(count, 1.0)
        d = np.where(missing, 0.0, x) if any_missing else x.copy()
        mean = d.sum(axis=0) / safe
        d -= mean
        if any_missing:
            d[missing] = 0.0  # absent values contribute nothing to the central moments
        d2 = d * d
        m2 = d2.sum(axis=0) / safe
        m3 = np.einsum("ij,ij->j", d2, d) / safe
        m4 = np.einsum("ij,ij->j", d2, d2) / safe
        data.cache["moments"] = (count, mean, m2, m3, m4)
    return data.cache["moments"]


def quartiles(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and third quartiles of each column of ``x`` (no NaN), numpy's "linear" method.

    Equal to ``np.quantile(x, [0.25, 0.75], axis=0)``, with one partial sort of the
    transposed (row-contiguous) columns around the four order statistics both need, instead
    of numpy's general path.
    """
    q1, q3, _, _ = _order_statistics(x)
    return q1, q3


def _order_statistics(x: np.ndarray):
    """``(q1, q3, min, max)`` of each column of ``x`` (no NaN) from one partial sort."""
    n = x.shape[0]
    pos = np.array([0.25, 0.75]) * (n - 1)
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    kth = np.unique(np.concatenate([[0, n - 1], lo, hi]))
    part = np.partition(np.ascontiguousarray(x.T), kth, axis=1)
    frac = pos - lo
    q = part[:, lo] * (1.0 - frac) + part[:, hi] * frac
    return q[:, 0], q[:, 1], part[:, 0], part[:, n - 1]


def _varying(count, mean, m2) -> np.ndarray:
    """Attributes with at least two present values that are not (numerically) constant.

    Moments are of values scaled into [-1, 1]: a standard deviation below 1e-12 is rounding.
    """
    return (count >= 2) & (m2 > 1e-24)


@metafeature(GROUP, *summary_names("skewness"))
def skewness(data: PreparedData, out: Collector) -> None:
    """Skewness of each numeric attribute, summarised (mean, sd, min, q1-q3, max).

    Fisher-Pearson coefficient ``g1 = m3 / m2^(3/2)`` with population moments (scipy's
    ``skew(bias=True)``) over present values; constant attributes are left out.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, "skewness".
    .. [2] Rivolli et al. (2022), "skewness"; OpenML ``MeanSkewnessOfNumericAtts`` etc.
    """
    count, mean, m2, m3, _ = _moments(data)
    varying = _varying(count, mean, m2)
    values = m3[varying] / m2[varying] ** 1.5
    reason = _NO_NUMERIC if data.numeric.shape[1] == 0 else "every numeric attribute is constant"
    summarize(out, "skewness", values, reason)


@metafeature(GROUP, *summary_names("kurtosis"))
def kurtosis(data: PreparedData, out: Collector) -> None:
    """Excess kurtosis of each numeric attribute, summarised (mean, sd, min, q1-q3, max).

    ``g2 = m4 / m2^2 - 3`` (0 for a normal distribution; scipy's ``kurtosis(bias=True)``),
    over present values; constant attributes are left out.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, "kurtosis".
    .. [2] Rivolli et al. (2022), "kurtosis"; OpenML ``MeanKurtosisOfNumericAtts`` etc.
    """
    count, mean, m2, _, m4 = _moments(data)
    varying = _varying(count, mean, m2)
    values = m4[varying] / m2[varying] ** 2 - 3.0
    reason = _NO_NUMERIC if data.numeric.shape[1] == 0 else "every numeric attribute is constant"
    summarize(out, "kurtosis", values, reason)


@metafeature(GROUP, *summary_names("numeric_mean"), *summary_names("numeric_sd"))
def means_and_deviations(data: PreparedData, out: Collector) -> None:
    """Mean and standard deviation (ddof=1) of each numeric attribute, each summarised.

    References
    ----------
    .. [1] OpenML ``MeanMeansOfNumericAtts``, ``MeanStdDevOfNumericAtts`` etc.
    .. [2] Rivolli et al. (2022), "mean", "sd".
    """
    count, mean, m2, _, _ = _moments(data)
    _, scale = data.scaled()
    present = count >= 1
    summarize(out, "numeric_mean", (mean * scale)[present], _NO_NUMERIC)
    several = count >= 2
    sd = np.sqrt(m2[several] * count[several] / (count[several] - 1)) * scale[several]
    # an attribute whose sd exceeds the float range (values near +-1.8e308) is left out
    summarize(out, "numeric_sd", sd, "no numeric attribute with two present values")


@metafeature(GROUP, "pct_attributes_with_outliers")
def attributes_with_outliers(data: PreparedData, out: Collector) -> None:
    """Percentage (0-100) of numeric attributes having at least one far-out value.

    A value is far out when it lies beyond Tukey's outer fences ``Q1 - 3 IQR`` or
    ``Q3 + 3 IQR``.  The usual 1.5 IQR fences are not used because a Gaussian attribute has
    0.7 % of its values beyond them, so every attribute of a few thousand rows would count;
    beyond 3 IQR a Gaussian has 2.3e-6 of its values.  Attributes whose IQR is 0 (binary,
    mostly constant) have no meaningful fence and are left out of the percentage.

    References
    ----------
    .. [1] Tukey, J. W. (1977). Exploratory Data Analysis. Addison-Wesley (fences).
    .. [2] Rivolli et al. (2022), "outliers" (pymfe counts attributes beyond 1.5 IQR fences).
    """
    x, _ = data.scaled()  # fences are scale-free; scaling keeps them finite
    if x.shape[1] == 0:
        out.nan("pct_attributes_with_outliers", _NO_NUMERIC)
        return
    count = np.sum(~np.isnan(x), axis=0)
    usable = count >= 1
    if not usable.any():
        out.nan("pct_attributes_with_outliers", "every numeric attribute is entirely missing")
        return
    xs = x if usable.all() else x[:, usable]
    if np.isnan(xs).any():
        q1, q3 = np.nanquantile(xs, [0.25, 0.75], axis=0)
        low = np.fmin.reduce(xs, axis=0)  # fmin / fmax skip NaN
        high = np.fmax.reduce(xs, axis=0)
    else:
        q1, q3, low, high = _order_statistics(xs)
    iqr = q3 - q1
    considered = iqr > 0
    if not considered.any():
        out.nan(
            "pct_attributes_with_outliers",
            "every numeric attribute has an interquartile range of 0",
        )
        return
    far = (low < q1 - OUTLIER_IQR_FACTOR * iqr) | (high > q3 + OUTLIER_IQR_FACTOR * iqr)
    out.set("pct_attributes_with_outliers", 100.0 * np.sum(far & considered) / np.sum(considered))


def _correlation_inputs(data: PreparedData):
    """(z-scored varying attributes, their covariance matrix ``Z'Z / n``), cached."""
    if "corr_inputs" not in data.cache:
        count, mean, m2, _, _ = _moments(data)
        varying = np.flatnonzero(_varying(count, mean, m2))
        if varying.size > STAT_MAX_FEATURES:
            rng = np.random.default_rng(data.random_state)
            varying = np.sort(rng.choice(varying, size=STAT_MAX_FEATURES, replace=False))
        z = data.standardized()[:, varying]
        cov = (z.T @ z) / data.n
        data.cache["corr_inputs"] = (z, cov)
    return data.cache["corr_inputs"]


@metafeature(GROUP, "mean_abs_correlation")
def mean_absolute_correlation(data: PreparedData, out: Collector) -> None:
    """Mean absolute Pearson correlation over the distinct pairs of numeric attributes.

    Constant attributes are left out; missing values are replaced by the attribute mean,
    which shrinks correlations involving incomplete attributes towards 0.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, "cor.abs".
    .. [2] Rivolli et al. (2022), "cor".
    """
    _, cov = _correlation_inputs(data)
    p = cov.shape[0]
    if p < 2:
        out.nan("mean_abs_correlation", "fewer than two non-constant numeric attributes")
        return
    scale = np.sqrt(np.diag(cov))
    corr = cov / np.outer(scale, scale)
    upper = np.abs(corr[np.triu_indices(p, k=1)])
    out.set("mean_abs_correlation", float(np.clip(upper.mean(), 0.0, 1.0)))


@metafeature(GROUP, "n_pca_components_95", "pca_components_95_ratio")
def principal_components(data: PreparedData, out: Collector) -> None:
    """Principal components needed for 95 % of the variance, and that count / attributes.

    PCA of the z-scored non-constant numeric attributes (the correlation matrix): the smallest
    ``k`` whose leading eigenvalues sum to at least 95 % of the total.  The ratio divides by
    the number of attributes analysed (1 means no redundancy).

    References
    ----------
    .. [1] Rivolli et al. (2022), "nr_pca"/"pca_95" (number of components for 95 % variance).
    .. [2] Brazdil et al. (2009), Metalearning, ch. 4.
    """
    _, cov = _correlation_inputs(data)
    p = cov.shape[0]
    if p == 0:
        out.nan_all(
            ("n_pca_components_95", "pca_components_95_ratio"), "no non-constant numeric attribute"
        )
        return
    eigenvalues = np.clip(np.linalg.eigvalsh(cov)[::-1], 0.0, None)
    share = np.cumsum(eigenvalues) / eigenvalues.sum()
    k = int(np.searchsorted(share, PCA_VARIANCE - 1e-12) + 1)
    k = min(k, p)
    out.set("n_pca_components_95", k)
    out.set("pca_components_95_ratio", k / p)


def _inverse_sqrt(matrix: np.ndarray) -> np.ndarray:
    """``V diag(1/sqrt(l)) `` restricted to eigenvalues above a relative tolerance."""
    values, vectors = np.linalg.eigh(matrix)
    keep = values > _RANK_TOLERANCE * max(values.max(initial=0.0), 0.0)
    return vectors[:, keep] / np.sqrt(values[keep])


@metafeature(GROUP, "canonical_correlation")
def first_canonical_correlation(data: PreparedData, out: Collector) -> None:
    """First canonical correlation between the numeric attributes and the target.

    The target is one-hot encoded for classification (all classes; the centred indicators
    are rank ``k - 1``) and used as it is for regression (then the value is the multiple
    correlation coefficient).  Computed as the largest singular value of
    ``Cxx^(-1/2) Cxy Cyy^(-1/2)`` with eigenvalues below 1e-10 of the largest dropped
    (collinear attributes), clipped to [0, 1].  With as many attributes as rows it tends
    to 1.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, "cancor1".
    .. [2] Rivolli et al. (2022), "can_cor".
    """
    z, cov = _correlation_inputs(data)
    if cov.shape[0] == 0:
        out.nan("canonical_correlation", "no non-constant numeric attribute")
        return
    if data.is_classification:
        if data.n_classes < 2:
            out.nan("canonical_correlation", "a single class")
            return
        from scipy import sparse

        k = data.n_classes
        onehot = sparse.csr_matrix(
            (np.ones(data.n), (np.arange(data.n), data.y_codes)), shape=(data.n, k)
        )
        prior = data.class_counts / data.n
        cxy = np.asarray(onehot.T @ z).T / data.n  # z is centred, so no prior term
        cyy = np.diag(prior) - np.outer(prior, prior)
    else:
        y = data.y_values - data.y_values.mean()
        if not np.any(y):
            out.nan("canonical_correlation", "the target is constant")
            return
        cxy = (z.T @ y)[:, None] / data.n
        cyy = np.array([[float(y @ y) / data.n]])
    wx = _inverse_sqrt(cov)
    wy = _inverse_sqrt(cyy)
    if wx.shape[1] == 0 or wy.shape[1] == 0:
        out.nan("canonical_correlation", "no variance left after removing collinear directions")
        return
    singular = np.linalg.svd(wx.T @ cxy @ wy, compute_uv=False)
    out.set("canonical_correlation", float(np.clip(singular.max(initial=0.0), 0.0, 1.0)))
