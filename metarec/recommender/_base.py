"""What every ranking strategy shares: neighbours, evidence, tried algorithms and budgets.

A strategy is a subclass of :class:`BaseRanker` that says only how it scores and orders the
algorithms (:meth:`BaseRanker._strategy_order`); the base class

1. is fitted on a :class:`~metarec.recommender.PerformanceMatrix` (``fit(matrix)``): the
   normalized success rates, the scaled metafeatures and the runtime model;
2. for a new dataset (``rank(query, *, exclude, tried, budget)``) chooses the ``k`` nearest
   datasets in metafeature space (:mod:`metarec.recommender._neighbours`) and their
   similarity weights, re-weights them by agreement with the algorithms already tried
   (:mod:`metarec.recommender._active`), computes the evidence of every algorithm (expected
   accuracy and time, how many neighbours ran it, how many failed), asks the strategy for
   its order, and turns a budget into a plan.

With ``normalize=True`` the success rates of each dataset are first passed through
:func:`metarec.evaluation.normalized_metric` with that dataset's metafeatures (task from
``n_classes``: 2 = binary, more = multiclass; datasets whose metafeatures lack what the metric
needs keep their raw values).  Because the adjustment is a factor common to every algorithm
of a dataset, it cancels in the ratio ``SR_p / SR_q`` except where the clamping to [0, 1]
applies.  Success rates are floored at 1e-3 and times at 1e-4 s before taking logarithms.

Expected time
    An algorithm's time on a neighbour was measured on a dataset of another size; the
    expected time on the new dataset is the runtime model's
    (:func:`~metarec.recommender._runtime.expect_times`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator

from metarec._duration import parse_duration
from metarec._names import check_names, sample_base, unknown_name
from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError, UnknownNameError
from metarec.recommender._matrix import well_compared
from metarec.recommender._neighbours import (
    DISTANCES,
    MetafeatureScaler,
    select_neighbours,
    similarity_weights,
)
from metarec.recommender._ranking import Neighbour, RankedAlgorithm, Ranking
from metarec.recommender._results import normalized_scores
from metarec.recommender._runtime import (
    TIME_FLOOR,
    RuntimeModel,
    conformal_widths,
    dataset_sizes,
    expect_times,
)

__all__ = ["BaseRanker", "Evidence", "SR_FLOOR", "TIME_FLOOR", "TIMING_SUFFIXES"]

#: Smallest success rate taken into a ratio (a rate of 0 would make A3R infinite).
SR_FLOOR = 1e-3
#: Metafeatures left out of the default distance: wall-clock timings (landmarker fit times)
#: depend on the machine and differ between two extractions of the same data.
TIMING_SUFFIXES = ("_time",)
#: Coverage of the expected accuracy's and expected time's intervals.
COVERAGE = 0.8
#: How :meth:`BaseRanker.portfolio` weighs the knowledge base's datasets.
WEIGHTINGS = ("similarity", "uniform", "uniform_first")
#: Most datasets whose held-out residuals size the accuracy interval (evenly spaced).
CALIBRATION_ROWS = 500


class Evidence:
    """The neighbours' evidence about every algorithm for one query (arrays over algorithms).

    Attributes
    ----------
    expected_accuracy, expected_time : ndarray
        Similarity-weighted mean accuracy and geometric mean time over the neighbours that
        ran each algorithm (NaN without evidence).
    n_datasets, n_failed : ndarray of int
        Neighbours with a result, and with a failed one.
    low, high : ndarray
        Lowest and highest accuracy among them (the evidence's spread).
    time_low, time_high : ndarray
        The expected time's 80 % interval (see "Expected time" in the module documentation).
    time_note : str
        Why the expected times deserve caution for this query ("" when they do not).
    """

    __slots__ = (
        "expected_accuracy",
        "expected_time",
        "n_datasets",
        "n_failed",
        "low",
        "high",
        "time_low",
        "time_high",
        "time_note",
    )

    def __init__(self, expected_accuracy, expected_time, n_datasets, n_failed, low, high):
        self.expected_accuracy = expected_accuracy
        self.expected_time = expected_time
        self.n_datasets = n_datasets
        self.n_failed = n_failed
        self.low = low
        self.high = high
        self.time_low = np.full_like(expected_time, np.nan)
        self.time_high = np.full_like(expected_time, np.nan)
        self.time_note = ""


def check_tried(tried) -> dict[str, tuple[float, float]]:
    """``tried`` as ``{algorithm: (accuracy, seconds)}``, each value checked.

    Parameters
    ----------
    tried : mapping of str to (float, float) or None
        Results already obtained on the new dataset: accuracy in [0, 1] and fit time in
        seconds (>= 0) of each algorithm.

    Raises
    ------
    InvalidInputError
        Not a mapping, or a value that is not a pair of numbers in those ranges (the
        message names the algorithm and the value).
    """
    if tried is None:
        return {}
    if not isinstance(tried, Mapping):
        raise InvalidInputError(
            "tried must map each algorithm to its (accuracy, seconds), e.g. "
            f"{{'random_forest': (0.91, 2.5)}}; got {type(tried).__name__}"
        )
    out = {}
    for name, value in tried.items():
        try:
            accuracy, seconds = (float(v) for v in value)
        except (TypeError, ValueError):
            accuracy = seconds = np.nan
        if not (0.0 <= accuracy <= 1.0 and 0.0 <= seconds < np.inf):
            raise InvalidInputError(
                f"tried[{str(name)!r}] must be (accuracy in [0, 1], seconds >= 0); got {value!r}"
            )
        out[str(name)] = (accuracy, seconds)
    return out


def check_budget(budget) -> float | None:
    """``budget`` as positive seconds: a number, or a duration such as ``"90s"`` or ``"10m"``.

    Raises
    ------
    InvalidInputError
        Not a duration, zero, negative or infinite.
    """
    if budget is None:
        return None
    try:
        return parse_duration(budget)
    except InvalidInputError as exc:
        raise InvalidInputError(f"budget (seconds): {exc}") from None


class BaseRanker(BaseEstimator):
    """Base class of the ranking strategies (see the module documentation).

    Subclasses set ``strategy`` (the name a :class:`Ranking` reports), ``higher_is_better``
    (whether a larger score ranks first) and implement :meth:`_strategy_scores`; the
    learned strategy overrides :meth:`_strategy_order` as a whole.  Every subclass takes
    these keyword-only parameters besides its own:

    - ``k`` (int or None, default 10): number of nearest datasets used; ``None`` = every
      dataset;
    - ``normalize`` (bool, default True): adjust each dataset's success rates with the
      normalized metric first;
    - ``distance`` (``"l1-range"`` or ``"standardized"``, default ``"l1-range"``):
      metafeature distance;
    - ``weights`` (None or ``"distance"``, default ``"distance"``): similarity weights of
      the neighbours;
    - ``features`` (sequence of str or None, default None): metafeatures of the distance;
      ``None`` = every numeric one except timings;
    - ``tried_scale`` (float, default inf): active testing's re-weighting of neighbours by
      agreement with tried results;
    - ``random_state`` (int, RandomState or None, default None): breaks exact ties between
      scores at random (``None``: by name).

    A subclass's defaults are classification's; :meth:`for_task` gives another task's.

    Attributes
    ----------
    datasets_, algorithms_ : ndarray of str
        Rows and columns of the fitted matrix.
    accuracy_, time_ : ndarray of shape (n_datasets, n_algorithms)
        The matrix's accuracy and time (NaN where missing).
    present_, failed_ : ndarray of bool
        Whether a result exists, and whether every run of it failed.
    log_sr_ : ndarray
        Logarithm of the (normalized, floored) success rate, 0 where missing.
    metafeatures_ : ndarray of shape (n_datasets, n_metafeatures)
        Scaled metafeatures (NaN where missing), columns ``scaler_.names_``.
    runtime_ : RuntimeModel
        Per-algorithm power law of time in the dataset's size.
    """

    strategy = "base"
    score_name = "score"
    higher_is_better = True

    # ------------------------------------------------------------------ fit
    def _validate_params(self) -> None:
        if self.distance not in DISTANCES:
            raise InvalidInputError(
                f"distance must be one of {', '.join(DISTANCES)}; got {self.distance!r}"
            )
        if self.k is not None and (int(self.k) != self.k or self.k < 1):
            raise InvalidInputError(f"k must be a positive integer or None; got {self.k!r}")
        if self.weights not in (None, "distance"):
            raise InvalidInputError(f"weights must be None or 'distance'; got {self.weights!r}")
        if not self.tried_scale > 0:
            raise InvalidInputError(f"tried_scale must be positive; got {self.tried_scale!r}")
        n = getattr(self, "n", None)
        if n is not None and not (np.isfinite(n) and n > 0):
            raise InvalidInputError(f"n must be a positive number; got {n!r}")

    @classmethod
    def for_task(cls, task: str = "classification", **params):
        """An unfitted ranker with the defaults of ``task`` and ``params``.

        The parameters' defaults are classification's; a strategy whose good values differ
        for regression (:class:`~metarec.recommender.LearnedRanker`) overrides this.

        Parameters
        ----------
        task : {"classification", "regression"}, default="classification"
            The task of the matrix it will be fitted on.
        **params
            Parameters that override the task's defaults.

        Returns
        -------
        BaseRanker
        """
        if task not in ("classification", "regression"):
            raise InvalidInputError(f"task must be 'classification' or 'regression'; got {task!r}")
        return cls(**params)

    def fit(self, matrix, y=None):
        """Learn from a performance matrix.

        Parameters
        ----------
        matrix : PerformanceMatrix
            The knowledge base's results (see :meth:`PerformanceMatrix.from_kb`).
        y : ignored

        Returns
        -------
        self
        """
        return self._fit(matrix)

    def fit_like(self, fitted: BaseRanker):
        """Fit on the matrix of a fitted ranker, sharing what does not depend on parameters.

        The runtime model is the matrix's alone and is shared; so are a strategy's fitted
        state and the accuracy interval when ``fitted`` is of the same class with the same
        parameters they depend on (:meth:`_reuse_key`).  The result equals
        ``clone(self).fit(matrix)``; evaluating many parameter values on one knowledge base
        (the baselines of an evaluation, a tuning grid) then costs one runtime fit.

        Parameters
        ----------
        fitted : BaseRanker
            A fitted ranker of any strategy.

        Returns
        -------
        self
        """
        fitted._check_fitted()
        return self._fit(fitted.matrix(), reuse=fitted)

    def matrix(self):
        """The performance matrix this ranker was fitted on.

        Returns
        -------
        PerformanceMatrix
        """
        from metarec.recommender._matrix import PerformanceMatrix

        self._check_fitted()
        return PerformanceMatrix(
            self.datasets_,
            self.algorithms_,
            self.accuracy_,
            self.time_,
            self.present_,
            self.failed_,
            self.raw_metafeatures_,
            self.metric_,
            self.time_column_,
            getattr(self, "task_", "classification"),
        )

    def _reuse_key(self) -> tuple:
        """What a strategy's fitted state and calibration depend on (see :meth:`fit_like`)."""
        return (type(self), repr(sorted(self.get_params().items())))

    def _fit(self, matrix, reuse: BaseRanker | None = None):
        from metarec.recommender._matrix import PerformanceMatrix

        if not isinstance(matrix, PerformanceMatrix):
            raise InvalidInputError(
                f"fit takes a PerformanceMatrix (PerformanceMatrix.from_kb(kb, "
                f"task='classification')); "
                f"got {type(matrix).__name__}"
            )
        self._validate_params()
        raw_meta = matrix.metafeatures
        names = [c for c in raw_meta.columns if raw_meta[c].notna().any()]
        if self.features is None:
            # timings depend on the machine and vary from run to run: not for distances
            names = [c for c in names if not str(c).endswith(TIMING_SUFFIXES)]
        else:
            unknown = [f for f in self.features if f not in raw_meta.columns]
            if unknown:
                raise UnknownNameError(
                    f"metafeature(s) {', '.join(map(repr, unknown))} are not in the knowledge base"
                )
            names = [f for f in self.features if f in names]
        acc, usable = matrix.accuracy, matrix.present
        sr = normalized_scores(acc, raw_meta) if self.normalize else acc
        self.log_sr_ = np.where(
            usable, np.log(np.clip(np.nan_to_num(sr, nan=1.0), SR_FLOOR, None)), 0.0
        )
        self.scaler_ = MetafeatureScaler(self.distance).fit(raw_meta[names].to_numpy(float), names)
        self.metafeatures_ = self.scaler_.transform(raw_meta[self.scaler_.names_].to_numpy(float))
        self.raw_metafeatures_ = raw_meta
        self.metric_ = matrix.metric
        self.time_column_ = matrix.time_column
        self.task_ = matrix.task
        self.datasets_ = matrix.datasets
        self.algorithms_ = matrix.algorithms
        self.accuracy_ = acc
        self.time_ = matrix.time
        self.present_ = usable
        self.failed_ = matrix.failed
        self.dataset_index_ = {name: i for i, name in enumerate(self.datasets_)}
        self.sample_bases_ = np.array([sample_base(n) for n in self.datasets_], dtype=object)
        self.algorithm_index_ = {name: j for j, name in enumerate(self.algorithms_)}
        self.baseline_ = matrix.baseline
        self.row_time_ = np.nansum(np.where(usable, matrix.time, np.nan), axis=1)
        self.model_features_ = list(names)
        self.model_X_ = raw_meta[names].to_numpy(float)
        self.n_instances_ = (
            raw_meta["n_instances"].to_numpy(float) if "n_instances" in raw_meta.columns else None
        )
        self.predictions_ = {}
        self.runtimes_ = {}  # runtime models refitted without excluded datasets
        if reuse is not None:
            self.runtime_ = reuse.runtime_
            self.runtimes_ = reuse.runtimes_
        else:
            self.runtime_ = RuntimeModel(coverage=COVERAGE).fit(
                dataset_sizes(self), np.where(usable, matrix.time, np.nan)
            )
        same = reuse is not None and reuse._reuse_key() == self._reuse_key()
        if same:
            self._share_strategy(reuse)
            self.accuracy_width_ = reuse.accuracy_width_
        else:
            self._fit_strategy()
            self.accuracy_width_ = conformal_widths(self._calibration_residuals(), COVERAGE)
        return self

    def _share_strategy(self, fitted: BaseRanker) -> None:
        """Take ``fitted``'s strategy state (same class and :meth:`_reuse_key`)."""

    def _calibration_rows(self) -> np.ndarray:
        """Datasets whose held-out residuals size the accuracy interval (evenly spaced)."""
        rows = np.flatnonzero(self.present_.any(axis=1))
        if rows.size > CALIBRATION_ROWS:
            rows = rows[np.linspace(0, rows.size - 1, CALIBRATION_ROWS).round().astype(np.int64)]
        return rows

    def _calibration_residuals(self) -> np.ndarray:
        """Leave-one-dataset-out residuals of the expected accuracy (rows x algorithms).

        For the neighbour strategies: each calibration dataset's expected accuracy from its
        own ``k`` nearest other datasets, minus its results.
        """
        rows = self._calibration_rows()
        residuals = np.full((rows.size, self.algorithms_.size), np.nan)
        for r, i in enumerate(rows):
            excluded = self.sample_bases_ == self.sample_bases_[i]  # and its subsamples
            try:
                idx, _, _, w = self._neighbours_of(self.metafeatures_[i], excluded)
            except InvalidInputError:
                continue
            predicted = self._evidence(idx, w).expected_accuracy
            residuals[r] = np.where(self.present_[i], self.accuracy_[i] - predicted, np.nan)
        return residuals

    def _fit_strategy(self) -> None:
        """What a strategy learns beyond the shared state (nothing by default)."""

    def _seed(self):
        if isinstance(self.random_state, np.random.RandomState):
            return self.random_state.randint(2**31)
        return 0 if self.random_state is None else self.random_state

    def _log_time(self, rows) -> np.ndarray:
        """Logarithm of the (floored) time of the datasets ``rows``, 0 where missing."""
        tim = self.time_[rows]
        with np.errstate(invalid="ignore"):
            return np.where(
                self.present_[rows],
                np.log(np.clip(np.nan_to_num(tim, nan=1.0), TIME_FLOOR, None)),
                0.0,
            )

    def _ties(self, j: np.ndarray) -> np.ndarray:
        if self.random_state is None:
            return np.argsort(np.argsort(self.algorithms_[j].astype(str)))
        return np.random.default_rng(self._seed()).permutation(j.size)

    def _check_fitted(self) -> None:
        if not hasattr(self, "present_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit() first")

    # ----------------------------------------------------------------- rank
    def rank(
        self,
        query: Mapping[str, float],
        *,
        exclude=(),
        tried: Mapping[str, tuple[float, float]] | None = None,
        budget: float | None = None,
    ) -> Ranking:
        """Rank the algorithms for a new dataset given its metafeatures.

        Parameters
        ----------
        query : mapping of str to float
            The new dataset's metafeatures (names as in the matrix).
        exclude : str or iterable of str, default=()
            Datasets not to use (leave-one-out evaluation); an unknown name is refused.
        tried : mapping of str to (accuracy, time), optional
            Results already obtained on the new dataset (accuracy in [0, 1], seconds):
            dropped from the ranking; with a finite ``tried_scale`` the neighbours are also
            re-weighted by agreement with them.
        budget : float or str, optional
            Time budget in seconds (or a duration such as ``"10m"``): the plan expected to
            reach the lowest loss within it.

        Returns
        -------
        Ranking
        """
        from metarec.recommender._active import agreement_weights, budget_plan

        self._check_fitted()
        tried = check_tried(tried)
        check_names(
            [str(name) for name in tried],
            self.algorithms_,
            what="algorithm",
            parameter="tried",
            option="--tried",
        )
        budget = check_budget(budget)
        excluded = self._excluded(exclude)
        idx, dist, n_compared, w = self._neighbours(query, excluded)
        tried_idx = [self.algorithm_index_[str(name)] for name in tried]
        if tried:
            w = w * agreement_weights(self, idx, tried, scale=self.tried_scale)
        evidence = self._evidence(idx, w)
        expect_times(self, query, excluded, evidence)
        keep = np.ones(self.algorithms_.size, dtype=bool)
        keep[tried_idx] = False
        order, scores, exp_acc, exp_time, basis, run = self._strategy_order(
            query, idx, w, excluded, keep, tried, evidence, run=budget is None
        )
        evidence.low = np.clip(exp_acc - self.accuracy_width_, 0.0, 1.0)
        evidence.high = np.clip(exp_acc + self.accuracy_width_, 0.0, 1.0)
        score_name = self._score_name(bool(tried))
        plan: tuple = ()
        if budget is not None:
            # an algorithm compared on too few datasets is not planned while others remain
            supported = well_compared(self.present_[~excluded])[order]
            candidates = order[supported] if supported.any() else order
            order, plan = budget_plan(self, idx, w, candidates, exp_time, tried, float(budget))
            basis = np.full(self.algorithms_.size, "budget plan", dtype=object)
            scores = np.full(self.algorithms_.size, np.nan)
            scores[order] = [loss for _, loss in plan]
            score_name = "expected_loss"
            run = None  # a budgeted plan is run in its own order (none was computed)
        neighbours = tuple(
            Neighbour(str(self.datasets_[i]), float(dist[i]), float(wi), int(n_compared[i]))
            for i, wi in zip(idx, w, strict=True)
        )
        return Ranking(
            entries=self._entries(order, scores, exp_acc, exp_time, evidence, basis),
            neighbours=neighbours,
            method=self.strategy,
            metric=self.metric_,
            time=self.time_column_,
            budget=None if budget is None else float(budget),
            tried=tuple(str(t) for t in tried),
            plan=tuple(plan),
            score_name=score_name,
            time_note=evidence.time_note,
            run_order=() if run is None else tuple(str(self.algorithms_[j]) for j in run),
        )

    def portfolio(
        self,
        query: Mapping[str, float],
        *,
        size: int = 20,
        budget: float | None = None,
        n_folds: int = 1,
        exclude=(),
        candidates=None,
        weighting: str = "similarity",
    ) -> list[str]:
        """Choose configurations to run on a new dataset, for that dataset (greedy).

        The knowledge base's datasets are weighted by their similarity to ``query`` (this
        ranker's neighbours and weights, plus the whole collection as
        :data:`~metarec.recommender._greedy.PRIOR_WEIGHT` nearest neighbours) and the
        configurations chosen one at a time, each the one that most lowers the weighted mean
        over the datasets of the (clipped) rank of the best chosen so far
        (:func:`~metarec.recommender._greedy.greedy_portfolio`).  A configuration whose
        expected time for the new dataset (the top of its 80 % interval, times ``n_folds``)
        exceeds ``budget`` is not a candidate.

        Parameters
        ----------
        query : mapping of str to float
            The new dataset's metafeatures.
        size : int, default=20
            Configurations to choose (fewer when fewer are candidates).
        budget : float, optional
            Seconds available; None: no time limit.
        n_folds : int, default=1
            Fits of each configuration ``budget`` must hold (the folds of a protocol).
        exclude : str or iterable of str, default=()
            Datasets not to use (leave-one-out evaluation).
        candidates : iterable of str, optional
            The algorithms to choose from (those installed, say); every one by default.
        weighting : {"similarity", "uniform", "uniform_first"}, default="similarity"
            ``"uniform"``: every dataset weighs the same (the portfolio of the collection,
            whatever the new dataset).  ``"uniform_first"``: the uniform portfolio's first
            configuration (the collection's single best, in mean clipped rank) first, then
            the others chosen for this dataset given it: the first answer is the single
            best's, the rest adapts.

        Returns
        -------
        list of str
            The chosen configurations, in the order chosen (the order to run them in).

        Raises
        ------
        InvalidInputError
            An unknown ``weighting``.
        """
        from metarec.recommender._greedy import PRIOR_WEIGHT, dataset_ranks, greedy_portfolio

        if weighting not in WEIGHTINGS:
            raise InvalidInputError(
                f"weighting must be one of {', '.join(map(repr, WEIGHTINGS))}; got {weighting!r}"
            )
        self._check_fitted()
        excluded = self._excluded(exclude)
        kept = ~excluded
        idx, _, _, w = self._neighbours(query, excluded)
        if weighting == "uniform":
            weights = kept.astype(float)
        else:
            weights = np.zeros(self.datasets_.size)
            weights[idx] = np.asarray(w, dtype=float)
            weights[kept] += PRIOR_WEIGHT / max(int(kept.sum()), 1)
        allowed = np.ones(self.algorithms_.size, dtype=bool)
        if candidates is not None:
            wanted = {str(c) for c in candidates}
            allowed &= np.isin(self.algorithms_.astype(str), list(wanted))
        if budget is not None:
            evidence = self._evidence(idx, np.asarray(w, dtype=float))
            expect_times(self, query, excluded, evidence)
            high = np.where(np.isfinite(evidence.time_high), evidence.time_high, np.inf)
            allowed &= high * max(int(n_folds), 1) <= float(budget)
        ranks = dataset_ranks(self.accuracy_[kept], self.present_[kept])
        start: list[int] = []
        if weighting == "uniform_first":
            start, _ = greedy_portfolio(ranks, np.ones(ranks.shape[0]), size=1, allowed=allowed)
        order, _ = greedy_portfolio(ranks, weights[kept], size=size, allowed=allowed, start=start)
        return [str(self.algorithms_[j]) for j in order]

    def _excluded(self, exclude) -> np.ndarray:
        """Mask of the datasets named in ``exclude`` (one name or an iterable of names), and
        of every subsample of the same data (``name@rows``, :func:`metarec._names.sample_base`).

        An unknown name is refused: a misspelt held-out dataset would silently stay in.
        """
        if exclude is None:
            exclude = ()
        elif isinstance(exclude, str) or not hasattr(exclude, "__iter__"):
            exclude = [exclude]
        names = [str(name) for name in exclude]
        index = self.dataset_index_
        unknown = [name for name in names if name not in index]
        if unknown:
            raise unknown_name(
                "dataset", unknown[0], self.datasets_, parameter="exclude", option="--exclude"
            )
        excluded = np.zeros(self.datasets_.size, dtype=bool)
        excluded[[index[name] for name in names]] = True
        # a subsample and the dataset it was drawn from are the same data: out together
        bases = {sample_base(name) for name in names}
        return excluded | np.isin(self.sample_bases_, list(bases))

    def _score_name(self, tried: bool) -> str:
        """What the ``score`` of a ranking of this strategy is (the table's column name)."""
        if tried:
            return "expected_gain"
        return self.score_name

    def rank_stored(self, datasets=None) -> Ranking:
        """Ranking of the stored results themselves, without a new dataset.

        Parameters
        ----------
        datasets : str or iterable of str, optional
            Datasets whose results are aggregated (each weighs 1); default every dataset.
            With one dataset this is the "true" ranking of that dataset.

        Returns
        -------
        Ranking
            ``neighbours`` lists the datasets used, at distance NaN.  Each algorithm's
            expected accuracy is its mean over those datasets, and its 80 % interval the
            10th to 90th percentile of their results (what four in five of them reached).
        """
        self._check_fitted()
        if datasets is None:
            idx = np.arange(self.datasets_.size)
        else:
            names = [datasets] if isinstance(datasets, str) else list(datasets)
            check_names(
                [str(d) for d in names],
                self.datasets_,
                what="dataset",
                parameter="datasets",
                option="--dataset",
            )
            idx = np.array([self.dataset_index_[str(d)] for d in names], dtype=int)
        w = np.ones(idx.size)
        evidence = self._evidence(idx, w)
        results = np.where(self.present_[idx], self.accuracy_[idx], np.nan)
        with warnings.catch_warnings():  # an algorithm without results: NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            evidence.low, evidence.high = np.nanpercentile(results, [10.0, 90.0], axis=0)
        scores = self._strategy_scores(idx, self.present_[idx].astype(float), w)
        order = self._order(scores, evidence.expected_accuracy, evidence.n_datasets > 0)
        basis = np.full(self.algorithms_.size, "stored results", dtype=object)
        return Ranking(
            entries=self._entries(
                order,
                scores,
                evidence.expected_accuracy,
                evidence.expected_time,
                evidence,
                basis,
            ),
            neighbours=tuple(Neighbour(str(self.datasets_[i]), float("nan"), 1.0) for i in idx),
            method=self.strategy if self.strategy != "learned" else "a3r",
            metric=self.metric_,
            time=self.time_column_,
            score_name=self.score_name if self.strategy != "learned" else "a3r_score",
        )

    def _entries(self, order, scores, exp_acc, exp_time, evidence, basis) -> tuple:
        return tuple(
            RankedAlgorithm(
                algorithm=str(self.algorithms_[j]),
                score=float(scores[j]),
                rank=r + 1,
                expected_accuracy=float(exp_acc[j]),
                expected_time=float(exp_time[j]),
                n_datasets=int(evidence.n_datasets[j]),
                n_failed=int(evidence.n_failed[j]),
                expected_accuracy_low=float(evidence.low[j]),
                expected_accuracy_high=float(evidence.high[j]),
                basis=str(basis[j]),
                expected_time_low=float(evidence.time_low[j]),
                expected_time_high=float(evidence.time_high[j]),
            )
            for r, j in enumerate(order)
        )

    def _neighbours(self, query, excluded):
        """Indices, distances, compared-feature counts and similarity weights of neighbours."""
        return self._neighbours_of(self.scaler_.vector(query), excluded)

    def _neighbours_of(self, vector, excluded):
        """:meth:`_neighbours` of a scaled metafeature vector."""
        dist, n_compared = self.scaler_.distances(self.metafeatures_, vector)
        candidates = ~excluded
        if self.k is None:
            dist_sel = np.where(np.isfinite(dist), dist, np.inf)
            idx = np.flatnonzero(candidates)
            idx = idx[np.lexsort((idx, dist_sel[idx]))]
        else:
            idx = select_neighbours(dist, int(self.k), candidates)
        if idx.size == 0:
            raise InvalidInputError(
                "no dataset of the knowledge base can be compared with the new one "
                "(all excluded, or no metafeature in common)"
            )
        finite = np.isfinite(dist[idx])
        w = np.ones(idx.size)
        if self.weights is not None and finite.any():
            w[finite] = similarity_weights(dist[idx][finite], self.weights)
            w[~finite] = w[finite].min()
        return idx, dist, n_compared, w

    def _evidence(self, idx: np.ndarray, w: np.ndarray) -> Evidence:
        """Expected accuracy/time and the evidence of every algorithm on neighbours ``idx``."""
        m = self.present_[idx].astype(float)
        wm = m * w[:, None]
        wsum = wm.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            exp_acc = np.where(
                wsum > 0, (wm * np.nan_to_num(self.accuracy_[idx])).sum(0) / wsum, np.nan
            )
            exp_time = np.where(
                wsum > 0,
                np.exp((wm * self._log_time(idx)).sum(0) / np.where(wsum > 0, wsum, 1)),
                np.nan,
            )
        n_sup = m.sum(axis=0).astype(int)
        n_fail = (self.failed_[idx] & self.present_[idx]).sum(axis=0)
        with np.errstate(invalid="ignore"):
            acc_nb = np.where(m > 0, self.accuracy_[idx], np.nan)
            low = np.where(n_sup > 0, np.nanmin(np.where(m > 0, acc_nb, np.inf), 0), np.nan)
            high = np.where(n_sup > 0, np.nanmax(np.where(m > 0, acc_nb, -np.inf), 0), np.nan)
        return Evidence(exp_acc, exp_time, n_sup, n_fail, low, high)

    # ------------------------------------------------------------- strategy
    def _strategy_scores(self, idx: np.ndarray, m: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Each algorithm's score on neighbours ``idx`` (presence ``m``, weights ``w``)."""
        raise NotImplementedError

    def _strategy_order(self, query, idx, w, excluded, keep, tried, evidence, *, run=True):
        """Order, scores, expected accuracy, expected time, basis and run order.

        The classic strategies order the kept algorithms by their score; with tried
        algorithms, by the expected gain over the best of them (active testing).  Their run
        order is the ranking's own (None); ``run=False`` asks for none (a budgeted plan).
        """
        from metarec.recommender._active import incumbent_gain

        scores = self._strategy_scores(idx, self.present_[idx].astype(float), w)
        order = self._order(scores, evidence.expected_accuracy, keep)
        if tried:
            gain = incumbent_gain(self, idx, w, tried)
            if gain is not None:
                # most expected gain over the best tried algorithm first; no evidence last;
                # equal gains keep the order of the plain ranking
                key = np.where(np.isfinite(gain[order]), -gain[order], np.inf)
                order = order[np.argsort(key, kind="stable")]
                scores = gain
        basis = np.full(self.algorithms_.size, "neighbours", dtype=object)
        return order, scores, evidence.expected_accuracy, evidence.expected_time, basis, None

    def _order(self, scores, exp_acc, keep) -> np.ndarray:
        """Indices of kept algorithms, best first; NaN scores last."""
        j = np.flatnonzero(keep)
        s = scores[j]
        key = -s if self.higher_is_better else s
        key = np.where(np.isfinite(key), key, np.inf)
        acc_key = -np.nan_to_num(exp_acc[j], nan=-np.inf)
        return j[np.lexsort((self._ties(j), acc_key, np.round(key, 12)))]
