"""Probabilistic evaluation: losses of probability outputs and the accuracy interval.

A classifier that outputs a probability vector ``p = (p_1, ..., p_k)`` for an object whose
actual class is ``i`` (one-hot vector ``a``) incurs

* quadratic loss ``sum_j (p_j - a_j)^2`` (the multi-class Brier score), in [0, 2];
* informational loss ``-log2 p_i``, the number of bits needed to communicate the actual class
  with a code optimal for ``p``, in [0, inf].

The accuracy measured on ``n`` test objects is an estimate of a binomial success rate;
:func:`accuracy_confidence_interval` gives its Wilson score interval.

The text the project follows sums the per-object losses over the test set; these functions
return the mean by default (comparable across test-set sizes, like scikit-learn's
``log_loss``) and the sum with ``normalize=False``.

References
----------
.. [1] I. H. Witten, E. Frank and M. A. Hall, "Data Mining: Practical Machine Learning Tools
   and Techniques", 3rd ed., Morgan Kaufmann, 2011, Sect. 5.6 "Predicting probabilities".
.. [2] G. W. Brier, "Verification of forecasts expressed in terms of probability", Monthly
   Weather Review 78(1), 1950.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from metarec.evaluation._validation import as_1d, check_probabilities, check_same_length
from metarec.exceptions import InvalidInputError

__all__ = [
    "quadratic_loss",
    "informational_loss",
    "one_hot",
    "AccuracyInterval",
    "accuracy_confidence_interval",
]


def _prepare(y_true: Any, proba: Any, labels: Sequence | None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(proba (n, k), one-hot actual classes (n, k))`` after validation."""
    y = as_1d(y_true, "y_true")
    p = np.asarray(proba, dtype=float)
    if p.ndim == 1:  # binary: probability of the second (positive) label
        if np.any(p < 0) or np.any(p > 1) or not np.all(np.isfinite(p)):
            raise InvalidInputError("proba has values outside [0, 1] or not finite")
        p = np.column_stack([1.0 - p, p])
    p = check_probabilities(p, "proba")
    check_same_length(y_true=y, proba=p)
    if labels is None:
        classes = np.unique(y)
        if len(classes) != p.shape[1]:
            raise InvalidInputError(
                f"proba has {p.shape[1]} columns but y_true holds {len(classes)} classes "
                f"{classes.tolist()!r}; pass labels= to give the column order"
            )
    else:
        classes = as_1d(labels, "labels")
        if len(classes) != p.shape[1]:
            raise InvalidInputError(
                f"labels has {len(classes)} entries but proba has {p.shape[1]} columns"
            )
    return p, one_hot(y, classes)


def one_hot(y_true: Any, classes: Sequence) -> np.ndarray:
    """Return the (n, k) indicator matrix of ``y_true`` over ``classes``.

    Raises when ``y_true`` holds a label that is not in ``classes``.
    """
    y = as_1d(y_true, "y_true")
    classes = np.asarray(classes)
    a = (y[:, None] == classes[None, :]).astype(float)
    unknown = a.sum(axis=1) == 0
    if np.any(unknown):
        raise InvalidInputError(
            f"y_true holds labels not among the proba columns {classes.tolist()!r}: "
            f"{np.unique(y[unknown]).tolist()!r}"
        )
    return a


def quadratic_loss(
    y_true: Any, proba: Any, *, labels: Sequence | None = None, normalize: bool = True
) -> float:
    """Quadratic loss ``sum_j (p_j - a_j)^2`` of probability predictions; lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Actual classes.
    proba : array-like of shape (n, k) or (n,)
        Predicted class probabilities, columns in the order of ``labels`` (sorted classes of
        ``y_true`` by default); rows must sum to 1.  A 1-D array is the probability of the
        second class of a binary problem.
    labels : sequence, optional
        Class of each column.
    normalize : bool, default=True
        Mean over objects; ``False`` returns the sum, as in the text.

    Returns
    -------
    float
        Per object in [0, 2].

    References
    ----------
    .. [1] Witten, Frank and Hall, "Data Mining", 3rd ed., 2011, Sect. 5.6.
    .. [2] G. W. Brier, Monthly Weather Review 78(1), 1950.
    """
    p, a = _prepare(y_true, proba, labels)
    per_object = np.sum((p - a) ** 2, axis=1)
    return float(per_object.mean() if normalize else per_object.sum())


def informational_loss(
    y_true: Any,
    proba: Any,
    *,
    labels: Sequence | None = None,
    normalize: bool = True,
    eps: float = 1e-15,
) -> float:
    """Informational loss ``-log2 p_i`` (bits) of the probability given to the actual class.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    proba : array-like of shape (n, k) or (n,)
        As in :func:`quadratic_loss`.
    labels : sequence, optional
    normalize : bool, default=True
        Mean over objects; ``False`` returns the sum.
    eps : float, default=1e-15
        Probabilities of the actual class are clipped to at least ``eps`` so that one
        confident mistake costs ``-log2(eps)`` (about 50 bits) instead of infinity.  ``eps=0``
        gives the exact value, ``inf`` when an actual class got probability 0.

    Returns
    -------
    float
        Bits per object (or in total), >= 0.  Equals scikit-learn's ``log_loss / ln 2``.

    References
    ----------
    .. [1] Witten, Frank and Hall, "Data Mining", 3rd ed., 2011, Sect. 5.6.
    .. [2] I. J. Good, "Rational decisions", J. Royal Statistical Society B 14(1), 1952.
    """
    if not 0.0 <= eps < 1.0:
        raise InvalidInputError(f"eps must be in [0, 1), got {eps!r}")
    p, a = _prepare(y_true, proba, labels)
    p_true = np.sum(p * a, axis=1)
    p_true = np.maximum(p_true, eps)
    with np.errstate(divide="ignore"):
        per_object = -np.log2(p_true)
    return float(per_object.mean() if normalize else per_object.sum())


# --------------------------------------------------------------------------- accuracy interval


@dataclass(frozen=True)
class AccuracyInterval:
    """Observed accuracy and a confidence interval for the true success rate.

    Parameters
    ----------
    accuracy : float
        Observed success rate, in [0, 1].
    low, high : float
        Bounds of the Wilson score interval.
    n : int
        Number of test objects.
    confidence : float
        Confidence level of the interval, in (0, 1).
    """

    accuracy: float
    low: float
    high: float
    n: int
    confidence: float


def accuracy_confidence_interval(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confidence: float = 0.95,
    accuracy: float | None = None,
    n: int | None = None,
) -> AccuracyInterval:
    """Accuracy with the Wilson score interval for the true success rate.

    Treats the ``n`` test objects as Bernoulli trials with observed success rate ``f`` and
    returns ``(f + z²/2n ± z sqrt(f/n - f²/n + z²/4n²)) / (1 + z²/n)`` with ``z`` the
    two-sided normal quantile of ``confidence``.  Give either labels or ``accuracy`` and
    ``n``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
    confidence : float, default=0.95
        In (0, 1).
    accuracy : float, optional
        Observed success rate, used with ``n`` instead of labels.
    n : int, optional
        Number of test objects.

    Returns
    -------
    AccuracyInterval

    References
    ----------
    .. [1] I. H. Witten, E. Frank and M. A. Hall, "Data Mining: Practical Machine Learning
       Tools and Techniques", 3rd ed., Morgan Kaufmann, 2011, Sect. 5.2 (e.g. f = 75 %,
       n = 1000, 80 % confidence gives [73.2 %, 76.7 %]).
    .. [2] E. B. Wilson, "Probable inference, the law of succession, and statistical
       inference", JASA 22(158), 1927.
    """
    if not 0.0 < confidence < 1.0:
        raise InvalidInputError(f"confidence must be in (0, 1), got {confidence!r}")
    if accuracy is None:
        y_true = as_1d(y_true, "y_true")
        y_pred = as_1d(y_pred, "y_pred")
        check_same_length(y_true=y_true, y_pred=y_pred)
        f = float(np.mean(y_true == y_pred))
        n_obj = len(y_true)
    else:
        if n is None or int(n) < 1:
            raise InvalidInputError(f"n must be a positive count with accuracy, got {n!r}")
        if not 0.0 <= accuracy <= 1.0:
            raise InvalidInputError(f"accuracy must be in [0, 1], got {accuracy!r}")
        f, n_obj = float(accuracy), int(n)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    z2 = z * z
    centre = f + z2 / (2 * n_obj)
    half = z * np.sqrt(f / n_obj - f * f / n_obj + z2 / (4 * n_obj * n_obj))
    den = 1 + z2 / n_obj
    return AccuracyInterval(
        accuracy=f,
        low=float((centre - half) / den),
        high=float((centre + half) / den),
        n=n_obj,
        confidence=float(confidence),
    )
