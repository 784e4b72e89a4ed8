"""The contingency space: metric surfaces, imbalance sensitivity and learning paths.

A point ``(x, y) = (tnr, tpr)`` of the base contingency space with imbalance ratio ``r``
(negatives per positive) stands for every confusion matrix relatively identical to
``<tp, fn, tn, fp> = <y, 1 - y, r x, r (1 - x)>`` (Ahmadzadeh et al., Defs. 3.3, 4.1).  A
metric evaluated on an ``l x l`` grid of such points is its *metric surface* (Def. 4.4).

Grid
    The grid holds the cell centres ``(i + 1/2) / l``, i = 0..l-1, on both axes, so each
    value stands for one cell of area ``1 / l²`` (a midpoint Riemann sum) and the corners,
    where metrics such as precision are 0 / 0, are never evaluated.
Imbalance sensitivity (Def. 5.3)
    ``IS(r)`` is the volume between the surfaces at ratio 1 and ratio r:
    ``(1 / l²) * sum_ij |S¹_ij - Sʳ_ij|``.  Following Def. 3.4 every metric is first mapped
    linearly onto [0, 1] from its known range (for example ``(hss + 1) / 2``), so that the
    volume of the unit cube bounds IS by 1 and metrics with different ranges compare.
Learning path (Def. 5.1)
    A sequence of confusion matrices (one per epoch, or per training-set size) becomes a
    sequence of model points; its length is the sum of the Euclidean lengths of its steps in
    the base space.  k x k matrices give points in the k-dimensional multi-class base space
    (per-class recalls, Def. 5.6); for 2 x 2 matrices the point is ``(tnr, tpr)``.

References
----------
.. [1] A. Ahmadzadeh, D. J. Kempton, P. C. Martens and R. A. Angryk, "Contingency Space: A
   Semimetric Space for Classification Evaluation", IEEE TPAMI 45(2), 2023,
   doi:10.1109/TPAMI.2022.3167007.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from metarec.evaluation._confusion import CONFUSION_METRICS
from metarec.evaluation._tau import tau_from_rates
from metarec.evaluation._validation import ConfusionCounts
from metarec.exceptions import InvalidInputError, UnknownNameError

__all__ = [
    "SURFACE_METRICS",
    "Surface",
    "LearningPath",
    "metric_surface",
    "imbalance_sensitivity",
    "learning_path",
    "learning_path_length",
    "surface_metric_names",
]


@dataclass(frozen=True)
class _SurfaceMetric:
    func: Callable[[np.ndarray, np.ndarray, float], np.ndarray]  # (tnr, tpr, r) -> values
    low: float
    high: float
    label: str


def _from_counts(name: str) -> Callable[[np.ndarray, np.ndarray, float], np.ndarray]:
    kernel = CONFUSION_METRICS[name].kernel

    def func(tnr: np.ndarray, tpr: np.ndarray, r: float) -> np.ndarray:
        counts = ConfusionCounts(tpr, 1.0 - tpr, r * tnr, r * (1.0 - tnr))
        return kernel(counts, np.nan)

    return func


#: Metrics that can be drawn in the contingency space: name -> (func, low, high, label).
SURFACE_METRICS: dict[str, _SurfaceMetric] = {
    name: _SurfaceMetric(_from_counts(name), info.low, info.high, info.label)
    for name, info in CONFUSION_METRICS.items()
}
SURFACE_METRICS["tau"] = _SurfaceMetric(lambda x, y, r: tau_from_rates(x, y), 0.0, 1.0, "Tau")


def surface_metric_names() -> tuple[str, ...]:
    """Names accepted by :func:`metric_surface` and :func:`imbalance_sensitivity`.

    Returns
    -------
    tuple of str
        The confusion-matrix metrics of :data:`CONFUSION_METRICS`, then ``"tau"``.
    """
    return tuple(SURFACE_METRICS)


def _metric(metric: str) -> _SurfaceMetric:
    try:
        return SURFACE_METRICS[metric]
    except (KeyError, TypeError):
        raise UnknownNameError(
            f"unknown contingency-space metric {metric!r}; choose one of "
            f"{', '.join(SURFACE_METRICS)}"
        ) from None


def _check_grid(resolution: int) -> int:
    if int(resolution) != resolution or resolution < 2:
        raise InvalidInputError(f"resolution must be an integer >= 2, got {resolution!r}")
    return int(resolution)


def _check_ratio(ratio: Any) -> np.ndarray:
    r = np.asarray(ratio, dtype=float)
    if r.size == 0:
        raise InvalidInputError("ratio is empty")
    if not np.all(np.isfinite(r)) or np.any(r <= 0):
        raise InvalidInputError(f"imbalance ratio must be finite and > 0, got {ratio!r}")
    return r


def grid_points(resolution: int) -> np.ndarray:
    """Cell centres ``(i + 1/2) / l`` of an ``l``-cell axis of the base space."""
    resolution = _check_grid(resolution)
    return (np.arange(resolution) + 0.5) / resolution


@dataclass(frozen=True)
class Surface:
    """A metric surface on the grid of the base contingency space.

    Parameters
    ----------
    metric : str
        The metric's name (one of :func:`surface_metric_names`).
    ratio : float
        Imbalance ratio r (negatives per positive).
    tnr, tpr : ndarray of shape (l,)
        Grid axes (x and y).
    values : ndarray of shape (l, l)
        ``values[i, j]`` is the metric at ``tpr[i]``, ``tnr[j]`` (rows are y, as in an image).
    low, high : float
        Range of the metric (used to rescale it to [0, 1]).
    """

    metric: str
    ratio: float
    tnr: np.ndarray
    tpr: np.ndarray
    values: np.ndarray
    low: float
    high: float

    def rescaled(self) -> np.ndarray:
        """Values mapped linearly from ``[low, high]`` to [0, 1] (Def. 3.4).

        Returns
        -------
        ndarray of shape (l, l)
            In [0, 1] (NaN where the metric is undefined).
        """
        return (self.values - self.low) / (self.high - self.low)


def metric_surface(metric: str, *, ratio: float = 1.0, resolution: int = 100) -> Surface:
    """Evaluate ``metric`` on an ``l x l`` grid of the base contingency space at ratio r.

    Parameters
    ----------
    metric : str
        One of :func:`surface_metric_names` (``"accuracy"``, ``"f1"``, ``"tau"``, ...).
    ratio : float, default=1
        Imbalance ratio r > 0: the space holds ``r`` negatives per positive.
    resolution : int, default=100
        Grid size ``l`` (cells per axis).

    Returns
    -------
    Surface

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Defs. 4.1–4.4.
    """
    info = _metric(metric)
    r = float(_check_ratio(ratio))
    axis = grid_points(resolution)
    tnr, tpr = np.meshgrid(axis, axis)  # rows vary tpr, columns vary tnr
    values = np.asarray(info.func(tnr, tpr, r), dtype=float)
    return Surface(metric, r, axis, axis, values, info.low, info.high)


def imbalance_sensitivity(metric: str, ratio: Any, *, resolution: int = 200) -> Any:
    """Imbalance sensitivity ``IS(r)``: normalised volume between the surfaces at 1 and r.

    ``IS(r) = (1 / l²) * sum_ij |S¹_ij - Sʳ_ij|`` on surfaces rescaled to [0, 1]; 0 for an
    imbalance-agnostic metric, at most 1.

    Parameters
    ----------
    metric : str
        One of :func:`surface_metric_names`.
    ratio : float or array-like
        One or several imbalance ratios r > 0.
    resolution : int, default=200
        Grid size ``l``.

    Returns
    -------
    float or ndarray
        A float for a scalar ``ratio``, else an array of the shape of ``ratio``.

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.3, Figs. 6–7.
    """
    info = _metric(metric)
    r = _check_ratio(ratio)
    axis = grid_points(resolution)
    tnr, tpr = np.meshgrid(axis, axis)
    span = info.high - info.low
    base = (info.func(tnr, tpr, 1.0) - info.low) / span
    out = np.empty(r.shape)
    for idx, value in np.ndenumerate(r):  # one vectorised l x l surface per ratio
        other = (info.func(tnr, tpr, float(value)) - info.low) / span
        out[idx] = np.nanmean(np.abs(base - other))
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class LearningPath:
    """Model points of a sequence of confusion matrices.

    Parameters
    ----------
    points : ndarray of shape (m, k)
        Per-class recalls of each step; for binary problems column 0 is tnr, column 1 tpr.
    ratios : ndarray of shape (m,)
        Imbalance ratio of each step (negatives / positives for binary; majority / minority
        for k classes).
    values : ndarray of shape (m,) or None
        The chosen metric at each step (binary paths only), else None.
    metric : str or None
        The name of that metric (None without ``values``).
    """

    points: np.ndarray
    ratios: np.ndarray
    values: np.ndarray | None = None
    metric: str | None = None

    @property
    def length(self) -> float:
        """Total Euclidean length of the path in the base space."""
        return learning_path_length(self.points)


def learning_path(confusions: Any, *, metric: str | None = None) -> LearningPath:
    """Turn a sequence of confusion matrices into a learning path (Def. 5.1).

    Parameters
    ----------
    confusions : array-like of shape (m, k, k)
        One confusion matrix per step (rows true classes, columns predicted); for k = 2,
        scikit-learn's ``[[tn, fp], [fn, tp]]``.
    metric : str, optional
        Binary only: also evaluate this contingency-space metric at every step (the path
        then lies on the metric's surface).

    Returns
    -------
    LearningPath

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Def. 5.1, Figs. 3–4.
    """
    cms = np.asarray(confusions, dtype=float)
    if cms.ndim != 3 or cms.shape[1] != cms.shape[2] or cms.shape[1] < 2:
        raise InvalidInputError(
            f"confusions must have shape (n_steps, k, k) with k >= 2, got {cms.shape}"
        )
    if cms.shape[0] == 0:
        raise InvalidInputError("confusions is empty: a learning path needs at least one step")
    if np.any(~np.isfinite(cms)) or np.any(cms < 0):
        raise InvalidInputError("confusions must hold finite non-negative counts")
    support = cms.sum(axis=2)
    if np.any(support == 0):
        step, cls = np.argwhere(support == 0)[0]
        raise InvalidInputError(f"step {step} has no true object of class {cls}")
    points = np.diagonal(cms, axis1=1, axis2=2) / support
    ratios = support.max(axis=1) / support.min(axis=1)
    values = None
    if metric is not None:
        if cms.shape[1] != 2:
            raise InvalidInputError("metric values along a path are defined for 2 x 2 matrices")
        info = _metric(metric)
        ratios = support[:, 0] / support[:, 1]  # negatives per positive
        values = np.asarray(info.func(points[:, 0], points[:, 1], ratios), dtype=float)
    return LearningPath(points, ratios, values, metric)


def learning_path_length(points: Any) -> float:
    """Sum of the Euclidean lengths of consecutive steps of a path of model points.

    Parameters
    ----------
    points : array-like of shape (m, k) or LearningPath

    Returns
    -------
    float
        0 for a single point.

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Sect. 5.2.
    """
    if isinstance(points, LearningPath):
        points = points.points
    p = np.asarray(points, dtype=float)
    if p.ndim != 2 or p.shape[0] == 0:
        raise InvalidInputError(f"points must have shape (n_steps, k), got {p.shape}")
    return float(np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1)))
