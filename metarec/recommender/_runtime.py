r"""Expected fit time on a new dataset: a fixed cost plus a power law per algorithm, with a
conformal interval.

The times a knowledge base holds were measured on datasets of other sizes; an algorithm's
fit time grows with the rows ``n``, the features ``d`` and the classes ``c`` of the data by
roughly a power of each (an SVM about quadratically in ``n``, a tree about ``n log n``, a
one-vs-rest model linearly in ``c``), so a neighbour's time says little about a dataset a
hundred times larger.  On small data, though, a fit's time is mostly a fixed cost (building
the pipeline, checking the input, a hundred empty trees): a straight line through
``log t`` against ``log n`` then finds exponents far below the algorithm's growth (on the
built-in knowledge base, whose datasets have at most 10,000 rows, most are under 1) and expects a
dataset of 200,000 rows to take a few times a small one's time.  :class:`RuntimeModel`
therefore fits, for each algorithm ``a``, a fixed cost ``o_a`` plus a power law:

.. math::

    \log t_a = \log\left(e^{o_a} + e^{\beta_{a,0} + \beta_{a,1} \log n
                + \beta_{a,2} \log d + \beta_{a,3} \log c}\right) + \varepsilon,
    \qquad \beta_{a,1} \ge b_{\min},

by penalised least squares on the datasets where ``a`` has a time (the empirical
performance models of Hutter et al. 2014 restricted to the size features, because only a
model that grows with ``n`` extrapolates to sizes the knowledge base has not seen, where
tree ensembles stay flat at the largest size they were trained on).  The row exponent's
lower bound ``b_min`` (``min_row_exponent``, 0.75) says what the small datasets cannot: a
fit whose fixed cost is paid grows with the rows it reads.  It was chosen on the three
development histories by extrapolation, fitting on the smaller half of the datasets and
predicting the largest quarter and tenth (``benchmarks/runtime_model.py``): among
none, 0, 0.5, 0.75 and 1 it has the best worst-history share within a factor 3 (the
fixed cost alone does not extrapolate better than the straight line; with the bound it does
on every history).  A bound per algorithm is possible (an array); a bound of 1 for the tree
models alone, as the ``n log n`` cost of growing a tree would suggest, extrapolates worse
on all three histories: on real data deeper trees are not what larger datasets bring.  The
ridge penalty (``alpha``) pulls ``beta_1`` toward ``b_min`` and ``beta_2``, ``beta_3`` toward
0, so that an algorithm with few datasets keeps a simple law.  The fit is a
Levenberg-Marquardt iteration run for every algorithm at once (vectorised over algorithms);
with ``overhead=False`` and ``min_row_exponent=None`` the model is the plain ridge
regression of ``log t`` on the size features.

The datasets do not weigh alike: one of ``n`` rows weighs ``(n / 1000) ** size_weight``
beyond 1,000 rows (``size_weight``, default 0.5; below, 1).  Hundreds of small datasets,
whose times are mostly the fixed cost, otherwise decide the exponents that the few large ones
measure, and an expected time matters in proportion to its seconds: a factor 2 on a
100-second fit decides what a budget can hold, on a 10-millisecond one nothing.  Chosen
leave-one-dataset-out (``benchmarks/runtime_model.py``, ``benchmarks/large_times.py``): among
0, 0.5 and 1, 0.5 is the smallest weight that brings the large-data build's times at 50,000
rows and more to 80 % within a factor 2, and on the datasets of 20,000 rows and more of
TabZilla and of the built-in knowledge base it predicts more times within a factor 2 than
equal weights do; over all their times, most of them small datasets' fractions of a second,
it costs about a point of that share on TabZilla and half a point on the built-in one
(realworld-dev, without large datasets, gains a little).

Interval: split-conformal with leave-one-out residuals (the jackknife+ of Barber et al.
2021 in its symmetric, constant-width form).  For each algorithm the absolute leave-one-out
residuals ``|r_i| = |e_i / (1 - h_ii)|`` (``h_ii`` the leverage of the fit linearised at its
solution: exact for the plain power law, a first-order approximation with the fixed cost)
give the width ``q_a``, their ``ceil((m + 1) * coverage) / m`` empirical quantile over its
``m`` datasets; the interval is ``exp(mu +- q_a)``, so it is multiplicative.  With fewer than
:data:`MIN_DATASETS` datasets the residuals of every algorithm are pooled.  The interval's
coverage is exact for exchangeable datasets only; it is measured leave-one-dataset-out
(``benchmarks/runtime_model.py``).

A dataset larger than every one an algorithm was fitted on is not exchangeable with them:
fitted on the smaller half of a development history's datasets, the interval above covers
far fewer than 80 % of the larger datasets' times.  Beyond the largest fitted dataset the
half-width therefore grows by ``kappa`` (``extrapolation_width``) per unit of ``log n`` past
it, ``q_a + kappa * max(0, log n - log n_max,a)``.  The default ``kappa`` is the smallest
value (in steps of 0.05) whose interval covers at least 80 % of the larger datasets' times
on every history in both extrapolation splits of ``benchmarks/runtime_model.py`` (fitted on
the datasets up to the median size, predicting the largest quarter and tenth), which
measures the coverage with and without it.

References
----------
.. [1] Hutter, F., Xu, L., Hoos, H. H., Leyton-Brown, K. (2014). Algorithm runtime
   prediction: methods and evaluation. Artificial Intelligence 206, 79-111.
.. [2] Barber, R. F., Candes, E. J., Ramdas, A., Tibshirani, R. J. (2021). Predictive
   inference with the jackknife+. The Annals of Statistics 49(1), 486-507.
.. [3] Marquardt, D. W. (1963). An algorithm for least-squares estimation of nonlinear
   parameters. Journal of the Society for Industrial and Applied Mathematics 11(2), 431-441.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone

from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError

__all__ = [
    "RuntimeModel",
    "size_features",
    "conformal_widths",
    "dataset_sizes",
    "encoded_width",
    "expect_times",
    "extrapolation_note",
    "runtime_without",
    "MIN_DATASETS",
    "EXTRAPOLATION_FACTOR",
]

#: Fewer datasets than this for an algorithm: its interval width pools every algorithm's.
MIN_DATASETS = 10
#: Shortest time (seconds) taken into the logarithm: a timer's resolution, not a cost.
TIME_FLOOR = 1e-4
#: Default growth of the interval's half-width per unit of log rows beyond the fitted sizes.
EXTRAPOLATION_WIDTH = 0.55
#: Rows from which a dataset weighs more in the fit with ``size_weight`` (a smaller one's
#: time is mostly the fixed cost).
WEIGHT_PIVOT = 1000
#: Default exponent of a dataset's weight in its rows past :data:`WEIGHT_PIVOT`.
SIZE_WEIGHT = 0.5


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
    """Per-algorithm fixed cost plus power law of fit time in the dataset's size.

    See the module docstring for the model, the fit and the interval.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty (in units of squared log seconds) pulling the row exponent toward
        its lower bound (0 without one) and the feature and class exponents toward 0.
    coverage : float, default=0.8
        Coverage of the intervals, in (0, 1).
    min_row_exponent : float, array-like of shape (n_algorithms,) or None, default=0.75
        Lower bound of the row exponent, one for every algorithm or one per column of the
        times; None: unbounded.
    overhead : bool, default=True
        Fit a fixed cost per algorithm; False: the plain power law.
    extrapolation_width : float, default=0.55
        Growth of the interval's half-width (log seconds) per unit of ``log n`` beyond the
        largest dataset an algorithm was fitted on (0: none).
    size_weight : float, default=0.5
        A dataset of ``n`` rows weighs ``max(1, n / WEIGHT_PIVOT) ** size_weight`` in the
        least squares (0: every dataset alike; see the module docstring).

    Attributes
    ----------
    coef_ : ndarray of shape (n_algorithms, 4 + n_extra)
        Intercept and the exponents of ``n``, ``d`` and ``c`` (then of any further columns of
        ``X``) of each algorithm's power law.
    overhead_ : ndarray of shape (n_algorithms,)
        Each algorithm's fixed cost in seconds (0 with ``overhead=False``).
    width_ : ndarray of shape (n_algorithms,)
        Half-width of each algorithm's interval in log seconds.
    n_datasets_ : ndarray of shape (n_algorithms,)
        Datasets each algorithm was fitted on.
    max_log_rows_ : ndarray of shape (n_algorithms,)
        ``log n`` of the largest dataset each algorithm was fitted on (-inf without any).
    loo_residuals_ : ndarray of shape (n_datasets, n_algorithms)
        Leave-one-out residuals of log time (NaN where an algorithm has no time).

    Examples
    --------
    >>> import numpy as np
    >>> n = np.array([100, 1000, 10000, 100000])
    >>> X = size_features(n, [10] * 4, [2] * 4)
    >>> model = RuntimeModel(alpha=1e-9, overhead=False).fit(X, (1e-5 * n**2)[:, None])
    >>> float(np.round(model.coef_[0, 1], 3))  # time grows as n squared
    2.0
    >>> t = 0.05 + 1e-6 * n  # a fixed 50 ms, then linear in the rows
    >>> model = RuntimeModel(alpha=1e-9).fit(X, t[:, None])
    >>> np.round(model.predict(size_features([1e6], [10], [2]))[0], 2).tolist()
    [1.05]
    """

    def __init__(
        self,
        *,
        alpha: float = 1.0,
        coverage: float = 0.8,
        min_row_exponent: float | None = 0.75,
        overhead: bool = True,
        extrapolation_width: float = EXTRAPOLATION_WIDTH,
        size_weight: float = SIZE_WEIGHT,
    ) -> None:
        self.alpha = alpha
        self.coverage = coverage
        self.min_row_exponent = min_row_exponent
        self.overhead = overhead
        self.extrapolation_width = extrapolation_width
        self.size_weight = size_weight

    def _check(self, X, times):
        X = np.asarray(X, dtype=float)
        t = np.asarray(times, dtype=float)
        if t.ndim == 1:
            t = t[:, None]
        if X.ndim != 2 or X.shape[1] < 4 or X.shape[0] != t.shape[0]:
            raise InvalidInputError(
                f"X must be (n_datasets, 4 or more): size features (then any further "
                f"columns) matching times' {t.shape[0]} rows; "
                f"got {X.shape}"
            )
        if not (np.isfinite(self.alpha) and self.alpha >= 0):
            raise InvalidInputError(f"alpha must be >= 0; got {self.alpha!r}")
        if not 0 < self.coverage < 1:
            raise InvalidInputError(f"coverage must be in (0, 1); got {self.coverage!r}")
        for name in ("extrapolation_width", "size_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (
                isinstance(value, int | float) and np.isfinite(value) and value >= 0
            ):
                raise InvalidInputError(f"{name} must be a number >= 0; got {value!r}")
        bound = self.min_row_exponent
        if bound is not None:
            try:
                values = np.asarray(bound, dtype=float)
            except (TypeError, ValueError):
                values = np.array(np.nan)
            if values.ndim > 1 or (values.ndim == 1 and values.size != t.shape[1]):
                raise InvalidInputError(
                    f"min_row_exponent must be a number or one per algorithm ({t.shape[1]}); "
                    f"got shape {values.shape}"
                )
            if not np.all(np.isfinite(values)):
                raise InvalidInputError(
                    f"min_row_exponent must be finite numbers or None; got {bound!r}"
                )
            bound = np.broadcast_to(values, (t.shape[1],)).astype(float)
        return X, t, bound

    def fit(self, X, times):
        """Fit one fixed cost and power law per column of ``times``.

        Parameters
        ----------
        X : array-like of shape (n_datasets, 4 + n_extra)
            :func:`size_features` of the datasets, optionally followed by further columns
            (each with an exponent of its own, pulled toward 0 by ``alpha``).
        times : array-like of shape (n_datasets, n_algorithms)
            Fit times in seconds; NaN (or a non-positive time) where an algorithm has none.

        Returns
        -------
        self
        """
        X, t, bound = self._check(X, times)
        observed = np.isfinite(t) & (t > 0)
        y = np.log(np.clip(np.where(observed, t, 1.0), TIME_FLOOR, None))
        weight = np.maximum(X[:, 1] - np.log(WEIGHT_PIVOT), 0.0) * float(self.size_weight)
        w = observed * np.exp(weight)[:, None]  # (D, A): each algorithm's rows, weighted
        theta, leverage = _levenberg_marquardt(X, y, w, self.alpha, bound, self.overhead)
        self.coef_ = theta[:, 1:]
        self.overhead_ = np.exp(theta[:, 0]) if self.overhead else np.zeros(len(theta))
        fitted = _log_time(theta, X)
        with np.errstate(divide="ignore", invalid="ignore"):
            loo = (y - fitted) / np.maximum(1.0 - leverage, 1e-6)
        self.loo_residuals_ = np.where(observed, loo, np.nan)
        self.n_datasets_ = observed.sum(axis=0)
        self.max_log_rows_ = np.where(observed, X[:, [1]], -np.inf).max(axis=0)
        self.width_ = conformal_widths(self.loo_residuals_, self.coverage)
        return self

    def interval_width(self, X) -> np.ndarray:
        """Half-width (log seconds) of each query's interval: wider beyond the fitted sizes.

        Parameters
        ----------
        X : array-like of shape (n_queries, 4 + n_extra)
            The same columns as in :meth:`fit`, of the new datasets.

        Returns
        -------
        ndarray of shape (n_queries, n_algorithms)
            ``width_ + extrapolation_width * max(0, log n - max_log_rows_)``.
        """
        X = self._query(X)
        with np.errstate(invalid="ignore"):
            beyond = np.maximum(X[:, [1]] - self.max_log_rows_[None, :], 0.0)
        beyond = np.where(np.isfinite(beyond), beyond, 0.0)
        return self.width_[None, :] + float(self.extrapolation_width) * beyond

    def predict(self, X, *, interval: bool = False):
        """Expected fit time (the median of the log-normal model), in seconds.

        Parameters
        ----------
        X : array-like of shape (n_queries, 4 + n_extra)
            The same columns as in :meth:`fit`, of the new datasets.
        interval : bool, default=False
            Also return the lower and upper ends of the ``coverage`` interval.

        Returns
        -------
        expected : ndarray of shape (n_queries, n_algorithms)
        low, high : ndarray of shape (n_queries, n_algorithms)
            Only with ``interval=True``.
        """
        X = self._query(X)
        power = X @ self.coef_.T
        with np.errstate(divide="ignore"):
            log_time = np.logaddexp(np.log(self.overhead_)[None, :], power)
        expected = np.exp(log_time)
        if not interval:
            return expected
        width = self.interval_width(X)
        return expected, np.exp(log_time - width), np.exp(log_time + width)

    def _query(self, X) -> np.ndarray:
        if not hasattr(self, "coef_"):
            raise NotFittedError("RuntimeModel is not fitted yet: call fit() first")
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.ndim != 2 or X.shape[1] != self.coef_.shape[1]:
            raise InvalidInputError(
                f"X must have the {self.coef_.shape[1]} columns the model was fitted on; "
                f"got shape {X.shape}"
            )
        return X


#: Log seconds standing for "no fixed cost" (``overhead=False``): exp of it is 0 in floats.
_NO_OVERHEAD = -745.0
#: Iterations of the Levenberg-Marquardt fit (each one solves a small system per algorithm).
_ITERATIONS = 500


def _log_time(theta, X):
    """``log(exp(o) + exp(X beta))`` for every dataset (rows) and algorithm (columns)."""
    return np.logaddexp(theta[:, 0][None, :], X @ theta[:, 1:].T)


def _levenberg_marquardt(X, y, w, alpha, bound, overhead):
    """Penalised least squares of the model for every algorithm at once.

    Parameters ``theta = [o, beta_0, beta_1, beta_2, beta_3, ...]`` per algorithm (rows; one
    ``beta`` per column of ``X``).  The
    Jacobian of one algorithm's log times is ``[s, (1 - s) x]`` with ``s`` the fixed cost's
    share of the time; its Gauss-Newton matrix is assembled from three weighted sums over the
    datasets (matrix products, no per-dataset blocks).  A parameter held fixed (the
    fixed cost without ``overhead``; the row exponent at its bound at the solution) gets an
    identity row.  Returns ``theta`` and the leverage ``(D, A)`` of every dataset in every
    algorithm's fit linearised at the solution.
    """
    n_algorithms = y.shape[1]
    p = X.shape[1] + 1  # the fixed cost and one coefficient per column
    floor = np.zeros(n_algorithms) if bound is None else np.asarray(bound, dtype=float)
    prior = np.zeros((n_algorithms, p))
    prior[:, 2] = floor
    penalty = alpha * np.array([0.0, 0.0] + [1.0] * (p - 2)) + 1e-9  # 1e-9: one dataset, a mean
    outer = (X[:, :, None] * X[:, None, :]).reshape(len(X), (p - 1) ** 2)
    counts = np.maximum(w.sum(axis=0), 1.0)
    # start: the power law through the mean at the row exponent's floor, the fixed cost
    # below every observed time
    theta = np.zeros((n_algorithms, p))
    theta[:, 2] = floor
    theta[:, 1] = (w * (y - floor[None, :] * X[:, [1]])).sum(axis=0) / counts
    lowest = np.where(w > 0, y, np.inf).min(axis=0)
    theta[:, 0] = np.where(np.isfinite(lowest), lowest, 0.0) - 1.0 if overhead else _NO_OVERHEAD
    base_fixed = np.zeros((n_algorithms, p), dtype=bool)
    base_fixed[:, 0] = not overhead

    def loss(th):
        log_time = _log_time(th, X)
        r = (log_time - y) * np.sqrt(w)
        penalised = (penalty * (th - prior) ** 2 * ~base_fixed).sum(axis=1)
        return (r**2).sum(axis=0) + penalised, log_time

    def normal(th, log_time, fixed):
        """The fixed cost's share, the Gauss-Newton matrix and the gradient."""
        share = np.exp(th[:, 0][None, :] - log_time)
        r = (log_time - y) * w
        rest = 1.0 - share
        hessian = np.empty((n_algorithms, p, p))
        hessian[:, 0, 0] = (w * share**2).sum(axis=0)
        hessian[:, 0, 1:] = (w * share * rest).T @ X
        hessian[:, 1:, 0] = hessian[:, 0, 1:]
        hessian[:, 1:, 1:] = ((w * rest**2).T @ outer).reshape(n_algorithms, p - 1, p - 1)
        gradient = np.empty((n_algorithms, p))
        gradient[:, 0] = (r * share).sum(axis=0)
        gradient[:, 1:] = (r * rest).T @ X
        free = ~fixed
        hessian = hessian * (free[:, :, None] & free[:, None, :])
        hessian += (penalty * free + fixed)[:, :, None] * np.eye(p)
        gradient = (gradient + penalty * (th - prior)) * free
        return share, hessian, gradient

    current, log_time = loss(theta)
    damping = np.full(n_algorithms, 1e-2)
    for _ in range(_ITERATIONS):
        _, hessian, gradient = normal(theta, log_time, base_fixed)
        diagonal = np.diagonal(hessian, axis1=1, axis2=2)
        damped = hessian + damping[:, None, None] * (diagonal[:, :, None] * np.eye(p))
        step = -np.linalg.solve(damped, gradient[..., None])[..., 0]
        candidate = theta + step
        if bound is not None:
            candidate[:, 2] = np.maximum(candidate[:, 2], floor)
        if overhead:
            candidate[:, 0] = np.clip(candidate[:, 0], np.log(TIME_FLOOR) - 10.0, 20.0)
        new, new_log_time = loss(candidate)
        better = new < current
        gain = (current - new) / np.maximum(current, 1e-300)
        theta = np.where(better[:, None], candidate, theta)
        log_time = np.where(better[None, :], new_log_time, log_time)
        current = np.where(better, new, current)
        damping = np.clip(np.where(better, damping / 3.0, damping * 4.0), 1e-12, 1e12)
        # done: an accepted step gained less than a part in 10^10, or no step helps any more
        if np.all((better & (gain < 1e-10)) | (damping >= 1e10)):
            break
    fixed = base_fixed.copy()
    if bound is not None:  # an active bound holds the row exponent at the solution
        fixed[:, 2] = theta[:, 2] <= floor + 1e-9
    # a fixed cost below a hundredth of every time is not identified (its direction is flat):
    # held, so that the leverage is the power law's
    share = np.exp(theta[:, 0][None, :] - log_time)
    fixed[:, 0] |= np.where(w > 0, share, 0.0).max(axis=0) < 1e-2
    share, hessian, _ = normal(theta, log_time, fixed)
    inverse = np.linalg.inv(hessian) * (~fixed[:, :, None] & ~fixed[:, None, :])
    rest = 1.0 - share
    leverage = share**2 * inverse[:, 0, 0][None, :]
    leverage += 2.0 * share * rest * (X @ inverse[:, 0, 1:].T)
    leverage += rest**2 * (outer @ inverse[:, 1:, 1:].reshape(n_algorithms, (p - 1) ** 2).T)
    return theta, leverage * w


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


# ------------------------------------------------------- the expected times of a ranker
#: A query with more rows than this many times the knowledge base's largest dataset (with a
#: time) gets a note: its expected times are extrapolated beyond what the KB measured.
EXTRAPOLATION_FACTOR = 2.0


#: A categorical column counts as at most this many columns in :func:`encoded_width` (the
#: one-hot columns of the pipelines' encoder, :data:`metarec.algorithms.MAX_ONE_HOT`).
MAX_ENCODED = 50


def encoded_width(n_features, n_numeric, n_categorical, cardinality_mean) -> np.ndarray:
    """The columns a model is fitted on: the numeric ones and the one-hot ones.

    ``n_numeric + n_categorical * clip(cardinality_mean, 1, MAX_ENCODED)``: the pipelines
    one-hot encode a categorical column into at most :data:`MAX_ENCODED` columns, and a
    linear model, a kernel or a network pays for each of them (on the large datasets the
    raw count of columns put half the expected times more than a factor 2 off, the
    encoded width a quarter; ``benchmarks/large_times.py``).  Where the kinds are unknown
    (NaN), ``n_features``.

    Parameters
    ----------
    n_features, n_numeric, n_categorical, cardinality_mean : array-like of shape (n,)
        The metafeatures of those names.

    Returns
    -------
    ndarray of shape (n,)
        Each dataset's width, in columns.

    Examples
    --------
    >>> encoded_width([5, 5, 5], [3, 3, np.nan], [2, 2, np.nan], [120, 4, np.nan]).tolist()
    [103.0, 11.0, 5.0]
    """
    n_features = np.asarray(n_features, dtype=float).reshape(-1)
    numeric = np.asarray(n_numeric, dtype=float).reshape(-1)
    categorical = np.nan_to_num(np.asarray(n_categorical, dtype=float).reshape(-1), nan=0.0)
    cardinality = np.asarray(cardinality_mean, dtype=float).reshape(-1)
    levels = np.clip(np.nan_to_num(cardinality, nan=1.0), 1.0, MAX_ENCODED)
    width = numeric + categorical * levels
    return np.where(np.isfinite(numeric), width, n_features)


#: The metafeatures :func:`encoded_width` reads.
WIDTH_METAFEATURES = (
    "n_features", "n_numeric_features", "n_categorical_features", "categorical_cardinality_mean",
)  # fmt: skip


def dataset_sizes(ranker, rows=None) -> np.ndarray:
    """:func:`size_features` of a fitted ranker's datasets ``rows`` (every one by default),
    their width the :func:`encoded_width`."""
    raw = ranker.raw_metafeatures_

    def column(name, default=1.0):
        return raw[name].to_numpy(float) if name in raw.columns else np.full(len(raw), default)

    width = encoded_width(*(column(n, np.nan) for n in WIDTH_METAFEATURES))
    width = np.where(np.isfinite(width), width, column("n_features"))
    sizes = size_features(column("n_instances"), width, column("n_classes"))
    return sizes if rows is None else sizes[rows]


def runtime_without(ranker, excluded: np.ndarray) -> RuntimeModel:
    """A fitted ranker's runtime model fitted without the datasets ``excluded``.

    Kept in the ranker's ``runtimes_`` per exclusion (leave-one-dataset-out evaluates every
    strategy on the same left-out dataset).
    """
    if not excluded.any():
        return ranker.runtime_
    key = tuple(str(d) for d in ranker.datasets_[excluded])
    if key not in ranker.runtimes_:
        keep = ~excluded
        ranker.runtimes_[key] = clone(ranker.runtime_).fit(
            dataset_sizes(ranker, keep), np.where(ranker.present_[keep], ranker.time_[keep], np.nan)
        )
    return ranker.runtimes_[key]


def expect_times(ranker, query, excluded, evidence) -> None:
    """Put the expected time of every algorithm for ``query`` and its interval into
    ``evidence`` (a :class:`~metarec.recommender._base.Evidence`).

    An algorithm's time on a neighbour was measured on a dataset of another size; the
    expected time on the new dataset is the runtime model's power law (fitted on every
    dataset of the matrix but the excluded ones) at the new dataset's size, with its 80 %
    conformal interval, wider beyond the sizes the knowledge base has times of.  Without
    the query's ``n_instances``, or for an algorithm the runtime model has no time for, the
    neighbours' weighted geometric mean stays, with the runtime model's interval width
    around it.
    """
    model = runtime_without(ranker, excluded)

    def value(name):
        try:
            v = float(query.get(name, np.nan))
        except (TypeError, ValueError):
            return np.nan
        return v if np.isfinite(v) else np.nan

    rows = value("n_instances")
    has = model.n_datasets_ > 0
    fallback = evidence.expected_time
    width = model.width_
    if rows > 0:
        width = encoded_width(*([value(n)] for n in WIDTH_METAFEATURES))
        x = size_features([rows], width, [value("n_classes")])
        predicted = model.predict(x)[0]
        expected = np.where(has, predicted, fallback)
        width = model.interval_width(x)[0]  # wider beyond the sizes the KB has times of
    else:
        expected = fallback
    width = np.where(np.isfinite(width), width, np.nan)
    evidence.time_note = extrapolation_note(ranker, rows, excluded)
    evidence.expected_time = expected
    evidence.time_low = expected * np.exp(-width)
    evidence.time_high = expected * np.exp(width)


def extrapolation_note(ranker, rows: float, excluded: np.ndarray) -> str:
    """A note when ``rows`` is far beyond the largest dataset with a time in the KB."""
    if ranker.n_instances_ is None or not rows > 0:
        return ""
    timed = ~excluded & (ranker.row_time_ > 0)  # datasets with a positive usable time
    largest = float(np.nanmax(np.where(timed, ranker.n_instances_, np.nan), initial=0.0))
    if not largest > 0 or rows <= EXTRAPOLATION_FACTOR * largest:
        return ""
    return (
        f"Expected times are extrapolated: {rows:,.0f} rows is {rows / largest:,.0f}x the "
        f"largest dataset the knowledge base has times for ({largest:,.0f} rows), so a "
        "fit can take several times its expectation; the 80 % intervals are widened "
        "with the distance, as measured on extrapolations of the development histories."
    )
