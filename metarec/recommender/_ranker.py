"""The :class:`Recommender`: pairwise A3R over the most similar datasets of a knowledge base.

How a ranking is computed (``method="a3r"``):

1. The ``k`` datasets of the knowledge base nearest to the new one in metafeature space are
   chosen (:mod:`metarec.recommender._neighbours`).
2. On every neighbour ``d`` and every pair of algorithms ``(p, q)`` that both have a result on
   it, ``A3R_pq^d = (SR_p / SR_q) / (T_p / T_q)^(1/n)`` (Abdulrahman & Brazdil 2014).
3. The ratios are aggregated over neighbours by the (weighted) geometric mean, over the
   datasets where both algorithms ran, and over competitors by the arithmetic mean, as
   Brazdil, Soares & Costa (2003) aggregate ARR:
   ``score_p = mean_{q != p, shared data} exp( sum_d w_d log A3R_pq^d / sum_d w_d )``.

Step 3 is a matrix product.  With ``Z = log SR - log T / n`` (datasets x algorithms, 0 where
missing), the presence mask ``M`` and the weights ``W = diag(w)``::

    sum_d w_d m_dp m_dq log A3R_pq^d = (Z' W M)_pq - (M' W Z)_pq = G - G',  G = Z' W M
    sum_d w_d m_dp m_dq              = (M' W M)_pq

(the same as ``(L'M - M'L) - (LT'M - M'LT) / n`` with ``L = log SR``, ``LT = log T``), so a
ranking costs two products of an (algorithms x datasets) by a (datasets x algorithms) matrix,
and memory ``O(algorithms^2 + algorithms x datasets)``: no loop over pairs or datasets.

Missing and failed results: a pair counts only on datasets where both algorithms have a
result.  A failed or timed-out run counts as the majority-class accuracy of its dataset
(``majority_class_pct / 100``, else ``majority_class_size / n_instances``; for other metrics,
the worst value observed on the dataset) at the cost of the time it used (if that is unknown,
the longest time observed on the dataset).  Per-run rows (several per dataset and
algorithm) are first aggregated as ``KnowledgeBase.runs()`` does.  When only some runs of an
(algorithm, dataset) failed, the success rate is the mean over all runs with failed runs counted that way.

With ``normalize=True`` the success rates of each dataset are first passed through
:func:`metarec.evaluation.normalized_metric` with that dataset's metafeatures (task from
``n_classes``: 2 = binary, more = multiclass; datasets whose metafeatures lack what the metric
needs keep their raw values).  Because the adjustment is a factor common to every algorithm
of a dataset, it cancels in the ratio ``SR_p / SR_q`` except where the clamping to [0, 1]
applies; it changes the expected accuracy reported, not the order, in most cases.

Success rates are floored at 1e-3 and times at 1e-4 s before taking logarithms.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator

from metarec._names import check_names
from metarec.exceptions import InvalidInputError, NotFittedError, UnknownNameError
from metarec.recommender._compat import arr
from metarec.recommender._neighbours import (
    DISTANCES,
    MetafeatureScaler,
    select_neighbours,
    similarity_weights,
)
from metarec.recommender._ranking import Neighbour, RankedAlgorithm, Ranking
from metarec.recommender._results import _aggregate_runs, _baseline, _normalize
from metarec.recommender._scoring import _mean_over_competitors, average_rank, pairwise_log_score

__all__ = ["Recommender", "METHODS", "STRATEGIES"]

#: Ranking strategies: the learned model with the loss-time planner, and the classic ones.
STRATEGIES = ("learned", "a3r", "arr", "ar", "ar*")
METHODS = STRATEGIES[1:]
SR_FLOOR = 1e-3
#: Metafeatures left out of the default distance: wall-clock timings (landmarker fit times)
#: depend on the machine and differ between two extractions of the same data.
TIMING_SUFFIXES = ("_time",)
TIME_FLOOR = 1e-4
_ARR_CHUNK = 4_000_000  # elements of the (datasets, algorithms, algorithms) block for ARR


class Recommender(BaseEstimator):
    """Rank algorithms for a new dataset by their accuracy/time trade-off on similar datasets.

    Parameters
    ----------
    k : int or None, default=5
        Number of nearest datasets used; ``None`` = every dataset of the knowledge base.
    n : float, default=32
        Root of the time ratio in A3R (the larger, the less time matters).  Also used by
        ``"ar*"``.
    metric : str, default="accuracy"
        Column of ``kb.runs()`` used as success rate (higher is better, in [0, 1]).
    time : str, default="fit_time"
        Column of ``kb.runs()`` used as time (seconds).
    normalize : bool, default=True
        Adjust each dataset's success rates with the normalized metric of the evaluation
        library before computing ratios (see the module documentation).

    strategy : {"learned", "a3r", "arr", "ar", "ar*"}, default="learned"
        ``"learned"``: the loss-time planner (:mod:`metarec.recommender._planner`) picks the
        first ``n_plan`` algorithms from the neighbours' accuracies and times, then the
        performance model's (:mod:`metarec.recommender._model`) predicted A3R order follows;
        ``"a3r"``: pairwise A3R over the neighbours; ``"arr"``: pairwise ARR with parameter
        ``acc_d`` (Brazdil et al. 2003); ``"ar"``: average rank of the metric; ``"ar*"``:
        average rank of A3R.
    method : {None, "learned", "a3r", "arr", "ar", "ar*"}, default=None
        When given, overrides ``strategy`` (kept for the classic ``method=`` spelling).
    distance : {"l1-range", "standardized"}, default="l1-range"
        Metafeature distance.
    weights : {None, "distance"}, default="distance"
        Similarity weights of the neighbours (see
        :func:`metarec.recommender._neighbours.similarity_weights`).
    acc_d : float, default=0.1
        ARR's AccD: the accuracy traded for a tenfold speed-up (``method="arr"`` only).
    features : sequence of str or None, default=None
        Metafeatures used for the distance; ``None`` = every numeric metafeature of the KB
        except timings (names ending in ``_time``: they measure the machine, not the data,
        and differ between two extractions of the same dataset).
    tried_scale : float, default=inf
        Active testing: neighbours are re-weighted by ``exp(-delta / tried_scale)`` where
        ``delta`` is the mean absolute accuracy difference on the tried algorithms
        (``inf``: no re-weighting; candidates are still ordered by expected gain).
    n_plan : int, default=4
        Algorithms chosen by the loss-time planner before the model's order (``"learned"``).
    time_floor : float, default=0.001
        Seconds below which a run costs the planner no log time ("time that matters").
    plan_rule : {"ratio", "area"}, default="ratio"
        Planner criterion: expected loss reduction per unit of log time, or expected area
        under the loss-versus-log-time curve.
    order : {"rank", "score"}, default="rank"
        Model order after the planner: predicted A3R rank, or A3R of the predicted accuracy
        and time (times floored at ``time_floor``).
    time_scaling : {None, "rows", "model"}, default=None
        How the planner scales neighbours' times to the new dataset: not at all, by the ratio
        of ``n_instances``, or to the model's predicted time level.
    prior_weight : float, default=4.0
        Shrinkage of the planner's evidence toward every dataset of the knowledge base: the
        global evidence counts as this many nearest neighbours (each dataset weighs
        ``prior_weight / N``; see :mod:`metarec.recommender._learned`).
    model_weight : float, default=1.0
        Weight of the performance model's predicted accuracy and time for the new dataset
        as one more pseudo-neighbour of the planner (the nearest neighbour weighs 1).
    answer_n : float or None, default=None
        The learned strategy's first algorithm (the answer): with a number, the algorithm of
        best predicted accuracy discounted by its predicted time, ``log(accuracy) -
        log(max(time, time_floor)) / answer_n`` (A3R's trade-off on the time axis that starts
        at ``time_floor``), ahead of the planner's order; ``None``: the planner's first.
    n_estimators, min_samples_leaf : int, default=100, 2
        Trees of the performance model and their smallest leaf.
    random_state : int, RandomState or None, default=None
        Seed of the performance model's trees; breaks exact ties between scores at random
        (``None``: trees seeded with 0, ties broken by name).

    Attributes
    ----------
    datasets_ : ndarray of str
        Datasets of the knowledge base with at least one result.
    algorithms_ : ndarray of str
        Algorithms of the knowledge base.
    accuracy_, time_ : ndarray of shape (n_datasets, n_algorithms)
        Success rate (failed runs replaced, not normalized) and time; NaN where missing.
    present_ : ndarray of bool
        Whether a result exists.
    failed_ : ndarray of bool
        Whether every run of the cell failed.
    log_sr_ : ndarray
        Logarithm of the (normalized, floored) success rate, 0 where missing (the log time
        is computed from ``time_`` when needed).
    metafeatures_ : ndarray of shape (n_datasets, n_metafeatures)
        Scaled metafeatures (NaN where missing), columns ``scaler_.names_``.
    model_ : PerformanceModel
        The performance model fitted on every dataset (``"learned"`` only).
    predictions_ : dict
        Predictions of models refitted without excluded datasets (see ``recommend``).

    Notes
    -----
    The learned strategy's defaults (``k=10, n_plan=4, time_floor=0.001, plan_rule="ratio",
    order="rank", time_scaling=None, prior_weight=4, model_weight=1``) were chosen by the held-out procedure of
    :func:`metarec.recommender._tune.tune_recommender` on the built-in knowledge base and the
    TabZilla run history together (``python benchmarks/tune_recommender.py``), not by hand on
    the evaluation set.  ``Recommender(strategy="a3r", k=5)`` is the former default ranking.

    Fitted attributes are arrays, dicts and the model (no reference to the knowledge base),
    so a fitted recommender pickles.
    """

    def __init__(
        self,
        *,
        k: int | None = 10,
        n: float = 32,
        metric: str = "accuracy",
        time: str = "fit_time",
        normalize: bool = True,
        strategy: str = "learned",
        method: str | None = None,
        distance: str = "l1-range",
        weights: str | None = "distance",
        acc_d: float = 0.1,
        features=None,
        tried_scale: float = float("inf"),
        n_plan: int = 4,
        time_floor: float = 0.001,
        plan_rule: str = "ratio",
        order: str = "rank",
        time_scaling: str | None = None,
        prior_weight: float = 4.0,
        model_weight: float = 1.0,
        answer_n: float | None = None,
        n_estimators: int = 100,
        min_samples_leaf: int = 2,
        random_state=None,
    ) -> None:
        self.k = k
        self.n = n
        self.metric = metric
        self.time = time
        self.normalize = normalize
        self.strategy = strategy
        self.method = method
        self.distance = distance
        self.weights = weights
        self.acc_d = acc_d
        self.features = features
        self.tried_scale = tried_scale
        self.n_plan = n_plan
        self.time_floor = time_floor
        self.plan_rule = plan_rule
        self.order = order
        self.time_scaling = time_scaling
        self.prior_weight = prior_weight
        self.model_weight = model_weight
        self.answer_n = answer_n
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _strategy(self) -> str:
        """The ranking strategy in force (``method``, when given, overrides ``strategy``)."""
        return self.method if self.method is not None else self.strategy

    def _validate_params(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidInputError(
                f"strategy must be one of {', '.join(STRATEGIES)}; got {self.strategy!r}"
            )
        if self.method is not None and self.method not in STRATEGIES:
            raise InvalidInputError(
                f"method must be one of {', '.join(STRATEGIES)}; got {self.method!r}"
            )
        if int(self.n_plan) != self.n_plan or self.n_plan < 0:
            raise InvalidInputError(f"n_plan must be a non-negative integer; got {self.n_plan!r}")
        if not (np.isfinite(self.time_floor) and self.time_floor > 0):
            raise InvalidInputError(
                f"time_floor must be a positive number of seconds; got {self.time_floor!r}"
            )
        if self.plan_rule not in ("area", "ratio"):
            raise InvalidInputError(f"plan_rule must be 'area' or 'ratio'; got {self.plan_rule!r}")
        if self.time_scaling not in (None, "rows", "model"):
            raise InvalidInputError(
                f"time_scaling must be None, 'rows' or 'model'; got {self.time_scaling!r}"
            )
        for name in ("prior_weight", "model_weight"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= 0):
                raise InvalidInputError(f"{name} must be a non-negative number; got {value!r}")
        if self.answer_n is not None and not (
            isinstance(self.answer_n, (int, float)) and self.answer_n > 0
        ):
            raise InvalidInputError(f"answer_n must be None or positive; got {self.answer_n!r}")
        if self.order not in ("rank", "score"):
            raise InvalidInputError(f"order must be 'rank' or 'score'; got {self.order!r}")
        if self.distance not in DISTANCES:
            raise InvalidInputError(
                f"distance must be one of {', '.join(DISTANCES)}; got {self.distance!r}"
            )
        if self.k is not None and (int(self.k) != self.k or self.k < 1):
            raise InvalidInputError(f"k must be a positive integer or None; got {self.k!r}")
        if not (np.isfinite(self.n) and self.n > 0):
            raise InvalidInputError(f"n must be a positive number; got {self.n!r}")
        if self.weights not in (None, "distance"):
            raise InvalidInputError(f"weights must be None or 'distance'; got {self.weights!r}")
        if not self.tried_scale > 0:
            raise InvalidInputError(f"tried_scale must be positive; got {self.tried_scale!r}")

    def fit(self, kb, y=None) -> Recommender:
        """Read the runs and metafeatures of a knowledge base.

        Parameters
        ----------
        kb : KnowledgeBase or any object with ``runs()`` and ``metafeatures()``
            ``runs()`` returns one row per (dataset, algorithm) with columns ``dataset,
            algorithm``, the metric, the time and optionally ``status``, ``n_runs``,
            ``n_failed``; ``metafeatures()`` a wide frame with a ``dataset`` column.
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        runs = kb.runs()
        meta = kb.metafeatures()
        return self._fit_frames(runs, meta)

    def _fit_frames(self, runs, meta) -> Recommender:
        import pandas as pd

        for column in ("dataset", "algorithm"):
            if column not in runs.columns:
                raise InvalidInputError(
                    f"the knowledge base's runs have no column {column!r} "
                    f"(columns: {', '.join(map(str, runs.columns))})"
                )
        counts = ("dataset", "algorithm", "status", "n_runs", "n_failed")
        measures = [c for c in runs.columns if c not in counts]
        check_names([self.metric], measures, what="metric", parameter="metric", option="--metric")
        check_names([self.time], measures, what="time column", parameter="time")
        if len(runs) == 0:
            raise InvalidInputError("the knowledge base has no runs to learn from")
        runs = runs.copy()
        runs["dataset"] = runs["dataset"].astype(str)
        runs["algorithm"] = runs["algorithm"].astype(str)
        if runs.duplicated(["dataset", "algorithm"]).any():
            runs = _aggregate_runs(runs, self.metric, self.time)
        datasets = np.array(sorted(runs["dataset"].unique()), dtype=object)
        algorithms = np.array(sorted(runs["algorithm"].unique()), dtype=object)
        d_index = pd.Index(datasets)
        a_index = pd.Index(algorithms)
        rows = d_index.get_indexer(runs["dataset"])
        cols = a_index.get_indexer(runs["algorithm"])
        shape = (datasets.size, algorithms.size)

        def grid(values, fill=np.nan):
            out = np.full(shape, fill, dtype=float)
            out[rows, cols] = np.asarray(values, dtype=float)
            return out

        acc = grid(pd.to_numeric(runs[self.metric], errors="coerce"))
        tim = grid(pd.to_numeric(runs[self.time], errors="coerce"))
        present = np.zeros(shape, dtype=bool)
        present[rows, cols] = True
        if "status" in runs.columns:
            status_ok = runs["status"].fillna("ok").astype(str).eq("ok").to_numpy()
        else:
            status_ok = np.ones(len(runs), dtype=bool)
        n_runs = grid(runs["n_runs"] if "n_runs" in runs.columns else np.ones(len(runs)), 1.0)
        n_failed = grid(
            runs["n_failed"] if "n_failed" in runs.columns else np.zeros(len(runs)), 0.0
        )
        all_failed = np.zeros(shape, dtype=bool)
        all_failed[rows, cols] = ~status_ok
        all_failed |= present & np.isnan(acc)

        # metafeatures aligned with the datasets
        meta = meta.copy() if meta is not None else pd.DataFrame({"dataset": []})
        if "dataset" not in meta.columns:
            raise InvalidInputError("the knowledge base's metafeatures have no 'dataset' column")
        meta["dataset"] = meta["dataset"].astype(str)
        meta = meta.drop_duplicates("dataset", keep="last").set_index("dataset").reindex(datasets)
        numeric = meta.apply(pd.to_numeric, errors="coerce")
        names = [c for c in numeric.columns if numeric[c].notna().any()]
        if self.features is None:
            # timings depend on the machine and vary from run to run: not for distances
            names = [c for c in names if not c.endswith(TIMING_SUFFIXES)]
        else:
            unknown = [f for f in self.features if f not in numeric.columns]
            if unknown:
                raise UnknownNameError(
                    f"metafeature(s) {', '.join(map(repr, unknown))} are not in the knowledge base"
                )
            names = [f for f in self.features if f in names]
        raw_meta = numeric

        # majority-class baseline per dataset (for failed runs)
        baseline = _baseline(raw_meta, self.metric, acc, present & ~all_failed)
        partial = present & ~all_failed & (n_failed > 0) & (n_runs > 0)
        mixed = (acc * (n_runs - n_failed) + baseline[:, None] * n_failed) / np.where(
            n_runs > 0, n_runs, 1
        )
        acc = np.where(partial & np.isfinite(baseline)[:, None], mixed, acc)
        acc = np.where(all_failed, baseline[:, None], acc)
        longest = np.nanmax(np.where(present, tim, np.nan), axis=1, initial=-np.inf)
        tim = np.where(present & ~np.isfinite(tim), longest[:, None], tim)
        usable = present & np.isfinite(acc) & np.isfinite(tim)
        # datasets without any usable result cannot help
        keep = usable.any(axis=1)
        datasets, acc, tim, usable = datasets[keep], acc[keep], tim[keep], usable[keep]
        all_failed, raw_meta = all_failed[keep], raw_meta.loc[keep]
        acc = np.where(usable, acc, np.nan)
        tim = np.where(usable, tim, np.nan)

        sr = acc
        if self.normalize:
            sr = _normalize(acc, raw_meta)
        log_sr = np.where(usable, np.log(np.clip(np.nan_to_num(sr, nan=1.0), SR_FLOOR, None)), 0.0)

        scaler = MetafeatureScaler(self.distance).fit(raw_meta[names].to_numpy(float), names)
        self.scaler_ = scaler
        self.metafeatures_ = scaler.transform(raw_meta[scaler.names_].to_numpy(float))
        self.raw_metafeatures_ = raw_meta
        self.datasets_ = datasets
        self.algorithms_ = algorithms
        self.accuracy_ = acc
        self.time_ = tim
        self.present_ = usable
        self.failed_ = all_failed & usable
        self.log_sr_ = log_sr
        self.dataset_index_ = {name: i for i, name in enumerate(datasets)}
        self.algorithm_index_ = {name: j for j, name in enumerate(algorithms)}
        self.baseline_ = _baseline(raw_meta, self.metric, acc, usable)
        self.row_time_ = np.nansum(np.where(usable, tim, np.nan), axis=1)
        self.model_features_ = list(names)
        self.model_X_ = raw_meta[names].to_numpy(float)
        self.n_instances_ = (
            raw_meta["n_instances"].to_numpy(float) if "n_instances" in raw_meta.columns else None
        )
        self.predictions_ = {}
        if self._strategy() == "learned":
            from metarec.recommender._learned import fit_model

            self.model_ = fit_model(self, np.ones(datasets.size, dtype=bool))
        return self

    def _seed(self):
        if isinstance(self.random_state, np.random.RandomState):
            return self.random_state.randint(2**31)
        return 0 if self.random_state is None else self.random_state

    def _log_time(self, rows) -> np.ndarray:
        """Logarithm of the (floored) time of the datasets ``rows``, 0 where missing.

        Computed from ``time_`` when needed rather than kept: a fitted recommender holds
        only what recommending needs.
        """
        tim = self.time_[rows]
        with np.errstate(invalid="ignore"):
            return np.where(
                self.present_[rows],
                np.log(np.clip(np.nan_to_num(tim, nan=1.0), TIME_FLOOR, None)),
                0.0,
            )

    def _row_ratio(self, query, idx) -> np.ndarray:
        """``n_instances`` of the new dataset over each dataset ``idx``'s (1 where unknown)."""
        from metarec.recommender._learned import row_ratio

        return row_ratio(self, query, idx)

    def _ties(self, j: np.ndarray) -> np.ndarray:
        if self.random_state is None:
            return np.argsort(np.argsort(self.algorithms_[j].astype(str)))
        return np.random.default_rng(self._seed()).permutation(j.size)

    def _check_fitted(self) -> None:
        if not hasattr(self, "present_"):
            raise NotFittedError("this Recommender is not fitted yet; call fit(kb) first")

    # ------------------------------------------------------------ recommend
    def recommend(
        self,
        X=None,
        y=None,
        *,
        metafeatures: Mapping[str, float] | None = None,
        exclude=(),
        tried: Mapping[str, tuple[float, float]] | None = None,
        budget: float | None = None,
    ) -> Ranking:
        """Rank the knowledge base's algorithms for a new dataset.

        Parameters
        ----------
        X, y : array-like, optional
            The new dataset; its metafeatures are computed with
            :func:`metarec.metafeatures.extract`.  Give either ``X, y`` or ``metafeatures``.
        metafeatures : mapping of str to float, optional
            The new dataset's metafeatures (names as in the knowledge base).
        exclude : iterable of str, default=()
            Datasets of the knowledge base not to use (leave-one-out evaluation).
        tried : mapping of str to (accuracy, time), optional
            Results already obtained on the new dataset.  Tried algorithms are dropped from
            the ranking and neighbours are re-weighted by agreement with the results
            (see :func:`metarec.recommender._active.agreement_weights`).
        budget : float, optional
            Time budget in seconds: return the plan expected to reach the lowest loss within
            it (see :func:`metarec.recommender._active.budget_plan`).

        Returns
        -------
        Ranking
        """
        from metarec.recommender._active import agreement_weights, budget_plan, incumbent_gain

        self._check_fitted()
        check_names(
            [str(name) for name in (tried or {})],
            self.algorithms_,
            what="algorithm",
            parameter="tried",
            option="--tried",
        )  # before the metafeatures are computed: a mistyped name is not silently ignored
        query = self._query_metafeatures(X, y, metafeatures)
        excluded = np.zeros(self.datasets_.size, dtype=bool)
        for name in [exclude] if isinstance(exclude, str) else exclude:
            i = self.dataset_index_.get(str(name))
            if i is not None:
                excluded[i] = True
        candidates = ~excluded
        vector = self.scaler_.vector(query)
        dist, n_compared = self.scaler_.distances(self.metafeatures_, vector)
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
        tried = dict(tried or {})
        tried_idx = [self.algorithm_index_[str(name)] for name in tried]
        if tried:
            w = w * agreement_weights(self, idx, tried, scale=self.tried_scale)
        scores, exp_acc, exp_time, n_sup, n_fail, acc_low, acc_high = self._scores(idx, w)
        keep = np.ones(self.algorithms_.size, dtype=bool)
        keep[tried_idx] = False
        strategy = self._strategy()
        basis = np.full(self.algorithms_.size, "neighbours", dtype=object)
        if strategy == "learned":
            from metarec.recommender._learned import learned_order

            order, scores, exp_acc, exp_time, basis = learned_order(
                self, query, idx, w, excluded, keep, tried
            )
        else:
            order = self._order(scores, exp_acc, keep)
        if tried and strategy != "learned":
            gain = incumbent_gain(self, idx, w, tried)
            if gain is not None:
                # most expected gain over the best tried algorithm first; no evidence last;
                # equal gains keep the order of the plain ranking
                key = np.where(np.isfinite(gain[order]), -gain[order], np.inf)
                order = order[np.argsort(key, kind="stable")]
                scores = gain
        neighbours = tuple(
            Neighbour(str(self.datasets_[i]), float(dist[i]), float(wi), int(n_compared[i]))
            for i, wi in zip(idx, w, strict=True)
        )
        plan: tuple = ()
        if budget is not None:
            if not budget > 0:
                raise InvalidInputError(
                    f"budget must be a positive number of seconds; got {budget!r}"
                )
            order, plan = budget_plan(self, idx, w, order, exp_time, tried, float(budget))
        entries = tuple(
            RankedAlgorithm(
                algorithm=str(self.algorithms_[j]),
                score=float(scores[j]),
                rank=r + 1,
                expected_accuracy=float(exp_acc[j]),
                expected_time=float(exp_time[j]),
                n_datasets=int(n_sup[j]),
                n_failed=int(n_fail[j]),
                expected_accuracy_low=float(acc_low[j]),
                expected_accuracy_high=float(acc_high[j]),
                basis=str(basis[j]) if budget is None else "budget plan",
            )
            for r, j in enumerate(order)
        )
        return Ranking(
            entries=entries,
            neighbours=neighbours,
            method=strategy,
            metric=self.metric,
            time=self.time,
            budget=None if budget is None else float(budget),
            tried=tuple(str(t) for t in tried),
            plan=tuple(plan),
        )

    def rank(self, datasets=None) -> Ranking:
        """Ranking of the stored results themselves, without a new dataset.

        Parameters
        ----------
        datasets : str or iterable of str, optional
            Datasets whose results are aggregated (each weighs 1); default every dataset.
            With one dataset this is the "true" ranking of that dataset.

        Returns
        -------
        Ranking
            ``neighbours`` lists the datasets used, at distance NaN.
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
        scores, exp_acc, exp_time, n_sup, n_fail, acc_low, acc_high = self._scores(idx, w)
        order = self._order(scores, exp_acc, n_sup > 0)
        return Ranking(
            entries=tuple(
                RankedAlgorithm(
                    str(self.algorithms_[j]),
                    float(scores[j]),
                    r + 1,
                    float(exp_acc[j]),
                    float(exp_time[j]),
                    int(n_sup[j]),
                    int(n_fail[j]),
                    expected_accuracy_low=float(acc_low[j]),
                    expected_accuracy_high=float(acc_high[j]),
                    basis="stored results",
                )
                for r, j in enumerate(order)
            ),
            neighbours=tuple(Neighbour(str(self.datasets_[i]), float("nan"), 1.0) for i in idx),
            method=self._strategy() if self._strategy() != "learned" else "a3r",
            metric=self.metric,
            time=self.time,
        )

    def _query_metafeatures(self, X, y, metafeatures) -> Mapping[str, float]:
        if metafeatures is not None:
            if X is not None or y is not None:
                raise InvalidInputError("give either X, y or metafeatures, not both")
            if not isinstance(metafeatures, Mapping):
                if hasattr(metafeatures, "to_dict"):
                    return metafeatures.to_dict()
                raise InvalidInputError("metafeatures must be a mapping of name to value")
            return metafeatures
        if X is None or y is None:
            raise InvalidInputError("recommend needs X and y, or metafeatures=")
        from metarec.metafeatures import extract

        return extract(X, y)

    # -------------------------------------------------------------- scoring
    def _scores(self, idx: np.ndarray, w: np.ndarray):
        """Scores, expected accuracy/time and evidence of every algorithm on neighbours ``idx``."""
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
            acc_low = np.where(n_sup > 0, np.nanmin(np.where(m > 0, acc_nb, np.inf), 0), np.nan)
            acc_high = np.where(n_sup > 0, np.nanmax(np.where(m > 0, acc_nb, -np.inf), 0), np.nan)
        method = self._strategy()
        if method in ("a3r", "learned"):
            z = self.log_sr_[idx] - self._log_time(idx) / float(self.n)
            scores = pairwise_log_score(z, m, w)
        elif method == "arr":
            scores = self._arr_scores(idx, m, w)
        else:
            if method == "ar":
                values = np.where(m > 0, self.log_sr_[idx], np.nan)
            else:
                values = np.where(
                    m > 0, self.log_sr_[idx] - self._log_time(idx) / float(self.n), np.nan
                )
            scores = average_rank(values, w)
        return scores, exp_acc, exp_time, n_sup, n_fail, acc_low, acc_high

    def _arr_scores(self, idx, m, w):
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
            # ARR is not monotonic and can be <= 0 (Abdulrahman & Brazdil 2014): floor it
            logr = np.log(np.clip(np.nan_to_num(ratio, nan=1.0), 1e-6, None))
            total += (both * logr).sum(axis=0)
            count += both.sum(axis=0)
        return _mean_over_competitors(total, count)

    def _order(self, scores, exp_acc, keep) -> np.ndarray:
        """Indices of kept algorithms, best first; NaN scores last."""
        j = np.flatnonzero(keep)
        s = scores[j]
        key = -s if self._strategy() in ("a3r", "arr", "learned") else s
        key = np.where(np.isfinite(key), key, np.inf)
        acc_key = -np.nan_to_num(exp_acc[j], nan=-np.inf)
        if self.random_state is None:
            tie = np.argsort(np.argsort(self.algorithms_[j].astype(str)))
        else:
            rng = np.random.default_rng(
                self.random_state
                if not isinstance(self.random_state, np.random.RandomState)
                else self.random_state.randint(2**31)
            )
            tie = rng.permutation(j.size)
        return j[np.lexsort((tie, acc_key, np.round(key, 12)))]
