"""The loss-time planner: the first few algorithms, chosen for the area under the loss curve.

A user runs the recommended algorithms in order and keeps the best model so far.  On a
neighbouring dataset ``d`` of the knowledge base that sequence would have produced a loss
curve: ``L_d(t) = 100 * (best_d - b_d(t))`` percentage points, where ``b_d(t)`` is the best
accuracy among the runs finished by time ``t`` (the majority-class accuracy before any run).
The planner chooses the first ``n_plan`` algorithms to make the **expected area under this
curve over log time** small, the expectation being the similarity-weighted mean over the
neighbours.

Time that matters to a person
    The log-time axis runs from ``floor`` to ``horizon`` seconds: ``u(t) = log(clip(t, floor,
    horizon))``.  Clock times below ``floor`` all map to ``log floor``: an algorithm that
    finishes within the floor costs no log time at all, so differences between 0.01 s and
    0.3 s cannot decide the plan by themselves, while 30 s against 300 s still counts a full
    decade.  ``horizon`` is the longest time the knowledge base says running every algorithm
    of one dataset takes.

Greedy step
    Each neighbour keeps its own clock ``c_d`` (the sum of its times of the algorithms picked
    or tried so far) and best so far ``b_d``.  Running ``a`` next moves them to
    ``c_d + t_da`` and ``max(b_d, acc_da)``.  With the curve assumed flat after the step, the
    area still to come on ``d`` is::

        A_d(a) = L_d(b_d) (u(c_d + t_da) - u(c_d)) + L_d(max(b_d, acc_da)) (U - u(c_d + t_da))

    with ``U = log horizon``.  ``rule="area"`` picks the ``a`` with the smallest expected
    ``A(a) = sum_d w_d A_d(a) / sum_d w_d`` (equivalently, the largest expected loss
    reduction weighted by the log time left after it); ``rule="ratio"`` the largest expected
    loss reduction per unit of log time, ``sum_d w_d dL_da / sum_d w_d du_da`` (algorithms
    that cost no log time first, by reduction).  Only neighbours where ``a`` has a result
    count for ``a``; an algorithm with no result on any neighbour is never planned.  After each
    pick every neighbour's clock and best so far are updated; after ``n_plan`` picks, or when
    no candidate reduces the expected loss, the planner stops and the learned model's order
    continues.
"""

from __future__ import annotations

import numpy as np

__all__ = ["expected_area", "plan_first"]


def _u(t, floor, horizon):
    return np.log(np.clip(t, floor, horizon))


def expected_area(acc, time, w, best, start, clock, floor, horizon):
    """Expected remaining area ``A(a)`` of every candidate (see module doc).

    Parameters
    ----------
    acc, time : ndarray of shape (n_neighbours, n_algorithms)
        Accuracy and time of each algorithm on each neighbour (NaN where missing).
    w : ndarray of shape (n_neighbours,)
        Neighbour weights.
    best, start, clock : ndarray of shape (n_neighbours,)
        Best accuracy of each neighbour, best reached so far, time spent so far.
    floor, horizon : float
        Ends of the log-time axis (seconds).

    Returns
    -------
    area : ndarray of shape (n_algorithms,)
        In percentage points x log seconds; NaN where no neighbour has a result.
    reduction : ndarray
        Expected loss reduction (points).
    cost : ndarray
        Expected log time used.
    """
    return _Candidates(acc, time, w).area(best, start, clock, floor, horizon)


class _Candidates:
    """What the greedy steps share: results present, their times and weights (computed once)."""

    def __init__(self, acc, time, w) -> None:
        has = np.isfinite(acc) & np.isfinite(time)
        self.acc = np.where(has, acc, -np.inf)
        self.time = np.where(has, time, 0.0)
        self.wm = np.where(has, np.asarray(w, dtype=float)[:, None], 0.0)
        self.total = self.wm.sum(axis=0)

    def area(self, best, start, clock, floor, horizon):
        """``(area, reduction, cost)`` of every candidate (see :func:`expected_area`)."""
        u0 = _u(clock, floor, horizon)[:, None]
        u1 = _u(clock[:, None] + self.time, floor, horizon)
        top = np.log(horizon)
        before = 100.0 * (best - start)[:, None]
        after = np.maximum(100.0 * (best[:, None] - np.maximum(start[:, None], self.acc)), 0.0)
        wm, total = self.wm, self.total
        with np.errstate(invalid="ignore", divide="ignore"):
            area = np.where(
                total > 0, (wm * (before * (u1 - u0) + after * (top - u1))).sum(0) / total, np.nan
            )
            reduction = np.where(total > 0, (wm * (before - after)).sum(0) / total, np.nan)
            cost = np.where(total > 0, (wm * (u1 - u0)).sum(0) / total, np.nan)
        return area, reduction, cost


def plan_first(
    acc, time, w, best, start, clock, candidates, *, n_plan, floor, horizon, rule="area"
):
    """Greedy choice of the first ``n_plan`` algorithms (see module doc).

    Returns
    -------
    picks : list of int
        Algorithm indices (columns), in order.
    areas : list of float
        Expected remaining area after each pick.
    """
    acc = np.asarray(acc, dtype=float)
    time = np.asarray(time, dtype=float)
    w = np.asarray(w, dtype=float)
    start = np.asarray(start, dtype=float).copy()
    clock = np.asarray(clock, dtype=float).copy()
    cand = np.asarray(candidates, dtype=bool).copy()
    shared = _Candidates(acc, time, w)
    picks, areas = [], []
    for _ in range(int(n_plan)):
        if not cand.any():
            break
        area, reduction, cost = shared.area(best, start, clock, floor, horizon)
        ok = cand & np.isfinite(area) & (reduction > 1e-12)
        if not ok.any():
            break
        if rule == "area":
            key = np.where(ok, area, np.inf)
            j = int(np.argmin(key))
        else:
            free = ok & (cost <= 1e-12)
            if free.any():
                j = int(np.argmax(np.where(free, reduction, -np.inf)))
            else:
                j = int(np.argmax(np.where(ok, reduction / np.maximum(cost, 1e-12), -np.inf)))
        picks.append(j)
        areas.append(float(area[j]))
        has = np.isfinite(acc[:, j]) & np.isfinite(time[:, j])
        clock = clock + np.where(has, time[:, j], 0.0)
        start = np.maximum(start, np.where(has, acc[:, j], -np.inf))
        cand[j] = False
    return picks, areas
