"""Expected fit time on a new dataset: one power law per algorithm, with a conformal interval.

The times a knowledge base holds were measured on datasets of other sizes; an algorithm's
fit time grows with the rows ``n``, the features ``d`` and the classes ``c`` of the data by
roughly a power of each (an SVM about quadratically in ``n``, a tree about ``n log n``, a
one-vs-rest model linearly in ``c``), so a neighbour's time says little about a dataset a
hundred times larger.  :class:`RuntimeModel` fits, for each algorithm ``a``,

.. math::

    \\log t_a = \\beta_{a,0} + \\beta_{a,1} \\log n + \\beta_{a,2} \\log d
                + \\beta_{a,3} \\log c + \\varepsilon

by ridge regression on the datasets where ``a`` has a time (the empirical performance models
of Hutter et al. 2014 restricted to the size features, because only a model linear in
``log n`` extrapolates to sizes the knowledge base has not seen, where tree ensembles stay
flat at the largest size they were trained on).  The ridge penalty (``alpha``, not on the
intercept) keeps an algorithm with few datasets close to a constant time.

Interval: split-conformal with leave-one-out residuals (the jackknife+ of Barber et al.
2021 in its symmetric, constant-width form).  For each algorithm the absolute leave-one-out
residuals ``|r_i| = |e_i / (1 - h_ii)|`` of the ridge fit (closed form, no refit) give the
width ``q_a``, their ``ceil((m + 1) * coverage) / m`` empirical quantile over its ``m``
datasets; the interval is ``exp(mu +- q_a)``, so it is multiplicative.  With fewer than
:data:`MIN_DATASETS` datasets the residuals of every algorithm are pooled.  The interval's
coverage is exact for exchangeable datasets only; it is measured leave-one-dataset-out
(``benchmarks/runtime_model.py``).

References
----------
.. [1] Hutter, F., Xu, L., Hoos, H. H., Leyton-Brown, K. (2014). Algorithm runtime
   prediction: methods and evaluation. Artificial Intelligence 206, 79-111.
.. [2] Barber, R. F., Candes, E. J., Ramdas, A., Tibshirani, R. J. (2021). Predictive
   inference with the jackknife+. The Annals of Statistics 49(1), 486-507.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from metarec.exceptions import InvalidInputError, NotFittedError

__all__ = ["RuntimeModel", "size_features", "conformal_widths", "MIN_DATASETS"]

#: Fewer datasets than this for an algorithm: its interval width pools every algorithm's.
MIN_DATASETS = 10
#: Shortest time (seconds) taken into the logarithm: a timer's resolution, not a cost.
TIME_FLOOR = 1e-4


def size_features(n_instances, n_features, n_classes) -> np.ndarray:
    """The design matrix ``[1, log n, log d, log c]`` of datasets' sizes.

    Parameters
    ----------
    n_instances, n_features, n_classes : array-like of shape (n_datasets,)
        Rows, features and classes (values below 1, and missing class counts, count as 1,
        i.e. add nothing; a regression dataset has no classes).

    Returns
    -------
    ndarray of shape (n_datasets, 4)
    """
    columns = []
    for values in (n_instances, n_features, n_classes):
        v = np.asarray(values, dtype=float).reshape(-1)
        columns.append(np.log(np.maximum(np.nan_to_num(v, nan=1.0), 1.0)))
    return np.column_stack([np.ones_like(columns[0]), *columns])


class RuntimeModel(BaseEstimator):
    """Per-algorithm power law of fit time in the dataset's size, with conformal intervals.

    See the module docstring for the model and the interval.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty on the size coefficients (in units of squared log seconds).
    coverage : float, default=0.8
        Coverage of the intervals, in (0, 1).

    Attributes
    ----------
    coef_ : ndarray of shape (n_algorithms, 4)
        Intercept and the exponents of ``n``, ``d`` and ``c`` of each algorithm.
    width_ : ndarray of shape (n_algorithms,)
        Half-width of each algorithm's interval in log seconds.
    n_datasets_ : ndarray of shape (n_algorithms,)
        Datasets each algorithm was fitted on.
    loo_residuals_ : ndarray of shape (n_datasets, n_algorithms)
        Leave-one-out residuals of log time (NaN where an algorithm has no time).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([100, 1000, 10000, 100000])
    >>> X = size_features(n, [10] * 4, [2] * 4)
    >>> model = RuntimeModel(alpha=1e-6).fit(X, (1e-5 * n**2)[:, None])
    >>> float(np.round(model.coef_[0, 1], 3))  # time grows as n squared
    2.0
    """

    def __init__(self, *, alpha: float = 1.0, coverage: float = 0.8) -> None:
        self.alpha = alpha
        self.coverage = coverage

    def fit(self, X, times):
        """Fit one power law per column of ``times``.

        Parameters
        ----------
        X : array-like of shape (n_datasets, 4)
            :func:`size_features` of the datasets.
        times : array-like of shape (n_datasets, n_algorithms)
            Fit times in seconds; NaN (or a non-positive time) where an algorithm has none.

        Returns
        -------
        self
        """
        X = np.asarray(X, dtype=float)
        t = np.asarray(times, dtype=float)
        if t.ndim == 1:
            t = t[:, None]
        if X.ndim != 2 or X.shape[1] != 4 or X.shape[0] != t.shape[0]:
            raise InvalidInputError(
                f"X must be (n_datasets, 4) size features matching times' {t.shape[0]} rows; "
                f"got {X.shape}"
            )
        if not (np.isfinite(self.alpha) and self.alpha >= 0):
            raise InvalidInputError(f"alpha must be >= 0; got {self.alpha!r}")
        if not 0 < self.coverage < 1:
            raise InvalidInputError(f"coverage must be in (0, 1); got {self.coverage!r}")
        observed = np.isfinite(t) & (t > 0)
        y = np.log(np.clip(np.where(observed, t, 1.0), TIME_FLOOR, None))
        w = observed.astype(float)  # (D, A): each algorithm's rows
        penalty = self.alpha * np.diag([0.0, 1.0, 1.0, 1.0])
        # normal equations of every algorithm at once: A_a = X' W_a X + P, b_a = X' W_a y_a
        gram = np.einsum("da,dp,dq->apq", w, X, X) + penalty
        gram += 1e-9 * np.eye(4)  # an algorithm with one dataset: its mean, not a singular fit
        rhs = np.einsum("da,dp,da->ap", w, X, y)
        inverse = np.linalg.inv(gram)
        self.coef_ = np.einsum("apq,aq->ap", inverse, rhs)
        fitted = X @ self.coef_.T
        leverage = np.einsum("dp,apq,dq->da", X, inverse, X)
        with np.errstate(divide="ignore", invalid="ignore"):
            loo = (y - fitted) / np.maximum(1.0 - leverage, 1e-6)
        self.loo_residuals_ = np.where(observed, loo, np.nan)
        self.n_datasets_ = observed.sum(axis=0)
        self.width_ = conformal_widths(self.loo_residuals_, self.coverage)
        return self

    def predict(self, X, *, interval: bool = False):
        """Expected fit time (the median of the log-normal model), in seconds.

        Parameters
        ----------
        X : array-like of shape (n_queries, 4)
            :func:`size_features` of the new datasets.
        interval : bool, default=False
            Also return the lower and upper ends of the ``coverage`` interval.

        Returns
        -------
        expected : ndarray of shape (n_queries, n_algorithms)
        low, high : ndarray of shape (n_queries, n_algorithms)
            Only with ``interval=True``.
        """
        if not hasattr(self, "coef_"):
            raise NotFittedError("RuntimeModel is not fitted yet: call fit() first")
        X = np.atleast_2d(np.asarray(X, dtype=float))
        log_time = X @ self.coef_.T
        expected = np.exp(log_time)
        if not interval:
            return expected
        return expected, np.exp(log_time - self.width_), np.exp(log_time + self.width_)


def _conformal_width(residuals: np.ndarray, coverage: float) -> float:
    """The ``ceil((m + 1) coverage) / m`` empirical quantile of ``m`` absolute residuals."""
    r = np.sort(residuals[np.isfinite(residuals)])
    m = r.size
    if m == 0:
        return float("inf")
    rank = int(np.ceil((m + 1) * coverage))
    return float(r[min(rank, m) - 1])


def conformal_widths(residuals, coverage: float) -> np.ndarray:
    """Split-conformal half-width of each column's interval from held-out residuals.

    Parameters
    ----------
    residuals : ndarray of shape (n_datasets, n_columns)
        Held-out residuals (NaN where a column has none).
    coverage : float
        Coverage in (0, 1).

    Returns
    -------
    ndarray of shape (n_columns,)
        For a column with ``m >= MIN_DATASETS`` residuals, the ``ceil((m + 1) coverage)``-th
        smallest absolute residual; with fewer, the same over every column's residuals
        pooled (infinite without any residual).

    Examples
    --------
    >>> conformal_widths(np.array([[0.1], [-0.3], [0.2], [0.5]] * 3), 0.5).round(2).tolist()
    [0.3]
    """
    r = np.abs(np.asarray(residuals, dtype=float))
    counts = np.isfinite(r).sum(axis=0)
    pooled = _conformal_width(r.ravel(), coverage)
    return np.array(
        [
            _conformal_width(r[:, a], coverage) if counts[a] >= MIN_DATASETS else pooled
            for a in range(r.shape[1])
        ]
    )
