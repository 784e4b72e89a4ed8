"""NoSimple: evaluating classifiers without the objects every classifier gets right.

A *local simple object* of a score-based binary classifier ``d`` (Rahardja and Fränti, Eq. 1)
is an object whose score is strictly below the score of every positive object, or strictly
above the score of every negative object.  With the strict inequalities an object is never
compared with itself, so in practice these are the negatives scored below the lowest-scored
positive and the positives scored above the highest-scored negative: objects that ``d``
classifies correctly at *every* threshold that does not misclassify its extreme cases.

The *standard simple objects* of a set of classifiers D (Eq. 2) are the objects that are
local simple objects of every ``d`` in D (the intersection).  NoSimple (Algorithm 1) removes
the standard simple objects and evaluates every classifier with any metric on the rest.
Simple objects push ROC AUC towards 1 for good and bad classifiers alike; removing them keeps
classifiers apart (the paper's Fig. 1).

Two consequences of the definitions used below, and how they are handled:

* After removing the standard simple objects, either both classes remain or nothing remains
  (a positive that is not simple for some ``d`` has a negative scored at least as high, which
  is not simple for ``d`` either).  Nothing remains exactly when every classifier separates
  the classes perfectly; the NoSimple AUC is then 1 for every classifier.
* Classifiers whose scores contain NaN or infinity (a failed run) take no part in finding the
  simple objects and get a NaN result.

References
----------
.. [1] S. Rahardja and P. Fränti, "NoSimple: Data Bias Evaluation Metrics", University of
   Eastern Finland.
.. [2] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
   2006.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from metarec.evaluation._validation import as_1d
from metarec.exceptions import InvalidInputError

__all__ = [
    "local_simple_objects",
    "standard_simple_objects",
    "nosimple_score",
    "nosimple_roc_auc_score",
    "roc_auc_columns",
    "SimpleObjectsEffect",
    "simple_objects_effect",
]


def _binary_target(y_true: Any, pos_label: Any) -> np.ndarray:
    """Return a boolean positive mask, requiring both classes."""
    y = as_1d(y_true, "y_true")
    classes = np.unique(y)
    if pos_label is None:
        if len(classes) != 2:
            raise InvalidInputError(
                f"y_true must hold exactly two classes for a binary evaluation, got "
                f"{classes.tolist()!r}; give pos_label to choose the positive class"
            )
        pos_label = classes[1].item()  # a plain value, for messages
    positive = y == pos_label
    if positive.all() or not positive.any():
        raise InvalidInputError(
            f"y_true must contain both positive ({pos_label!r}) and negative objects; "
            f"classes present: {classes.tolist()!r}"
        )
    return positive


def _scores_2d(scores: Any, n: int) -> np.ndarray:
    s = np.asarray(scores, dtype=float)
    if s.ndim == 1:
        s = s[:, None]
    if s.ndim != 2:
        raise InvalidInputError(f"scores must have shape (n_objects, n_classifiers), got {s.shape}")
    if s.shape[0] != n:
        raise InvalidInputError(
            f"mismatched lengths: y_true has {n} objects, scores has {s.shape[0]} rows"
        )
    if s.shape[1] == 0:
        raise InvalidInputError("scores has no classifier column")
    return s


def _local(positive: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Local simple objects (Eq. 1) for every column of ``s``; NaN columns are all False."""
    with np.errstate(invalid="ignore"):
        min_pos = np.min(s[positive], axis=0)  # lowest score of a positive, per classifier
        max_neg = np.max(s[~positive], axis=0)  # highest score of a negative
        simple = (s < min_pos[None, :]) | (s > max_neg[None, :])
    valid = np.all(np.isfinite(s), axis=0)
    simple[:, ~valid] = False
    return simple


def local_simple_objects(y_true: Any, scores: Any, *, pos_label: Any = None) -> np.ndarray:
    """Local simple objects of every classifier (Eq. 1).

    Parameters
    ----------
    y_true : array-like of shape (n_objects,)
        Binary labels.
    scores : array-like of shape (n_objects, n_classifiers) or (n_objects,)
        Scores, higher meaning more likely positive.
    pos_label : label, optional
        The positive class; by default the larger of the two labels.

    Returns
    -------
    ndarray of bool, shape (n_objects, n_classifiers)
        ``True`` where the object is a local simple object of that classifier.  A classifier
        with a non-finite score has no simple objects.

    References
    ----------
    .. [1] Rahardja and Fränti, "NoSimple: Data Bias Evaluation Metrics", Eq. (1).
    """
    positive = _binary_target(y_true, pos_label)
    return _local(positive, _scores_2d(scores, len(positive)))


def standard_simple_objects(y_true: Any, scores: Any, *, pos_label: Any = None) -> np.ndarray:
    """Standard simple objects: local simple objects of every (valid) classifier (Eq. 2).

    Parameters
    ----------
    y_true : array-like of shape (n_objects,)
        Binary labels.
    scores : array-like of shape (n_objects, n_classifiers) or (n_objects,)
        Scores, higher meaning more likely positive.  Classifiers with a non-finite score
        are left out.
    pos_label : label, optional
        The positive class; by default the larger of the two labels.

    Returns
    -------
    ndarray of bool, shape (n_objects,)
        All ``False`` when no classifier has finite scores.

    References
    ----------
    .. [1] Rahardja and Fränti, "NoSimple: Data Bias Evaluation Metrics", Eq. (2).
    """
    positive = _binary_target(y_true, pos_label)
    s = _scores_2d(scores, len(positive))
    return _standard(positive, s)


def _standard(positive: np.ndarray, s: np.ndarray) -> np.ndarray:
    valid = np.all(np.isfinite(s), axis=0)
    if not valid.any():
        return np.zeros(len(positive), dtype=bool)
    return np.all(_local(positive, s[:, valid]), axis=1)


def roc_auc_columns(positive: Any, scores: Any) -> np.ndarray:
    """ROC AUC of every column of ``scores`` (Mann–Whitney statistic, ties count 1/2).

    Parameters
    ----------
    positive : array-like of bool, shape (n,)
        Positive-class mask with both classes present.
    scores : array-like of shape (n, m)

    Returns
    -------
    ndarray of shape (m,)
        NaN for columns with a non-finite score.

    References
    ----------
    .. [1] T. Fawcett, Pattern Recognition Letters 27(8), 2006.
    .. [2] Rahardja and Fränti, Eq. (4), with ties counted 1/2 as usual.
    """
    from scipy.stats import rankdata

    pos = np.asarray(positive, dtype=bool)
    s = np.asarray(scores, dtype=float)
    n_pos = int(pos.sum())
    n_neg = len(pos) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise InvalidInputError("ROC AUC needs both positive and negative objects")
    valid = np.all(np.isfinite(s), axis=0)
    out = np.full(s.shape[1], np.nan)
    if valid.any():
        ranks = rankdata(s[:, valid], axis=0)
        rank_sum = ranks[pos].sum(axis=0)
        out[valid] = (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
    return out


def nosimple_score(
    y_true: Any,
    scores: Any,
    metric: Callable[[np.ndarray, np.ndarray], float],
    *,
    pos_label: Any = None,
    empty_value: float = 1.0,
) -> np.ndarray:
    """Evaluate every classifier with ``metric`` after removing the standard simple objects.

    Parameters
    ----------
    y_true : array-like of shape (n_objects,)
        Binary labels.
    scores : array-like of shape (n_objects, n_classifiers)
    metric : callable ``metric(y_true_kept, scores_kept) -> float``
        Called once per classifier with the kept labels and that classifier's kept scores
        (for instance :func:`sklearn.metrics.roc_auc_score`, or a thresholded F1).
    pos_label : label, optional
    empty_value : float, default=1.0
        Result when every object is simple (every classifier is perfect).

    Returns
    -------
    ndarray of shape (n_classifiers,)
        NaN for classifiers with non-finite scores.

    References
    ----------
    .. [1] Rahardja and Fränti, "NoSimple: Data Bias Evaluation Metrics", Algorithm 1.
    """
    y = as_1d(y_true, "y_true")
    positive = _binary_target(y, pos_label)
    s = _scores_2d(scores, len(y))
    keep = ~_standard(positive, s)
    valid = np.all(np.isfinite(s), axis=0)
    out = np.full(s.shape[1], np.nan)
    if not keep.any():
        out[valid] = empty_value
        return out
    for j in np.flatnonzero(valid):
        out[j] = float(metric(y[keep], s[keep, j]))
    return out


def _nosimple_auc_binary(positive: np.ndarray, s: np.ndarray) -> np.ndarray:
    keep = ~_standard(positive, s)
    valid = np.all(np.isfinite(s), axis=0)
    if not keep.any():
        out = np.full(s.shape[1], np.nan)
        out[valid] = 1.0
        return out
    return roc_auc_columns(positive[keep], s[keep])


def nosimple_roc_auc_score(
    y_true: Any,
    scores: Any,
    *,
    labels: Sequence | None = None,
    pos_label: Any = None,
) -> np.ndarray:
    """NoSimple ROC AUC of several classifiers scored on the same objects.

    Binary: the standard simple objects of all classifiers (Eqs. 1–2) are removed and the
    ROC AUC of each classifier is computed on the remaining objects.  Multi-class: macro
    one-vs-rest — for each class c, the problem "c against the rest" with the scores of
    column c gets its own standard simple objects and NoSimple AUC, and the per-class AUCs
    are averaged with equal weight over the classes present in ``y_true`` (a class listed
    in ``labels`` but absent, as a rare class in one fold, has no AUC and is left out).

    Parameters
    ----------
    y_true : array-like of shape (n_objects,)
        Labels.
    scores : array-like
        ``(n_objects, n_classifiers)`` for binary problems (score of the positive class) or
        ``(n_objects, n_classifiers, n_classes)`` for multi-class problems (class
        probabilities or scores, last axis in the order of ``labels``).
    labels : sequence, optional
        Multi-class only: class of each score column; sorted classes of ``y_true`` by default.
    pos_label : label, optional
        Binary only: positive class; by default the larger of the two labels.

    Returns
    -------
    ndarray of shape (n_classifiers,)
        One AUC per classifier, 1.0 when every object is simple (all classifiers perfect),
        NaN for a classifier with a non-finite score.

    References
    ----------
    .. [1] Rahardja and Fränti, "NoSimple: Data Bias Evaluation Metrics", Algorithm 1.
    .. [2] D. J. Hand and R. J. Till, "A simple generalisation of the area under the ROC
       curve for multiple class classification problems", Machine Learning 45(2), 2001
       (one-vs-rest averaging).
    """
    y = as_1d(y_true, "y_true")
    s = np.asarray(scores, dtype=float)
    if s.ndim in (1, 2):
        positive = _binary_target(y, pos_label)
        return _nosimple_auc_binary(positive, _scores_2d(s, len(y)))
    if s.ndim != 3:
        raise InvalidInputError(
            "scores must have shape (n_objects, n_classifiers) or "
            f"(n_objects, n_classifiers, n_classes), got {s.shape}"
        )
    if s.shape[0] != len(y):
        raise InvalidInputError(
            f"mismatched lengths: y_true has {len(y)} objects, scores has {s.shape[0]} rows"
        )
    classes = np.unique(y) if labels is None else as_1d(labels, "labels")
    if len(classes) != s.shape[2]:
        raise InvalidInputError(
            f"scores has {s.shape[2]} class columns but there are {len(classes)} classes "
            f"{classes.tolist()!r}; pass labels= to give the column order"
        )
    if len(classes) < 2:
        raise InvalidInputError("a multi-class evaluation needs at least two classes")
    unknown = np.setdiff1d(y, classes)
    if unknown.size:
        raise InvalidInputError(f"y_true holds labels not in labels: {unknown.tolist()!r}")
    present = [c for c, label in enumerate(classes) if np.any(y == label)]
    if len(present) < 2:
        raise InvalidInputError(
            f"y_true must hold at least two classes, got {np.unique(y).tolist()!r}"
        )
    valid = np.all(np.isfinite(s), axis=(0, 2))
    per_class = np.empty((len(present), s.shape[1]))
    for row, c in enumerate(present):  # loop over classes only, classifiers vectorised
        sc = s[:, :, c].copy()
        sc[:, ~valid] = np.nan  # a classifier failing on one class takes no part at all
        per_class[row] = _nosimple_auc_binary(y == classes[c], sc)
    return per_class.mean(axis=0)


@dataclass(frozen=True)
class SimpleObjectsEffect:
    """Plain and NoSimple ROC AUC as simple objects are added (the paper's Fig. 1).

    Parameters
    ----------
    n_added : ndarray of shape (s,)
        Number of simple objects added.
    plain_auc, nosimple_auc : ndarray of shape (s, n_classifiers)
        ROC AUC and NoSimple ROC AUC of each classifier after each number of additions.
    """

    n_added: np.ndarray
    plain_auc: np.ndarray
    nosimple_auc: np.ndarray


def simple_objects_effect(
    y_true: Any,
    scores: Any,
    n_added: Any,
    *,
    simple_label: Any = None,
    simple_score: float = 0.0,
    pos_label: Any = None,
) -> SimpleObjectsEffect:
    """Add simple objects to a binary evaluation and measure plain and NoSimple ROC AUC.

    Reproduces the experiment of the paper's Fig. 1: ``m`` objects of class ``simple_label``
    (the negative class by default) all scored ``simple_score`` by every classifier are
    appended, for each ``m`` in ``n_added``.  When ``simple_score`` lies below every
    positive score (or, for positive added objects, above every negative score) of every
    classifier, the added objects are standard simple objects: plain AUC climbs towards 1
    for all classifiers (Eq. 6) while NoSimple AUC does not move.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    scores : array-like of shape (n, n_classifiers)
    n_added : array-like of int
    simple_label : label, optional
        Class of the added objects; the negative class by default.
    simple_score : float, default=0
    pos_label : label, optional

    Returns
    -------
    SimpleObjectsEffect

    References
    ----------
    .. [1] Rahardja and Fränti, "NoSimple: Data Bias Evaluation Metrics", Fig. 1, Eq. (6).
    """
    y = as_1d(y_true, "y_true")
    positive = _binary_target(y, pos_label)
    s = _scores_2d(scores, len(y))
    added = np.asarray(n_added)
    if added.ndim != 1 or added.size == 0 or np.any(added < 0) or np.any(added != np.round(added)):
        raise InvalidInputError(f"n_added must be a non-empty list of counts >= 0, got {n_added!r}")
    pos_value = np.unique(y)[1] if pos_label is None else pos_label
    added_positive = simple_label is not None and bool(simple_label == pos_value)
    plain = np.empty((len(added), s.shape[1]))
    nosimple = np.empty_like(plain)
    for i, m in enumerate(added.astype(int)):  # a handful of sizes; each step vectorised
        pos_m = np.r_[positive, np.full(m, added_positive)]
        s_m = np.r_[s, np.full((m, s.shape[1]), float(simple_score))]
        plain[i] = roc_auc_columns(pos_m, s_m)
        nosimple[i] = _nosimple_auc_binary(pos_m, s_m)
    return SimpleObjectsEffect(added.astype(int), plain, nosimple)
