"""Signal-to-noise metafeatures: the model-based SNR of the normalized-metric paper, and
OpenML's attribute-level noise-to-signal ratio.

References
----------
.. [1] arXiv:2412.07244, "Developing a Dataset-Adaptive, Normalized Metric for Machine Learning
       Model Assessment: Integrating Size, Complexity, and Class Imbalance" (SNR correction
       ``g(SNR)``; signal and noise from a model's confusion matrix or residuals).
.. [2] Michie, Spiegelhalter, Taylor (1994), StatLog, noise-signal ratio NS.ratio.
.. [3] OpenML quality ``MeanNoiseToSignalRatio``.
"""

from __future__ import annotations

import warnings

import numpy as np

from metarec.metafeatures._base import Collector, PreparedData, metafeature
from metarec.metafeatures._info import MI_EPSILON, entropies_and_mutual_information

GROUP = "snr"

#: SNR is a ratio of sums of squares that does not change when every count is scaled, so it
#: is estimated on a uniform random subsample of at most this many rows.
SNR_MAX_ROWS = 100_000
#: Folds of the cross-validation producing the predictions.
SNR_FOLDS = 3
#: Cap of the regression SNR when the cross-validated residuals are (numerically) zero.
SNR_REGRESSION_CAP = 1e12


def _subsample(data: PreparedData, limit: int) -> np.ndarray | None:
    if data.n <= limit:
        return None
    rng = np.random.default_rng(data.random_state)
    return np.sort(rng.choice(data.n, size=limit, replace=False))


def cv_folds(y_codes: np.ndarray | None, n: int, n_splits: int, random_state: int):
    """Train/test index pairs: stratified for classes, plain shuffled folds otherwise.

    Returns ``None`` when fewer than two folds are possible (a class with one row per class
    everywhere, or fewer rows than folds).
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    if y_codes is None:
        splits = min(n_splits, n)
        if splits < 2:
            return None
        return list(KFold(splits, shuffle=True, random_state=random_state).split(np.zeros(n)))
    counts = np.bincount(y_codes)
    splits = min(n_splits, int(counts.max()))
    if splits < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "least populated class has only ..."
        folds = StratifiedKFold(splits, shuffle=True, random_state=random_state)
        return list(folds.split(np.zeros(n), y_codes))


def classification_snr(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> float:
    """``sum of squared diagonal confusion counts / sum of squared off-diagonal counts``.

    With no error at all the noise is floored at 1 (one squared count, the smallest noise
    integer counts can produce), so a perfectly predicted dataset gets the finite value
    ``sum(diag^2)`` instead of infinity.
    """
    confusion = np.bincount(y_true * n_classes + y_pred, minlength=n_classes * n_classes)
    confusion = confusion.reshape(n_classes, n_classes).astype("float64")
    signal = float(np.sum(np.diag(confusion) ** 2))
    noise = float(np.sum(confusion**2) - signal)
    return signal / max(noise, 1.0)


def regression_snr(y_true: np.ndarray, y_pred: np.ndarray) -> float | None:
    """``sum(y^2) / sum((y - y_hat)^2)``, capped at :data:`SNR_REGRESSION_CAP`; None if 0/0."""
    signal = float(np.sum(y_true**2))
    noise = float(np.sum((y_true - y_pred) ** 2))
    if signal == 0.0:
        return None if noise == 0.0 else 0.0
    if noise <= signal / SNR_REGRESSION_CAP:
        return SNR_REGRESSION_CAP
    return signal / noise


@metafeature(GROUP, "snr")
def model_snr(data: PreparedData, out: Collector) -> None:
    """Model-based signal-to-noise ratio of the normalized-metric paper.

    Predictions come from a fast learner, cross-validated (3 folds, stratified for
    classification, shuffled with ``random_state``) on at most 100,000 rows (a uniform random
    subsample: the ratio does not depend on the scale of the counts):

    * classification: Gaussian naive Bayes on the model matrix (z-scored numeric attributes,
      one-hot encoded most frequent categorical levels, missing -> mean / all-zero);
      ``SNR = sum_i C_ii^2 / sum_{i != j} C_ij^2`` over the pooled confusion matrix ``C``.
      Naive Bayes is chosen because it is linear in the data, deterministic and never fails
      on constant or collinear attributes.  No error at all: the noise is floored at one
      squared count (value ``sum_i C_ii^2``, finite, large).
    * regression: ridge regression (alpha=1) on the same matrix;
      ``SNR = sum y^2 / sum (y - y_hat)^2`` (uncentred, as the paper writes it), capped at
      1e12 when the residuals vanish; computed on ``y`` divided by its largest magnitude
      (the ratio does not change, and a target near the float limit does not overflow).

    NaN when fewer than two folds can be formed (every class has a single row, or fewer than
    two rows), or for a target that is identically zero.

    References
    ----------
    .. [1] arXiv:2412.07244 (normalized metric), signal-to-noise ratio for classification
           (confusion matrix) and regression (residuals).
    """
    rows = _subsample(data, SNR_MAX_ROWS)
    y_codes = (
        None if data.y_codes is None else (data.y_codes if rows is None else data.y_codes[rows])
    )
    n = data.n if rows is None else rows.size
    folds = cv_folds(y_codes, n, SNR_FOLDS, data.random_state)
    if folds is None:
        out.nan(
            "snr",
            "cross-validation needs at least two rows in some class (two rows for regression)",
        )
        return
    x = data.model_matrix(rows)
    if x.shape[1] == 0:
        out.nan("snr", "no feature has a usable value (no features, or all entirely missing)")
        return
    if data.is_classification:
        from sklearn.naive_bayes import GaussianNB

        predicted = np.empty(n, dtype=np.int64)
        for train, test in folds:
            model = GaussianNB().fit(x[train], y_codes[train])
            predicted[test] = model.predict(x[test])
        out.set("snr", classification_snr(y_codes, predicted, data.n_classes))
        return
    from sklearn.linear_model import Ridge

    y = data.y_values if rows is None else data.y_values[rows]
    # divided by its largest magnitude: the ratio is the same (ridge's predictions scale with
    # y), and a target near the float limit (1e308) does not overflow its squares
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    y = y / (scale if np.isfinite(scale) and scale > 0 else 1.0)
    predicted_values = np.empty(n, dtype="float64")
    for train, test in folds:
        predicted_values[test] = Ridge(alpha=1.0).fit(x[train], y[train]).predict(x[test])
    value = regression_snr(y, predicted_values)
    if value is None:
        out.nan("snr", "the target is identically zero: 0/0")
    else:
        out.set("snr", value)


@metafeature(GROUP, "noise_to_signal_ratio")
def noise_to_signal_ratio(data: PreparedData, out: Collector) -> None:
    """OpenML's attribute-level noise-to-signal ratio.

    ``NSR = (mean attribute entropy - mean MI(attribute, class)) / mean MI``: how much of the
    attributes' information is irrelevant to the class, per unit of relevant information.
    Entropies and mutual informations as in :mod:`metarec.metafeatures._info` (bits; numeric
    attributes in Sturges' number of equal-width bins).  NaN for regression, without
    attributes, or when the mean mutual information is 0 (OpenML writes -1 there).

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, NS.ratio.
    .. [2] OpenML quality ``MeanNoiseToSignalRatio``.
    """
    entropy, mi = entropies_and_mutual_information(data)
    if mi is None:
        out.nan("noise_to_signal_ratio", "regression target: no class")
        return
    finite = np.isfinite(entropy) & np.isfinite(mi)
    if not finite.any():
        out.nan("noise_to_signal_ratio", "no attribute with a non-missing value")
        return
    mean_mi = mi[finite].mean()
    if mean_mi < MI_EPSILON:
        out.nan("noise_to_signal_ratio", "mean mutual information with the class is 0")
        return
    out.set("noise_to_signal_ratio", (entropy[finite].mean() - mean_mi) / mean_mi)
