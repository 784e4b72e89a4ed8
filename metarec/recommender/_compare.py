"""Comparing the methods of an evaluation: the gap closed and paired bootstrap intervals.

What :func:`~metarec.recommender.evaluate_recommender` measured per dataset
(:attr:`EvaluationResult.per_dataset`) is compared here: the share of the
single-best-to-oracle gap a method closes (:func:`gap_closed`, the standard measure of
algorithm selection), and how far a gap closed or a paired difference could move on another
sample of datasets like these (:func:`gap_closed_interval`, :func:`difference_interval`:
the datasets resampled with replacement, the two methods' figures kept together).
"""

from __future__ import annotations

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = ["gap_closed", "gap_closed_interval", "difference_interval", "add_gap_closed"]


def gap_closed(loss, sbs_loss, oracle_loss=0.0):
    """Share of the single-best-to-oracle gap closed: ``(sbs - loss) / (sbs - oracle)``.

    Parameters
    ----------
    loss : float or array-like
        Mean loss of the method(s).
    sbs_loss : float
        Mean loss of the single best solver (SBS) on the same cases.
    oracle_loss : float, default=0.0
        Mean loss of the oracle (the best algorithm of each case).

    Returns
    -------
    float or ndarray
        1 for the oracle, 0 for the single best, negative for worse than it; NaN when the
        single best is already the oracle (no gap to close).

    References
    ----------
    .. [1] Lindauer, M., van Rijn, J. N., Kotthoff, L. (2019). The algorithm selection
       competitions 2015 and 2017. Artificial Intelligence 272, 86-100.
    """
    gap = float(sbs_loss) - float(oracle_loss)
    loss = np.asarray(loss, dtype=float)
    if not gap > 0:
        return np.full(loss.shape, np.nan) if loss.ndim else float("nan")
    closed = (float(sbs_loss) - loss) / gap
    return closed if loss.ndim else float(closed)


def _paired_losses(per_dataset, method: str, other: str, column: str) -> np.ndarray:
    """``(n_datasets, 2)``: ``column`` of ``method`` and ``other`` on the datasets of both."""
    if column not in per_dataset.columns:
        raise InvalidInputError(f"no column {column!r} in per_dataset")
    wide = per_dataset.pivot_table(index="dataset", columns="method", values=column)
    for name in (method, other):
        if name not in wide.columns:
            raise InvalidInputError(f"no {column!r} of method {name!r} in per_dataset")
    return wide[[method, other]].dropna().to_numpy(dtype=float)


def _resampled_means(pairs, confidence, n_resamples, random_state) -> np.ndarray:
    """Means of both columns of ``pairs`` over bootstrap resamples of its rows."""
    if not 0 < confidence < 1:
        raise InvalidInputError(f"confidence must be in (0, 1); got {confidence!r}")
    if int(n_resamples) < 1:
        raise InvalidInputError(f"n_resamples must be >= 1; got {n_resamples!r}")
    rng = np.random.default_rng(random_state)
    rows = rng.integers(0, len(pairs), size=(int(n_resamples), len(pairs)))
    return pairs[rows].mean(axis=1)


def _percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    if values.size == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def gap_closed_interval(
    per_dataset,
    method: str,
    *,
    loss: str = "top1_loss",
    baseline: str = "single best",
    confidence: float = 0.9,
    n_resamples: int = 2000,
    random_state=0,
):
    """Paired bootstrap interval over datasets of the gap ``method`` closes.

    The datasets both ``method`` and ``baseline`` were scored on are resampled with
    replacement ``n_resamples`` times; on each resample the gap closed is
    ``(mean baseline loss - mean method loss) / mean baseline loss`` (the oracle's loss is
    0), i.e. :func:`gap_closed` of the resample's means.  Resampling the pairs keeps the
    correlation of the two losses on a dataset (hard datasets are hard for both), which
    an interval of each mean alone would ignore.  The interval is the percentile one, the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the resampled values
    (resamples whose baseline loss is 0, which have no gap, are left out).  With a few dozen
    datasets a gap closed is a ratio of two noisy means: this says how far the one measured
    value could move on another sample of datasets like these.

    Parameters
    ----------
    per_dataset : pandas.DataFrame
        :attr:`EvaluationResult.per_dataset`: columns ``method``, ``dataset`` and ``loss``.
    method : str
        The method whose gap closed is bounded.
    loss : str, default="top1_loss"
        The loss column (``top3_loss`` for the top-3 gap).
    baseline : str, default="single best"
        The constant answer the gap starts from.
    confidence : float, default=0.9
        Coverage of the interval, in (0, 1).
    n_resamples : int, default=2000
        Bootstrap resamples.
    random_state : int, numpy Generator or None, default=0
        Seed of the resampling.

    Returns
    -------
    low : float
        The interval's lower end (NaN when no resample has a gap).
    high : float
        The interval's upper end.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap, chapter
       13 (percentile intervals). Chapman & Hall.
    """
    pairs = _paired_losses(per_dataset, method, baseline, loss)
    if len(pairs) == 0:
        return float("nan"), float("nan")
    means = _resampled_means(pairs, confidence, n_resamples, random_state)
    with np.errstate(divide="ignore", invalid="ignore"):
        closed = (means[:, 1] - means[:, 0]) / means[:, 1]
    return _percentile_interval(closed[means[:, 1] > 0], confidence)


def difference_interval(
    per_dataset,
    method: str,
    other: str,
    *,
    column: str,
    confidence: float = 0.9,
    n_resamples: int = 2000,
    random_state=0,
):
    """Mean paired difference ``method - other`` of ``column`` with a bootstrap interval.

    The same paired resampling of datasets as :func:`gap_closed_interval`, of the mean
    difference (negative: ``method`` has the smaller loss).

    Parameters
    ----------
    per_dataset : pandas.DataFrame
        :attr:`EvaluationResult.per_dataset`.
    method, other : str
        The two methods compared on the datasets both were scored on.
    column : str
        The figure compared, e.g. ``"mil_1s"``.
    confidence : float, default=0.9
        Coverage of the interval, in (0, 1).
    n_resamples : int, default=2000
        Bootstrap resamples.
    random_state : int, numpy Generator or None, default=0
        Seed of the resampling.

    Returns
    -------
    difference : float
        The mean paired difference (NaN without common datasets).
    low : float
        The interval's lower end.
    high : float
        The interval's upper end.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap, chapter
       13 (percentile intervals). Chapman & Hall.
    """
    pairs = _paired_losses(per_dataset, method, other, column)
    if len(pairs) == 0:
        return float("nan"), float("nan"), float("nan")
    means = _resampled_means(pairs, confidence, n_resamples, random_state)
    low, high = _percentile_interval(means[:, 0] - means[:, 1], confidence)
    return float(np.mean(pairs[:, 0] - pairs[:, 1])), low, high


def add_gap_closed(summary):
    """``summary`` with ``top1_gap_closed`` and ``top3_gap_closed`` (needs "single best")."""
    sbs = summary.loc[summary["method"] == "single best"]
    if sbs.empty:
        return summary
    summary = summary.copy()
    at = list(summary.columns).index("n_datasets") if "n_datasets" in summary else len(summary)
    for k in ("3", "1"):  # inserted before n_datasets, top-1 first
        loss = summary[f"top{k}_loss"].to_numpy(dtype=float)
        closed = gap_closed(loss, float(sbs[f"top{k}_loss"].iloc[0]))
        summary.insert(at, f"top{k}_gap_closed", closed)
    return summary
