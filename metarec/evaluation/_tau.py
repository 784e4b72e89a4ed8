"""Tau, weighted Tau, multi-class Tau and weighted multi-class Tau.

Tau scores a classifier by the Euclidean distance between its model point and the perfect
model point in the base contingency space (Ahmadzadeh et al., 2023, Defs. 5.4, 5.5, 5.7,
5.8).  A binary model point is ``(tnr, tpr)``; a k-class model point is the vector of the k
per-class true-positive rates (recalls), and the perfect point is ``(1, ..., 1)``:

* Tau (Def. 5.4): ``tau = 1 - d(p, perfect) / sqrt(2)``
* weighted Tau (Def. 5.5): ``v - v / sqrt(2) * sqrt(w_x (1 - tnr)^2 + w_y (1 - tpr)^2)``
* multi-class Tau (Def. 5.7): ``1 - d(p, perfect) / sqrt(k)``
* weighted multi-class Tau (Def. 5.8): ``v - v / sqrt(k) * sqrt(sum_i w_i (1 - tpr_i)^2)``

For two classes the per-class recalls are ``(tnr, tpr)``, so Def. 5.7 with k = 2 equals
Def. 5.4: :func:`tau_score` therefore accepts any number of classes.  Tau depends only on
per-class rates, never on class sizes, which makes it imbalance agnostic (Def. 5.2).

References
----------
.. [1] A. Ahmadzadeh, D. J. Kempton, P. C. Martens and R. A. Angryk, "Contingency Space: A
   Semimetric Space for Classification Evaluation", IEEE TPAMI 45(2), 2023,
   doi:10.1109/TPAMI.2022.3167007.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metarec.evaluation._validation import (
    binary_confusion,
    check_confusion,
    confusion_matrix,
)
from metarec.exceptions import InvalidInputError

__all__ = [
    "tau_from_rates",
    "weighted_tau_from_rates",
    "tau_score",
    "weighted_tau_score",
    "multiclass_tau_score",
    "weighted_multiclass_tau_score",
    "per_class_recall",
]

_SQRT2 = np.sqrt(2.0)


def tau_from_rates(tnr: Any, tpr: Any) -> np.ndarray:
    """Tau of binary model points ``(tnr, tpr)`` (Def. 5.4), vectorised.

    Parameters
    ----------
    tnr, tpr : array-like
        True-negative and true-positive rates in [0, 1]; broadcast together.

    Returns
    -------
    ndarray
        ``1 - sqrt((1 - tnr)^2 + (1 - tpr)^2) / sqrt(2)``, in [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.4.
    """
    return weighted_tau_from_rates(tnr, tpr)


def weighted_tau_from_rates(
    tnr: Any, tpr: Any, *, v: float = 1.0, omega: Sequence[float] = (1.0, 1.0)
) -> np.ndarray:
    """Weighted Tau of binary model points ``(tnr, tpr)`` (Def. 5.5), vectorised.

    ``v - v / sqrt(2) * sqrt(omega_x (1 - tnr)^2 + omega_y (1 - tpr)^2)``.  With ``v = 1``
    and ``omega = (1, 1)`` this is Tau.  ``omega_x`` weighs the negative-class axis (tnr) and
    ``omega_y`` the positive-class axis (tpr): when a miss costs k times a false alarm the
    paper suggests ``omega_x = k``.

    Parameters
    ----------
    tnr, tpr : array-like
        True-negative and true-positive rates in [0, 1], broadcastable.
    v : float, default=1.0
        Magnification of the score.
    omega : (float, float), default=(1, 1)
        ``(omega_x, omega_y)``: non-negative weights of the tnr (x) and tpr (y) axes.

    Returns
    -------
    ndarray
        Of the broadcast shape of ``tnr`` and ``tpr``; in [0, v] when both weights are 1.

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.5 and Fig. 8.
    """
    wx, wy = _check_omega(omega, 2)
    tnr = np.asarray(tnr, dtype=float)
    tpr = np.asarray(tpr, dtype=float)
    d = np.sqrt(wx * (1.0 - tnr) ** 2 + wy * (1.0 - tpr) ** 2)
    return v - v / _SQRT2 * d


def _check_omega(omega: Any, k: int) -> np.ndarray:
    w = np.asarray(omega, dtype=float)
    if w.ndim != 1 or len(w) != k:
        raise InvalidInputError(f"omega must hold {k} weights, one per class, got {omega!r}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidInputError(f"omega must be finite and non-negative, got {omega!r}")
    return w


def _recalls(
    y_true: Any, y_pred: Any, confusion: Any, labels: Sequence | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(recalls of present classes, present mask over rows, row classes)``."""
    if confusion is not None:
        cm = check_confusion(confusion)
        classes = np.arange(cm.shape[0]) if labels is None else np.asarray(labels)
        if len(classes) != cm.shape[0]:
            raise InvalidInputError(
                f"labels has {len(classes)} entries but confusion has {cm.shape[0]} rows"
            )
    else:
        cm, classes = confusion_matrix(y_true, y_pred, labels=labels)
        cm = cm.astype(float)
    support = cm.sum(axis=1)
    present = support > 0
    if present.sum() < 2:
        raise InvalidInputError(
            f"Tau needs at least two classes among the true labels, got {int(present.sum())}"
        )
    return np.diag(cm)[present] / support[present], present, np.asarray(classes)


def per_class_recall(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    labels: Sequence | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(recalls, classes)``: the true-positive rate of every class with true objects.

    Only classes with at least one true object are dimensions of the multi-class base
    contingency space (their recall is defined).  A class that appears only among the
    predictions, or is listed in ``labels`` but absent from ``y_true`` (a rare class missing
    from one cross-validation fold), is dropped; predictions of it count as errors of the
    true classes.  At least two classes with true objects are required.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels (ignored when ``confusion`` is given).
    confusion : array-like of shape (k, k), optional
        Confusion matrix, rows true classes, columns predicted classes.
    labels : sequence, optional
        Class order: of the rows of ``confusion`` (positions ``0..k-1`` by default), or of
        the classes of ``y_true`` and ``y_pred`` (sorted labels by default).

    Returns
    -------
    recalls : ndarray of shape (m,)
        Recall of each class with true objects, in [0, 1].
    classes : ndarray of shape (m,)
        Those classes, in the class order (row positions for a ``confusion`` without
        ``labels``).
    """
    recalls, present, classes = _recalls(y_true, y_pred, confusion, labels)
    return recalls, classes[present]


def tau_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    labels: Sequence | None = None,
) -> float:
    """Tau: one minus the normalised distance to the perfect model point.

    For two classes this is Def. 5.4, ``1 - d((tnr, tpr), (1, 1)) / sqrt(2)``; for k classes
    it is Def. 5.7, ``1 - d(p, 1) / sqrt(k)`` with ``p`` the per-class recalls.  (Def. 5.7 with
    k = 2 is Def. 5.4.)  Higher is better, 1 is perfect, 0 means every class is missed.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels (ignored when ``confusion`` is given).
    confusion : array-like of shape (k, k), optional
        Confusion matrix, rows true classes, columns predicted classes.
    labels : sequence, optional
        Class order; listed classes without true objects are left out (see
        :func:`per_class_recall`).

    Returns
    -------
    float

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Defs. 5.4 and 5.7.
    """
    recalls, _ = per_class_recall(y_true, y_pred, confusion=confusion, labels=labels)
    k = len(recalls)
    return float(1.0 - np.sqrt(np.sum((1.0 - recalls) ** 2)) / np.sqrt(k))


def weighted_tau_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    v: float = 1.0,
    omega: Sequence[float] = (1.0, 1.0),
) -> float:
    """Binary weighted Tau (Def. 5.5).

    ``v - v / sqrt(2) * sqrt(omega[0] (1 - tnr)^2 + omega[1] (1 - tpr)^2)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
    confusion : array-like of shape (2, 2), optional
        ``[[tn, fp], [fn, tp]]``.
    pos_label : label, default=1
    v : float, default=1.0
        Magnification of the score.
    omega : (float, float), default=(1, 1)
        ``(omega_x, omega_y)``: weights of the tnr (x) and tpr (y) axes.

    Returns
    -------
    float

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.5.
    """
    c = binary_confusion(y_true, y_pred, confusion=confusion, pos_label=pos_label)
    tpr = c.tp / c.p
    tnr = c.tn / c.n
    return float(weighted_tau_from_rates(tnr, tpr, v=v, omega=omega))


def multiclass_tau_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    labels: Sequence | None = None,
) -> float:
    """Multi-class Tau (Def. 5.7): ``1 - ||1 - recalls|| / sqrt(k)``.

    Identical to :func:`tau_score`, which already handles k >= 2; kept as the name of the
    paper's definition.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels (ignored when ``confusion`` is given).
    confusion : array-like of shape (k, k), optional
        Confusion matrix, rows true classes, columns predicted classes.
    labels : sequence, optional
        Class order: of the rows of ``confusion`` (positions ``0..k-1`` by default), or of
        the classes of ``y_true`` and ``y_pred`` (sorted labels by default).

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Defs. 5.6 and 5.7.
    """
    return tau_score(y_true, y_pred, confusion=confusion, labels=labels)


def weighted_multiclass_tau_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    labels: Sequence | None = None,
    v: float = 1.0,
    omega: Sequence[float] | None = None,
) -> float:
    """Weighted multi-class Tau (Def. 5.8).

    ``v - v / sqrt(k) * sqrt(sum_i omega_i (1 - tpr_i)^2)`` where ``tpr_i`` is the recall of
    class i, in the order of ``labels`` (sorted class labels by default).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
    confusion : array-like of shape (k, k), optional
    labels : sequence, optional
        Class order for ``omega``.
    v : float, default=1.0
    omega : sequence of floats, optional
        Per-class weights, one per entry of ``labels`` (or per row of ``confusion``, or, with
        neither, per class present in ``y_true`` in sorted order); weights of classes without
        true objects are ignored.  All ones by default, in which case the score is ``v``
        times multi-class Tau.

    Returns
    -------
    float

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.8.
    """
    recalls, present, classes = _recalls(y_true, y_pred, confusion, labels)
    k = len(recalls)
    if omega is None:
        w = np.ones(k)
    elif labels is None and confusion is None:
        w = _check_omega(omega, k)  # aligned with the sorted classes present in y_true
    else:
        w = _check_omega(omega, len(classes))[present]  # aligned with labels / matrix rows
    d = np.sqrt(np.sum(w * (1.0 - recalls) ** 2))
    return float(v - v / np.sqrt(k) * d)
