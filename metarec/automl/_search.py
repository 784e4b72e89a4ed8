"""``metarec run``'s search: recommend, evaluate, answer and store, within a budget.

:func:`search` puts a search together; each part is a module of its own:

1. the dataset's metafeatures (stored ones when the knowledge base has them) and the
   recommender fitted on the knowledge base (cached, and reused while the knowledge base
   has grown by at most :data:`RECOMMENDER_TOLERANCE`);
2. **the loop** (:mod:`metarec.automl._loop`): the first plan, admission within the budget,
   the jobs on the worker pool, re-planning after each result; what each algorithm did is
   recorded as its **trial** (:mod:`metarec.automl._trials`);
3. **the answer** (:mod:`metarec.automl._answer`): the order of the complete trials, the
   anchor, the members and their weights (or, when nothing finished, the fallback), fitted
   on every row by the budgeted refit (:mod:`metarec.automl._refit`);
4. **storing** (:mod:`metarec.automl._storing`): the folds run now into the knowledge base,
   whole jobs with their predictions into the result cache.

The portfolio a search is given (:func:`search_portfolio`) is the one place its algorithms
are looked up: the workers, the refit and the storing build and register each algorithm
from it, so an algorithm outside the default portfolio goes through all of them.

What the data are evaluated on (the protocol's folds, another split of the rows, a
subsample before the whole data) is the loop's and the trials' concern; the answer reads
only complete trials and their out-of-fold predictions, on the rows the trials evaluated.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from metarec.automl._answer import final_answer
from metarec.automl._loop import END_MARGIN, SearchLoop
from metarec.automl._refit import RefitData
from metarec.automl._rungs import (
    AUTO,
    LARGE_ROWS,
    MIN_HOLDOUT_ROWS,
    SMALL_PROTOCOL,
    holdout_wanted,
    run_rungs,
)
from metarec.automl._storing import store_search, stored_search_folds
from metarec.automl._trials import Trial, leaderboard_key
from metarec.exceptions import BenchmarkError, UnknownNameError

__all__ = [
    "RunSettings",
    "SearchResult",
    "search",
    "search_portfolio",
    "check_dataset",
    "open_pool",
    "run_name",
    "workers_note",
    "METRICS",
    "REGRESSION_METRICS",
    "MIN_BUDGET",
]

#: Scores ``metarec run`` can select by (all higher is better).
METRICS = ("accuracy", "balanced_accuracy", "roc_auc", "tau")
#: Metrics of a regression search: ``accuracy`` is the success rate, R² clipped at 0.
REGRESSION_METRICS = ("accuracy", "r2")
#: The shortest budget of a search, in seconds: the end margin alone takes one (and a
#: person counts time from about a second).
MIN_BUDGET = 1.0
#: A recommender fitted on an earlier state of the knowledge base is used while the knowledge
#: base has grown since by at most this share of its datasets and runs (every run stores its
#: folds; a refit at every call would come out of the user's budget).
RECOMMENDER_TOLERANCE = 0.05


@dataclass(frozen=True)
class RunSettings:
    """What a search does, shared by :class:`~metarec.AutoClassifier` and ``metarec run``.

    Parameters
    ----------
    budget : float
        Wall-clock seconds for the whole search, the final refit included.
    protocol : str
        Evaluation protocol of the benchmark runner (``"cv5"``, ``"cv10"``...), or
        ``"auto"``: five folds below 50,000 rows, from there a holdout and growing samples
        of the rows (:mod:`metarec.automl._rungs`).
    metric : str
        Score that chooses the answer, one of :data:`METRICS`.
    n_jobs : int
        Worker processes (joblib's convention: -1 all cores).
    random_state : int
        Seed of the folds and of every estimator.
    store : bool
        Store every evaluated fold in the knowledge base.
    scheduler : str or None
        Address of a Dask scheduler to run the evaluations on (local workers when None).
    ensemble_size : int or None
        Ensemble selection: the most distinct members (None: no cap); an average: how many
        of the best it averages (None: 3); 1: the best alone.  Members are refitted only
        while the budget allows.
    ensemble_method : {"selection", "average"}
        How the answer is made of the evaluated algorithms (:class:`AnswerPolicy`).
    memory_limit_mb : float or None
        Megabytes a fold's fit may add to its worker (None: no cap;
        :attr:`metarec.execution.JobSpec.memory_limit_mb`).
    """

    budget: float
    protocol: str = AUTO
    metric: str = "accuracy"
    n_jobs: int = 1
    random_state: int = 0
    store: bool = True
    scheduler: str | None = None
    ensemble_size: int | None = None
    ensemble_method: str = "average"
    memory_limit_mb: float | None = None


@dataclass(frozen=True)
class SearchResult:
    """Everything a search found: the trials, the answer and its refitted model.

    Parameters
    ----------
    dataset : str
        The name the dataset is stored under in the knowledge base.
    fingerprint : str
        The dataset's content hash (:attr:`metarec.data.Dataset.fingerprint`).
    settings : RunSettings
        What the search was asked to do.
    n_folds : int
        Folds of the evaluation protocol.
    trials : tuple of Trial
        Every algorithm considered, as a leaderboard: the eligible ones by selection score
        (best first), then those with some fold scores, then the rest, each group in the
        order of the first ranking.
    best : str or None
        The best algorithm of the answer: the first of its members in the leaderboard's
        order (None: no algorithm finished every fold, or none could be refitted).
    model : estimator or None
        The answer refitted on every row: one pipeline, or the average of ``members``
        (None with ``best``).
    seconds : float
        Wall-clock seconds the search took, refit included.
    runs_stored : int
        Folds stored in the knowledge base (0 with ``settings.store`` off).
    interrupted : int or None
        The signal number that stopped the search (None: it ran to its end).
    notes : tuple of str
        Remarks for people (what was refitted, what could not be, and why).
    members : tuple of str
        The algorithms the model averages, the heaviest first (one: no average).
    weights : tuple of float
        Each member's weight in the model (summing to 1).
    answer : str
        How the members were chosen: ``"best"``, ``"average"`` or ``"selection"``.
    phases : dict of str to float
        Wall seconds of the search's phases: ``metafeatures``, ``recommender`` (fitted or
        read from its cache, and the first plan), ``evaluation`` (the folds on the workers),
        ``answer and refit``, ``storing``.
    portfolio : Portfolio or None
        The algorithms the search chose from (each trial's and member's estimator and
        parameters).
    """

    dataset: str
    fingerprint: str
    settings: RunSettings
    n_folds: int
    trials: tuple[Trial, ...]
    best: str | None
    model: Any
    seconds: float
    runs_stored: int = 0
    interrupted: int | None = None
    notes: tuple[str, ...] = ()
    members: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    answer: str = "best"
    phases: dict = field(default_factory=dict)
    portfolio: Any = None

    def trial(self, algorithm: str) -> Trial:
        """Return the trial of ``algorithm``.

        Parameters
        ----------
        algorithm : str
            A name in :attr:`trials`.

        Returns
        -------
        Trial

        Raises
        ------
        UnknownNameError
            ``algorithm`` was not part of the search.
        """
        for trial in self.trials:
            if trial.algorithm == algorithm:
                return trial
        names = ", ".join(t.algorithm for t in self.trials) or "none"
        raise UnknownNameError(
            f"algorithm {algorithm!r} was not part of the search (tried: {names})"
        )


# --------------------------------------------------------------------------- worker side
# --------------------------------------------------------------------------- parent side


def search(
    ds,
    kb,
    settings: RunSettings,
    *,
    deadline: float,
    start: float,
    recommender=None,
    portfolio=None,
    check: Callable[[], None] | None = None,
    progress: Callable[..., None] | None = None,
    name: str | None = None,
    pool=None,
    critical: Callable[[], Any] | None = None,
) -> SearchResult:
    """Evaluate algorithms on ``ds`` in the recommended order until the budget is spent.

    Parameters
    ----------
    ds : Dataset
        A classification or regression dataset (checked by the caller: :func:`check_dataset`).
    kb : KnowledgeBase
        Where the recommender's evidence comes from and the folds go.
    settings : RunSettings
    deadline, start : float
        ``time.perf_counter()`` values: when everything must be done, when the work began.
    recommender : Recommender, optional
        Fitted; by default the default recommender fitted on ``kb`` (cached on disk).
    portfolio : Portfolio, optional
        Algorithms to choose from (:func:`search_portfolio`): the refit and the storing
        build and register each algorithm from it; by default the default portfolio with
        its configurations.
    check : callable, optional
        Called at least twice a second; may raise to stop (SIGINT, SIGTERM).
    progress : callable, optional
        ``progress(n=1, total=None)`` as algorithms finish.
    name : str, optional
        The name ``ds`` is stored under; by default :func:`run_name`'s.
    pool : WorkerPool or DaskPool, optional
        Where the folds run: one :func:`open_pool` started for ``portfolio`` (the caller
        closes it); by default one is started here and closed at the end.
    critical : callable, optional
        ``critical()`` is a context manager that defers a stopping signal to its end
        (:class:`metarec.execution.Signals`'s): recording a finished job runs
        inside one, so a signal never leaves a job half recorded.

    Returns
    -------
    SearchResult
    """
    from threadpoolctl import threadpool_limits

    portfolio = search_portfolio(ds, portfolio)
    tick = progress or (lambda n=1, total=None: None)
    check = check or (lambda: None)
    own = pool is None
    if own:  # the workers import their libraries while the parent computes metafeatures
        pool = open_pool(settings, portfolio)
    try:
        # this process's own model work (metafeatures, the recommender, the final refits) on
        # one thread, as the folds whose times plan it: an OpenMP or BLAS pool of every core
        # on cores the workers keep busy can be a hundred times slower
        with threadpool_limits(1):
            return _search(
                ds, kb, settings, pool, portfolio, deadline, start, recommender, check, tick,
                pool.n_workers, name if name is not None else run_name(ds, kb.datasets())[0],
                critical=critical,
            )  # fmt: skip
    finally:
        if own:
            pool.close()


def search_portfolio(ds, portfolio=None):
    """The algorithms a search chooses from.

    ``portfolio`` (by default the default portfolio with the configurations of its main
    families), restricted to ``ds``'s task and to the installed algorithms.
    """
    from metarec.algorithms import default_portfolio

    portfolio = portfolio or default_portfolio(task="all", configurations=True)
    portfolio = portfolio.for_task(ds.task)
    return portfolio.select([a.name for a in portfolio if a.is_installed()])


def open_pool(settings: RunSettings, portfolio):
    """Start the processes a search's folds run on.

    ``settings.n_jobs`` warm local workers that import ``portfolio``'s libraries at once, or
    the Dask cluster ``settings.scheduler``.  Started before the knowledge base is opened,
    the workers' imports overlap the parent's own start (filling an empty knowledge base,
    metafeatures, the recommender).  The caller closes the pool.
    """
    from metarec.algorithms import preload_modules, warm_up
    from metarec.execution import JOB_MODULES, DaskPool, WorkerPool, worker_count

    modules = [*preload_modules(portfolio), *JOB_MODULES]
    if settings.scheduler:
        return DaskPool(settings.scheduler, settings.n_jobs, modules, warm_up=warm_up)
    # never more workers than cores, nor than algorithms to evaluate
    workers = min(worker_count(settings.n_jobs), max(1, len(portfolio)))
    return WorkerPool(workers, modules, warm_up=warm_up)


def workers_note(n_jobs: int, workers: int) -> str | None:
    """What to tell a person who asked for more parallel jobs than run (None: as asked)."""
    from metarec.execution import available_cores

    if n_jobs <= 0 or n_jobs <= workers:
        return None
    cores = available_cores()
    why = (
        f"this machine has {cores} core(s)" if workers == cores else "there are no more algorithms"
    )
    return f"-j {n_jobs}: {workers} worker process(es), as {why}"


def _codes(ds) -> tuple[np.ndarray | None, np.ndarray]:
    """``(labels in the order of their codes, codes)``; ``(None, float targets)`` for regression."""
    if ds.task == "regression":
        return None, np.asarray(ds.y, dtype=float)
    classes, codes = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
    labels = np.asarray(ds.y)
    # the original labels in the order of their codes (the first row of each class)
    first = np.array([np.flatnonzero(codes == k)[0] for k in range(len(classes))])
    return labels[first], codes


def run_name(ds, stored) -> tuple[str, str | None]:
    """The name a search stores ``ds`` under (:func:`metarec.execution.stored_name`; a frame
    is named ``frame-`` and its content's fingerprint)."""
    from metarec.execution import stored_name

    own = f"frame-{ds.fingerprint[:12]}" if ds.name == "frame" else ds.name
    return stored_name(ds, stored, own=own)


def _search(
    ds, kb, settings, pool, portfolio, deadline, start, recommender, check, tick, n_workers, name,
    *, critical=None,
):  # fmt: skip
    from metarec.data import task_family
    from metarec.recommender import Recommender, fitted_recommender

    phases: dict[str, float] = {}
    labels, codes = _codes(ds)
    with _phase(phases, "metafeatures"):
        metafeatures = _metafeatures(kb, name, ds, settings.random_state)
    check()
    with _phase(phases, "recommender"):
        if recommender is None:
            recommender = fitted_recommender(
                kb, Recommender(task=task_family(ds.task)), tolerance=RECOMMENDER_TOLERANCE
            )
        # the recommendation on every row: whether to hold out, and the rungs' tie-breaks
        ranking = None
        if settings.protocol == AUTO and len(codes) >= MIN_HOLDOUT_ROWS:
            ranking = recommender.recommend(metafeatures=metafeatures)
        large = ranking is not None and (
            len(codes) >= LARGE_ROWS
            or holdout_wanted(
                ranking, set(portfolio.names), budget=settings.budget, n_workers=n_workers
            )
        )
        if not large:
            if settings.protocol == AUTO:
                settings = replace(settings, protocol=SMALL_PROTOCOL)
            loop = SearchLoop(
                ds, name, codes, labels, settings, portfolio, recommender, metafeatures,
                stored_search_folds(kb, name, settings), deadline, start, tick, n_workers,
            )  # fmt: skip
            if critical is not None:
                loop.critical = critical
    earlier: dict = {}
    samples: tuple = ()
    stored = None
    with _phase(phases, "evaluation"):
        if large:  # a holdout, and growing samples of the rows (metarec.automl._rungs)
            loop, interrupted, earlier, samples, stored = run_rungs(
                ds, name, codes, labels, settings, portfolio, recommender, metafeatures, kb,
                deadline, start, tick, n_workers, pool, check, critical, ranking,
            )  # fmt: skip
            settings = loop.settings
        else:
            interrupted = loop.run(pool, check)
    with _phase(phases, "answer and refit"):
        answer = final_answer(
            loop.state,
            RefitData(ds, labels, codes, samples, growth=loop.growth),
            loop.portfolio,
            settings,
            recommender=recommender,
            name=name,
            deadline=None if interrupted is not None else deadline - END_MARGIN,
            refit_scale=loop.refit_scale,
        )
    runs_stored = 0
    with _phase(phases, "storing"):
        kept = stored if large else loop  # a large search stores its last rung's folds
        if kept is not None and kept.settings.store:
            runs_stored = store_search(
                kb, name, ds, codes, kept.state, n_classes=kept.n_classes,
                n_folds=kept.n_folds, settings=kept.settings, metafeatures=metafeatures,
                portfolio=kept.portfolio, cache=kept.cache,
            )  # fmt: skip
    return SearchResult(
        dataset=name,
        fingerprint=ds.fingerprint,
        settings=settings,
        n_folds=loop.n_folds,
        trials=tuple(
            sorted(
                [t for t in loop.state.trials.values() if t.algorithm not in earlier]
                + list(earlier.values()),
                key=leaderboard_key,
            )
        ),
        best=answer.best,
        model=answer.model,
        seconds=time.perf_counter() - start,
        runs_stored=runs_stored,
        interrupted=interrupted,
        notes=answer.notes,
        members=tuple(answer.members),
        weights=tuple(float(w) for w in answer.weights),
        answer=answer.method,
        phases=phases,
        portfolio=loop.portfolio,
    )


@contextlib.contextmanager
def _phase(phases: dict, name: str):
    """Add the wall seconds of the block to ``phases[name]``."""
    begun = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - begun


def _metafeatures(kb, name: str, ds, seed: int) -> dict[str, float]:
    from metarec.metafeatures import extract

    stored = kb.metafeatures(datasets=[name]) if name in set(kb.datasets()["name"]) else None
    if stored is not None and len(stored):
        row = stored.iloc[0].drop(labels=["dataset"]).to_dict()
        return {k: float(v) for k, v in row.items()}
    return dict(extract(ds.X, ds.y, task=ds.task, random_state=seed))


def check_dataset(ds, settings: RunSettings) -> None:
    """Refuse, before any work, a dataset a search cannot use (one line naming the problem)."""
    from metarec.evaluation import PROTOCOLS
    from metarec.execution import unsplittable

    if settings.protocol not in (AUTO, *PROTOCOLS):
        raise BenchmarkError(
            f"unknown protocol {settings.protocol!r}; choose one of {', '.join((AUTO, *PROTOCOLS))}"
        )
    regression = ds.task == "regression"
    metrics = REGRESSION_METRICS if regression else METRICS
    if settings.metric not in metrics:
        task = "a regression" if regression else "a classification"
        raise BenchmarkError(
            f"unknown metric {settings.metric!r} for {task} target; choose one of "
            f"{', '.join(metrics)}"
        )
    labels, codes = _codes(ds)
    if labels is not None and len(np.unique(codes)) < 2:
        raise BenchmarkError(f"dataset {ds.name!r} has a single class in {ds.target!r}")
    protocol = settings.protocol
    if protocol == AUTO:
        if len(codes) >= LARGE_ROWS:
            return  # one stratified validation part: any class with a row can be split
        protocol = SMALL_PROTOCOL
    problem = unsplittable(ds.X, codes, protocol, settings.random_state)
    if problem is not None:
        raise BenchmarkError(f"dataset {ds.name!r}: {problem}")
