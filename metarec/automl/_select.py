"""Choosing the answer among evaluated algorithms: CV scores shrunk toward what the KB expects."""

from __future__ import annotations

import numpy as np

__all__ = ["posterior_scores", "selection_order", "tied_on_rows", "tied_with", "TIE_Z"]

#: z of the central 80 % interval of a normal distribution (the recommender's intervals).
Z80 = 1.2815515655446004
#: Standard errors by which a member of an average may trail the best (see :func:`tied_with`).
TIE_Z = 2.0


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


def tied_with(best, other, *, z: float = TIE_Z) -> bool:
    """Whether ``other``'s fold scores are not clearly below ``best``'s (a tie within noise).

    On large data the answer averages the best algorithms only while they are as good as
    the best within the noise of the folds (see
    :func:`~metarec.automl._refit.refit_answer`): on 100,000 rows a model three points below
    the best is simply worse, and averaging it in (with an equal vote) costs accuracy, while
    three fold means a point apart are a tie.  Every algorithm of a search runs on the same
    folds, so the test is paired: with ``d_f`` the best's score minus the other's on fold
    ``f`` of ``k``, the two are tied when

    ``mean(d) <= z * sd(d) / sqrt(k)``

    (``sd`` with ``k - 1`` degrees of freedom; ``z`` = 2 by default, about a one-sided 5 %
    level for five folds' normal approximation).  With folds of different numbers the
    difference of the means is compared with Welch's standard error instead; with a single
    fold each (a holdout) there is no estimate of the noise and every algorithm is tied.

    Parameters
    ----------
    best, other : array-like of float
        The fold scores of the best algorithm and of another one (higher is better).
    z : float, default=2.0
        Standard errors the other may trail by.

    Returns
    -------
    bool

    Examples
    --------
    >>> tied_with([0.80, 0.70, 0.90], [0.70, 0.75, 0.85])  # a point apart, folds disagree
    True
    >>> tied_with([0.952, 0.951, 0.953], [0.890, 0.891, 0.889])  # large data: clearly below
    False
    """
    best = np.asarray(best, dtype=float)
    other = np.asarray(other, dtype=float)
    if best.size == other.size:
        d = best - other
        if d.size < 2:
            return True
        return bool(d.mean() <= z * d.std(ddof=1) / np.sqrt(d.size))
    if min(best.size, other.size) < 2:
        return True
    error = np.sqrt(best.var(ddof=1) / best.size + other.var(ddof=1) / other.size)
    return bool(best.mean() - other.mean() <= z * error)


def tied_on_rows(best, other, y, *, z: float = TIE_Z) -> bool:
    """Whether ``other`` is not clearly below ``best`` on one validation part, row by row.

    A holdout has one score per algorithm, so :func:`tied_with` has no noise to compare
    with; its rows do.  With ``l_i`` a row's loss (0/1 error of the most probable class,
    or the squared error of a regression's value) and ``d_i`` the other's loss minus the
    best's on row ``i`` of ``n``, the two are tied when

    ``mean(d) <= z * sd(d) / sqrt(n)``

    the paired test of :func:`tied_with` over rows instead of folds (for a metric other
    than accuracy or R², the 0/1 error or squared error stands for it).

    Parameters
    ----------
    best, other : ndarray
        Predictions on the same rows: class probabilities ``(n, n_classes)``, or values
        ``(n,)`` or ``(n, 1)``.
    y : ndarray of shape (n,)
        Class codes or values.
    z : float, default=2.0

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1] * 500)
    >>> right = np.eye(2)[y]
    >>> wrong_tenth = right.copy(); wrong_tenth[:100] = 1 - wrong_tenth[:100]
    >>> tied_on_rows(right, wrong_tenth, y)  # 100 of 1,000 rows worse, none better
    False
    >>> one_worse = right.copy(); one_worse[0] = 1 - one_worse[0]
    >>> tied_on_rows(right, one_worse, y)
    True
    """
    best, other, y = np.asarray(best, float), np.asarray(other, float), np.asarray(y)
    if best.ndim == 2 and best.shape[1] > 1:  # class probabilities: 0/1 error
        loss_best = (best.argmax(axis=1) != y).astype(float)
        loss_other = (other.argmax(axis=1) != y).astype(float)
    else:
        truth = y.astype(float)
        loss_best = (best.reshape(len(y)) - truth) ** 2
        loss_other = (other.reshape(len(y)) - truth) ** 2
    d = loss_other - loss_best
    if d.size < 2:
        return True
    spread = d.std(ddof=1)
    return bool(d.mean() <= z * spread / np.sqrt(d.size))


def selection_order(posterior: np.ndarray, fit_time: np.ndarray, names=None) -> np.ndarray:
    """Order algorithms from best to worst by their selection scores.

    Highest posterior score first (:func:`posterior_scores`; NaN last), ties to the faster
    fit, then to the first name: an order that the same data, seed and knowledge base
    repeat, so the times given should be expectations, not measurements.

    Parameters
    ----------
    posterior : array-like of float
        Each algorithm's selection score.
    fit_time : array-like of float
        Each algorithm's expected fit time (NaN: unknown, counted as the slowest).
    names : array-like of str, optional
        The algorithms' names, the last tie-break (without them, the given order).

    Returns
    -------
    ndarray of int
        Indices into the inputs, the best first.

    Examples
    --------
    >>> selection_order([0.8, 0.9, 0.9], [1.0, 5.0, 2.0]).tolist()
    [2, 1, 0]
    """
    posterior = np.asarray(posterior, dtype=float)
    key = np.where(np.isfinite(posterior), -np.round(posterior, 12), np.inf)
    fit_time = np.asarray(fit_time, dtype=float)
    fit_time = np.where(np.isfinite(fit_time), fit_time, np.inf)
    by_name = np.argsort(np.argsort(np.asarray(names, dtype=str))) if names is not None else 0
    return np.lexsort((np.broadcast_to(by_name, key.shape), fit_time, key))
