"""A portfolio of configurations for a dataset: greedy selection over the knowledge base.

Zero-shot portfolios (auto-sklearn 2, TabRepo, AutoGluon's presets) are chosen once, for every
dataset: the configurations that together do well on most of a collection.  Here each
knowledge-base dataset is weighted by its similarity to the new one (the recommender's
neighbours), so the portfolio is chosen for the dataset at hand.

The rule (TabRepo's rank-clipping greedy, weighted):

- on every dataset ``d`` the configurations are ranked by their success rate (1 = best; ties
  share the lower rank; a configuration without a result on ``d`` ranks last);
- the loss of a portfolio ``P`` on ``d`` is the rank of its best member there, clipped at
  :data:`RANK_CLIP` (a dataset where every member is poor counts as that, not more, so that a
  few datasets nothing suits do not steer the choice);
- starting from the empty portfolio, the configuration that most lowers the weighted mean loss
  over the datasets is added, until ``size`` configurations are in (ties to the first in the
  matrix's order); the weights are the neighbours' similarity weights (the nearest weighs 1)
  plus :data:`PRIOR_WEIGHT` spread evenly over every dataset, so that the collection as a
  whole counts as that many nearest neighbours (without it, a portfolio would rest on ten
  datasets alone).

The order of selection is the order to run them in: each addition is the one that helps most
given those before it.

References
----------
.. [1] Salinas, D., Erickson, N. (2024). TabRepo: a large scale repository of tabular model
   evaluations and its AutoML applications. AutoML Conference 2024 (portfolio selection by
   greedy minimisation of the mean rank of the best configuration, ranks clipped).
.. [2] Feurer, M., Eggensperger, K., Falkner, S., Lindauer, M., Hutter, F. (2022).
   Auto-sklearn 2.0: hands-free AutoML via meta-learning. JMLR 23(261).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_CLIP", "PRIOR_WEIGHT", "dataset_ranks", "greedy_portfolio"]

#: A dataset's loss is the rank of the portfolio's best member there, at most this.
RANK_CLIP = 20.0
#: The whole collection counts as this many nearest neighbours in the weights.
PRIOR_WEIGHT = 4.0


def dataset_ranks(accuracy: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Each configuration's rank on each dataset (1 = best; missing: the last rank + 1).

    Parameters
    ----------
    accuracy : ndarray of shape (n_datasets, n_configurations)
        Success rates (higher is better).
    present : ndarray of bool, same shape
        Whether a result exists.

    Returns
    -------
    ndarray of float, same shape
        Ranks with ties sharing the lowest ("min" ranking); a missing result ranks after
        every present one.
    """
    from scipy.stats import rankdata

    values = np.where(present, -np.asarray(accuracy, dtype=float), np.inf)
    ranks = rankdata(values, method="min", axis=1).astype(float)
    worst = present.sum(axis=1, keepdims=True) + 1.0
    return np.where(present, ranks, worst)


def greedy_portfolio(
    ranks: np.ndarray,
    weights: np.ndarray,
    *,
    size: int,
    allowed: np.ndarray | None = None,
    clip: float = RANK_CLIP,
    start=(),
) -> tuple[list[int], list[float]]:
    """Greedy selection of ``size`` configurations (see the module documentation).

    Parameters
    ----------
    ranks : ndarray of shape (n_datasets, n_configurations)
        :func:`dataset_ranks` of the knowledge base.
    weights : ndarray of shape (n_datasets,)
        Each dataset's weight (0: left out).
    size : int
        Configurations to choose.
    allowed : ndarray of bool of shape (n_configurations,), optional
        The candidates (those whose expected time fits, say); every one by default.
    clip : float, default=RANK_CLIP
        The largest loss of a dataset.
    start : sequence of int, default=()
        Columns already in the portfolio, in this order: the first of ``order`` whatever the
        weights (allowed or not), the greedy choosing the others given them.

    Returns
    -------
    order : list of int
        The chosen columns, in the order chosen (fewer than ``size`` when fewer are allowed),
        ``start`` first.
    losses : list of float
        The weighted mean loss after each addition.
    """
    ranks = np.minimum(np.asarray(ranks, dtype=float), clip)
    weights = np.asarray(weights, dtype=float)
    total = weights.sum()
    if not total > 0:
        raise ValueError("the datasets' weights must not all be 0")
    candidates = np.ones(ranks.shape[1], dtype=bool) if allowed is None else allowed.copy()
    best = np.full(ranks.shape[0], clip)
    order: list[int] = []
    losses: list[float] = []
    for pick in list(start)[: int(size)]:
        best = np.minimum(best, ranks[:, pick])
        order.append(int(pick))
        losses.append(float(weights @ best / total))
        candidates[pick] = False
    for _ in range(min(int(size) - len(order), int(candidates.sum()))):
        # the weighted mean loss with each candidate added, for all candidates at once
        trial = weights @ np.minimum(best[:, None], ranks) / total
        trial = np.where(candidates, trial, np.inf)
        pick = int(np.argmin(trial))
        order.append(pick)
        losses.append(float(trial[pick]))
        best = np.minimum(best, ranks[:, pick])
        candidates[pick] = False
    return order, losses
