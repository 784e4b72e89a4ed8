"""The search loop of ``metarec run``: recommend, evaluate, feed back, re-plan, within a budget.

Active testing with real fits (Leite et al. 2012; Abdulrahman et al. 2018): the recommender
ranks the portfolio for the new dataset from its metafeatures; the first algorithms of the
ranking are evaluated on the user's data with the benchmark runner's protocol (the same folds
for every algorithm, warm single-threaded worker processes, ``n_jobs`` at once); each result
goes back to the recommender as ``tried``, which re-weights the neighbouring datasets by how
well they predicted it, and the next algorithm comes from the new ranking.

The budget is wall-clock seconds for the whole search, refit included.  An algorithm is
started only when its expected time for the folds still to run (the recommender's expected
fit time on a dataset of this size, per fold, calibrated on the folds measured so far:
:class:`metarec.automl._foldtime.FoldTimes`) fits in what is left after keeping time for the
final refit; when everything fits, the shortest run first.  A job whose folds cannot end in
time at their pace is stopped, and a fold still running when the time is up is killed.

The expected time an algorithm is admitted on is the top of its 80 % interval as calibrated
on the knowledge base's own sizes (the runtime model's leave-one-out residuals), also beyond
them.  The interval a recommendation shows widens past the largest dataset each algorithm
has a time for (the runtime model's ``extrapolation_width``, in
:mod:`metarec.recommender._runtime`), so that it covers the times of larger datasets; the
search corrects the same extrapolation
error by measuring it (the calibration on this dataset's finished folds), and a fold far
slower than expected is stopped.  Counting the error both ways would skip exactly the
algorithms a large dataset needs and leave the budget unused (``benchmarks/run_large.py``
measures it).  The answer is the algorithm
with the best CV score shrunk toward the knowledge base's expectation
(:func:`metarec.automl._select.posterior_scores`), refitted on every row.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from metarec.automl._foldtime import FoldTimes
from metarec.automl._policy import AnswerPolicy
from metarec.automl._record import eligible, record_job, record_stored
from metarec.automl._refit import LAST_RESORT_SECONDS, RefitData, refit_answer
from metarec.automl._storing import store_folds, store_seconds
from metarec.exceptions import BenchmarkError, UnknownNameError

__all__ = ["RunSettings", "Trial", "SearchResult", "search", "METRICS", "REGRESSION_METRICS"]

#: Scores ``metarec run`` can select by (all higher is better).
METRICS = ("accuracy", "balanced_accuracy", "roc_auc", "tau")
#: Metrics of a regression search: ``accuracy`` is the success rate, R² clipped at 0.
REGRESSION_METRICS = ("accuracy", "r2")
#: Why a job still running when a signal stopped the search has fewer folds.
INTERRUPTED = "interrupted"
#: Seconds kept for the work after the search (storing the folds, saving the model).
END_MARGIN = 1.0
#: The shortest budget of a search, in seconds: the end margin alone takes one (and a
#: person counts time from about a second).
MIN_BUDGET = 1.0
#: A fold running this many times longer than its (calibrated) expected time is stopped ...
FOLD_SLACK = 5.0
#: ... but never before this many seconds (nor before a tenth of the budget).
MIN_FOLD_LIMIT = 2.0
#: Configurations chosen for the dataset at hand when the knowledge base knows them (then the
#: recommendation's order for the rest).
PORTFOLIO_SIZE = 20
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
        Evaluation protocol of the benchmark runner (``"cv5"``, ``"cv10"``...).
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
    """

    budget: float
    protocol: str = "cv5"
    metric: str = "accuracy"
    n_jobs: int = 1
    random_state: int = 0
    store: bool = True
    scheduler: str | None = None
    ensemble_size: int | None = None
    ensemble_method: str = "average"


@dataclass(frozen=True)
class Trial:
    """One algorithm of a search: what was planned, what it did and what it scored.

    Parameters
    ----------
    algorithm : str
        The algorithm's name (in the portfolio).
    planned : int
        Position in the first ranking (1 = first recommended).
    order : int or None
        Position in which it was evaluated (None: not evaluated).
    status : str
        ``"ok"`` (evaluated now), ``"stored"`` (every fold reused from the knowledge base),
        ``"error"`` (a fold failed), ``"timeout"`` (stopped when the budget ran out),
        ``"skipped"`` (its expected time did not fit the budget left), ``"not run"``.
    fold_scores : tuple of float
        The metric on each fold (complete only when ``status`` is ok or stored).
    fit_time : float
        Mean CPU seconds of one fold's fit (NaN when not evaluated).
    expected_score, expected_score_low, expected_score_high : float
        The recommender's expectation of the accuracy, with its 80 % interval (NaN when the
        search selects by another metric: the expectation is then no prior for it).
    expected_time, expected_time_high : float
        The recommender's expected fit time of one fold, and the top of its 80 % interval
        as calibrated on the knowledge base's sizes (what admission tests: see the module
        documentation).
    selection_score : float
        The CV mean shrunk toward the expectation: what chooses the answer (NaN: not
        eligible).
    finished : float
        Seconds from the start of the search to the end of its evaluation (NaN: none).
    message : str
        Why it was skipped or failed.
    """

    algorithm: str
    planned: int
    order: int | None = None
    status: str = "not run"
    fold_scores: tuple[float, ...] = ()
    fit_time: float = float("nan")
    expected_score: float = float("nan")
    expected_score_low: float = float("nan")
    expected_score_high: float = float("nan")
    expected_time: float = float("nan")
    expected_time_high: float = float("nan")
    selection_score: float = float("nan")
    finished: float = float("nan")
    message: str = ""

    @property
    def cv_score(self) -> float:
        """Mean of the fold scores (NaN without any)."""
        return float(np.mean(self.fold_scores)) if self.fold_scores else float("nan")

    @property
    def cv_sd(self) -> float:
        """Standard deviation of the fold scores (ddof=1; NaN with fewer than two)."""
        if len(self.fold_scores) < 2:
            return float("nan")
        return float(np.std(self.fold_scores, ddof=1))

    @property
    def complete(self) -> bool:
        return self.status in ("ok", "stored")


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
@dataclass
class _State:
    """The search's mutable bookkeeping (one per call of :func:`search`)."""

    trials: dict[str, Trial]
    stored: dict[str, dict[int, tuple[str, float, float, float]]]
    started: dict[str, int] = field(default_factory=dict)
    results: list = field(default_factory=list)  # JobResults of folds run now
    reused: list = field(default_factory=list)  # kept JobResults of folds reused (predictions)
    accuracy: dict[str, float] = field(default_factory=dict)  # mean accuracy, for `tried`
    times: FoldTimes = field(default_factory=FoldTimes)  # expected fold times here
    tried_version: int = 0
    planned_version: int = -1
    order: list[str] = field(default_factory=list)


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
        Algorithms to choose from; the installed algorithms of the default portfolio.
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

    ``portfolio`` (by default the default portfolio of ``ds``'s task and the configurations
    of its main families), restricted to the installed ones.
    """
    from metarec.benchmark import default_portfolio
    from metarec.data import task_family

    portfolio = portfolio or default_portfolio(task=task_family(ds.task), configurations=True)
    return portfolio.select([a.name for a in portfolio if a.is_installed()])


def open_pool(settings: RunSettings, portfolio):
    """Start the processes a search's folds run on.

    ``settings.n_jobs`` warm local workers that import ``portfolio``'s libraries at once, or
    the Dask cluster ``settings.scheduler``.  Started before the knowledge base is opened,
    the workers' imports overlap the parent's own start (filling an empty knowledge base,
    metafeatures, the recommender).  The caller closes the pool.
    """
    from metarec.benchmark import preload_modules, warm_up
    from metarec.execution import DaskPool, WorkerPool, worker_count

    modules = preload_modules(portfolio)
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
    """The name a search stores ``ds`` under (:func:`metarec.benchmark.stored_name`; a frame
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
        loop = _Loop(
            ds, name, codes, labels, settings, portfolio, recommender, metafeatures,
            _stored(kb, name, settings), deadline, start, tick, n_workers,
        )  # fmt: skip
    if critical is not None:
        loop.critical = critical
    with _phase(phases, "evaluation"):
        interrupted = loop.run(pool, check)
    notes: list[str] = []
    with _phase(phases, "answer and refit"):
        model, best, members, weights, method = _final_answer(
            loop, RefitData(ds, labels, codes), settings, recommender, name, deadline,
            interrupted, notes,
        )  # fmt: skip
    runs_stored = 0
    with _phase(phases, "storing"):
        if settings.store:
            runs_stored = _store(kb, name, ds, codes, loop, settings, metafeatures, portfolio)
    return SearchResult(
        dataset=name,
        fingerprint=ds.fingerprint,
        settings=settings,
        n_folds=loop.n_folds,
        trials=tuple(sorted(loop.state.trials.values(), key=_leaderboard_key)),
        best=best,
        model=model,
        seconds=time.perf_counter() - start,
        runs_stored=runs_stored,
        interrupted=interrupted,
        notes=tuple(notes),
        members=tuple(members),
        weights=tuple(float(w) for w in weights),
        answer=method,
        phases=phases,
    )


@contextlib.contextmanager
def _phase(phases: dict, name: str):
    """Add the wall seconds of the block to ``phases[name]``."""
    begun = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - begun


def _final_answer(loop, data, settings, recommender, name, deadline, interrupted, notes):
    """``(model, best, members, weights, method)`` of the search's answer (see the module
    documentation): the policy's members refitted, or the best expectation unevaluated."""
    state = loop.state
    order = eligible(state)
    if order:
        answer = _answer(order, state, loop, settings, recommender, name, data.codes)
        model, members, weights = refit_answer(
            answer,
            state.trials,
            data,
            random_state=settings.random_state,
            deadline=None if interrupted is not None else deadline - END_MARGIN,
            refit_scale=loop.refit_scale,
            notes=notes,
        )
        # the best evaluated algorithm among the members (the leaderboard's first of them)
        best = next((a for a in order if a in members), None)
        method = answer.method if len(members) > 1 else "best"
        notes.extend(_answer_notes(answer, members, weights, len(data.codes)))
        return model, best, members, weights, method
    if interrupted is None:
        model, members, weights = _unevaluated_answer(
            state, data, settings, deadline - END_MARGIN, loop.refit_scale, notes
        )
        if members:
            return model, members[0], members, weights, "best"
        notes.append("no algorithm finished every fold within the budget")
    return None, None, (), (), "best"


def _store(kb, name, ds, codes, loop, settings, metafeatures, portfolio) -> int:
    """Store the folds run now; keep whole jobs with their predictions for the next call."""
    runs_stored = store_folds(
        kb, name, ds, codes, loop.n_classes, loop.state, settings, metafeatures
    )
    for result in loop.state.results:
        if len(result.folds) == loop.n_folds:
            algorithm = portfolio[result.algorithm]
            with contextlib.suppress(OSError):  # a full disk costs the next call a refit
                loop.cache.save(
                    ds.fingerprint, algorithm, settings.protocol, settings.random_state, result
                )
    return runs_stored


class _Loop:
    """One search's plan and the callbacks of the worker pool: what to run next, each result.

    Built from the data and the recommender: the folds (the same for every algorithm), the
    first plan (every algorithm of the portfolio gets its :class:`Trial`, in the planned
    order; those the knowledge base does not know come last) and the trials whose every fold
    is stored already.
    """

    def __init__(
        self, ds, name, codes, labels, settings, portfolio, recommender, metafeatures, stored,
        deadline, start, tick, n_workers,
    ) -> None:  # fmt: skip
        from metarec.execution import JobSpec, fold_splits

        self.settings, self.portfolio, self.recommender = settings, portfolio, recommender
        self.metafeatures, self.stored, self.codes = metafeatures, stored, codes
        self.deadline, self.start, self.tick, self.n_workers = deadline, start, tick, n_workers
        self.n_classes = 0 if labels is None else len(labels)
        self.base_spec = JobSpec(
            name,
            next(iter(portfolio)),
            ds.X,
            codes,
            self.n_classes,
            tuple(ds.numeric_columns),
            tuple(ds.categorical_columns),
            settings.protocol,
            settings.random_state,
        )
        self.splits = fold_splits(self.base_spec)
        rows = np.array([len(test) for _, test in self.splits], dtype=float)
        self.store_cost = store_seconds(rows, self.n_classes)  # each fold's, at the end
        self.n_folds = len(self.splits)
        n_train = float(np.mean([len(train) for train, _ in self.splits]))
        self.refit_scale = len(codes) / max(n_train, 1.0)
        self.known = set(recommender.algorithms_)
        # the configurations the knowledge base knows (and every default algorithm): one it
        # has no result of would be a blind guess among a hundred
        self.portfolio = portfolio = portfolio.select(
            [a.name for a in portfolio if a.configuration_of is None or a.name in self.known]
        )
        self.spread = recommender.time_spread()
        self.names = set(portfolio.names)
        self.state = _State(trials={}, stored=stored)
        self.running: dict = {}  # algorithm -> its job on a worker, until it is recorded
        self.chosen = self._chosen(settings.budget * n_workers)
        self.critical = contextlib.nullcontext  # defers a stopping signal (see search)
        self.fingerprint, self.cache = ds.fingerprint, _cache()
        self._stored_seconds, self._results_counted = 0.0, 0  # storing kept, results counted
        self.planned = self._first_plan()

    def _first_plan(self) -> list[str]:
        """Every algorithm's :class:`Trial`, in the first plan's order; stored ones recorded."""
        first = self.plan({})
        planned = [row.algorithm for row in first]
        planned += [a.name for a in self.portfolio if a.name not in self.known]
        nan = float("nan")
        # the knowledge base's expectations are of accuracy (the success rate): a prior for
        # that metric only; another one is chosen on its CV scores alone
        prior = self.settings.metric == "accuracy"
        for position, algorithm in enumerate(planned, 1):
            row = next((r for r in first if r.algorithm == algorithm), None)
            expects = row is not None and prior
            self.state.trials[algorithm] = Trial(
                algorithm,
                position,
                expected_score=row.expected_accuracy if expects else nan,
                expected_score_low=row.expected_accuracy_low if expects else nan,
                expected_score_high=row.expected_accuracy_high if expects else nan,
                expected_time=row.expected_time if row else nan,
                expected_time_high=self.admission_time(row) if row else nan,
            )
        self.tick(0, total=len(planned))
        # algorithms whose every fold is stored: results without fitting anything, and their
        # predictions where the cache kept them (ensemble selection reads them)
        for algorithm, folds in self.stored.items():
            if algorithm in self.state.trials and all(i in folds for i in range(self.n_folds)):
                record_stored(self.state, algorithm, folds, self.n_folds, self.start)
                kept = self.cache.load(
                    self.fingerprint,
                    self.portfolio[algorithm],
                    self.settings.protocol,
                    self.settings.random_state,
                )
                if kept is not None and len(kept.folds) == self.n_folds:
                    self.state.reused.append(kept)
                self.tick(1)
        return planned

    def _chosen(self, budget: float) -> list[str]:
        """The portfolio chosen for this dataset among the configurations the knowledge base
        knows ([] when it knows none: the recommendation's order alone)."""
        known = [a for a in self.portfolio if a.name in self.known]
        if not any(a.configuration_of for a in known):
            return []
        return self.recommender.portfolio(
            metafeatures=self.metafeatures,
            size=PORTFOLIO_SIZE,
            budget=budget,
            n_folds=self.n_folds,
            candidates=[a.name for a in known],
        )

    def plan(self, tried: dict, budget: float | None = None) -> list:
        """The order to run the portfolio in.

        Without ``budget``, the recommendation's run order (``Ranking.run_sequence``: what
        reaches a good model soonest, the answer when its turn comes): the leaderboard's
        ``planned`` column; when the knowledge base knows configurations, the portfolio
        chosen for this dataset (:meth:`Recommender.portfolio`, :data:`PORTFOLIO_SIZE`
        configurations whose expected time fits the budget) comes first, in its greedy
        order, which is also the order when not everything fits.  When every
        algorithm's expected time (the top of its interval, calibrated on this dataset's
        folds) fits in ``budget``, shortest first: the order then changes nothing unless an
        expectation is wrong, and a long fit that overruns should not hold up the short ones
        behind it (equal expected times keep the run order).  Otherwise the loss-time
        planner's plan for ``budget`` comes first, then the run order.
        """
        recommend, metafeatures = self.recommender.recommend, self.metafeatures
        ranking = recommend(metafeatures=metafeatures, tried=tried or None)
        by_name = {row.algorithm: row for row in ranking}
        rows = [by_name[a] for a in ranking.run_sequence if a in self.names]
        if self.chosen:  # the portfolio chosen for this dataset first, in its greedy order
            head = [by_name[a] for a in self.chosen if a in by_name]
            rows = head + [r for r in rows if r.algorithm not in self.chosen]
        if budget is None:
            return rows
        state, n_folds = self.state, self.n_folds
        needs = [state.times.job_seconds(self.admission_time(r), n_folds) for r in rows]
        if sum(needs) <= budget * self.n_workers:
            # everything is expected to fit: shortest first (stable: ties in the recommended
            # order), so that an expensive fit slower than expected loses only its own time
            return [rows[i] for i in np.argsort(needs, kind="stable")]
        if self.chosen:  # the greedy order: each the most useful given those before it
            return rows
        # it does not all fit: the loss-time planner's plan for the time left comes first
        per_fold = budget * self.n_workers / n_folds / state.times.factor
        planned_rows = recommend(
            metafeatures=metafeatures, tried=tried or None, budget=max(per_fold, 1e-3)
        )
        head = [row.algorithm for row in planned_rows if row.algorithm in self.names]
        return [by_name[a] for a in head] + [r for r in rows if r.algorithm not in head]

    def tried(self) -> dict:
        """``algorithm -> (accuracy, fit time)`` of the finished trials the KB knows."""
        out = {}
        for trial in self.state.trials.values():
            accuracy = self.state.accuracy.get(trial.algorithm)
            if trial.algorithm in self.known and accuracy is not None:
                fit = trial.fit_time if np.isfinite(trial.fit_time) else 0.0
                out[trial.algorithm] = (float(np.clip(accuracy, 0, 1)), float(fit))
        return out

    def admission_time(self, row) -> float:
        """The top of a ranking row's expected-time interval as calibrated on the knowledge
        base's sizes: the row's own top without the widening beyond them."""
        high, spread = row.expected_time_high, self.spread.get(row.algorithm)
        if spread is None or np.isnan(high):
            return high
        return min(high, row.expected_time * spread)

    def refit_seconds(self, fold_seconds: float) -> float:
        """Seconds kept for refitting on every row an algorithm of ``fold_seconds`` a fold."""
        return fold_seconds * self.refit_scale * 1.2

    def kept_refit(self) -> float:
        """Seconds kept for refitting the best so far (0 before anything has finished)."""
        done = [t for t in self.state.trials.values() if t.complete and np.isfinite(t.fit_time)]
        return self.refit_seconds(max(done, key=lambda t: t.cv_score).fit_time) if done else 0.0

    def reserve(self) -> float:
        """Seconds kept for refitting the best so far on every row, storing, and the end.

        Before anything has finished nothing is kept for a refit: each algorithm's own
        refit is counted when it is admitted (:meth:`next_task`), so that a slow first
        choice does not take the time of the quick ones before it has run.
        """
        results = self.state.results
        for result in results[self._results_counted :]:  # only the results new since last time
            folds = np.fromiter((f.fold for f in result.folds), dtype=int)
            self._stored_seconds += float(self.store_cost[folds].sum())
        self._results_counted = len(results)
        # and the folds of the jobs still running, all stored at the end however they end
        running = sum(float(self.store_cost[t.start :].sum()) for t in self.running.values())
        storing = self._stored_seconds + running if self.settings.store else 0.0
        return self.kept_refit() + 0.3 + END_MARGIN + storing

    def next_task(self):
        """The next algorithm's job (re-planned after each result), or None: skip what does
        not fit the time left."""
        from metarec.execution import job_task

        state, n_folds = self.state, self.n_folds
        now = time.perf_counter()
        if state.planned_version != state.tried_version:
            rows = self.plan(self.tried(), max(self.deadline - now - self.reserve(), 0.0))
            state.order = [r.algorithm for r in rows]
            state.order += [a for a in self.planned if a not in state.order]
            state.planned_version = state.tried_version
        left = self.deadline - now - self.reserve()
        for algorithm in state.order:
            trial = state.trials[algorithm]
            if trial.status != "not run" or algorithm in state.started:
                continue
            folds = self.stored.get(algorithm, {})
            first_missing = next(i for i in range(n_folds) if i not in folds)
            per_fold = state.times.fold_seconds(trial.expected_time_high)
            need = state.times.job_seconds(trial.expected_time_high, n_folds - first_missing)
            own = float(self.store_cost[first_missing:].sum()) if self.settings.store else 0.0
            need += own  # storing its folds at the end
            # and its own refit, should it become the best, beyond the one kept already
            refit = self.refit_seconds(state.times.fold_seconds(trial.expected_time))
            refit = max(refit - self.kept_refit(), 0.0) if np.isfinite(refit) else 0.0
            if need + refit > left:
                state.trials[algorithm] = replace(
                    trial,
                    status="skipped",
                    message=(
                        f"expected up to {need:.3g} s for {n_folds - first_missing} folds"
                        + (f" and {refit:.3g} s to refit" if refit >= 0.05 else "")
                        + f", {max(left, 0):.3g} s left"
                    ),
                )
                self.tick(1)
                continue
            state.started[algorithm] = len(state.started) + 1
            # a fold far slower than expected is stopped: the budget is better spent elsewhere
            limit = max(FOLD_SLACK * per_fold, MIN_FOLD_LIMIT, 0.1 * self.settings.budget)
            limit = limit if np.isfinite(limit) else None
            spec = replace(self.base_spec, algorithm=self.portfolio[algorithm], timeout=limit)
            task = job_task(
                spec,
                self.splits,
                start=first_missing,
                deadline=self.deadline - self.reserve() - own,
            )
            self.running[algorithm] = task
            return task
        return None

    def on_job(self, task) -> None:
        """Record a finished job's folds; the next plan takes them into account.

        A stopping signal waits for the end of the recording: the job is then recorded, and
        no longer running, so it is neither lost nor recorded twice.
        """
        with self.critical():
            record_job(
                self.state, task, self.codes, self.n_classes, self.settings, self.n_folds,
                self.start,
            )  # fmt: skip
            self.running.pop(task.spec.algorithm.name, None)
            self.state.tried_version += 1
        self.tick(1)

    def run(self, pool, check):
        """Run jobs until the plan is done or the time is up; the signal that stopped it, or
        None.

        When a signal stops it, the folds a running job had finished are kept (stored, and
        reused by the next call) and its trial is stopped, not complete.
        """
        try:
            pool.run([], on_job=self.on_job, check=check, more=self.next_task)
        except BaseException as stop:
            from metarec.execution import Stop

            if not isinstance(stop, (Stop, KeyboardInterrupt)):
                raise
            import signal

            for task in self.running.values():
                if task.folds:
                    record_job(
                        self.state, task, self.codes, self.n_classes, self.settings,
                        self.n_folds, self.start, stopped=INTERRUPTED,
                    )  # fmt: skip
            self.running.clear()
            return getattr(stop, "signum", signal.SIGINT)
        return None


#: What the selection maximises for each metric a search selects by (Tau: accuracy, whose
#: argmax it shares; regression's success rate is R² clipped at 0).
SELECTION_METRICS = {
    ("classification", "accuracy"): "accuracy",
    ("classification", "balanced_accuracy"): "balanced_accuracy",
    ("classification", "roc_auc"): "roc_auc",
    ("classification", "tau"): "accuracy",
    ("regression", "accuracy"): "success",
    ("regression", "r2"): "r2",
}


def _answer(order, state, loop, settings, recommender, name, codes):
    """The answer's members (:class:`AnswerPolicy`) among the complete trials ``order``."""
    from metarec.automl._ensemble import out_of_fold

    policy = AnswerPolicy(
        method=settings.ensemble_method,
        ensemble_size=settings.ensemble_size,
        anchor=recommender.single_best(exclude=[name]),
    )
    complete = set(order)
    results = [r for r in (*state.reused, *state.results) if r.algorithm in complete]
    rows, predictions = out_of_fold(results, len(codes), loop.n_classes)
    task = "regression" if loop.n_classes == 0 else "classification"
    return policy.choose(
        order,
        {a: state.trials[a].fold_scores for a in order},
        n_rows=len(codes),
        predictions=predictions,
        y=np.asarray(codes)[rows],
        metric=SELECTION_METRICS[(task, settings.metric)],
    )


def _answer_notes(answer, members, weights, n_rows: int) -> list[str]:
    """What a person is told about the answer that was refitted."""
    if len(members) == 1:
        return [f"{members[0]} refitted on all {n_rows:,} rows"]
    if not members:
        return []
    if answer.method == "selection":
        shares = ", ".join(f"{m} {w:.2f}" for m, w in zip(members, weights, strict=True))
        return [
            f"the answer is an ensemble selected on the out-of-fold predictions "
            f"(weights {shares}; out-of-fold score {answer.oof_score:.4f}), each member "
            f"refitted on all {n_rows:,} rows"
        ]
    return [f"the answer averages {', '.join(members)}, each refitted on all {n_rows:,} rows"]


def _unevaluated_answer(state, data, settings, deadline, refit_scale, notes):
    """When no algorithm finished its folds in time: the knowledge base's best expectation
    whose refit on every row is expected to fit the time left, fitted without evaluation.

    The trials are taken by expected score, best first (the first ranking's order where
    there is no expectation: another metric); each one's refit is expected to take its
    expected fit time of a fold times ``refit_scale``.  When none fits the time left, the
    best whose refit is expected within :data:`~metarec.automl._refit.LAST_RESORT_SECONDS`
    is fitted anyway (a second over the budget rather than no model).  ``(None, (), ())``
    when not even that exists.
    """
    from metarec.automl._policy import Answer

    candidates = [
        t
        for t in state.trials.values()
        if t.status not in ("error",) and np.isfinite(t.expected_time)
    ]
    candidates.sort(
        key=lambda t: (-t.expected_score if np.isfinite(t.expected_score) else 0.0, t.planned)
    )
    left = deadline - time.perf_counter()
    fits = [t for t in candidates if t.expected_time * refit_scale * 1.2 <= left]
    if not fits:  # none fits what is left: one expected within a second, a little over
        fits = [t for t in candidates if t.expected_time * refit_scale <= LAST_RESORT_SECONDS]
    for trial in fits:
        expected = {trial.algorithm: replace(trial, fit_time=trial.expected_time)}
        model, members, weights = refit_answer(
            Answer((trial.algorithm,), (1.0,)),
            expected,
            data,
            random_state=settings.random_state,
            deadline=deadline,
            refit_scale=refit_scale,
            notes=notes,
        )
        if members:
            expectation = (
                f"; expected {settings.metric} {trial.expected_score:.3f}"
                if np.isfinite(trial.expected_score)
                else ""
            )
            notes.append(
                f"no algorithm finished every fold within the budget: the answer is "
                f"{trial.algorithm}, the knowledge base's best expectation whose refit fits "
                f"the time left{expectation}, fitted on every row without evaluation"
            )
            state.trials[trial.algorithm] = replace(
                state.trials[trial.algorithm],
                message="the answer, fitted without evaluation (no algorithm finished its "
                "folds in time)",
            )
            return model, members, weights
    return None, (), ()


def _cache():
    """Where whole jobs are kept with their predictions (the benchmark's cache)."""
    from metarec._config import data_dir
    from metarec.execution import ResultCache

    return ResultCache(data_dir() / "benchmark-cache")


def _stored(kb, name: str, settings: RunSettings) -> dict:
    """The folds of ``name`` stored with this search's protocol and seed."""
    from metarec.execution import stored_folds

    return stored_folds(
        kb,
        name,
        protocol=settings.protocol,
        seed=settings.random_state,
        metric=settings.metric,
    )


def _leaderboard_key(trial: Trial):
    eligible = np.isfinite(trial.selection_score)
    return (
        0 if eligible else 1 if trial.fold_scores else 2,
        -trial.selection_score if eligible else 0.0,
        trial.planned,
    )


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

    if settings.protocol not in PROTOCOLS:
        raise BenchmarkError(
            f"unknown protocol {settings.protocol!r}; choose one of {', '.join(PROTOCOLS)}"
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
    problem = unsplittable(ds.X, codes, settings.protocol, settings.random_state)
    if problem is not None:
        raise BenchmarkError(f"dataset {ds.name!r}: {problem}")
