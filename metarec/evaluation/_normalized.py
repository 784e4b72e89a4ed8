"""The dataset-adaptive normalized metric: a raw score corrected for dataset properties.

A raw score (accuracy, R², silhouette, ...) is multiplied by a dimensionality factor and an
SNR factor, divided by an imbalance factor, and clamped to [0, 1]:

``M = clip(score * f(d, N) * g(SNR) / h, 0, 1)``

* Dimensionality (the paper's formula):
  ``f(d, N) = 1 + max(0, sigmoid(d / (0.05 N) - 1) - sigmoid(0))``.  It is 1 while the
  number of features ``d`` is at most 5 % of the number of instances ``N`` and rises towards
  1.5 as ``d / N`` grows: a score reached on a small, wide dataset is credited more.
* Imbalance (the paper's formulas, natural logarithm): ``h = 1 + ln(CI)`` for binary tasks
  (``CI`` = majority / minority class size >= 1) and ``h = 1 + ln(1 / ACIR)`` for multi-class
  tasks (``ACIR`` in (0, 1], 1 for balanced classes).  ``h >= 1``, so imbalance only lowers
  the score; a balanced dataset leaves it unchanged.
* SNR (our design; the paper defines the SNR itself but not how it enters the product):
  ``g(SNR) = 1 + max(0, sigmoid(log10(SNR)) - sigmoid(0))``.  It mirrors ``f``: 1 while the
  signal does not exceed the noise (SNR <= 1), rising smoothly towards 1.5 as the SNR grows
  by orders of magnitude (log10 because SNRs span decades: ``g(10) = 1.23``,
  ``g(100) = 1.38``).  It is bounded and non-decreasing, and it matches the paper's remark
  that only a very high SNR together with a high dimensionality can push the product above
  1 (hence the clamp).  ``snr=None`` means no SNR correction (``g = 1``).

Regression and clustering have no classes, so they use ``f`` and ``g`` only.  Every function
broadcasts over numpy arrays; NaN inputs give NaN outputs.

References
----------
.. [1] "Developing a Dataset-Adaptive, Normalized Metric for Machine
   Learning Model Assessment: Integrating Size, Complexity, and Class Imbalance",
   arXiv:2412.07244, 2024.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = [
    "dimensionality_factor",
    "imbalance_factor",
    "multiclass_imbalance_factor",
    "snr_factor",
    "regression_snr",
    "normalized_binary_metric",
    "normalized_multiclass_metric",
    "normalized_regression_metric",
    "normalized_clustering_metric",
    "normalized_metric",
    "TASKS",
]

TASKS = ("binary", "multiclass", "regression", "clustering")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free logistic function


def _float(value: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name} must be numeric, got {value!r}") from exc


def dimensionality_factor(n_features: Any, n_instances: Any) -> np.ndarray:
    """``f(d, N) = 1 + max(0, sigmoid(d / (0.05 N) - 1) - sigmoid(0))``, in [1, 1.5).

    Parameters
    ----------
    n_features : array-like
        Number of features ``d`` (>= 0).
    n_instances : array-like
        Number of instances ``N`` (> 0).

    Returns
    -------
    ndarray
        In [1, 1.5), of the broadcast shape of the inputs.

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024 (feature dimensionality handling factor).
    """
    d = _float(n_features, "n_features")
    n = _float(n_instances, "n_instances")
    if np.any(d < 0):
        raise InvalidInputError(f"n_features must be >= 0, got {d[d < 0].flat[0].item()!r}")
    if np.any(n <= 0):
        raise InvalidInputError(f"n_instances must be > 0, got {n[n <= 0].flat[0].item()!r}")
    return 1.0 + np.maximum(0.0, _sigmoid(d / (0.05 * n) - 1.0) - 0.5)


def imbalance_factor(imbalance_ratio: Any) -> np.ndarray:
    """Binary imbalance factor ``h(CI) = 1 + ln(CI)``, >= 1.

    Parameters
    ----------
    imbalance_ratio : array-like
        ``CI`` = majority class size / minority class size, >= 1.

    Returns
    -------
    ndarray
        ``1 + ln(CI)``, >= 1, of the shape of ``imbalance_ratio``.

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024 (class imbalance adjustment h(CI)).
    """
    ci = _float(imbalance_ratio, "imbalance_ratio")
    if np.any(ci < 1):
        raise InvalidInputError(
            f"imbalance_ratio (majority / minority) must be >= 1, got {ci[ci < 1].flat[0].item()!r}"
        )
    return 1.0 + np.log(ci)


def multiclass_imbalance_factor(acir: Any) -> np.ndarray:
    """Multi-class imbalance factor ``1 + ln(1 / ACIR)``, >= 1.

    Parameters
    ----------
    acir : array-like
        Average class imbalance ratio in (0, 1]: 1 for balanced classes, smaller for more
        imbalance (the mean over classes of class size / majority class size).

    Returns
    -------
    ndarray
        ``1 + ln(1 / ACIR)``, >= 1, of the shape of ``acir``.

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    a = _float(acir, "acir")
    if np.any(a <= 0) or np.any(a > 1):
        bad = a[(a <= 0) | (a > 1)].flat[0].item()
        raise InvalidInputError(f"acir must be in (0, 1] (1 = balanced classes), got {bad!r}")
    return 1.0 - np.log(a)


def snr_factor(snr: Any) -> np.ndarray:
    """SNR factor ``g(SNR) = 1 + max(0, sigmoid(log10 SNR) - sigmoid(0))``, in [1, 1.5).

    Our design (see the module docstring): 1 while SNR <= 1, then rising with the order of
    magnitude of the SNR, bounded by 1.5.  ``g(10) = 1 + sigmoid(1) - 0.5 = 1.2311``.

    Parameters
    ----------
    snr : array-like
        Signal-to-noise ratio, >= 0 (0 gives 1).

    Returns
    -------
    ndarray
        In [1, 1.5), of the shape of ``snr``.

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024 (signal-to-noise ratio).
    """
    s = _float(snr, "snr")
    if np.any(s < 0):
        raise InvalidInputError(f"snr must be >= 0, got {s[s < 0].flat[0].item()!r}")
    with np.errstate(divide="ignore"):
        log_s = np.log10(s)
    return 1.0 + np.maximum(0.0, _sigmoid(log_s) - 0.5)


def regression_snr(y_true: Any, y_pred: Any) -> float:
    """Model-based SNR of a regression: ``sum y^2 / sum (y - y_hat)^2``.

    Returns ``inf`` for a perfect fit of a non-zero target.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted target values.

    Returns
    -------
    float
        The signal-to-noise ratio, >= 0 (``inf`` for a perfect fit of a non-zero target,
        NaN for a perfect fit of an all-zero target).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024 (regression SNR).
    """
    from metarec.evaluation._validation import as_1d, check_same_length

    y = as_1d(y_true, "y_true").astype(float)
    yh = as_1d(y_pred, "y_pred").astype(float)
    check_same_length(y_true=y, y_pred=yh)
    noise = float(np.sum((y - yh) ** 2))
    signal = float(np.sum(y**2))
    if noise == 0:
        return float("inf") if signal > 0 else float("nan")
    return signal / noise


def _clamp(values: np.ndarray) -> np.ndarray:
    return np.clip(values, 0.0, 1.0)


def _common(score: Any, n_instances: Any, n_features: Any, snr: Any) -> np.ndarray:
    s = _float(score, "score")
    out = s * dimensionality_factor(n_features, n_instances)
    if snr is not None:
        out = out * snr_factor(snr)
    return out


def normalized_binary_metric(
    score: Any,
    *,
    n_instances: Any,
    n_features: Any,
    imbalance_ratio: Any = None,
    snr: Any = None,
) -> np.ndarray:
    """Normalized metric of a binary classifier: ``clip(score f g / (1 + ln CI), 0, 1)``.

    ``imbalance_ratio=None`` means unknown and applies no imbalance correction.

    Parameters
    ----------
    score : array-like
        Raw score, higher is better (accuracy, balanced accuracy...).
    n_instances, n_features : array-like
        Dataset size ``N`` (> 0) and number of features ``d`` (>= 0).
    imbalance_ratio : array-like, optional
        ``CI`` = majority / minority class size (>= 1); ``None`` for no imbalance correction.
    snr : array-like, optional
        Signal-to-noise ratio (>= 0); ``None`` for no SNR correction.

    Returns
    -------
    ndarray
        In [0, 1], of the broadcast shape of the inputs (NaN where an input is NaN).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    out = _common(score, n_instances, n_features, snr)
    if imbalance_ratio is not None:
        out = out / imbalance_factor(imbalance_ratio)
    return _clamp(out)


def normalized_multiclass_metric(
    score: Any,
    *,
    n_instances: Any,
    n_features: Any,
    acir: Any = None,
    snr: Any = None,
) -> np.ndarray:
    """Normalized metric of a multi-class classifier: ``clip(score f g / (1 + ln(1/ACIR)), 0, 1)``.

    ``acir=None`` means unknown and applies no imbalance correction.

    Parameters
    ----------
    score : array-like
        Raw score, higher is better (accuracy, balanced accuracy...).
    n_instances, n_features : array-like
        Dataset size ``N`` (> 0) and number of features ``d`` (>= 0).
    acir : array-like, optional
        Average class imbalance ratio in (0, 1] (1 for balanced classes); ``None`` for no
        imbalance correction.
    snr : array-like, optional
        Signal-to-noise ratio (>= 0); ``None`` for no SNR correction.

    Returns
    -------
    ndarray
        In [0, 1], of the broadcast shape of the inputs (NaN where an input is NaN).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    out = _common(score, n_instances, n_features, snr)
    if acir is not None:
        out = out / multiclass_imbalance_factor(acir)
    return _clamp(out)


def normalized_regression_metric(
    score: Any, *, n_instances: Any, n_features: Any, snr: Any = None
) -> np.ndarray:
    """Normalized metric of a regressor (e.g. R²): ``clip(score f g, 0, 1)``.

    Parameters
    ----------
    score : array-like
        Raw score, higher is better (R²...).
    n_instances, n_features : array-like
        Dataset size ``N`` (> 0) and number of features ``d`` (>= 0).
    snr : array-like, optional
        Signal-to-noise ratio (>= 0); ``None`` for no SNR correction.

    Returns
    -------
    ndarray
        In [0, 1], of the broadcast shape of the inputs (NaN where an input is NaN).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    return _clamp(_common(score, n_instances, n_features, snr))


def normalized_clustering_metric(
    score: Any, *, n_instances: Any, n_features: Any, snr: Any = None
) -> np.ndarray:
    """Normalized metric of a clustering (e.g. silhouette): ``clip(score f g, 0, 1)``.

    Parameters
    ----------
    score : array-like
        Raw score, higher is better (silhouette...).
    n_instances, n_features : array-like
        Dataset size ``N`` (> 0) and number of features ``d`` (>= 0).
    snr : array-like, optional
        Signal-to-noise ratio (>= 0); ``None`` for no SNR correction.

    Returns
    -------
    ndarray
        In [0, 1], of the broadcast shape of the inputs (NaN where an input is NaN).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    return _clamp(_common(score, n_instances, n_features, snr))


def normalized_metric(
    score: Any,
    *,
    task: str,
    n_instances: Any,
    n_features: Any,
    snr: Any = None,
    imbalance_ratio: Any = None,
    acir: Any = None,
) -> np.ndarray:
    """Dataset-adaptive normalized metric for any task type, clamped to [0, 1].

    Dispatches to :func:`normalized_binary_metric`, :func:`normalized_multiclass_metric`,
    :func:`normalized_regression_metric` or :func:`normalized_clustering_metric`.  All
    arguments broadcast over numpy arrays.

    Parameters
    ----------
    score : array-like
        Raw score, higher is better (accuracy, balanced accuracy, R², silhouette...).
    task : {"binary", "multiclass", "regression", "clustering"}
    n_instances, n_features : array-like
        Dataset size ``N`` and number of features ``d``.
    snr : array-like, optional
        Signal-to-noise ratio; ``None`` for no SNR correction.
    imbalance_ratio : array-like, optional
        Binary only: majority / minority class size.
    acir : array-like, optional
        Multi-class only: average class imbalance ratio in (0, 1].

    Returns
    -------
    ndarray
        In [0, 1] (NaN where an input is NaN).

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024.
    """
    if task == "binary":
        return normalized_binary_metric(
            score,
            n_instances=n_instances,
            n_features=n_features,
            imbalance_ratio=imbalance_ratio,
            snr=snr,
        )
    if task == "multiclass":
        return normalized_multiclass_metric(
            score, n_instances=n_instances, n_features=n_features, acir=acir, snr=snr
        )
    if task == "regression":
        return normalized_regression_metric(
            score, n_instances=n_instances, n_features=n_features, snr=snr
        )
    if task == "clustering":
        return normalized_clustering_metric(
            score, n_instances=n_instances, n_features=n_features, snr=snr
        )
    raise InvalidInputError(f"task must be one of {TASKS}, got {task!r}")
