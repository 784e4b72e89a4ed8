"""Active testing and time-budgeted plans.

Active testing (after Leite, Brazdil & Vanschoren 2012)
    When some algorithms have already been run on the new dataset, the neighbours whose
    results agree with what was observed are the better guides for what to try next.  For
    neighbour ``d`` let ``delta_d`` be the mean, over the tried algorithms it has a result for,
    of ``|acc_observed - acc_d|`` (accuracy units); its weight is multiplied by
    ``exp(-delta_d / scale)`` (``scale`` = ``Recommender.tried_scale``, 0.2 by default: a
    neighbour that is 20 points off on average counts ``1/e`` as much).  A neighbour with
    none of the tried algorithms keeps ``delta`` = the mean ``delta`` of the others (neutral).
    The candidates are then ordered, as in active testing, by how much they are expected to
    improve on the incumbent ``b`` (the tried algorithm with the best observed accuracy):
    ``gain_c = sum_d w_d max(0, log A3R_cb^d) / sum_d w_d`` over the neighbours where both ran
    (Abdulrahman, Brazdil, van Rijn & Vanschoren 2018 use A3R in active testing the same way;
    ``method="ar"`` uses ``max(0, acc_c - acc_b)``).  The ranking's ``score`` is this gain;
    equal gains keep the plain ranking's order; candidates never compared with the incumbent
    come last.  The tried algorithms are dropped from the ranking.  ``tried_scale`` is chosen
    by the held-out procedure of :mod:`metarec.recommender._tune`.

Budgeted plan
    ``budget`` asks for the sequence expected to reach the lowest loss within ``budget``
    seconds.  Expectation model: an algorithm is expected to take its ``expected_time`` (the
    weighted geometric mean of its times on the neighbours), and the loss of a set of
    algorithms ``S`` is expected to be the weighted mean over neighbours of
    ``best_d - max_{p in S} acc_dp`` (what running ``S`` would have lost on them; an
    algorithm without a result on ``d`` does not help there; the tried algorithms are part of
    ``S`` from the start).  The set is built greedily: at each step, among algorithms whose
    expected time fits in the remaining budget, add the one with the largest expected loss
    reduction per second; the final plan is this greedy plan or the single best algorithm that
    fits, whichever has the lower expected loss (the usual guarantee for budgeted coverage
    problems).  Steps that reduce nothing are not added, so a plan can leave time unused and
    leave out the unbudgeted ranking's first algorithm (its expected loss reduction is judged
    on the neighbours' results, not on the performance model's prediction): the plan is what
    to run within the budget, the unbudgeted ranking what to use.  The answer is not forced
    into a plan: on data far larger than the knowledge base's its expected time can be
    several times too low, and a search that ran it early would lose its budget to it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["agreement_weights", "budget_plan", "incumbent_gain"]

#: A3R's root in the gain of strategies without their own (ARR).
DEFAULT_N = 32.0


def agreement_weights(
    recommender, idx: np.ndarray, tried: Mapping[str, tuple[float, float]], *, scale: float
) -> np.ndarray:
    """Multiplicative weight of each neighbour given the results already seen (see module doc)."""
    cols, observed = [], []
    for name, result in tried.items():
        j = recommender.algorithm_index_.get(str(name))
        if j is None:
            continue
        try:
            accuracy = float(result[0] if isinstance(result, (tuple, list)) else result)
        except (TypeError, ValueError, IndexError):
            continue
        if np.isfinite(accuracy):
            cols.append(j)
            observed.append(accuracy)
    if not cols:
        return np.ones(idx.size)
    acc = recommender.accuracy_[np.ix_(idx, cols)]
    has = recommender.present_[np.ix_(idx, cols)]
    diff = np.where(has, np.abs(np.nan_to_num(acc) - np.asarray(observed)[None, :]), 0.0)
    n = has.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where(n > 0, diff.sum(axis=1) / np.maximum(n, 1), np.nan)
    if np.isfinite(delta).any():
        delta = np.where(np.isfinite(delta), delta, np.nanmean(delta))
    else:
        return np.ones(idx.size)
    return np.exp(-delta / scale)


def budget_plan(recommender, idx, w, order, expected_time, tried, budget):
    """Greedy plan within ``budget`` seconds (see module doc).

    Returns
    -------
    order : ndarray of int
        Algorithm indices of the plan, in the order to run them.
    plan : list of (float, float)
        Expected cumulative time and expected loss (percentage points) after each step.
    """
    acc = np.where(recommender.present_[idx], np.nan_to_num(recommender.accuracy_[idx]), -np.inf)
    best = acc.max(axis=1)
    w = np.asarray(w, dtype=float)
    wn = w / w.sum()
    start = np.full(idx.size, -np.inf)
    for name in tried or {}:
        j = recommender.algorithm_index_.get(str(name))
        if j is not None:
            start = np.maximum(start, acc[:, j])
    # with nothing run yet, the fallback is the majority-class prediction
    baseline = np.nanmin(np.where(np.isfinite(acc), acc, np.nan), axis=1)
    raw = recommender.raw_metafeatures_
    if "majority_class_pct" in raw.columns:
        maj = raw["majority_class_pct"].to_numpy(float)[idx] / 100.0
        baseline = np.where(np.isfinite(maj), maj, baseline)
    start = np.maximum(start, np.where(np.isfinite(baseline), baseline, 0.0))
    candidates = np.asarray(order)
    cand_time = expected_time[candidates]
    fits = np.isfinite(cand_time)
    candidates, cand_time = candidates[fits], cand_time[fits]

    def loss(current):
        return float(100.0 * (wn * (best - current)).sum())

    def greedy(by_ratio: bool):
        current, remaining, used = start.copy(), budget, np.zeros(candidates.size, dtype=bool)
        steps, plan, spent = [], [], 0.0
        while True:
            feasible = (~used) & (cand_time <= remaining)
            if not feasible.any():
                break
            gain = (wn[:, None] * np.maximum(acc[:, candidates] - current[:, None], 0.0)).sum(
                axis=0
            )
            value = gain / np.maximum(cand_time, 1e-9) if by_ratio else gain
            value = np.where(feasible, value, -np.inf)
            pick = int(np.argmax(value))  # ties: first in ranking order
            if not gain[pick] > 0:
                break
            used[pick] = True
            remaining -= cand_time[pick]
            spent += cand_time[pick]
            current = np.maximum(current, acc[:, candidates[pick]])
            steps.append(int(candidates[pick]))
            plan.append((spent, loss(current)))
            if not by_ratio:
                break
        return steps, plan

    ratio_steps, ratio_plan = greedy(True)
    single_steps, single_plan = greedy(False)
    if single_plan and (not ratio_plan or single_plan[-1][1] < ratio_plan[-1][1] - 1e-12):
        return np.asarray(single_steps, dtype=int), single_plan
    return np.asarray(ratio_steps, dtype=int), ratio_plan


def incumbent_gain(recommender, idx, w, tried):
    """Expected gain of each algorithm over the incumbent (the best tried algorithm).

    ``gain_c = sum_d w_d max(0, log A3R_{c,b}^d) / sum_d w_d`` over the neighbours where both
    ``c`` and the incumbent ``b`` have a result (``method="ar"``: ``max(0, acc_c - acc_b)``
    instead, accuracy only).  NaN where no neighbour has both.  See the module documentation.
    """
    best_j, best_acc = None, -np.inf
    for name, result in tried.items():
        j = recommender.algorithm_index_.get(str(name))
        try:
            accuracy = float(result[0] if isinstance(result, (tuple, list)) else result)
        except (TypeError, ValueError, IndexError):
            continue
        if j is not None and np.isfinite(accuracy) and accuracy > best_acc:
            best_j, best_acc = j, accuracy
    if best_j is None:
        return None
    m = recommender.present_[idx]
    both = m & m[:, [best_j]]
    if recommender.strategy != "ar":
        n = float(getattr(recommender, "n", None) or DEFAULT_N)
        z = recommender.log_sr_[idx] - recommender._log_time(idx) / n
        gain = np.maximum(z - z[:, [best_j]], 0.0)
    else:
        acc = np.nan_to_num(recommender.accuracy_[idx])
        gain = np.maximum(acc - acc[:, [best_j]], 0.0)
    wb = both * w[:, None]
    total = wb.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (wb * gain).sum(axis=0) / total, np.nan)
