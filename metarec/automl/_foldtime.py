"""Expected fold times on the dataset being searched: the knowledge base's expectations,
calibrated on the folds measured so far.

The knowledge base's times come from other datasets (and often another machine); the
runtime model's extrapolation to a dataset far larger than those can be off by an order
of magnitude.  A fold's time on this dataset (fit and predict, wall clock) is modelled as ``c + f *
e``, with ``e`` the algorithm's expected fit time, ``c`` this dataset's cost of a fold
besides the fit (encoding the columns, predicting, scoring) and ``f`` how much slower
than expected fits run here.  ``c`` and ``f`` are fitted to the mean fold times of the
algorithms finished so far by least squares of the relative error (``1 - (c + f e) /
wall``, so that a 30 ms fold weighs as much as a 30 s one); when that line has ``c``
below 0 or above the shortest fold, or with one algorithm, ``c = 0`` and ``f`` is the
same fit through the origin (the measured over the expected time for one algorithm).
``f`` is clipped to [0.5, 100].  A single factor on the whole fold time would let the
fixed cost of the cheap algorithms, which run first, multiply the expectation of an
expensive one (a fold of 30 ms where 15 ms of fit were expected says nothing of a fit
expected to take seconds).

A job (one algorithm's folds, one after the other in one worker) also spends time between
its folds' fits and predictions: sending the fold, scoring it, sending the predictions
back.  That overhead per fold is :data:`FOLD_OVERHEAD` until a job has finished here, then
the median over the finished jobs of ``(job wall clock - sum of its fold times) / folds``
(at least 0, at most 1 s): on a many-fold protocol (leave-one-out, 10 x 10 CV) it is paid
hundreds of times, and a fixed guess either skips algorithms that fit or admits ones that
do not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["FoldTimes", "FOLD_OVERHEAD"]

#: Per-fold overhead of a job besides the fit and the prediction (sending the fold,
#: scoring), in seconds, until a finished job has measured it.
FOLD_OVERHEAD = 0.05
#: Largest per-fold overhead taken from a job's measurement, in seconds.
MAX_OVERHEAD = 1.0


@dataclass
class FoldTimes:
    """The calibration ``c + f * e`` of one search (see the module documentation).

    Attributes
    ----------
    walls : dict of str to (float, float)
        Per finished algorithm: its mean fold time here (fit and predict, wall clock) and
        its expected fit time.
    cost : float
        ``c``, seconds.
    factor : float
        ``f``.
    overheads : list of float
        Per finished job that measured it: its overhead per fold, in seconds.
    """

    walls: dict[str, tuple[float, float]] = field(default_factory=dict)
    cost: float = 0.0
    factor: float = 1.0
    overheads: list[float] = field(default_factory=list)

    @property
    def overhead(self) -> float:
        """Seconds a fold of a job costs besides its fit and prediction (see the module doc)."""
        if not self.overheads:
            return FOLD_OVERHEAD
        return float(np.clip(np.median(self.overheads), 0.0, MAX_OVERHEAD))

    def record(self, algorithm: str, folds, expected: float, *, job_wall=None) -> None:
        """Take an algorithm's finished folds into the calibration (failed ones are ignored).

        ``job_wall``: the job's wall clock from its first fold's start to its end, in
        seconds (None: not measured); with every fold ok, it measures the overhead per fold.
        """
        if job_wall is not None and folds and all(r.status == "ok" for r in folds):
            spent = sum(r.fit_wall_time + r.predict_wall_time for r in folds)
            if np.isfinite(job_wall) and np.isfinite(spent):
                self.overheads.append(max(float(job_wall - spent) / len(folds), 0.0))
        walls = [r.fit_wall_time + r.predict_wall_time for r in folds if r.status == "ok"]
        if not walls or not np.isfinite(expected) or expected <= 0 or np.mean(walls) <= 0:
            return
        self.walls[algorithm] = (float(np.mean(walls)), float(expected))
        wall, exp = np.array(list(self.walls.values())).T
        ratio = exp / wall
        cost, factor = 0.0, float(ratio.sum() / (ratio**2).sum())
        if wall.size >= 2:
            design = np.column_stack([1.0 / wall, ratio])
            (c, f), *_ = np.linalg.lstsq(design, np.ones_like(wall), rcond=None)
            if 0.0 <= c <= wall.min() and f > 0:
                cost, factor = float(c), float(f)
        self.cost = cost
        self.factor = float(np.clip(factor, 0.5, 100.0))

    def fold_seconds(self, expected: float) -> float:
        """A fold's expected seconds here for an expected fit time (NaN: the cost alone)."""
        expected = expected if np.isfinite(expected) else 0.0
        return self.cost + expected * self.factor

    def job_seconds(self, expected: float, n_folds: int) -> float:
        """Expected seconds of ``n_folds`` folds, each with its :attr:`overhead`."""
        return n_folds * (self.fold_seconds(expected) + self.overhead)
