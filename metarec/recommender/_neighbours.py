"""Distances between datasets in metafeature space, and the choice of neighbours.

Two distances are offered.

``"l1-range"`` (Brazdil, Soares & Costa 2003)
    ``dist(i, j) = sum_x |x_i - x_j| / (max_x - min_x)``, where ``max_x`` and ``min_x`` are the
    largest and smallest value of metafeature ``x`` over the datasets of the knowledge base.
    Every metafeature contributes at most 1.  A new dataset's value outside the KB's range
    counts as the nearest end of it: beyond the range, ``|x_new - x_i|`` is the excess
    ``x_new - max_x`` plus ``max_x - x_i``, and the excess, the same for every KB dataset,
    changes no neighbour's rank but would make all of them look equally far (a dataset of
    200,000 rows against a KB of at most 10,000: every distance +20 on ``n_instances``
    alone, and the similarity weights nearly uniform).
``"standardized"``
    Euclidean distance between z-scores, ``sqrt(sum_x ((x_i - x_j) / sd_x)^2)``, with the
    mean and standard deviation of ``x`` over the knowledge base.

Missing values (NaN) are handled per pair: a metafeature missing for either dataset is left
out, and the sum over the ``m`` metafeatures available for both is rescaled by ``p / m``
(``p`` = number of usable metafeatures) so that pairs compared on fewer metafeatures are not
made to look closer.  A pair with no metafeature in common is at infinite distance.
Metafeatures that are constant or missing on every KB dataset carry no information about
similarity and are dropped; infinite values are treated as missing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = ["MetafeatureScaler", "DISTANCES", "select_neighbours", "similarity_weights"]

DISTANCES = ("l1-range", "standardized")
#: With the standardized distance, a new dataset's metafeature counts as at most this many
#: standard deviations beyond the knowledge base's values (the l1-range distance clips it to
#: the range itself, see the module docstring).
OUTSIDE = 10.0


class MetafeatureScaler:
    """Scale metafeatures with the statistics of the knowledge base and compute distances.

    Parameters
    ----------
    distance : {"l1-range", "standardized"}
        Which distance to use.
    """

    def __init__(self, distance: str = "l1-range") -> None:
        self.distance = distance

    def fit(self, values: np.ndarray, names: list[str]) -> MetafeatureScaler:
        """Learn centre and scale of each metafeature from ``values`` (datasets x metafeatures)."""
        if self.distance not in DISTANCES:
            raise InvalidInputError(
                f"distance must be one of {', '.join(DISTANCES)}; got {self.distance!r}"
            )
        values = np.asarray(values, dtype=float)
        values = np.where(np.isfinite(values), values, np.nan)
        with np.errstate(all="ignore"):
            if self.distance == "l1-range":
                low = (
                    np.nanmin(values, axis=0)
                    if values.shape[0]
                    else np.full(values.shape[1], np.nan)
                )
                high = np.nanmax(values, axis=0) if values.shape[0] else low
                centre, scale = low, high - low
            else:
                centre = np.nanmean(values, axis=0)
                scale = np.nanstd(values, axis=0)
        keep = np.isfinite(scale) & (scale > 0)
        self.names_ = [name for name, k in zip(names, keep, strict=True) if k]
        self.centre_ = centre[keep]
        self.scale_ = scale[keep]
        self.index_ = {name: i for i, name in enumerate(self.names_)}
        return self

    def transform(self, values: np.ndarray) -> np.ndarray:
        """Scale a matrix whose columns are ``names_`` (NaN stays NaN)."""
        values = np.asarray(values, dtype=float)
        values = np.where(np.isfinite(values), values, np.nan)
        return (values - self.centre_) / self.scale_

    def vector(self, metafeatures: Mapping[str, float]) -> np.ndarray:
        """Scaled vector of a new dataset's metafeatures (names unknown to the KB are ignored).

        With the l1-range distance a value outside the knowledge base's range counts as the
        nearest end of it (see the module docstring); with the standardized distance a value
        more than :data:`OUTSIDE` standard deviations beyond the knowledge base's own (a
        column of magnitude 1e308, say) counts as that far: far from every dataset, but a
        finite distance, so that the other metafeatures still decide the neighbours.
        """
        row = np.full(len(self.names_), np.nan)
        for name, value in metafeatures.items():
            i = self.index_.get(str(name))
            if i is None:
                continue
            try:
                row[i] = float(value)
            except (TypeError, ValueError):
                continue
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = self.transform(row[None, :])[0]
        if self.distance == "l1-range":
            return np.clip(scaled, 0.0, 1.0)
        return np.clip(scaled, -OUTSIDE, OUTSIDE)

    def distances(self, scaled: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distances from ``query`` (p,) to every row of ``scaled`` (n, p).

        Returns
        -------
        distance : ndarray of shape (n,)
            ``inf`` where no metafeature is available for both.
        n_compared : ndarray of shape (n,)
            Number of metafeatures available for both.
        """
        p = scaled.shape[1]
        diff = scaled - query[None, :]
        usable = ~np.isnan(diff)
        n_compared = usable.sum(axis=1)
        diff = np.where(usable, diff, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.distance == "l1-range":
                dist = np.abs(diff).sum(axis=1) * (p / n_compared)
            else:
                dist = np.sqrt((diff * diff).sum(axis=1) * (p / n_compared))
        dist = np.where(n_compared > 0, dist, np.inf)
        return dist, n_compared


def select_neighbours(distance: np.ndarray, k: int | None, candidates: np.ndarray) -> np.ndarray:
    """Indices of the ``k`` nearest candidate datasets, nearest first (ties by index).

    Parameters
    ----------
    distance : ndarray of shape (n,)
        Distance of every KB dataset to the new one.
    k : int or None
        Number of neighbours; ``None`` = every candidate.
    candidates : ndarray of bool, shape (n,)
        Datasets allowed as neighbours (not excluded, with at least one result).
    """
    index = np.flatnonzero(candidates & np.isfinite(distance))
    if k is not None and k < index.size:
        part = np.argpartition(distance[index], k - 1)[:k]
        index = index[part]
    order = np.lexsort((index, distance[index]))
    return index[order]


def similarity_weights(distance: np.ndarray, weights: str | None) -> np.ndarray:
    """Weights of the neighbours.

    ``None``: every neighbour weighs 1.  ``"distance"``: ``w = 1 / (d + delta)``, with
    ``delta`` = 5% of the median neighbour distance (or 1e-9 if that is zero), so that an
    exact duplicate of the new dataset does not get an infinite weight; weights are then
    divided by their maximum (the nearest neighbour weighs 1).
    """
    if weights is None or distance.size == 0:
        return np.ones(distance.size)
    if weights != "distance":
        raise InvalidInputError(f"weights must be None or 'distance'; got {weights!r}")
    median = float(np.median(distance))
    delta = 0.05 * median if median > 0 else 1e-9
    w = 1.0 / (distance + delta)
    return w / w.max()
