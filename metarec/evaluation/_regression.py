"""Scores of a regressor's predictions: RMSE, MAE, R² and the success rate the rankers use.

A ranking of algorithms across datasets needs one score per run that means the same thing on
every dataset, lies in [0, 1] and is higher for better predictions, as accuracy does for
classification.  Errors in the target's unit (RMSE, MAE) are not comparable across datasets;
the coefficient of determination is: ``R² = 1 - SSE / SST``, the share of the target's
variance (around the mean of the evaluated rows) that the predictions explain.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["r2_score", "regression_success_score", "regression_scores", "CONSTANT_TARGET_RTOL"]

#: A constant target's prediction counts as exact when every value is within this share of
#: the target (floating-point rounding: an average of exact predictions, ``(c + c + c) / 3``,
#: may differ from ``c`` in the last digit).
CONSTANT_TARGET_RTOL = 1e-12


def _pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    from metarec.exceptions import InvalidInputError

    y_true = np.asarray(y_true, dtype=float).ravel()
    y_pred = np.asarray(y_pred, dtype=float).ravel()
    if y_true.shape != y_pred.shape:
        raise InvalidInputError(f"y_true has {y_true.size} values but y_pred has {y_pred.size}")
    if y_true.size == 0:
        raise InvalidInputError("no values to score")
    if not (np.all(np.isfinite(y_true)) and np.all(np.isfinite(y_pred))):
        raise InvalidInputError("regression scores need finite values (NaN or inf found)")
    return y_true, y_pred


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """R² of validated arrays (see :func:`r2_score`)."""
    sst = float(np.sum((y_true - y_true.mean()) ** 2))
    if sst == 0.0 or y_true.min() == y_true.max():  # a constant target: nothing to explain
        exact = np.allclose(y_pred, y_true, rtol=CONSTANT_TARGET_RTOL, atol=0.0)
        return 1.0 if exact else 0.0
    sse = float(np.sum((y_true - y_pred) ** 2))
    return 1.0 - sse / sst


def r2_score(y_true: Any, y_pred: Any) -> float:
    """The coefficient of determination ``R² = 1 - Σ(y - ŷ)² / Σ(y - ȳ)²``.

    The share of the variance of the evaluated rows' target (around their mean ``ȳ``) that
    the predictions explain: 1 for a perfect prediction, 0 for the constant ``ȳ``, negative
    for a prediction worse than it (no lower bound).

    A constant target (every ``y`` equal, ``Σ(y - ȳ)² = 0``) leaves the ratio undefined.
    Then R² is **1 when the prediction is exact** (every ``ŷ`` equal to the target up to
    rounding: within a relative :data:`CONSTANT_TARGET_RTOL`) **and 0 otherwise**.  The
    reason: a perfect prediction scores 1 on every target, so an exact model never ranks
    below an inexact one; and an error on a target without variance explains none of it,
    which is the "explains nothing" floor, not a large negative number (the ratio's limit
    is -inf, which would let one fold of a constant target decide a mean over folds).  This
    is the value of scikit-learn's ``r2_score`` (``force_finite=True``) but for the
    tolerance, which lets an average of exact predictions count as exact.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Observed and predicted targets, finite.

    Returns
    -------
    float
        At most 1.

    Raises
    ------
    InvalidInputError
        Different lengths, no values, or a NaN or infinite value.

    References
    ----------
    .. [1] Kvålseth, T. O. (1985). Cautionary note about R². The American Statistician 39(4).

    Examples
    --------
    >>> r2_score([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])
    0.75
    >>> r2_score([1.0, 2.0, 3.0], [3.0, 3.0, 3.0])
    -1.5
    >>> r2_score([4.0, 4.0], [4.0, 4.0]), r2_score([4.0, 4.0], [4.0, 4.5])
    (1.0, 0.0)
    """
    return _r2(*_pair(y_true, y_pred))


def regression_success_score(y_true: Any, y_pred: Any) -> float:
    """Success rate of a regressor in [0, 1]: ``max(0, R²)``.

    ``R² = 1 - Σ(y - ŷ)² / Σ(y - ȳ)²`` over the evaluated rows, with ``ȳ`` their mean.  It is
    1 for a perfect prediction and 0 for a constant prediction equal to ``ȳ``; a constant
    fitted elsewhere (the training mean of a cross-validation fold) scores slightly below 0,
    and so does any prediction worse than the mean, which the clip sets to 0: "explains
    nothing" is the floor, as chance-level accuracy is for a classifier.

    Why R² and not ``1 - RMSE / RMSE of the mean``: both are scale-free (the same on a price
    in dollars or in cents), 1 when perfect and 0 at the mean predictor, but R² is the score
    the normalized metric is defined on for regression [1]_ and the one people read, and its
    differences ("2 points of R²") are the unit of the losses in metarec's evaluation tables.
    When the evaluated rows have a constant target, R² is 1 for an exact prediction and 0
    otherwise (``Σ(y - ȳ)² = 0``; see :func:`r2_score`).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Observed and predicted targets, finite.

    Returns
    -------
    float

    Raises
    ------
    InvalidInputError
        Different lengths, no values, or a NaN or infinite value.

    References
    ----------
    .. [1] Dataset-adaptive normalized metric, arXiv:2412.07244, 2024: the regression form
           ``clip(R² f g, 0, 1)`` of the normalized metric.
    .. [2] Kvålseth, T. O. (1985). Cautionary note about R². The American Statistician 39(4).

    Examples
    --------
    >>> regression_success_score([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    >>> regression_success_score([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])
    0.0
    >>> regression_success_score([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])
    0.75
    """
    return max(0.0, _r2(*_pair(y_true, y_pred)))


def regression_scores(y_true: Any, y_pred: Any) -> dict[str, float]:
    """RMSE, MAE and R² (unclipped) of one set of predictions.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Observed and predicted targets, finite.

    Returns
    -------
    dict
        ``{"rmse": ..., "mae": ..., "r2": ...}``; RMSE and MAE in the target's unit.

    References
    ----------
    .. [1] Hyndman, R. J., Koehler, A. B. (2006). Another look at measures of forecast
           accuracy. International Journal of Forecasting 22(4).

    Examples
    --------
    >>> regression_scores([0.0, 0.0, 3.0, 1.0], [1.0, 0.0, 1.0, 1.0])
    {'rmse': 1.118033988749895, 'mae': 0.75, 'r2': 0.16666666666666663}
    """
    y_true, y_pred = _pair(y_true, y_pred)
    residual = y_true - y_pred
    return {
        "rmse": float(np.sqrt(np.mean(residual**2))),
        "mae": float(np.mean(np.abs(residual))),
        "r2": _r2(y_true, y_pred),
    }
