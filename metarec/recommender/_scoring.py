"""Vectorised aggregations of per-dataset scores: pairwise log-ratios and average ranks."""

from __future__ import annotations

import numpy as np

__all__ = ["pairwise_log_score", "average_rank", "mean_over_competitors"]


def pairwise_log_score(z: np.ndarray, m: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mean over competitors of the weighted geometric mean over datasets of ``exp(z_p - z_q)``.

    Parameters
    ----------
    z : ndarray of shape (n_datasets, n_algorithms)
        Log-score of each algorithm on each dataset (``log SR - log T / n`` for A3R); any
        value where ``m`` is 0.
    m : ndarray of shape (n_datasets, n_algorithms)
        1 where the algorithm has a result, else 0.
    w : ndarray of shape (n_datasets,)
        Dataset weights.

    Returns
    -------
    ndarray of shape (n_algorithms,)
        NaN for algorithms that share no dataset with any competitor.
    """
    z = np.where(m > 0, z, 0.0)
    wm = m * w[:, None]
    g = z.T @ wm  # g[p, q] = sum_d w_d z_dp m_dq
    total = g - g.T  # sum_d w_d m_dp m_dq (z_dp - z_dq)
    count = m.T @ wm  # sum_d w_d m_dp m_dq
    return mean_over_competitors(total, count)


def mean_over_competitors(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    valid = count > 0
    np.fill_diagonal(valid, False)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.exp(np.where(valid, total / np.where(valid, count, 1.0), 0.0))
        n_comp = valid.sum(axis=1)
        return np.where(n_comp > 0, (ratio * valid).sum(axis=1) / np.maximum(n_comp, 1), np.nan)


def average_rank(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted average, over datasets, of the rank (1 = best = largest value) among present algorithms.

    NaN marks a missing result; ties share the average rank.  Missing results are not
    ranked: an algorithm's average is over the datasets where it has a result.
    """
    from scipy.stats import rankdata

    present = ~np.isnan(values)
    ranks = rankdata(np.where(present, -values, np.nan), axis=1, nan_policy="omit")
    ranks = np.where(present, ranks, 0.0)
    wm = present * w[:, None]
    wsum = wm.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(wsum > 0, (ranks * wm).sum(axis=0) / wsum, np.nan)
