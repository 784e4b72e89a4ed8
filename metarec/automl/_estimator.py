"""``AutoClassifier``, ``AutoRegressor``: recommend, evaluate within a budget, keep the best."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if

from metarec._duration import parse_duration
from metarec._sklearn_errors import NotFittedError
from metarec.automl._methods import ANSWER_KINDS, ENSEMBLE_METHODS
from metarec.automl._model import (
    AveragedClassifier,
    AveragedRegressor,
    LabelledClassifier,
    as_frame,
)
from metarec.automl._search import (
    RunSettings,
    SearchResult,
    check_dataset,
    open_pool,
    run_name,
    search,
    search_portfolio,
    workers_note,
)
from metarec.automl._tables import cv_results, leaderboard
from metarec.exceptions import BenchmarkError, DataError, InvalidInputError

__all__ = ["AutoClassifier", "AutoRegressor"]

TARGET = "__metarec_target__"
#: The answers that turn an array or a frame with integer labels into the training frame
#: themselves (:func:`metarec.automl._model.as_frame`).
_READS_ANY_X = (LabelledClassifier, AveragedClassifier, AveragedRegressor)
#: What the sidecar's ``metric`` measures, where its name alone does not say.
_METRIC_MEANING = {
    ("regression", "accuracy"): "R² clipped at 0",
    ("regression", "r2"): "R²",
}


def parse_budget(value) -> float:
    """Parse a search's budget: seconds, at least one.

    Parameters
    ----------
    value : float, int or str
        Seconds, or a duration such as ``"90s"``, ``"10m"``, ``"1h"``
        (:func:`metarec.automl.parse_duration`).

    Returns
    -------
    float
        Seconds, at least :data:`~metarec.automl._search.MIN_BUDGET`.

    Raises
    ------
    InvalidInputError
        Not a duration, or shorter than the shortest budget.
    """
    from metarec.automl._search import MIN_BUDGET

    seconds = parse_duration(value)
    if seconds < MIN_BUDGET:
        raise InvalidInputError(
            f"a budget of {value!r} is too short: a search needs at least {MIN_BUDGET:g} s"
        )
    return seconds


def _no_model(result: SearchResult, budget: float) -> str:
    """Why a search handed back no model: every algorithm failed, or the budget was short."""
    failed = [t for t in result.trials if t.status == "error"]
    kept = f" ({result.runs_stored} fold result(s) stored)" if result.runs_stored else ""
    if failed and not any(t.status == "timeout" for t in result.trials):
        first = failed[0]
        short = [t for t in result.trials if t.status == "skipped"]
        which = (
            f"every algorithm that ran ({len(failed)}; {len(short)} did not fit the budget)"
            if short
            else "every algorithm"
        )
        return (
            f"{which} failed on this data{kept}; {first.algorithm}: "
            f"{first.message.splitlines()[0] if first.message else 'error'}"
        )
    return (
        f"no algorithm finished every fold within the budget of {budget:g} s; give a larger "
        f"budget{kept}"
    )


def _number(value) -> float | None:
    """A figure for JSON: None where it is not a number (NaN: nothing measured)."""
    return float(value) if value is not None and np.isfinite(value) else None


def _memory_limit(value) -> float | None:
    """``memory_limit_mb`` checked: None, or a positive number of megabytes."""
    if value is None:
        return None
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not value > 0
        or not np.isfinite(value)
    ):
        raise InvalidInputError(
            f"memory_limit_mb must be a positive number of megabytes or None; got {value!r}"
        )
    return float(value)


def _seed(value) -> int:
    """``random_state`` as the whole number it must be (stored with the folds it seeds)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise InvalidInputError(
        f"random_state must be a whole number (the seed of the folds and estimators, stored "
        f"with the folds so that a later fit reuses them); got {value!r}"
    )


class _AutoSearch(BaseEstimator):
    """What :class:`AutoClassifier` and :class:`AutoRegressor` share; ``_task`` tells them apart."""

    _task = "classification"

    def __init__(
        self,
        budget: float | str = 300,
        *,
        kb=None,
        protocol: str = "auto",
        metric: str = "accuracy",
        n_jobs: int = 1,
        random_state: int = 0,
        store: bool = True,
        scheduler: str | None = None,
        ensemble_size: int | str = "auto",
        ensemble_method: str = "average",
        portfolio=None,
        memory_limit_mb: float | None = None,
    ) -> None:
        self.budget = budget
        self.kb = kb
        self.protocol = protocol
        self.metric = metric
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.store = store
        self.scheduler = scheduler
        self.ensemble_size = ensemble_size
        self.ensemble_method = ensemble_method
        self.portfolio = portfolio
        self.memory_limit_mb = memory_limit_mb

    def _ensemble_size(self) -> int | None:
        size = self.ensemble_size
        if self.ensemble_method not in ENSEMBLE_METHODS:
            raise InvalidInputError(
                f"ensemble_method must be one of {', '.join(ENSEMBLE_METHODS)}; got "
                f"{self.ensemble_method!r}"
            )
        if isinstance(size, str) and size == "auto":
            return None
        if (
            isinstance(size, (bool, np.bool_))
            or not isinstance(size, (int, np.integer))
            or size < 1
        ):
            raise InvalidInputError(
                f'ensemble_size must be "auto" or a positive whole number, got {size!r}'
            )
        return int(size)

    def _settings(self) -> RunSettings:
        """The parameters checked, as a search's settings (the budget parsed here, once)."""
        return RunSettings(
            budget=parse_budget(self.budget),
            protocol=self.protocol,
            metric=self.metric,
            n_jobs=self.n_jobs,
            random_state=_seed(self.random_state),
            store=bool(self.store),
            scheduler=self.scheduler or None,
            ensemble_size=self._ensemble_size(),
            ensemble_method=self.ensemble_method,
            memory_limit_mb=_memory_limit(self.memory_limit_mb),
        )

    def _portfolio(self, ds):
        """The algorithms to choose from (:func:`~metarec.automl._search.search_portfolio`)."""
        from metarec.algorithms import Portfolio, default_portfolio, load_portfolio

        portfolio = self.portfolio
        if isinstance(portfolio, (str, os.PathLike)):
            extra = load_portfolio(portfolio, include_default=False)
            portfolio = default_portfolio(task="all", configurations=True) + extra
        elif portfolio is not None and not isinstance(portfolio, Portfolio):
            raise InvalidInputError(
                "portfolio must be a Portfolio, the path of a portfolio file or None; got "
                f"{type(portfolio).__name__}"
            )
        return search_portfolio(ds, portfolio)

    def fit(self, X, y) -> AutoClassifier:
        """Search within ``budget`` seconds from now and fit the best algorithm on ``X, y``.

        Raises
        ------
        BenchmarkInterrupted
            On SIGINT or SIGTERM: the search stopped, the finished folds are stored, and the
            best model so far is fitted (the attributes are set) when that takes about a
            second.
        """
        start = time.perf_counter()
        return self.fit_dataset(self._dataset(X, y), start=start)

    def _dataset(self, X, y):
        """``X, y`` as a dataset.  A named ``y`` (a Series, ``frame["Survived"]``) keeps its
        name, so that the same table given as a file with that target has the same content
        (fingerprint) and shares its stored folds; other ``y`` are ``__metarec_target__``."""
        import pandas as pd

        from metarec.data import is_numeric_column, load_dataset

        if hasattr(X, "toarray") and hasattr(X, "nnz"):  # a SciPy sparse matrix
            raise InvalidInputError(
                f"X is a sparse matrix of shape {X.shape}; give a dense array or a DataFrame "
                "(X.toarray())"
            )
        if not isinstance(X, pd.DataFrame):
            array = np.asarray(X)
            if array.ndim != 2:
                raise InvalidInputError(f"X must be 2-dimensional, got shape {array.shape}")
            X = pd.DataFrame(array, columns=[f"x{i}" for i in range(array.shape[1])])
        name = getattr(y, "name", None)
        target = name if isinstance(name, str) and name and name not in X.columns else TARGET
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise InvalidInputError(f"y must hold one target (1-dimensional), got shape {y.shape}")
        if len(y) != len(X):
            raise InvalidInputError(f"X has {len(X)} rows but y has {len(y)}")
        frame = X.reset_index(drop=True).copy()
        frame[target] = y
        # a numeric y is continuous for a regressor even with few distinct values, and whole
        # numbers are class labels for a classifier (its user chose); anything else is
        # detected, and a mismatch with this estimator's task is refused below
        task = None
        if is_numeric_column(frame[target]):
            values = frame[target].dropna().to_numpy(dtype="float64")
            whole = bool(values.size) and bool(np.all(values == np.round(values)))
            if self._task == "regression":
                task = "regression"
            elif whole:
                task = "classification"
        try:
            return load_dataset(frame, target=target, task=task)
        except DataError as exc:  # about the data as given: y, not the frame built from it
            if target != TARGET:
                raise
            message = str(exc).replace(f"target column {TARGET!r}", "y")
            raise DataError(message.removeprefix("frame: ")) from None

    def fit_dataset(self, dataset, *, start=None, progress=None):
        """Search on a loaded dataset and fit the answer, by ``start`` plus ``budget``.

        What :meth:`fit` does with ``X, y``, for a :class:`~metarec.data.Dataset` (a file,
        ``openml:ID``, ``sklearn:NAME`` loaded by :func:`metarec.data.load_dataset`), with
        the clock the caller's: the budget may have started before the data were loaded.

        Parameters
        ----------
        dataset : Dataset
            The data; its task must be this estimator's.
        start : float, optional
            ``time.perf_counter()`` when the budget began (default: now): everything is
            done by ``start + budget``, the one deadline of the fit (the command line
            counts from the interpreter's start).
        progress : callable, optional
            ``progress(n=1, total=None)``, called as algorithms finish.

        Returns
        -------
        self

        Raises
        ------
        BenchmarkInterrupted
            On SIGINT or SIGTERM (see :meth:`fit`).
        BenchmarkError
            The data cannot be searched, or nothing could be fitted; the search's trials are
            set (:attr:`search_`, :attr:`leaderboard_`) when it ran.
        """
        start = time.perf_counter() if start is None else start
        notes: list[str] = []
        try:
            return self._search_dataset(dataset, start, progress, notes)
        finally:
            self.notes_ = tuple(notes)

    def _open_kb(self):
        """The knowledge base to read and grow (a new one builds on the built-in one, read
        where metarec is installed, whose fitted recommender ships with the package)."""
        from metarec.storage import KnowledgeBase, open_or_builtin, open_seeded

        if not (self.store or isinstance(self.kb, KnowledgeBase)):
            # nothing to store: read what is there (the built-in one), create nothing
            return open_or_builtin(self.kb)
        return open_seeded(self.kb)[0]

    def _check_task(self, ds) -> None:
        from metarec.data import task_family

        if task_family(ds.task) != self._task:
            other = "AutoRegressor" if ds.task == "regression" else "AutoClassifier"
            target = "y" if ds.target == TARGET else f"its target {ds.target!r}"
            raise BenchmarkError(
                f"dataset {ds.name!r}: {target} looks "
                f"{'continuous' if ds.task == 'regression' else 'like class labels'}; "
                f"{type(self).__name__} chooses {self._task} algorithms (use {other}"
                + (", or class labels: y.astype(str))" if ds.task == "regression" else ")")
            )

    def _search_dataset(self, ds, start, progress, notes):
        from dataclasses import replace

        from metarec.exceptions import BenchmarkInterrupted
        from metarec.execution import Signals, Stop

        began = time.perf_counter()
        self._check_task(ds)
        requested = self._settings()
        deadline = start + requested.budget
        check_dataset(ds, requested)  # before anything is written
        portfolio = self._portfolio(ds)
        # the workers start first: their imports overlap the opening (and filling) of the KB
        with open_pool(requested, portfolio) as pool:
            note = None if requested.scheduler else workers_note(requested.n_jobs, pool.n_workers)
            if note:
                notes.append(note)
            kb = self._open_kb()
            name, renamed = run_name(ds, kb.datasets())  # a changed file: refused before work
            store = self.store and not getattr(kb, "is_builtin", False) and not kb.read_only
            settings = replace(requested, store=store)
            if renamed:
                notes.append(renamed)
            opened = time.perf_counter()
            with Signals() as signals:
                try:
                    result = search(
                        ds,
                        kb,
                        settings,
                        deadline=deadline,
                        start=start,
                        portfolio=portfolio,
                        check=signals.check,
                        progress=progress,
                        name=name,
                        pool=pool,
                        critical=signals.critical,
                    )
                except Stop as stop:  # before any fold ran (metafeatures, the recommender)
                    raise BenchmarkInterrupted(stop.signum, 0) from None
        phases = {
            "before the search": began - start,
            "workers and knowledge base": opened - began,
            **result.phases,
        }
        result = replace(result, phases=phases)
        self._set_fitted(result, ds)
        if result.interrupted is not None:
            raise BenchmarkInterrupted(result.interrupted, result.runs_stored)
        if result.model is None:
            raise BenchmarkError(_no_model(result, settings.budget))
        return self

    def _set_fitted(self, result: SearchResult, ds) -> None:
        """Set the attributes of a search; those of a model only when it handed one back.

        Every attribute of an earlier fit is removed first: a search that found no model
        leaves its trials (``search_``, ``leaderboard_``, ``cv_results_``) and an unfitted
        estimator, never a mix of two fits.
        """
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("_")]:
            delattr(self, name)
        self.search_ = result
        self.leaderboard_ = leaderboard(result)
        self.cv_results_ = cv_results(result)
        if result.model is None:
            return
        self.best_algorithm_ = result.best
        self.ensemble_ = result.members
        self.best_estimator_ = result.model
        if self._task == "classification":
            self.classes_ = result.model.classes_
        self.feature_names_in_ = np.asarray(list(ds.X.columns), dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        self.dataset_fingerprint_ = ds.fingerprint

    def __sklearn_is_fitted__(self) -> bool:
        """Whether a search handed back a model (what ``check_is_fitted`` asks)."""
        return "best_estimator_" in self.__dict__

    def _model(self):
        if "best_estimator_" not in self.__dict__:
            raise NotFittedError(
                f"this {type(self).__name__} has no fitted model; call fit(X, y) first"
            )
        return self.best_estimator_

    def predict(self, X):
        """Predictions of :attr:`best_estimator_` (labels, or values of the target).

        ``X``: a DataFrame with the training columns (in any order; more are ignored), or an
        array of the training columns in their order.
        """
        model = self._model()
        if not isinstance(model, _READS_ANY_X):  # a pipeline set by hand
            X = as_frame(X, self.feature_names_in_)
        return model.predict(X)

    def save(self, path: str | os.PathLike[str]) -> tuple[Path, Path]:
        """Write the fitted model with joblib, and a JSON sidecar describing it.

        The sidecar (``path`` with the suffix ``.json``) names the algorithm and its
        parameters, the CV score with its spread and folds, the protocol, seed and metric,
        the data's fingerprint and columns, and the versions of metarec and the libraries.
        Each file is written under a temporary name beside it and moved into place when
        complete: a write that fails leaves the previous file (or none), and no other.

        Returns
        -------
        (Path, Path)
            The model file and the sidecar.
        """
        import joblib

        from metarec._files import atomic_path

        model = self._model()
        path = Path(path)
        sidecar = path.with_suffix(".json")
        description = json.dumps(self.describe(), indent=2, default=str) + "\n"
        with atomic_path(path) as tmp:  # whole or not at all, no temporary file left
            joblib.dump(model, tmp)
        with atomic_path(sidecar) as tmp:
            tmp.write_text(description)
        return path, sidecar

    def describe(self) -> dict[str, Any]:
        """What :meth:`save` writes into the sidecar."""
        from importlib import metadata

        from metarec._version import __version__

        result = self.search_
        trial = result.trial(result.best) if result.best else None
        portfolio = result.portfolio
        algorithm = portfolio[result.best] if result.best else None
        versions = {"metarec": __version__}
        for package in ("scikit-learn", "numpy", "pandas", "scipy"):
            try:
                versions[package] = metadata.version(package)
            except metadata.PackageNotFoundError:  # pragma: no cover
                pass
        if algorithm is not None:
            versions["algorithm library"] = algorithm.library_version()
        settings = result.settings
        return {
            "algorithm": result.best,
            "ensemble": list(result.members),
            "weights": list(result.weights),
            "answer": ANSWER_KINDS.get(result.answer, result.answer),
            "members": [
                {
                    "algorithm": name,
                    "weight": weight,
                    "estimator": portfolio[name].estimator,
                    "parameters": dict(portfolio[name].params),
                }
                for name, weight in zip(result.members, result.weights, strict=False)
            ],
            "estimator": algorithm.estimator if algorithm else None,
            "parameters": dict(algorithm.params) if algorithm else {},
            "scaled": algorithm.scale if algorithm else None,
            "task": self._task,
            "metric": settings.metric,
            "metric_meaning": _METRIC_MEANING.get((self._task, settings.metric), settings.metric),
            # the CV figures are the best single algorithm's: an average of several has no
            # CV estimate of its own (its members were not refitted per fold together)
            "cv_score_of": result.best,
            "cv_score": _number(trial.cv_score) if trial else None,
            "cv_sd": _number(trial.cv_sd) if trial else None,
            "fold_scores": list(trial.fold_scores) if trial else [],
            "selection_score": _number(trial.selection_score) if trial else None,
            "evaluated": bool(trial and trial.fold_scores),
            "protocol": settings.protocol,
            "folds": result.n_folds,
            "seed": settings.random_state,
            "budget_seconds": settings.budget,
            "search_seconds": round(result.seconds, 3),
            "n_evaluated": sum(t.complete for t in result.trials),
            "dataset": result.dataset,
            "data_fingerprint": result.fingerprint,
            "columns": [str(c) for c in self.feature_names_in_],
            "classes": [str(c) for c in self.classes_] if hasattr(self, "classes_") else [],
            "versions": versions,
        }


class AutoClassifier(ClassifierMixin, _AutoSearch):
    """Choose, evaluate and fit a classifier for a dataset within a time budget.

    The recommender ranks metarec's portfolio for the data from its metafeatures and the
    knowledge base; the algorithms are evaluated in that order with the benchmark runner's
    protocol (the same folds for all, single-threaded worker processes), each result
    re-ranks the rest, and an algorithm whose expected time does not fit what is left of the
    budget is skipped; a fit still running when the budget runs out is stopped.  The answer
    averages the best ones (by CV score shrunk toward the knowledge base's expectation, ties
    to the faster fit) and the knowledge base's single best algorithm, each refitted on
    every row (their mean class probabilities decide; ``ensemble_method``,
    ``ensemble_size``).  Every evaluated fold is stored in the knowledge base, and a later
    fit on the same data reuses the stored folds.

    Parameters
    ----------
    budget : float or str, default=300
        Wall-clock seconds for the whole fit, refit included (``90``, ``"90s"``, ``"10m"``,
        ``"1h"``).
    kb : KnowledgeBase, str or None, default=None
        Knowledge base (object, URL or SQLite path); None is the default one.  An empty one
        is first filled with the built-in knowledge base.
    protocol : str, default="auto"
        Evaluation protocol (``"cv5"``, ``"cv10"``, ``"holdout"``...); ``"auto"``: five
        folds below 50,000 rows, from there one validation part and the candidates
        evaluated on growing samples of the rows, the best on every row.
    metric : {"accuracy", "balanced_accuracy", "roc_auc", "tau"}, default="accuracy"
        Score that chooses the answer.
    n_jobs : int, default=1
        Algorithms evaluated at once, one single-threaded worker process each (-1: all cores).
    random_state : int, default=0
        Seed of the folds and of every estimator.
    store : bool, default=True
        Store the evaluated folds in the knowledge base (never into the built-in one).
        False: nothing is written to any knowledge base, none is created (an empty or
        missing one is read as the built-in one).
    scheduler : str, optional
        Address of a Dask scheduler: the evaluations run on that cluster (each Dask worker
        keeping a warm worker process of its own) instead of local worker processes.
    ensemble_size : int or "auto", default="auto"
        With ensemble selection, the most distinct members of the answer (``"auto"``: no
        cap); with an average, how many of the best it averages (``"auto"``: 3).  1 keeps
        the best alone.  Members are refitted only when their refits fit the time left of
        the budget (the heaviest first).
    ensemble_method : {"average", "selection"}, default="average"
        ``"average"``: an equal-weight average of the best ones and of the knowledge
        base's single best algorithm; on data of 3,000 rows or more the members after the
        first join only when their fold scores are tied with the best's within the folds'
        noise.  ``"selection"``: greedy ensemble selection over the evaluated algorithms'
        out-of-fold predictions on this data (Caruana et al. 2004: the best model first,
        then 50 rounds adding, with replacement, the model that most improves the averaged
        predictions' metric; weights are counts).  The average is the default because it
        was measured more accurate on small data: on 20 datasets of under 1,000 rows
        outside the knowledge base (outer 5-fold), selection over the default algorithms
        fitted the out-of-fold predictions' noise (``docs/benchmarks/run-ensemble.md``).
    portfolio : Portfolio, str, path or None, default=None
        The algorithms to choose from: a :class:`~metarec.algorithms.Portfolio`, the path of
        a portfolio file whose algorithms join the default ones
        (:func:`~metarec.algorithms.load_portfolio`), or None: the default portfolio with
        the configurations of its main families.  Those of the data's task that are
        installed here are evaluated: the ones the knowledge base has results of in the
        recommended order, the others after them (a configuration it has none of is left
        out).
    memory_limit_mb : float or None, default=None
        Megabytes (2**20 bytes) a fold's fit may add to its worker process (``RLIMIT_AS``
        on top of what the warm worker maps; on platforms with ``resource``): a fit that
        needs more fails as an ``error`` trial ("exceeded the memory cap") and the search
        goes on, so an algorithm whose memory grows with the rows (a random forest's fully
        grown trees, kernel matrices) cannot take the machine.  The refit of the answer runs
        in this process, without the cap, on every row (or a sample of them), of algorithms
        that fitted within it on their folds.  None: no cap.

    Attributes
    ----------
    best_estimator_ : LabelledClassifier or AveragedClassifier
        The answer fitted on every row (the best algorithm's pipeline, or the average of
        the members of :attr:`ensemble_`); takes a DataFrame with the training columns.
    best_algorithm_ : str
        The algorithm of best selection score.
    ensemble_ : tuple of str
        The algorithms the answer averages, best first (one name: no averaging).
    leaderboard_ : DataFrame
        One row per algorithm of the portfolio: CV score and spread, selection score, fit
        time, expected score and time, planned and actual order, status.
    cv_results_ : dict of ndarray
        scikit-learn's layout: ``algorithm``, ``split<i>_test_score``, ``mean_test_score``,
        ``std_test_score``, ``mean_fit_time``, ``rank_test_score``, ``status``.
    search_ : SearchResult
        Everything the search found.
    notes_ : tuple of str
        Remarks about the fit for people (workers used, a knowledge base filled first, a
        dataset stored under another name), set even when the fit raised.
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    >>> model = AutoClassifier(budget=30).fit(X, y)  # doctest: +SKIP
    >>> model.leaderboard_.head()  # doctest: +SKIP
    """

    _task = "classification"

    def _has_proba(self) -> bool:
        model = self.__dict__.get("best_estimator_")
        return model is None or hasattr(model, "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities of :attr:`best_estimator_` (columns follow :attr:`classes_`)."""
        return self._model().predict_proba(X)  # a wrapper: it takes arrays itself

    def _has_decision(self) -> bool:
        model = self.__dict__.get("best_estimator_")
        return model is not None and hasattr(model, "decision_function")

    @available_if(_has_decision)
    def decision_function(self, X):
        """Confidence scores of :attr:`best_estimator_`, when it is one classifier that has
        them (the only scores of those that estimate no probabilities: ridge, the support
        vector machines, SGD)."""
        return self._model().decision_function(X)


class AutoRegressor(RegressorMixin, _AutoSearch):
    """Choose, evaluate and fit a regressor for a dataset within a time budget.

    The recommender ranks metarec's portfolio for the data from its metafeatures and the
    knowledge base; the algorithms are evaluated in that order with the benchmark runner's
    protocol (the same folds for all, single-threaded worker processes), each result
    re-ranks the rest, and an algorithm whose expected time does not fit what is left of the
    budget is skipped; a fit still running when the budget runs out is stopped.  The answer
    averages the best ones (by CV score shrunk toward the knowledge base's expectation, ties
    to the faster fit) and the knowledge base's single best algorithm, each refitted on
    every row (``ensemble_method``, ``ensemble_size``).  Every evaluated fold is stored in
    the knowledge base, and a later fit on the same data reuses the stored folds.

    Parameters
    ----------
    budget : float or str, default=300
        Wall-clock seconds for the whole fit, refit included (``90``, ``"90s"``, ``"10m"``,
        ``"1h"``).
    kb : KnowledgeBase, str or None, default=None
        Knowledge base (object, URL or SQLite path); None is the default one.  An empty one
        is first filled with the built-in knowledge base.
    protocol : str, default="auto"
        Evaluation protocol (``"cv5"``, ``"cv10"``, ``"holdout"``...); ``"auto"``: five
        folds below 50,000 rows, from there one validation part and the candidates
        evaluated on growing samples of the rows, the best on every row.
    metric : {"accuracy", "r2"}, default="accuracy"
        Score that chooses the answer: ``"accuracy"`` is the success rate of regressors, R²
        clipped at 0 (:func:`metarec.evaluation.regression_success_score`); ``"r2"`` the
        plain R².
    n_jobs : int, default=1
        Algorithms evaluated at once, one single-threaded worker process each (-1: all cores).
    random_state : int, default=0
        Seed of the folds and of every estimator.
    store : bool, default=True
        Store the evaluated folds in the knowledge base (never into the built-in one).
        False: nothing is written to any knowledge base, none is created (an empty or
        missing one is read as the built-in one).
    scheduler : str, optional
        Address of a Dask scheduler: the evaluations run on that cluster (each Dask worker
        keeping a warm worker process of its own) instead of local worker processes.
    ensemble_size : int or "auto", default="auto"
        With ensemble selection, the most distinct members of the answer (``"auto"``: no
        cap); with an average, how many of the best it averages (``"auto"``: 3).  1 keeps
        the best alone.  Members are refitted only when their refits fit the time left of
        the budget (the heaviest first).
    ensemble_method : {"average", "selection"}, default="average"
        ``"average"``: an equal-weight average of the best ones and of the knowledge
        base's single best algorithm; on data of 3,000 rows or more the members after the
        first join only when their fold scores are tied with the best's within the folds'
        noise.  ``"selection"``: greedy ensemble selection over the evaluated algorithms'
        out-of-fold predictions on this data (Caruana et al. 2004: the best model first,
        then 50 rounds adding, with replacement, the model that most improves the averaged
        predictions' metric; weights are counts).  The average is the default because it
        was measured more accurate on small data: on 20 datasets of under 1,000 rows
        outside the knowledge base (outer 5-fold), selection over the default algorithms
        fitted the out-of-fold predictions' noise (``docs/benchmarks/run-ensemble.md``).
    portfolio : Portfolio, str, path or None, default=None
        The algorithms to choose from: a :class:`~metarec.algorithms.Portfolio`, the path of
        a portfolio file whose algorithms join the default ones
        (:func:`~metarec.algorithms.load_portfolio`), or None: the default portfolio with
        the configurations of its main families.  Those of the data's task that are
        installed here are evaluated: the ones the knowledge base has results of in the
        recommended order, the others after them (a configuration it has none of is left
        out).
    memory_limit_mb : float or None, default=None
        Megabytes (2**20 bytes) a fold's fit may add to its worker process (``RLIMIT_AS``
        on top of what the warm worker maps; on platforms with ``resource``): a fit that
        needs more fails as an ``error`` trial ("exceeded the memory cap") and the search
        goes on, so an algorithm whose memory grows with the rows (a random forest's fully
        grown trees, kernel matrices) cannot take the machine.  The refit of the answer runs
        in this process, without the cap, on every row (or a sample of them), of algorithms
        that fitted within it on their folds.  None: no cap.

    Attributes
    ----------
    best_estimator_ : AveragedRegressor
        The answer fitted on every row (the average of the members of :attr:`ensemble_`;
        of one, the best regressor alone); takes a DataFrame with the training columns, or
        an array of them in the training order.
    best_algorithm_ : str
        The algorithm of best selection score.
    ensemble_ : tuple of str
        The algorithms the answer averages, best first (one name: no averaging).
    leaderboard_ : DataFrame
        One row per algorithm of the portfolio: CV score and spread, selection score, fit
        time, expected score and time, planned and actual order, status.
    cv_results_ : dict of ndarray
        scikit-learn's layout: ``algorithm``, ``split<i>_test_score``, ``mean_test_score``,
        ``std_test_score``, ``mean_fit_time``, ``rank_test_score``, ``status``.
    search_ : SearchResult
        Everything the search found.
    notes_ : tuple of str
        Remarks about the fit for people (workers used, a knowledge base filled first, a
        dataset stored under another name), set even when the fit raised.
    n_features_in_ : int
    feature_names_in_ : ndarray

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True, as_frame=True)
    >>> model = AutoRegressor(budget=30).fit(X, y)  # doctest: +SKIP
    >>> model.leaderboard_.head()  # doctest: +SKIP
    """

    _task = "regression"
