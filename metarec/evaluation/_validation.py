"""Input checks shared by the evaluation functions.

Every public function of :mod:`metarec.evaluation` validates its arguments here and raises
:class:`metarec.exceptions.InvalidInputError` with a message naming the argument and the
offending value, instead of letting numpy produce a silent ``nan`` or a cryptic error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = [
    "as_1d",
    "check_same_length",
    "binary_confusion",
    "confusion_matrix",
    "check_probabilities",
    "ConfusionCounts",
    "check_confusion",
]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (so messages do not show ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def as_1d(values: Any, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``values`` as a 1-D numpy array, refusing scalars, 2-D input and empties."""
    if values is None:
        raise InvalidInputError(f"{name} is required, got None")
    arr = np.asarray(values)
    if arr.ndim == 0:
        raise InvalidInputError(f"{name} must be 1-D array-like, got a scalar {arr.item()!r}")
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    return arr


def check_same_length(**arrays: np.ndarray) -> None:
    """Raise when the arrays given as keyword arguments differ in length."""
    lengths = {name: len(arr) for name, arr in arrays.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise InvalidInputError(f"mismatched lengths: {described}")


class ConfusionCounts:
    """The four counts of a binary confusion matrix (floats, broadcastable arrays allowed).

    Attributes
    ----------
    tp, fn, tn, fp : ndarray
        True positives, false negatives, true negatives, false positives.
    """

    __slots__ = ("tp", "fn", "tn", "fp")

    def __init__(self, tp: Any, fn: Any, tn: Any, fp: Any) -> None:
        self.tp, self.fn, self.tn, self.fp = np.broadcast_arrays(
            *(np.asarray(v, dtype=float) for v in (tp, fn, tn, fp))
        )

    @property
    def p(self) -> np.ndarray:
        """Condition positives ``tp + fn``."""
        return self.tp + self.fn

    @property
    def n(self) -> np.ndarray:
        """Condition negatives ``tn + fp``."""
        return self.tn + self.fp

    @property
    def total(self) -> np.ndarray:
        """All objects ``p + n``."""
        return self.p + self.n

    def __repr__(self) -> str:
        return f"ConfusionCounts(tp={self.tp}, fn={self.fn}, tn={self.tn}, fp={self.fp})"


def _labels_of(y_true: np.ndarray, y_pred: np.ndarray, labels: Sequence | None) -> np.ndarray:
    if labels is not None:
        labels_arr = as_1d(labels, "labels")
        if len(np.unique(labels_arr)) != len(labels_arr):
            raise InvalidInputError(f"labels contains duplicates: {labels_arr.tolist()!r}")
        unknown = np.setdiff1d(np.union1d(y_true, y_pred), labels_arr)
        if unknown.size:
            raise InvalidInputError(
                f"y_true/y_pred contain labels not listed in labels: {unknown.tolist()!r}"
            )
        return labels_arr
    return np.union1d(y_true, y_pred)


def confusion_matrix(
    y_true: Any, y_pred: Any, *, labels: Sequence | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(matrix, labels)`` with ``matrix[i, j]`` = objects of class i predicted as j.

    Rows are true classes, columns predicted classes (the convention of Def. 3.1 of the
    contingency-space paper and of scikit-learn).
    """
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    check_same_length(y_true=y_true, y_pred=y_pred)
    labels_arr = _labels_of(y_true, y_pred, labels)
    k = len(labels_arr)
    ti = _codes(y_true, labels_arr)
    pi = _codes(y_pred, labels_arr)
    matrix = np.bincount(ti * k + pi, minlength=k * k).reshape(k, k).astype(np.int64)
    return matrix, labels_arr


def _codes(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Index of every value in ``labels`` (all values are known to be among the labels)."""
    try:
        order = np.argsort(labels, kind="stable")
        positions = np.searchsorted(labels[order], values)
        return order[positions]
    except TypeError:  # mixed, unorderable labels: fall back to a dictionary
        index = {lab: i for i, lab in enumerate(labels.tolist())}
        return np.fromiter((index[v] for v in values.tolist()), dtype=np.intp, count=len(values))


def check_confusion(confusion: Any, *, square: bool = True) -> np.ndarray:
    """Validate a confusion matrix given directly: 2-D, square, non-negative, not all zero."""
    cm = np.asarray(confusion, dtype=float)
    if cm.ndim != 2 or (square and cm.shape[0] != cm.shape[1]):
        raise InvalidInputError(f"confusion must be a square 2-D matrix, got shape {cm.shape}")
    if cm.shape[0] < 2:
        raise InvalidInputError(f"confusion must have at least 2 classes, got shape {cm.shape}")
    if np.any(~np.isfinite(cm)) or np.any(cm < 0):
        raise InvalidInputError("confusion must contain finite non-negative counts")
    if cm.sum() == 0:
        raise InvalidInputError("confusion is all zeros: no objects to evaluate")
    return cm


def binary_confusion(
    y_true: Any = None,
    y_pred: Any = None,
    *,
    confusion: Any = None,
    pos_label: Any = 1,
) -> ConfusionCounts:
    """Return the binary confusion counts from labels or from a 2 x 2 matrix.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), optional
        True and predicted labels; ignored when ``confusion`` is given.
    confusion : array-like of shape (2, 2), optional
        ``[[tn, fp], [fn, tp]]`` (rows true class negative/positive, columns predicted),
        scikit-learn's layout.
    pos_label : label, default=1
        The positive class when labels are given.  Every other label counts as negative, but
        ``y_true`` must contain both the positive class and at least one other class.
    """
    if confusion is not None:
        cm = check_confusion(confusion)
        if cm.shape != (2, 2):
            raise InvalidInputError(
                f"a binary metric needs a 2 x 2 confusion matrix, got shape {cm.shape}"
            )
        tn, fp, fn, tp = cm.ravel()
        if tp + fn == 0 or tn + fp == 0:
            raise InvalidInputError(
                "the confusion matrix has a class without true objects (a row of zeros); "
                "a binary metric needs both classes"
            )
        return ConfusionCounts(tp, fn, tn, fp)
    y_true = as_1d(y_true, "y_true")
    y_pred = as_1d(y_pred, "y_pred")
    check_same_length(y_true=y_true, y_pred=y_pred)
    true_pos = y_true == pos_label
    pred_pos = y_pred == pos_label
    if not true_pos.any():
        raise InvalidInputError(
            f"y_true has no object of the positive class pos_label={_plain(pos_label)!r}; "
            f"classes present: {np.unique(y_true).tolist()!r}"
        )
    if true_pos.all():
        raise InvalidInputError(
            f"y_true has only one class ({_plain(pos_label)!r}); a binary metric needs two"
        )
    tp = np.sum(true_pos & pred_pos)
    fn = np.sum(true_pos & ~pred_pos)
    tn = np.sum(~true_pos & ~pred_pos)
    fp = np.sum(~true_pos & pred_pos)
    return ConfusionCounts(tp, fn, tn, fp)


def check_probabilities(proba: Any, name: str = "proba", *, atol: float = 1e-6) -> np.ndarray:
    """Validate a (n, k) matrix of class probabilities: in [0, 1], rows summing to 1."""
    p = np.asarray(proba, dtype=float)
    if p.ndim != 2:
        raise InvalidInputError(f"{name} must be 2-D (n_objects, n_classes), got shape {p.shape}")
    if p.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    if p.shape[1] < 2:
        raise InvalidInputError(f"{name} must have at least 2 class columns, got {p.shape[1]}")
    if not np.all(np.isfinite(p)):
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    if np.any(p < 0) or np.any(p > 1):
        raise InvalidInputError(f"{name} has values outside [0, 1]")
    sums = p.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        i = int(bad[0])
        raise InvalidInputError(
            f"{name} row {i} sums to {sums[i]:.6g}, not 1 ({bad.size} row(s) do not sum to 1)"
        )
    return p
