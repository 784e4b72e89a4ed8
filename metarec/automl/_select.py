"""Choosing the answer among evaluated algorithms: CV scores shrunk toward what the KB expects."""

from __future__ import annotations

import numpy as np

__all__ = ["posterior_scores", "choose", "single_best"]

#: z of the central 80 % interval of a normal distribution (the recommender's intervals).
Z80 = 1.2815515655446004


def posterior_scores(
    fold_scores: list[np.ndarray],
    prior_mean: np.ndarray,
    prior_low: np.ndarray,
    prior_high: np.ndarray,
) -> np.ndarray:
    """Each algorithm's CV mean, shrunk toward the knowledge base's expectation of it.

    On small data the mean of a few folds is noisy: the blind choice of the best CV mean
    often lands on an algorithm that was lucky on these folds (the majority-class predictor
    on hard data, QDA, an MLP).  The recommender's expected score of every algorithm, with
    its 80 % interval, is a prior; the answer is the posterior mean of a normal model.

    With ``m_a`` the mean of algorithm ``a``'s ``k_a`` fold scores, the noise of a mean is
    ``v_a = s^2 / k_a`` with ``s^2`` the fold variance pooled over all algorithms (folds of
    one dataset vary alike, and one algorithm's five folds estimate it poorly).  The prior
    is centred on this dataset: ``mu'_a = mu_a + mean_b(m_b) - mean_b(mu_b)`` over the
    algorithms with both (the KB knows which algorithms beat which better than how hard a new
    dataset is), with standard deviation ``tau_a = (high_a - low_a) / (2 z_0.9)`` read from
    the 80 % interval.  Then

    ``posterior_a = (m_a / v_a + mu'_a / tau_a^2) / (1 / v_a + 1 / tau_a^2)``.

    An algorithm without a prior (NaN) keeps its CV mean.

    Parameters
    ----------
    fold_scores : list of ndarray
        The fold scores of each algorithm (at least one each).
    prior_mean, prior_low, prior_high : ndarray
        Expected score and its 80 % interval per algorithm (NaN: no expectation).

    Returns
    -------
    ndarray
        The posterior mean score of each algorithm.
    """
    means = np.array([np.mean(s) for s in fold_scores], dtype=float)
    counts = np.array([len(s) for s in fold_scores], dtype=float)
    squares = sum(float(np.sum((np.asarray(s) - np.mean(s)) ** 2)) for s in fold_scores)
    dof = float(np.sum(counts - 1))
    pooled = squares / dof if dof > 0 else 0.0
    noise = pooled / counts
    prior_mean = np.asarray(prior_mean, dtype=float)
    tau = (np.asarray(prior_high, dtype=float) - np.asarray(prior_low, dtype=float)) / (2 * Z80)
    known = np.isfinite(prior_mean) & np.isfinite(tau) & (tau > 0)
    if not known.any() or pooled <= 0:
        return means
    centred = prior_mean + (means[known].mean() - prior_mean[known].mean())
    out = means.copy()
    precision_data = 1.0 / noise[known]
    precision_prior = 1.0 / tau[known] ** 2
    out[known] = (means[known] * precision_data + centred[known] * precision_prior) / (
        precision_data + precision_prior
    )
    return out


def choose(posterior: np.ndarray, fit_time: np.ndarray) -> np.ndarray:
    """Indices from best to worst: highest posterior score, ties to the faster fit."""
    posterior = np.asarray(posterior, dtype=float)
    key = np.where(np.isfinite(posterior), -np.round(posterior, 12), np.inf)
    return np.lexsort((np.asarray(fit_time, dtype=float), key))


def single_best(recommender, *, exclude=()) -> str | None:
    """The algorithm that beats most others on the datasets both have a result on.

    The single best solver (SBS) of algorithm selection: the constant answer that ignores
    the dataset.  Algorithm ``a`` beats ``b`` when its mean score over the datasets where
    both have a result (without those named in ``exclude``: a dataset's own earlier folds
    are not evidence about it) is higher; the SBS wins the most such comparisons (Copeland's
    rule), ties going to the higher mean over all its datasets.  A plain mean over each
    algorithm's own datasets would let one more dataset (a hard one where an algorithm ran
    and a rival was skipped) decide between two algorithms a few hundredths apart; the
    pairwise means compare them on the same data.  None when no algorithm has a result.

    Parameters
    ----------
    recommender : Recommender
        Fitted; its ``accuracy_``, ``present_``, ``datasets_`` and ``algorithms_`` are read.
    exclude : iterable of str, default=()
        Datasets left out.

    Returns
    -------
    str or None
    """
    keep = ~np.isin(np.asarray(recommender.datasets_, dtype=str), [str(d) for d in exclude])
    present = (np.asarray(recommender.present_, dtype=bool) & keep[:, None]).astype(float)
    counts = present.sum(axis=0)
    if not counts.any():
        return None
    scores = np.where(present > 0, recommender.accuracy_, 0.0)
    both = present.T @ present  # [a, b]: datasets where a and b have a result
    with np.errstate(invalid="ignore", divide="ignore"):
        pairwise = (scores.T @ present) / both  # [a, b]: a's mean where both have one
    wins = np.sum(
        np.nan_to_num(pairwise, nan=-np.inf) > np.nan_to_num(pairwise.T, nan=np.inf), axis=1
    )
    mean = np.where(counts > 0, scores.sum(axis=0) / np.maximum(counts, 1), -np.inf)
    wins = np.where(counts > 0, wins, -1)
    best = np.lexsort((-mean, -wins))[0]
    return str(np.asarray(recommender.algorithms_)[int(best)])
