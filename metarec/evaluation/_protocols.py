"""Evaluation protocols (how test data are chosen) and the summary of per-fold scores.

``get_protocol(name)`` returns an object with ``.name``, ``.n_splits`` and
``.split(X, y)`` yielding ``(train_index, test_index)`` pairs:

============ ========================================================================
name         protocol
============ ========================================================================
cv10x10      stratified 10-fold cross-validation repeated 10 times (100 folds), the
             standard procedure for limited data (scikit-learn RepeatedStratifiedKFold)
cv10         stratified 10-fold cross-validation (StratifiedKFold, shuffled)
cv5          stratified 5-fold cross-validation
loo          leave-one-out (LeaveOneOut); ``n_splits`` is ``None`` until the data are
             known, use ``get_n_splits(X, y)``
bootstrap632 0.632 bootstrap: each of ``n_splits`` rounds trains on a stratified sample
             drawn with replacement and tests on the out-of-bag objects; combine the
             out-of-bag score with the resubstitution score by
             :func:`bootstrap632_estimate`
holdout      stratified train / validation / test split (60 / 20 / 20 by default);
             ``split`` yields the one (train, test) pair, ``split_three`` all three parts
============ ========================================================================

:func:`run_protocol` runs a scoring function on every split and returns the per-fold
scores with their :func:`summarize` summary.

Stratification needs a categorical ``y``; for a regression target (float values with many
distinct values) the protocols fall back to unstratified splitting.

References
----------
.. [1] I. H. Witten, E. Frank and M. A. Hall, "Data Mining: Practical Machine Learning Tools
   and Techniques", 3rd ed., Morgan Kaufmann, 2011, Ch. 5 (cross-validation, leave-one-out,
   the 0.632 bootstrap).
.. [2] B. Efron, "Estimating the error rate of a prediction rule: improvement on
   cross-validation", JASA 78(382), 1983.
.. [3] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning
   52(3), 2003.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from metarec.exceptions import InvalidInputError, UnknownNameError

__all__ = [
    "PROTOCOLS",
    "get_protocol",
    "CVProtocol",
    "LeaveOneOutProtocol",
    "Bootstrap632Protocol",
    "HoldoutProtocol",
    "bootstrap632_estimate",
    "Summary",
    "summarize",
    "ProtocolResult",
    "run_protocol",
]

PROTOCOLS = ("cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout")


def _check_xy(X: Any, y: Any) -> tuple[int, np.ndarray | None]:
    """Return ``(n_objects, y as array or None)`` after checking lengths."""
    n = len(X) if X is not None else None
    y_arr = None if y is None else np.asarray(y)
    if y_arr is not None and y_arr.ndim != 1:
        raise InvalidInputError(f"y must be 1-D, got shape {y_arr.shape}")
    if n is None:
        if y_arr is None:
            raise InvalidInputError("split needs X or y")
        n = len(y_arr)
    if y_arr is not None and len(y_arr) != n:
        raise InvalidInputError(f"mismatched lengths: X has {n} rows, y has {len(y_arr)}")
    if n == 0:
        raise InvalidInputError("cannot split an empty dataset")
    return n, y_arr


def _is_categorical(y: np.ndarray | None) -> bool:
    if y is None:
        return False
    if y.dtype.kind in "OUSb" or y.dtype.kind in "iu":
        return True
    if y.dtype.kind == "f":
        finite = y[np.isfinite(y)]
        return bool(np.all(finite == np.round(finite))) and len(np.unique(finite)) <= max(
            2, int(np.sqrt(len(y)))
        )
    return True


@dataclass(frozen=True)
class CVProtocol:
    """(Repeated) stratified k-fold cross-validation.

    Parameters
    ----------
    name : str
    n_folds : int
    n_repeats : int
    random_state : int or None
    """

    name: str
    n_folds: int
    n_repeats: int = 1
    random_state: int | None = None

    @property
    def n_splits(self) -> int:
        """Total number of (train, test) pairs: ``n_folds * n_repeats``."""
        return self.n_folds * self.n_repeats

    def get_n_splits(self, X: Any = None, y: Any = None) -> int:
        return self.n_splits

    def split(self, X: Any, y: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_index, test_index)``; stratified when ``y`` is categorical."""
        from sklearn.model_selection import (
            KFold,
            RepeatedKFold,
            RepeatedStratifiedKFold,
            StratifiedKFold,
        )

        n, y_arr = _check_xy(X, y)
        if n < self.n_folds:
            raise InvalidInputError(
                f"{self.name} needs at least {self.n_folds} objects, the data have {n}"
            )
        stratify = _is_categorical(y_arr)
        if self.n_repeats > 1:
            cls = RepeatedStratifiedKFold if stratify else RepeatedKFold
            splitter = cls(
                n_splits=self.n_folds, n_repeats=self.n_repeats, random_state=self.random_state
            )
        else:
            cls = StratifiedKFold if stratify else KFold
            splitter = cls(n_splits=self.n_folds, shuffle=True, random_state=self.random_state)
        dummy = np.zeros((n, 1))
        with warnings.catch_warnings():
            # a class smaller than n_folds is allowed: it is simply absent from some folds
            warnings.filterwarnings("ignore", message=".*least populated class.*")
            try:
                folds = list(splitter.split(dummy, y_arr if stratify else None))
            except ValueError as exc:
                raise InvalidInputError(
                    f"{self.name} cannot split these data: {_why_not(exc, y_arr, self.n_folds)}"
                ) from exc
        yield from folds


def _why_not(exc: ValueError, y: np.ndarray, n_folds: int) -> str:
    """What stops a stratified split, in the data's words (scikit-learn's otherwise)."""
    import pandas as pd

    if pd.isna(y).any():  # a missing label is no class: scikit-learn's words say that
        return str(exc)
    _, counts = np.unique(y.astype(str), return_counts=True)
    if counts.size and counts.max() < n_folds:
        return (
            f"every class has fewer than {n_folds} rows (the largest {counts.max()}, of "
            f"{counts.size} classes); a stratified split needs one class of {n_folds} or more"
            + _looks_continuous(counts, len(y))
        )
    return str(exc)


def _looks_continuous(counts: np.ndarray, n_rows: int) -> str:
    """The hint that many classes for few rows are a continuous target (or nothing)."""
    if counts.size > n_rows / 2:
        return (
            ", and so many classes for so few rows look like a continuous target, not class labels"
        )
    return ""


def _why_not_holdout(exc: ValueError, y) -> str:
    """What stops a stratified holdout split, in the data's words (scikit-learn's otherwise)."""
    import pandas as pd

    if y is None or pd.isna(y).any():
        return str(exc)
    _, counts = np.unique(np.asarray(y).astype(str), return_counts=True)
    single = int((counts < 2).sum())
    if single:
        return (
            f"{single} of the {counts.size} classes have a single row, and a stratified "
            "holdout puts every class on both sides" + _looks_continuous(counts, len(y))
        )
    return str(exc)


@dataclass(frozen=True)
class LeaveOneOutProtocol:
    """Leave-one-out: n folds of one test object each (scikit-learn ``LeaveOneOut``)."""

    name: str = "loo"
    random_state: int | None = None

    @property
    def n_splits(self) -> None:
        """``None``: the number of folds is the number of objects, see :meth:`get_n_splits`."""
        return None

    def get_n_splits(self, X: Any = None, y: Any = None) -> int:
        n, _ = _check_xy(X, y)
        return n

    def split(self, X: Any, y: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        from sklearn.model_selection import LeaveOneOut

        n, _ = _check_xy(X, y)
        if n < 2:
            raise InvalidInputError("leave-one-out needs at least 2 objects")
        yield from LeaveOneOut().split(np.zeros((n, 1)))


@dataclass(frozen=True)
class Bootstrap632Protocol:
    """The 0.632 bootstrap: train on a bootstrap sample, test on the out-of-bag objects.

    Each round draws, within every class (stratified), as many objects with replacement as
    the class has; the training indices therefore contain repeats.  An object is left out of
    a sample with probability ``(1 - 1/n)^n ≈ 0.368``, so a training set holds about 63.2 %
    of the distinct objects.  The out-of-bag (OOB) score is pessimistic and the
    resubstitution score (testing on the training sample) optimistic;
    :func:`bootstrap632_estimate` combines them as ``0.632 * oob + 0.368 * resub``.

    Rounds with an empty out-of-bag set are redrawn (at most 100 times).
    """

    name: str = "bootstrap632"
    n_splits: int = 50
    random_state: int | None = None

    def get_n_splits(self, X: Any = None, y: Any = None) -> int:
        return self.n_splits

    def split(self, X: Any, y: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_index_with_repeats, out_of_bag_index)`` for every round."""
        n, y_arr = _check_xy(X, y)
        if n < 2:
            raise InvalidInputError("the 0.632 bootstrap needs at least 2 objects")
        rng = np.random.default_rng(self.random_state)
        if _is_categorical(y_arr):
            _, codes = np.unique(y_arr, return_inverse=True)
            groups = [np.flatnonzero(codes == c) for c in range(codes.max() + 1)]
        else:
            groups = [np.arange(n)]
        for _ in range(self.n_splits):
            for _attempt in range(100):
                train = np.concatenate([rng.choice(g, size=len(g), replace=True) for g in groups])
                in_bag = np.zeros(n, dtype=bool)
                in_bag[train] = True
                oob = np.flatnonzero(~in_bag)
                if oob.size:
                    break
            else:
                raise InvalidInputError(
                    f"the 0.632 bootstrap drew no out-of-bag object in 100 attempts on {n} "
                    "objects; every class needs at least 2 objects"
                )
            yield np.sort(train), oob


def bootstrap632_estimate(oob: Any, resub: Any) -> np.ndarray:
    """Combine out-of-bag and resubstitution scores: ``0.632 * oob + 0.368 * resub``.

    Works for errors and for scores such as accuracy alike (the combination is linear), and
    broadcasts over arrays (one value per round, or per algorithm).

    Parameters
    ----------
    oob : array-like
        Score measured on the out-of-bag objects of a round.
    resub : array-like
        Score of the same model measured on its own training sample.

    Returns
    -------
    ndarray

    References
    ----------
    .. [1] B. Efron, JASA 78(382), 1983.
    .. [2] Witten, Frank and Hall, "Data Mining", 3rd ed., 2011, Sect. 5.4.
    """
    o = np.asarray(oob, dtype=float)
    r = np.asarray(resub, dtype=float)
    if o.size == 0 or r.size == 0:
        raise InvalidInputError("oob and resub must not be empty")
    try:
        return 0.632 * o + 0.368 * r
    except ValueError as exc:
        raise InvalidInputError(f"oob {o.shape} and resub {r.shape} do not broadcast") from exc


@dataclass(frozen=True)
class HoldoutProtocol:
    """Stratified train / validation / test holdout.

    Parameters
    ----------
    name : str
    test_size : float, default=0.2
    validation_size : float, default=0.2
        Fraction of all objects kept for tuning; 0 gives a plain train / test split.
    random_state : int or None
    """

    name: str = "holdout"
    test_size: float = 0.2
    validation_size: float = 0.2
    random_state: int | None = None

    @property
    def n_splits(self) -> int:
        return 1

    def get_n_splits(self, X: Any = None, y: Any = None) -> int:
        return 1

    def split_three(self, X: Any, y: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(train_index, validation_index, test_index)``, disjoint and stratified."""
        from sklearn.model_selection import train_test_split

        n, y_arr = _check_xy(X, y)
        if not 0 < self.test_size < 1 or not 0 <= self.validation_size < 1:
            raise InvalidInputError("test_size must be in (0, 1) and validation_size in [0, 1)")
        if self.test_size + self.validation_size >= 1:
            raise InvalidInputError("test_size + validation_size must leave training data")
        idx = np.arange(n)
        strat = y_arr if _is_categorical(y_arr) else None
        try:
            rest, test = train_test_split(
                idx, test_size=self.test_size, stratify=strat, random_state=self.random_state
            )
            if self.validation_size > 0:
                frac = self.validation_size / (1.0 - self.test_size)
                train, val = train_test_split(
                    rest,
                    test_size=frac,
                    stratify=None if strat is None else strat[rest],
                    random_state=self.random_state,
                )
            else:
                train, val = rest, np.array([], dtype=int)
        except ValueError as exc:
            raise InvalidInputError(
                f"holdout split impossible on {n} objects: {_why_not_holdout(exc, strat)}"
            ) from exc
        return np.sort(train), np.sort(val), np.sort(test)

    def split(self, X: Any, y: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield the single ``(train_index, test_index)``; the validation part is held back."""
        train, _, test = self.split_three(X, y)
        yield train, test


def get_protocol(name: str, *, random_state: int | None = None, **options: Any) -> Any:
    """Return the evaluation protocol called ``name``.

    Parameters
    ----------
    name : {"cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout"}
    random_state : int or None
        Seed of the shuffling / resampling.
    **options
        ``n_splits`` (bootstrap632 rounds, default 50); ``test_size`` and
        ``validation_size`` (holdout).

    Returns
    -------
    protocol
        Has ``.name``, ``.n_splits``, ``.get_n_splits(X, y)`` and ``.split(X, y)``.

    Raises
    ------
    UnknownNameError
        For an unknown protocol name.
    """
    if name == "cv10x10":
        return CVProtocol(name, 10, 10, random_state)
    if name == "cv10":
        return CVProtocol(name, 10, 1, random_state)
    if name == "cv5":
        return CVProtocol(name, 5, 1, random_state)
    if name == "loo":
        return LeaveOneOutProtocol(random_state=random_state)
    if name == "bootstrap632":
        return Bootstrap632Protocol(
            n_splits=int(options.get("n_splits", 50)), random_state=random_state
        )
    if name == "holdout":
        return HoldoutProtocol(
            test_size=float(options.get("test_size", 0.2)),
            validation_size=float(options.get("validation_size", 0.2)),
            random_state=random_state,
        )
    raise UnknownNameError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")


@dataclass(frozen=True)
class Summary:
    """Mean, standard deviation and confidence interval of per-fold scores.

    Parameters
    ----------
    mean : float
        Mean of the finite fold scores.
    sd : float
        Their sample standard deviation (ddof=1; NaN with one score).
    ci_low, ci_high : float
        Bounds of the confidence interval of the mean (NaN with one score).
    n : int
        Number of finite fold scores.
    """

    mean: float
    sd: float
    ci_low: float
    ci_high: float
    n: int


def summarize(
    fold_scores: Any, *, confidence: float = 0.95, test_train_ratio: float | None = None
) -> Summary:
    """Summarise per-fold scores: mean, sample sd and a t confidence interval of the mean.

    NaN scores (failed folds) are ignored; ``n`` counts the finite ones.  The interval is
    ``mean ± t_{n-1} * sd * sqrt(1/n)``.  Folds of (repeated) cross-validation share training
    data, so this interval is too narrow; pass ``test_train_ratio`` (``n_test / n_train``,
    e.g. 1/9 for 10-fold) to use Nadeau and Bengio's corrected variance
    ``sd^2 * (1/n + n_test/n_train)`` instead.  With one finite score the sd and interval
    are NaN.

    Parameters
    ----------
    fold_scores : array-like of shape (n_folds,)
    confidence : float, default=0.95
    test_train_ratio : float, optional

    Returns
    -------
    Summary

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52(3), 2003.
    """
    from scipy.stats import t as student_t

    scores = np.asarray(fold_scores, dtype=float).ravel()
    if scores.size == 0:
        raise InvalidInputError("fold_scores is empty")
    if not 0 < confidence < 1:
        raise InvalidInputError(f"confidence must be in (0, 1), got {confidence!r}")
    finite = scores[np.isfinite(scores)]
    if finite.size == 0:
        raise InvalidInputError("fold_scores has no finite value (every fold failed?)")
    n = int(finite.size)
    mean = float(finite.mean())
    if n == 1:
        return Summary(mean, float("nan"), float("nan"), float("nan"), 1)
    sd = float(finite.std(ddof=1))
    factor = 1.0 / n
    if test_train_ratio is not None:
        if test_train_ratio <= 0:
            raise InvalidInputError(f"test_train_ratio must be > 0, got {test_train_ratio!r}")
        factor += float(test_train_ratio)
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * sd * np.sqrt(factor)
    return Summary(mean, sd, float(mean - half), float(mean + half), n)


@dataclass(frozen=True)
class ProtocolResult:
    """Per-fold scores of a protocol run and their summary.

    Parameters
    ----------
    protocol : str
        The protocol's name.
    fold_scores : ndarray of shape (n_splits,)
        The score of every split, in split order (NaN: a failed fold).
    summary : Summary
        Their :func:`summarize`.
    """

    protocol: str
    fold_scores: np.ndarray
    summary: Summary


def run_protocol(
    protocol: Any,
    X: Any,
    y: Any,
    score: Callable[[np.ndarray, np.ndarray], float],
    *,
    confidence: float = 0.95,
) -> ProtocolResult:
    """Run ``score(train_index, test_index)`` on every split and summarise the scores.

    ``score`` fits a model on the training indices and returns its score on the test
    indices (higher or lower is better, as the caller decides).  For the 0.632 bootstrap the
    score of a round is :func:`bootstrap632_estimate` of ``score(train, oob)`` and the
    resubstitution score ``score(train, train)``, so ``score`` is called twice per round.
    A score of NaN marks a failed fold; :func:`summarize` ignores it.

    Parameters
    ----------
    protocol : protocol object or str
        From :func:`get_protocol`, or its name.
    X, y : array-like
    score : callable
    confidence : float, default=0.95

    Returns
    -------
    ProtocolResult
    """
    if isinstance(protocol, str):
        protocol = get_protocol(protocol)
    bootstrap = isinstance(protocol, Bootstrap632Protocol)
    values = []
    for train, test in protocol.split(X, y):
        value = float(score(train, test))
        if bootstrap:
            value = float(bootstrap632_estimate(value, float(score(train, train))))
        values.append(value)
    scores = np.asarray(values, dtype=float)
    return ProtocolResult(protocol.name, scores, summarize(scores, confidence=confidence))
