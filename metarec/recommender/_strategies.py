"""The classic ranking strategies: pairwise A3R, pairwise ARR and average ranks.

Pairwise A3R (:class:`A3RRanker`)
    On every neighbour ``d`` and every pair of algorithms ``(p, q)`` that both have a result
    on it, ``A3R_pq^d = (SR_p / SR_q) / (T_p / T_q)^(1/n)`` (Abdulrahman & Brazdil 2014).
    The ratios are aggregated over neighbours by the (weighted) geometric mean, over the
    datasets where both algorithms ran, and over competitors by the arithmetic mean, as
    Brazdil, Soares & Costa (2003) aggregate ARR:
    ``score_p = mean_{q != p, shared data} exp( sum_d w_d log A3R_pq^d / sum_d w_d )``.

    This is a matrix product.  With ``Z = log SR - log T / n`` (datasets x algorithms, 0
    where missing), the presence mask ``M`` and the weights ``W = diag(w)``::

        sum_d w_d m_dp m_dq log A3R_pq^d = (Z' W M)_pq - (M' W Z)_pq = G - G',  G = Z' W M
        sum_d w_d m_dp m_dq              = (M' W M)_pq

    so a ranking costs two products of an (algorithms x datasets) by a (datasets x
    algorithms) matrix, and memory ``O(algorithms^2 + algorithms x datasets)``: no loop over
    pairs or datasets.

Pairwise ARR (:class:`ARRRanker`)
    The same aggregation of Brazdil, Soares & Costa's (2003) adjusted ratio of ratios
    ``(SR_p / SR_q) / (1 + AccD log10(T_p / T_q))``, computed in chunks of datasets (ARR is
    not a difference of per-algorithm terms).  ARR can be non-positive for large time
    ratios (Abdulrahman & Brazdil 2014): it is floored at 1e-6 before the logarithm.

Average rank (:class:`AverageRankRanker`)
    The weighted mean, over neighbours, of each algorithm's rank by the success rate
    (``n=None``, "AR") or by A3R (``n`` given, "AR*"); lower is better.

References
----------
.. [1] Brazdil, P., Soares, C., Costa, J. P. (2003). Ranking learning algorithms: using IBL
   and meta-learning on accuracy and time results. Machine Learning 50(3), 251-277.
.. [2] Abdulrahman, S. M., Brazdil, P. (2014). Measures for combining accuracy and time for
   meta-learning. MetaSel workshop at ECAI 2014, 49-50.
"""

from __future__ import annotations

import numpy as np

from metarec.evaluation import arr
from metarec.exceptions import InvalidInputError
from metarec.recommender._base import BaseRanker
from metarec.recommender._scoring import average_rank, mean_over_competitors, pairwise_log_score

__all__ = ["A3RRanker", "ARRRanker", "AverageRankRanker"]

_ARR_CHUNK = 4_000_000  # elements of the (datasets, algorithms, algorithms) block for ARR
_INF = float("inf")


class A3RRanker(BaseRanker):
    """Pairwise A3R over the nearest datasets (see the module documentation).

    Parameters
    ----------
    k : int or None, default=10
        Nearest datasets used; ``None`` = every dataset.
    n : float, default=32
        Root of the time ratio (the larger, the less time matters).
    normalize, distance, weights, features, tried_scale, random_state
        As in :class:`~metarec.recommender._base.BaseRanker`.

    Examples
    --------
    >>> import pandas as pd
    >>> from metarec.recommender import A3RRanker, PerformanceMatrix
    >>> runs = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "algorithm": ["x", "y"] * 2,
    ...                      "accuracy": [0.9, 0.8, 0.7, 0.6], "fit_time": [1.0] * 4})
    >>> meta = pd.DataFrame({"dataset": ["a", "b"], "n_instances": [100, 200]})
    >>> matrix = PerformanceMatrix.from_frames(runs, meta)
    >>> A3RRanker(normalize=False).fit(matrix).rank({"n_instances": 120}).algorithms
    ['x', 'y']
    """

    strategy = "a3r"
    score_name = "a3r_score"

    def __init__(
        self,
        *,
        k: int | None = 10,
        n: float = 32,
        normalize: bool = True,
        distance: str = "l1-range",
        weights: str | None = "distance",
        features=None,
        tried_scale: float = _INF,
        random_state=None,
    ) -> None:
        self.k = k
        self.n = n
        self.normalize = normalize
        self.distance = distance
        self.weights = weights
        self.features = features
        self.tried_scale = tried_scale
        self.random_state = random_state

    def _strategy_scores(self, idx, m, w):
        z = self.log_sr_[idx] - self._log_time(idx) / float(self.n)
        return pairwise_log_score(z, m, w)


class ARRRanker(BaseRanker):
    """Pairwise ARR over the nearest datasets (see the module documentation).

    Parameters
    ----------
    k : int or None, default=10
        Nearest datasets used; ``None`` = every dataset.
    acc_d : float, default=0.1
        ARR's AccD: the accuracy traded for a tenfold speed-up.
    normalize, distance, weights, features, tried_scale, random_state
        As in :class:`~metarec.recommender._base.BaseRanker`.
    """

    strategy = "arr"
    score_name = "arr_score"

    def __init__(
        self,
        *,
        k: int | None = 10,
        acc_d: float = 0.1,
        normalize: bool = True,
        distance: str = "l1-range",
        weights: str | None = "distance",
        features=None,
        tried_scale: float = _INF,
        random_state=None,
    ) -> None:
        self.k = k
        self.acc_d = acc_d
        self.normalize = normalize
        self.distance = distance
        self.weights = weights
        self.features = features
        self.tried_scale = tried_scale
        self.random_state = random_state

    def _validate_params(self) -> None:
        super()._validate_params()
        value = self.acc_d
        if isinstance(value, (bool, np.bool_)) or not (
            isinstance(value, (int, float, np.number)) and np.isfinite(value) and value >= 0
        ):
            raise InvalidInputError(f"acc_d must be a non-negative number; got {value!r}")

    def _strategy_scores(self, idx, m, w):
        """Pairwise ARR, geometric mean over datasets (chunks of datasets, not pairs)."""
        sr = np.exp(self.log_sr_[idx])
        t = np.exp(self._log_time(idx))
        n_alg = sr.shape[1]
        chunk = max(1, _ARR_CHUNK // max(1, n_alg * n_alg))
        total = np.zeros((n_alg, n_alg))
        count = np.zeros((n_alg, n_alg))
        for start in range(0, idx.size, chunk):
            s = slice(start, start + chunk)
            ratio = arr(
                sr[s, :, None], sr[s, None, :], t[s, :, None], t[s, None, :], acc_d=self.acc_d
            )
            both = m[s, :, None] * m[s, None, :] * w[s, None, None]
            logr = np.log(np.clip(np.nan_to_num(ratio, nan=1.0), 1e-6, None))
            total += (both * logr).sum(axis=0)
            count += both.sum(axis=0)
        return mean_over_competitors(total, count)


class AverageRankRanker(BaseRanker):
    """Average rank over the nearest datasets: AR (``n=None``) or AR* (``n`` given).

    Parameters
    ----------
    k : int or None, default=10
        Nearest datasets used; ``None`` = every dataset ("global" average rank).
    n : float or None, default=None
        ``None``: rank by the success rate; a number: rank by A3R with this root.
    normalize, distance, weights, features, tried_scale, random_state
        As in :class:`~metarec.recommender._base.BaseRanker`.
    """

    higher_is_better = False
    score_name = "average_rank"

    def __init__(
        self,
        *,
        k: int | None = 10,
        n: float | None = None,
        normalize: bool = True,
        distance: str = "l1-range",
        weights: str | None = "distance",
        features=None,
        tried_scale: float = _INF,
        random_state=None,
    ) -> None:
        self.k = k
        self.n = n
        self.normalize = normalize
        self.distance = distance
        self.weights = weights
        self.features = features
        self.tried_scale = tried_scale
        self.random_state = random_state

    @property
    def strategy(self) -> str:
        """``"ar"`` or ``"ar*"``."""
        return "ar" if self.n is None else "ar*"

    def _strategy_scores(self, idx, m, w):
        values = self.log_sr_[idx]
        if self.n is not None:
            values = values - self._log_time(idx) / float(self.n)
        return average_rank(np.where(m > 0, values, np.nan), w)
