"""The :class:`Recommender`: the facade the command line and the Python API use.

It reads a knowledge base into a :class:`~metarec.recommender.PerformanceMatrix` of one task,
fits a ranker on it (scikit-learn style composition: ``Recommender(A3RRanker(k=5))``; by
default the :class:`~metarec.recommender.LearnedRanker` with the task's defaults) and
computes a new dataset's metafeatures when it is given as data.  A grid over strategies is a
grid over ``ranker`` (``{"ranker": [A3RRanker(), LearnedRanker()], "ranker__k": [5, 10]}``);
the strategies are named in one registry (:mod:`metarec.recommender._registry`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, clone

from metarec._names import check_names
from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError
from metarec.recommender._base import BaseRanker
from metarec.recommender._ranking import Ranking
from metarec.recommender._registry import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    make_ranker,
)

__all__ = ["Recommender", "METHODS", "STRATEGIES"]

#: The classic strategies (every strategy but the learned one), by name.
METHODS = tuple(name for name in STRATEGIES if name != DEFAULT_STRATEGY)
TASKS = ("classification", "regression")
#: How :meth:`Recommender.portfolio` weighs the knowledge base's datasets by default, by
#: task (measured leave-one-dataset-out on held-out halves: ``benchmarks/portfolio_rule.py``).
PORTFOLIO_WEIGHTING = {"classification": "similarity", "regression": "uniform_first"}


class Recommender(BaseEstimator):
    """Rank algorithms for a new dataset by their accuracy/time trade-off on similar datasets.

    Parameters
    ----------
    ranker : BaseRanker, str or None, default=None
        The ranking strategy: an unfitted ranker (:class:`LearnedRanker`,
        :class:`A3RRanker`, :class:`ARRRanker`, :class:`AverageRankRanker`), the name of a
        strategy (``"learned"``, ``"a3r"``, ``"arr"``, ``"ar"``, ``"ar*"``: its ranker with
        ``task``'s defaults), or None: the learned strategy with ``task``'s defaults
        (:meth:`LearnedRanker.for_task`).  It is cloned when fitted.
    metric : str, default="accuracy"
        Column of ``kb.runs()`` used as success rate (higher is better, in [0, 1]).
    time : str, default="fit_time"
        Column of ``kb.runs()`` used as time (seconds).
    task : {"classification", "regression"}, default="classification"
        The knowledge base's datasets of this task are the ones learned from (a ranking never
        mixes classifiers and regressors).  For regression the success rate is R² clipped at
        0 (:func:`metarec.evaluation.regression_success_score`), stored in the ``accuracy``
        column by the benchmark runner.

    Attributes
    ----------
    ranker_ : BaseRanker
        The fitted ranker: the performance matrix it was fitted on and its fitted state
        (:class:`BaseRanker`'s attributes: ``accuracy_``, ``present_``, ``runtime_``...).
    datasets_ : ndarray of str
        Datasets of the knowledge base with at least one result (the ranker's).
    algorithms_ : ndarray of str
        Algorithms of the knowledge base (the ranker's).

    Notes
    -----
    The learned strategy's defaults (``time_floor=1, model_weight=16, answer_n=inf``: the
    first row is the algorithm of best predicted accuracy, then the planner's runs on a time
    axis that starts at one second) were chosen by the held-out procedure of
    :func:`metarec.recommender._tune.tune_recommender` on the tuning halves of the built-in
    knowledge base, the TabZilla run history and the realworld-dev history together
    (``python benchmarks/tune_recommender.py``), not on the evaluation halves; regression's
    (:data:`metarec.recommender._learned.TASK_DEFAULTS`) on a half of the built-in regression
    datasets.  ``Recommender(A3RRanker(k=5))`` is the classic pairwise A3R ranking.

    Fitted attributes are arrays, dicts and the model (no reference to the knowledge base),
    so a fitted recommender pickles.

    Examples
    --------
    >>> from metarec.recommender import A3RRanker, Recommender
    >>> Recommender(A3RRanker(k=5)).get_params()["ranker__k"]
    5
    >>> Recommender("ar", task="regression").ranker
    'ar'
    """

    def __init__(
        self,
        ranker=None,
        *,
        metric: str = "accuracy",
        time: str = "fit_time",
        task: str = "classification",
    ) -> None:
        self.ranker = ranker
        self.metric = metric
        self.time = time
        self.task = task

    @property
    def strategy(self) -> str:
        """The name of the ranking strategy (``"learned"``, ``"a3r"``...)."""
        fitted = self.__dict__.get("ranker_")
        return (fitted if fitted is not None else self._unfitted_ranker()).strategy

    # ------------------------------------------------------------------ fit
    def _unfitted_ranker(self) -> BaseRanker:
        """The ranker ``ranker`` names (not cloned), with ``task``'s defaults for a name."""
        if self.task not in TASKS:
            raise InvalidInputError(
                f"task must be 'classification' or 'regression'; got {self.task!r}"
            )
        if self.ranker is None:
            return make_ranker(DEFAULT_STRATEGY, task=self.task)
        if isinstance(self.ranker, str):
            return make_ranker(self.ranker, task=self.task)
        if not isinstance(self.ranker, BaseRanker):
            raise InvalidInputError(
                "ranker must be a ranker (LearnedRanker(), A3RRanker(), ...), the name of a "
                f"strategy ({', '.join(STRATEGIES)}) or None; got {type(self.ranker).__name__}"
            )
        return self.ranker

    def _validate_params(self) -> None:
        self._unfitted_ranker()._validate_params()

    def fit(self, kb, y=None) -> Recommender:
        """Read the runs and metafeatures of a knowledge base and fit the ranker on them.

        Parameters
        ----------
        kb : KnowledgeBase, PerformanceMatrix, str, path-like or object
            A knowledge base, a performance matrix of ``task`` already read, the URL or
            SQLite path of a knowledge base (it must exist), or any object with ``runs()``,
            ``metafeatures()`` and ``datasets()``.  ``runs()`` returns one row per (dataset,
            algorithm) with columns ``dataset, algorithm``, the metric, the time and
            optionally ``status``, ``n_runs``, ``n_failed``; ``metafeatures()`` a wide frame
            with a ``dataset`` column.
        y : ignored

        Returns
        -------
        self
        """
        import os

        from metarec.recommender._matrix import PerformanceMatrix

        ranker = clone(self._unfitted_ranker())
        ranker._validate_params()
        if isinstance(kb, PerformanceMatrix):
            matrix = kb
        else:
            if isinstance(kb, (str, os.PathLike)):
                from metarec.storage import KnowledgeBase

                kb = KnowledgeBase(kb, create=False)
            elif not all(
                callable(getattr(kb, m, None)) for m in ("runs", "metafeatures", "datasets")
            ):
                raise InvalidInputError(
                    "kb must be a KnowledgeBase, its URL or SQLite path, a PerformanceMatrix, "
                    "or an object with runs(), metafeatures() and datasets(); got "
                    f"{type(kb).__name__}"
                )
            matrix = PerformanceMatrix.from_kb(
                kb, metric=self.metric, time=self.time, task=self.task
            )
        self.ranker_ = ranker.fit(matrix)
        self.datasets_ = self.ranker_.datasets_
        self.algorithms_ = self.ranker_.algorithms_
        return self

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
        ranker = self.ranker_
        query = self._query_metafeatures(X, y, metafeatures)
        ranking = ranker.rank(query, exclude=exclude, tried=tried, budget=budget)
        return replace(ranking, task=self.task)

    def portfolio(
        self,
        X=None,
        y=None,
        *,
        metafeatures: Mapping[str, float] | None = None,
        size: int = 20,
        budget: float | None = None,
        n_folds: int = 1,
        exclude=(),
        candidates=None,
        weighting: str | None = None,
    ) -> list[str]:
        """Choose configurations to run on a new dataset, for that dataset.

        The greedy portfolio of :meth:`BaseRanker.portfolio`: each knowledge-base dataset
        weighted by its similarity to this one, the configurations chosen one at a time to
        lower the mean rank of the best so far.  By default (``PORTFOLIO_WEIGHTING``)
        a regression portfolio starts with the collection's single best configuration
        (``"uniform_first"``): held out, the first configuration chosen for the dataset
        lost about a point of R² to it, on each half of the regression datasets, while
        for classification neither first choice won on both halves
        (``benchmarks/portfolio_rule.py``).

        Parameters
        ----------
        X, y : array-like, optional
            The new dataset (its metafeatures are computed); or give ``metafeatures``.
        metafeatures : mapping of str to float, optional
            The new dataset's metafeatures.
        size : int, default=20
            Configurations to choose.
        budget : float, optional
            Seconds: a configuration expected (top of its 80 % interval, ``n_folds`` times)
            to take longer is not chosen.
        n_folds : int, default=1
            Fits of each configuration the budget must hold.
        exclude : str or iterable of str, default=()
            Datasets not to use.
        candidates : iterable of str, optional
            The algorithms to choose from; every one by default.
        weighting : {"similarity", "uniform", "uniform_first"}, optional
            ``"uniform"``: the collection's own portfolio, the same for every dataset;
            ``"uniform_first"``: its first configuration, then the others for this dataset.
            None: the task's (``PORTFOLIO_WEIGHTING``).

        Returns
        -------
        list of str
            In the order chosen.
        """
        self._check_fitted()
        if weighting is None:
            weighting = PORTFOLIO_WEIGHTING[self.task]
        query = self._query_metafeatures(X, y, metafeatures)
        return self.ranker_.portfolio(
            query,
            size=size,
            budget=budget,
            n_folds=n_folds,
            exclude=exclude,
            candidates=candidates,
            weighting=weighting,
        )

    def single_best(self, *, exclude=()) -> str | None:
        """The knowledge base's single best algorithm.

        The constant answer that ignores the dataset, on the matrix the ranker was fitted on
        (:meth:`PerformanceMatrix.single_best`).

        Parameters
        ----------
        exclude : iterable of str, default=()
            Datasets left out (a dataset's own earlier results are no evidence about it);
            names the knowledge base does not hold are ignored.

        Returns
        -------
        str or None
            None when no algorithm has a result on the datasets kept.
        """
        self._check_fitted()
        return self.ranker_.matrix().single_best(exclude=exclude)

    def time_spread(self) -> dict[str, float]:
        """How far above its expected time each algorithm's 80 % interval reaches.

        The top of the interval over the expected time, as calibrated on the knowledge
        base's own dataset sizes (the runtime model's leave-one-out residuals): the factor a
        ranking's ``expected_time_high`` is of its ``expected_time`` for a dataset within
        those sizes.  Beyond them a ranking's interval widens further; a search that
        measures its own folds can take this factor instead.

        Returns
        -------
        dict of str to float
            Per algorithm, a factor of at least 1 (NaN where the runtime model has no
            interval).
        """
        self._check_fitted()
        width = np.asarray(self.ranker_.runtime_.width_, dtype=float).reshape(-1)
        with np.errstate(over="ignore"):
            factors = np.exp(width)
        return dict(zip(map(str, self.algorithms_), factors.tolist(), strict=True))

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
        return self.ranker_.rank_stored(datasets)

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
