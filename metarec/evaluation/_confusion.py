"""Confusion-matrix metrics of Table 2 of the contingency-space paper.

Each metric exists twice:

* a scikit-learn style ``*_score(y_true, y_pred, *, confusion=None, pos_label=1)`` that takes
  labels (or a confusion matrix) and returns a float;
* a vectorised kernel in :data:`CONFUSION_METRICS` that takes the four counts as broadcastable
  arrays, used by the contingency space to evaluate a metric on a whole grid at once.

The binary matrices follow scikit-learn's layout ``[[tn, fp], [fn, tp]]`` (rows: true
negative / positive class, columns: predicted).  Where the formula printed in Table 2 of
Ahmadzadeh et al. (2022) disagrees with the metric's standard definition, the standard
definition is used and the docstring says so.

References
----------
.. [1] A. Ahmadzadeh, D. J. Kempton, P. C. Martens and R. A. Angryk, "Contingency Space: A
   Semimetric Space for Classification Evaluation", IEEE TPAMI 45(2), 2023,
   doi:10.1109/TPAMI.2022.3167007.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from metarec.evaluation._validation import (
    ConfusionCounts,
    as_1d,
    binary_confusion,
    check_confusion,
    check_same_length,
    confusion_matrix,
)

__all__ = [
    "accuracy_score",
    "balanced_accuracy_score",
    "geometric_mean_score",
    "precision_score",
    "recall_score",
    "f1_score",
    "gilbert_skill_score",
    "doolittle_skill_score",
    "heidke_skill_score",
    "true_skill_statistic",
    "youden_j_score",
    "CONFUSION_METRICS",
]


def _ratio(num: np.ndarray, den: np.ndarray, zero_division: float) -> np.ndarray:
    """``num / den`` with ``zero_division`` where ``den == 0`` (no warnings)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, float(zero_division))
    np.divide(num, den, out=out, where=den != 0)
    return out


# --------------------------------------------------------------------------- kernels
# Every kernel takes ConfusionCounts (arrays) and returns an array of the broadcast shape.


def _acc(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _ratio(c.tp + c.tn, c.total, zd)


def _tpr(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _ratio(c.tp, c.p, zd)


def _tnr(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _ratio(c.tn, c.n, zd)


def _ba(c: ConfusionCounts, zd: float) -> np.ndarray:
    return 0.5 * (_tpr(c, zd) + _tnr(c, zd))


def _gm(c: ConfusionCounts, zd: float) -> np.ndarray:
    return np.sqrt(_tpr(c, zd) * _tnr(c, zd))


def _pre(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _ratio(c.tp, c.tp + c.fp, zd)


def _f1(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, zd)


def _gss(c: ConfusionCounts, zd: float) -> np.ndarray:
    hits_random = _ratio(c.p * (c.tp + c.fp), c.total, 0.0)
    return _ratio(c.tp - hits_random, c.tp + c.fp + c.fn - hits_random, zd)


def _dss(c: ConfusionCounts, zd: float) -> np.ndarray:
    num = (c.tp * c.tn - c.fp * c.fn) ** 2
    return _ratio(num, (c.tp + c.fp) * (c.fn + c.tn) * c.p * c.n, zd)


def _hss(c: ConfusionCounts, zd: float) -> np.ndarray:
    num = 2 * (c.tp * c.tn - c.fp * c.fn)
    return _ratio(num, c.p * (c.fn + c.tn) + c.n * (c.tp + c.fp), zd)


def _tss(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _tpr(c, zd) - _ratio(c.fp, c.n, zd)


def _youden(c: ConfusionCounts, zd: float) -> np.ndarray:
    return _tpr(c, zd) + _tnr(c, zd) - 1.0


@dataclass(frozen=True)
class _MetricInfo:
    """A vectorised confusion-matrix metric, its range and a display label."""

    kernel: Callable[[ConfusionCounts, float], np.ndarray]
    low: float
    high: float
    label: str


#: name -> (kernel, lowest value, highest value, label); kernels take ConfusionCounts.
CONFUSION_METRICS: dict[str, _MetricInfo] = {
    "accuracy": _MetricInfo(_acc, 0.0, 1.0, "accuracy"),
    "balanced_accuracy": _MetricInfo(_ba, 0.0, 1.0, "balanced accuracy"),
    "geometric_mean": _MetricInfo(_gm, 0.0, 1.0, "geometric mean"),
    "precision": _MetricInfo(_pre, 0.0, 1.0, "precision"),
    "recall": _MetricInfo(_tpr, 0.0, 1.0, "recall"),
    "f1": _MetricInfo(_f1, 0.0, 1.0, "F1 score"),
    "gilbert": _MetricInfo(_gss, -1.0 / 3.0, 1.0, "Gilbert's skill score"),
    "doolittle": _MetricInfo(_dss, 0.0, 1.0, "Doolittle's skill score"),
    "heidke": _MetricInfo(_hss, -1.0, 1.0, "Heidke skill score"),
    "tss": _MetricInfo(_tss, -1.0, 1.0, "true skill statistic"),
    "youden_j": _MetricInfo(_youden, -1.0, 1.0, "Youden's J"),
}


#: The parameters every binary metric of this module shares, in its docstring.
_BINARY_PARAMETERS = """y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels (ignored when ``confusion`` is given).
    confusion : array-like of shape (2, 2), optional
        Confusion matrix ``[[tn, fp], [fn, tp]]`` (rows true class negative/positive,
        columns predicted), scikit-learn's layout.
    pos_label : label, default=1
        The positive class when labels are given.  Every other label counts as negative, but
        ``y_true`` must contain both the positive class and at least one other class."""


def _binary_docstring(func):
    """Write the shared parameters into ``func``'s docstring (its ``{binary_parameters}``)."""
    func.__doc__ = func.__doc__.replace("{binary_parameters}", _BINARY_PARAMETERS)
    return func


def _binary(y_true, y_pred, confusion, pos_label, name, zero_division) -> float:
    counts = binary_confusion(y_true, y_pred, confusion=confusion, pos_label=pos_label)
    return float(CONFUSION_METRICS[name].kernel(counts, zero_division))


# --------------------------------------------------------------------------- public scores


def accuracy_score(y_true: Any = None, y_pred: Any = None, *, confusion: Any = None) -> float:
    """Fraction of objects classified correctly, ``(tp + tn) / (p + n)``.

    Works for any number of classes: with a k x k ``confusion`` it is the trace over the sum.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted labels (ignored when ``confusion`` is given).
    confusion : array-like of shape (k, k), optional
        Confusion matrix, rows true classes and columns predicted classes.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("acc").
    """
    if confusion is not None:
        cm = check_confusion(confusion)
        return float(np.trace(cm) / cm.sum())
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    check_same_length(y_true=y_true, y_pred=y_pred)
    return float(np.mean(y_true == y_pred))


def balanced_accuracy_score(
    y_true: Any = None, y_pred: Any = None, *, confusion: Any = None
) -> float:
    """Mean per-class recall; for two classes ``(tp/p + tn/n) / 2``.

    The mean is over the classes that have true objects: a class that is only predicted
    has no recall and is left out.  With one class in ``y_true`` (a fold of leave-one-out,
    a small holdout) it is that class's recall, the share of its objects predicted right:
    the mean over the one class whose recall is defined, as scikit-learn's
    ``balanced_accuracy_score`` gives.  Labels that are non-negative integers (class codes)
    are counted directly, in linear time: a fold of a cross-validation, or a candidate of
    ensemble selection, is scored in microseconds.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels, ``n >= 1`` (ignored when ``confusion`` is given).
    confusion : array-like of shape (k, k), optional
        Confusion matrix, rows true classes and columns predicted classes; classes without
        true objects (rows of zeros) are left out of the mean.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    InvalidInputError
        No labels, labels of different lengths, or an invalid ``confusion``.

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("ba").
    .. [2] K. H. Brodersen et al., "The balanced accuracy and its posterior distribution",
       ICPR 2010.

    Examples
    --------
    >>> balanced_accuracy_score([0, 0, 0, 1], [0, 0, 1, 1])
    0.8333333333333333
    >>> balanced_accuracy_score([2, 2], [2, 0])
    0.5
    """
    if confusion is not None:
        cm = check_confusion(confusion)
        return _mean_recall(np.diag(cm), cm.sum(axis=1))
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    check_same_length(y_true=y_true, y_pred=y_pred)
    if _are_codes(y_true) and _are_codes(y_pred):
        support = np.bincount(y_true)
        hits = np.bincount(y_true[y_pred == y_true], minlength=support.size)
        return _mean_recall(hits, support)
    cm, _ = confusion_matrix(y_true, y_pred)
    return _mean_recall(np.diag(cm), cm.sum(axis=1))


def _are_codes(values: np.ndarray) -> bool:
    """Whether ``values`` are non-negative integers (``bincount`` counts them as they are)."""
    return values.dtype.kind in "iu" and (values.dtype.kind == "u" or values.min() >= 0)


def _mean_recall(hits: np.ndarray, support: np.ndarray) -> float:
    """Balanced accuracy's one kernel: the mean of ``hits / support`` where support > 0."""
    present = support > 0
    return float(np.mean(hits[present] / support[present]))


@_binary_docstring
def geometric_mean_score(
    y_true: Any = None, y_pred: Any = None, *, confusion: Any = None, pos_label: Any = 1
) -> float:
    """Geometric mean of the true-positive and true-negative rates, ``sqrt(tpr * tnr)``.

    Parameters
    ----------
    {binary_parameters}

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("gm").
    .. [2] M. Kubat and S. Matwin, "Addressing the curse of imbalanced training sets:
       one-sided selection", ICML 1997.
    """
    return _binary(y_true, y_pred, confusion, pos_label, "geometric_mean", 0.0)


@_binary_docstring
def precision_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    zero_division: float = 0.0,
) -> float:
    """Precision ``tp / (tp + fp)``; ``zero_division`` when nothing is predicted positive.

    Parameters
    ----------
    {binary_parameters}
    zero_division : float, default=0.0
        The score when ``tp + fp`` is zero.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("pre").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "precision", zero_division)


@_binary_docstring
def recall_score(
    y_true: Any = None, y_pred: Any = None, *, confusion: Any = None, pos_label: Any = 1
) -> float:
    """Recall (sensitivity, true-positive rate) ``tp / p``.

    Parameters
    ----------
    {binary_parameters}

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("rec").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "recall", 0.0)


@_binary_docstring
def f1_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    zero_division: float = 0.0,
) -> float:
    """F1 score, the harmonic mean of precision and recall, ``2 tp / (2 tp + fp + fn)``.

    Parameters
    ----------
    {binary_parameters}
    zero_division : float, default=0.0
        The score when the denominator is zero.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("f_1").
    .. [2] N. Chinchor and B. Sundheim, "MUC-5 evaluation metrics", MUC-5, 1993.
    """
    return _binary(y_true, y_pred, confusion, pos_label, "f1", zero_division)


@_binary_docstring
def gilbert_skill_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    zero_division: float = 0.0,
) -> float:
    """Gilbert's skill score (equitable threat score) ``(tp - h) / (tp + fp + fn - h)``.

    ``h = p * p' / N`` is the number of hits expected by chance.  Table 2 of the paper prints
    this term as ``r``, which elsewhere in the paper is the imbalance ratio; the standard
    definition (random hits) is used here.  Range [-1/3, 1].

    Parameters
    ----------
    {binary_parameters}
    zero_division : float, default=0.0
        The score when the denominator is zero.

    Returns
    -------
    float
        In [-1/3, 1].

    References
    ----------
    .. [1] G. K. Gilbert, "Finley's tornado predictions", Amer. Meteorol. J. 1(5), 1884.
    .. [2] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("gss").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "gilbert", zero_division)


@_binary_docstring
def doolittle_skill_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    zero_division: float = 0.0,
) -> float:
    """Doolittle's skill score ``(tp tn - fp fn)^2 / ((tp + fp)(fn + tn) p n)``.

    This is the squared phi (Matthews) coefficient, in [0, 1].  Table 2 of the paper prints the
    denominator as ``(tp + fp)(tp + fn) p n``, repeating ``tp + fn = p``; the standard
    definition uses the predicted-negative total ``fn + tn`` instead, as here.  Being a square,
    it measures the strength of the association between forecast and truth, not its sign: a
    classifier that predicts every label the wrong way round scores 1, as a perfect one does.
    Higher is better only among classifiers no worse than chance (``tp tn >= fp fn``); the
    signed coefficient is :func:`sklearn.metrics.matthews_corrcoef`.

    Parameters
    ----------
    {binary_parameters}
    zero_division : float, default=0.0
        The score when the denominator (a class predicted for no object) is zero.

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    .. [1] M. H. Doolittle, "Association ratios", Bull. Philos. Soc. Washington 7, 1888.
    .. [2] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("dss").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "doolittle", zero_division)


@_binary_docstring
def heidke_skill_score(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
    zero_division: float = 0.0,
) -> float:
    """Heidke skill score ``2 (tp tn - fp fn) / (p (fn + tn) + n (tp + fp))``, in [-1, 1].

    Accuracy relative to that of a random forecast with the same marginals; matches Table 2.

    Parameters
    ----------
    {binary_parameters}
    zero_division : float, default=0.0
        The score when the denominator is zero.

    Returns
    -------
    float
        In [-1, 1].

    References
    ----------
    .. [1] P. Heidke, "Berechnung des Erfolges und der Güte der Windstärkevorhersagen im
       Sturmwarnungsdienst", Geografiska Annaler 8, 1926.
    .. [2] C. C. Balch, "Updated verification of the Space Weather Prediction Center's solar
       energetic particle prediction model", Space Weather 6(1), 2008.
    .. [3] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("hss").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "heidke", zero_division)


@_binary_docstring
def true_skill_statistic(
    y_true: Any = None, y_pred: Any = None, *, confusion: Any = None, pos_label: Any = 1
) -> float:
    """True skill statistic (Hanssen–Kuipers discriminant) ``tp/p - fp/n``, in [-1, 1].

    Table 2 of the paper prints ``(tp/p - fp/n) / (tp/p + fp/n)``; the standard statistic,
    which the paper itself says is identical to Youden's J, has no denominator, as here.

    Parameters
    ----------
    {binary_parameters}

    Returns
    -------
    float
        In [-1, 1].

    References
    ----------
    .. [1] A. W. Hanssen and W. J. A. Kuipers, "On the relationship between the frequency of
       rain and various meteorological parameters", KNMI, 1965.
    .. [2] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("tss").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "tss", 0.0)


@_binary_docstring
def youden_j_score(
    y_true: Any = None, y_pred: Any = None, *, confusion: Any = None, pos_label: Any = 1
) -> float:
    """Youden's J index ``tpr + tnr - 1``, in [-1, 1].

    Table 2 prints ``(tp tn - fp fn) / ((tp + fn)(fp + tn))``, which is algebraically the same
    (divide by ``p n``).

    Parameters
    ----------
    {binary_parameters}

    Returns
    -------
    float
        In [-1, 1].

    References
    ----------
    .. [1] W. J. Youden, "Index for rating diagnostic tests", Cancer 3(1), 1950.
    .. [2] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Table 2 ("j").
    """
    return _binary(y_true, y_pred, confusion, pos_label, "youden_j", 0.0)
