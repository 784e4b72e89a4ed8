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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["FoldTimes", "FOLD_OVERHEAD"]

#: Per-fold overhead of a job besides the fit (sending the fold, predicting, scoring).
FOLD_OVERHEAD = 0.05


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
    """

    walls: dict[str, tuple[float, float]] = field(default_factory=dict)
    cost: float = 0.0
    factor: float = 1.0

    def record(self, algorithm: str, folds, expected: float) -> None:
        """Take an algorithm's finished folds into the calibration (failed ones are ignored)."""
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
        """Expected seconds of ``n_folds`` folds, each with :data:`FOLD_OVERHEAD`."""
        return n_folds * (self.fold_seconds(expected) + FOLD_OVERHEAD)
