"""The :class:`Recommender`: the facade the command line and the Python API use.

It reads a knowledge base into a :class:`~metarec.recommender.PerformanceMatrix`, fits the
ranker of the chosen strategy on it (:class:`~metarec.recommender.LearnedRanker`,
:class:`~metarec.recommender.A3RRanker`, :class:`~metarec.recommender.ARRRanker`,
:class:`~metarec.recommender.AverageRankRanker`) and computes a new dataset's metafeatures
when it is given as data.  Every parameter of every strategy is a parameter of the facade
(those of other strategies are ignored), so that ``Recommender(strategy="a3r", k=5)`` and a
grid over strategies stay one estimator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator

from metarec._names import check_names
from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError
from metarec.recommender._ranking import Ranking

__all__ = ["Recommender", "METHODS", "STRATEGIES"]

#: Ranking strategies: the learned model with the loss-time planner, and the classic ones.
STRATEGIES = ("learned", "a3r", "arr", "ar", "ar*")
METHODS = STRATEGIES[1:]
#: The task's defaults of the parameters given as "auto" (the answer's time discount and the
#: performance model's trees).
#: Regression: chosen on a random half of the built-in KB's regression datasets and confirmed
#: on the other half (``python benchmarks/regression.py``); see the class notes.
TASK_DEFAULTS = {
    "classification": {
        "answer_n": float("inf"),
        "answer_patience": 1.0,
        "run_floor": 0.3,
        "n_estimators": 100,
        "min_samples_leaf": 2,
    },
    "regression": {
        "answer_n": 2.0,
        "answer_patience": 0.5,
        "run_floor": None,
        "n_estimators": 300,
        "min_samples_leaf": 5,
    },
}
_COMMON = ("k", "normalize", "distance", "weights", "features", "tried_scale", "random_state")
_OWN = {
    "learned": (
        "n",
        "n_plan",
        "time_floor",
        "plan_rule",
        "order",
        "time_scaling",
        "prior_weight",
        "model_weight",
        "answer_n",
        "answer_patience",
        "run_floor",
        "n_estimators",
        "min_samples_leaf",
    ),
    "a3r": ("n",),
    "arr": ("acc_d",),
    "ar": (),
    "ar*": ("n",),
}


class Recommender(BaseEstimator):
    """Rank algorithms for a new dataset by their accuracy/time trade-off on similar datasets.

    Parameters
    ----------
    k : int or None, default=10
        Number of nearest datasets used; ``None`` = every dataset of the knowledge base.
    n : float, default=32
        Root of the time ratio in A3R (the larger, the less time matters).  Also used by
        ``"ar*"``.
    metric : str, default="accuracy"
        Column of ``kb.runs()`` used as success rate (higher is better, in [0, 1]).
    time : str, default="fit_time"
        Column of ``kb.runs()`` used as time (seconds).
    task : {"classification", "regression"}, default="classification"
        The knowledge base's datasets of this task are the ones learned from (a ranking never
        mixes classifiers and regressors).  For regression the success rate is R² clipped at
        0 (:func:`metarec.evaluation.regression_success_score`), stored in the ``accuracy``
        column by the benchmark runner.
    normalize : bool, default=True
        Adjust each dataset's success rates with the normalized metric of the evaluation
        library before computing ratios (see the module documentation).

    strategy : {"learned", "a3r", "arr", "ar", "ar*"}, default="learned"
        ``"learned"``: the answer (the best expected accuracy of the performance model,
        :mod:`metarec.recommender._model`) first, then the loss-time planner's
        (:mod:`metarec.recommender._planner`) picks from the neighbours' accuracies and
        times, then the model's predicted A3R order;
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
    time_floor : float, default=1.0
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
    model_weight : float, default=16.0
        Weight of the performance model's predicted accuracy and time for the new dataset
        as one more pseudo-neighbour of the planner (the nearest neighbour weighs 1).
    answer_n : float, None or "auto", default="auto"
        The learned strategy's first algorithm (the answer): with a number, the algorithm of
        best predicted accuracy discounted by its expected time (the runtime model's, scaled
        to the new dataset's size) beyond ``answer_patience``, ``log(accuracy) - max(0,
        log(time / answer_patience)) / answer_n`` (``inf``: accuracy alone), ahead of the
        planner's order; ``None``: the planner's first; ``"auto"``: ``inf`` for
        classification, 2 for regression (:data:`TASK_DEFAULTS`).
    answer_patience : float or "auto", default="auto"
        Seconds the answer may take at no discount; ``"auto"``: 1 for classification, 0.5 for
        regression.
    run_floor : float, None or "auto", default="auto"
        The learned strategy's run order (``Ranking.run_order``, the table's ``run`` column):
        the order in which to run the algorithms one after the other to have a good model
        soonest, which need not start with the answer.  The loss-time planner's picks on a
        log-time axis from ``run_floor`` seconds, then the model's order; ``None``: the
        ranking's own order.  ``"auto"``: 0.3 for classification, None for regression.
    n_estimators, min_samples_leaf : int or "auto", default="auto"
        Trees of the performance model and their smallest leaf; ``"auto"``: 100 and 2 for
        classification, 300 and 5 for regression (fewer datasets: more, smoother trees).
    random_state : int, RandomState or None, default=None
        Seed of the performance model's trees; breaks exact ties between scores at random
        (``None``: trees seeded with 0, ties broken by name).

    Attributes
    ----------
    ranker_ : BaseRanker
        The fitted ranker of the strategy in force; its fitted attributes (below) are read
        through the facade.
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
    The learned strategy's defaults (``time_floor=1, model_weight=16, answer_n=inf``: the
    first row is the algorithm of best predicted accuracy, then the planner's runs on a time
    axis that starts at one second) were chosen by the held-out procedure of
    :func:`metarec.recommender._tune.tune_recommender` on the tuning halves of the built-in
    knowledge base, the TabZilla run history and the realworld-dev history together
    (``python benchmarks/tune_recommender.py``), not on the evaluation halves.  Runs shorter
    than ``time_floor`` cost the planner nothing: a person does not tell 7 ms from 16 ms.
    ``Recommender(strategy="a3r", k=5)`` is the classic pairwise A3R ranking.

    Regression's answer (``answer_n=2, answer_patience=0.5``, a model of 300 trees with leaves
    of at least 5 datasets) trades accuracy for time where
    classification's does not: the regression part's fits are short (most well under a second),
    and on a person's time axis an answer that takes a few seconds costs more than the R² it
    gains.  It was chosen on a random half of the built-in regression datasets and checked on
    the other half (``python benchmarks/regression.py`` reports both).

    Fitted attributes are arrays, dicts and the model (no reference to the knowledge base),
    so a fitted recommender pickles.
    """

    #: Read by instances pickled before the parameter existed.
    run_floor = "auto"

    def __init__(
        self,
        *,
        k: int | None = 10,
        n: float = 32,
        metric: str = "accuracy",
        time: str = "fit_time",
        task: str = "classification",
        normalize: bool = True,
        strategy: str = "learned",
        method: str | None = None,
        distance: str = "l1-range",
        weights: str | None = "distance",
        acc_d: float = 0.1,
        features=None,
        tried_scale: float = float("inf"),
        n_plan: int = 4,
        time_floor: float = 1.0,
        plan_rule: str = "ratio",
        order: str = "rank",
        time_scaling: str | None = None,
        prior_weight: float = 4.0,
        model_weight: float = 16.0,
        answer_n: float | None | str = "auto",
        answer_patience: float | str = "auto",
        run_floor: float | None | str = "auto",
        n_estimators: int | str = "auto",
        min_samples_leaf: int | str = "auto",
        random_state=None,
    ) -> None:
        self.k = k
        self.n = n
        self.metric = metric
        self.time = time
        self.task = task
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
        self.answer_patience = answer_patience
        self.run_floor = run_floor
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _strategy(self) -> str:
        """The ranking strategy in force (``method``, when given, overrides ``strategy``)."""
        return self.method if self.method is not None else self.strategy

    def _resolved(self, name: str):
        """The parameter ``name``, with ``"auto"`` replaced by the task's default."""
        value = getattr(self, name)
        if isinstance(value, str) and value == "auto":  # task is checked first (_validate_params)
            return TASK_DEFAULTS[self.task][name]
        return value

    def _make_ranker(self):
        """An unfitted ranker of the strategy in force, with this facade's parameters."""
        from metarec.recommender._learned import LearnedRanker
        from metarec.recommender._strategies import A3RRanker, ARRRanker, AverageRankRanker

        strategy = self._strategy()
        params = {name: self._resolved(name) for name in _COMMON + _OWN[strategy]}
        if strategy == "ar":
            return AverageRankRanker(n=None, **params)
        if strategy == "ar*":
            return AverageRankRanker(**params)
        return {"learned": LearnedRanker, "a3r": A3RRanker, "arr": ARRRanker}[strategy](**params)

    def _validate_params(self) -> None:
        if self.task not in ("classification", "regression"):
            raise InvalidInputError(
                f"task must be 'classification' or 'regression'; got {self.task!r}"
            )
        for name in ("strategy", "method"):
            value = getattr(self, name)
            if (value is not None or name == "strategy") and value not in STRATEGIES:
                raise InvalidInputError(
                    f"{name} must be one of {', '.join(STRATEGIES)}; got {value!r}"
                )
        ranker = self._make_ranker()
        ranker._validate_params()
        if self._strategy() != "learned":
            # the learned strategy's parameters are checked even when another strategy is
            # in force: a grid over strategies must not hide a bad value
            from metarec.recommender._learned import LearnedRanker

            LearnedRanker(
                **{n: self._resolved(n) for n in _COMMON + _OWN["learned"]}
            )._validate_params()

    def fit(self, kb, y=None) -> Recommender:
        """Read the runs and metafeatures of a knowledge base and fit the strategy's ranker.

        Parameters
        ----------
        kb : KnowledgeBase, str, path-like or object
            A knowledge base, the URL or SQLite path of one (it must exist), or any object
            with ``runs()``, ``metafeatures()`` and ``datasets()``.  ``runs()``
            returns one row per (dataset, algorithm) with columns ``dataset, algorithm``, the
            metric, the time and optionally ``status``, ``n_runs``, ``n_failed``;
            ``metafeatures()`` a wide frame with a ``dataset`` column.
        y : ignored

        Returns
        -------
        self
        """
        import os

        from metarec.recommender._matrix import PerformanceMatrix

        self._validate_params()
        if isinstance(kb, (str, os.PathLike)):
            from metarec.storage import KnowledgeBase

            kb = KnowledgeBase(kb, create=False)
        elif not all(callable(getattr(kb, m, None)) for m in ("runs", "metafeatures", "datasets")):
            raise InvalidInputError(
                "kb must be a KnowledgeBase, its URL or SQLite path, or an object with runs(), "
                f"metafeatures() and datasets(); got {type(kb).__name__}"
            )
        matrix = PerformanceMatrix.from_kb(kb, metric=self.metric, time=self.time, task=self.task)
        self.ranker_ = self._make_ranker().fit(matrix)
        return self

    def _with_params(self, **params) -> Recommender:
        """A copy with other ranking parameters sharing this one's fitted data (no refit).

        Only the strategy's own state is fitted again (the learned strategy's model when the
        copy's strategy is ``"learned"`` and this one's is not).
        """
        import copy

        other = copy.copy(self)
        for name, value in params.items():
            setattr(other, name, value)
        other._validate_params()
        if hasattr(self, "ranker_"):
            ranker = other._make_ranker()
            shared = {k: v for k, v in vars(self.ranker_).items() if k.endswith("_")}
            if type(ranker) is not type(self.ranker_):
                shared.pop("model_", None)
                shared["predictions_"] = {}
            ranker.__dict__.update(shared)
            if ranker.strategy == "learned" and "model_" not in shared:
                ranker._fit_strategy()
            other.ranker_ = ranker
        return other

    def __getattr__(self, name: str):
        # fitted attributes live on the ranker; read them through the facade
        if name.endswith("_") and not name.startswith("__") and name != "ranker_":
            ranker = self.__dict__.get("ranker_")
            if ranker is not None and hasattr(ranker, name):
                return getattr(ranker, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _log_time(self, rows) -> np.ndarray:
        return self.ranker_._log_time(rows)

    def _row_ratio(self, query, idx) -> np.ndarray:
        """``n_instances`` of the new dataset over each dataset ``idx``'s (1 where unknown)."""
        from metarec.recommender._learned import row_ratio

        return row_ratio(self.ranker_, query, idx)

    def _check_fitted(self) -> None:
        if "ranker_" not in self.__dict__:
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
        exclude : str or iterable of str, default=()
            Datasets of the knowledge base not to use (leave-one-out evaluation); an unknown
            name is refused.
        tried : mapping of str to (accuracy, time), optional
            Results already obtained on the new dataset (accuracy in [0, 1], seconds).
            Tried algorithms are dropped from the ranking and the rest ordered by their
            expected gain over the best of them; with a finite ``tried_scale`` the
            neighbours are also re-weighted by agreement with the results (see
            :func:`metarec.recommender._active.agreement_weights`).
        budget : float or str, optional
            Time budget in seconds (or a duration such as ``"10m"``): return the plan
            expected to reach the lowest loss within it (see
            :func:`metarec.recommender._active.budget_plan`).

        Returns
        -------
        Ranking
        """
        self._check_fitted()
        check_names(
            [str(name) for name in (tried or {})],
            self.algorithms_,
            what="algorithm",
            parameter="tried",
            option="--tried",
        )  # before the metafeatures are computed: a mistyped name is not silently ignored
        ranker = self._ranker_in_force()
        query = self._query_metafeatures(X, y, metafeatures)
        ranking = ranker.rank(query, exclude=exclude, tried=tried, budget=budget)
        return replace(ranking, task=self.task)

    def _ranker_in_force(self):
        """The fitted ranker, with the facade's current parameters (``set_params`` after fit).

        A strategy other than the fitted one needs a fit (the learned model, for instance).
        """
        ranker = self.ranker_
        wanted = self._make_ranker()
        if wanted.strategy != ranker.strategy:
            raise NotFittedError(
                f"this Recommender was fitted with strategy={ranker.strategy!r}; fit it again "
                f"with strategy={self._strategy()!r}"
            )
        ranker.set_params(**wanted.get_params())
        return ranker

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
        return self._ranker_in_force().rank_stored(datasets)

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
        import pandas as pd

        from metarec.data import infer_task, is_numeric_column
        from metarec.metafeatures import extract

        target = y if isinstance(y, pd.Series) else pd.Series(np.asarray(y).ravel())
        if self.task == "regression":
            if not is_numeric_column(target):
                raise InvalidInputError(
                    "this Recommender ranks regressors but y is not numeric; use "
                    "Recommender(task='classification')"
                )
            return extract(X, y, task="regression")
        present = target.dropna()
        # the rule load_dataset decides a task by: a fractional value, or integers with many
        # distinct values (sklearn:diabetes' target), are a regression target
        if infer_task(present) == "regression":
            raise InvalidInputError(
                "y looks continuous but this Recommender ranks classifiers; use "
                "Recommender(task='regression'), or give y as class labels (strings)"
            )
        counts = present.astype(str).value_counts()
        if counts.size < 2:
            what = f"a single class ({counts.index[0]!r})" if counts.size else "no labels"
            raise InvalidInputError(f"y has {what}; nothing to learn")
        if counts.max() < 2:
            raise InvalidInputError(
                f"every class of y has a single row ({counts.size} classes for "
                f"{len(present)} rows): no algorithm learns a label it saw once; if y is a "
                "quantity, use Recommender(task='regression'), if an identifier, another target"
            )
        return extract(X, y, task="binary" if counts.size <= 2 else "multiclass")
