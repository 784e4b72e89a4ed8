"""The trials of a search: what each algorithm was planned to do, did and scored.

Every algorithm of a search's portfolio has one :class:`Trial` in the search's
:class:`SearchState`, created by the first plan (:mod:`metarec.automl._loop`) and replaced
(trials are frozen) as its evaluation goes: :func:`record_stored` when every fold of it is
stored already, :func:`record_job` when a job of its folds comes back from a worker (or was
stopped).  The state also keeps the jobs' results (their out-of-fold predictions are what
ensemble selection reads), the folds reused from the knowledge base and the calibration of
the expected fold times on this dataset (:class:`~metarec.automl._foldtime.FoldTimes`).

The loop decides what runs; this module only records what happened.  Which complete trials
make the answer is :mod:`metarec.automl._answer`'s.  A change to what a trial evaluates on
(another split of the rows, a subsample before the whole data) changes the loop's jobs and
how their folds are recorded here; the answer reads only complete trials and the results'
predictions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from metarec.automl._foldtime import FoldTimes
from metarec.execution import BUDGET_STOP, NOT_RUN, JobResult, fold_metrics

__all__ = ["Trial", "SearchState", "record_stored", "record_job", "leaderboard_key"]


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


@dataclass
class SearchState:
    """A search's mutable bookkeeping (one per call of :func:`~metarec.automl._search.search`).

    Attributes
    ----------
    trials : dict of str to Trial
        Every algorithm's trial, in the first plan's order.
    stored : dict
        ``algorithm -> {fold: (status, score, fit time, accuracy)}`` of the folds stored by
        an earlier call with this protocol and seed.
    started : dict of str to int
        Algorithms started (or reused whole), in the order they were.
    results : list of JobResult
        The folds run now (with their predictions).
    reused : list of JobResult
        Jobs kept with their predictions whose folds were reused from the knowledge base.
    accuracy : dict of str to float
        Mean accuracy of each finished algorithm (the recommender's ``tried``).
    times : FoldTimes
        The expected fold times on this dataset, calibrated on the folds measured.
    tried_version, planned_version : int
        Bumped by every result; the plan is recomputed when they differ.
    order : list of str
        The current plan.
    """

    trials: dict[str, Trial]
    stored: dict[str, dict[int, tuple[str, float, float, float]]]
    started: dict[str, int] = field(default_factory=dict)
    results: list = field(default_factory=list)
    reused: list = field(default_factory=list)
    accuracy: dict[str, float] = field(default_factory=dict)
    times: FoldTimes = field(default_factory=FoldTimes)
    tried_version: int = 0
    planned_version: int = -1
    order: list[str] = field(default_factory=list)


def record_stored(state, algorithm: str, folds: dict, n_folds: int, start) -> None:
    """Record an algorithm whose every fold is stored: its trial from those folds."""
    values = [folds[i] for i in range(n_folds)]
    failed = [v for v in values if v[0] != "ok"]
    if not failed:
        state.accuracy[algorithm] = float(np.mean([v[3] for v in values]))
    trial = state.trials[algorithm]
    state.started.setdefault(algorithm, len(state.started) + 1)
    state.trials[algorithm] = replace(
        trial,
        order=state.started[algorithm],
        status="error" if failed else "stored",
        fold_scores=tuple(v[1] for v in values if v[0] == "ok"),
        fit_time=float(np.mean([v[2] for v in values])),
        finished=time.perf_counter() - start,
        message="stored folds failed" if failed else "every fold reused from the knowledge base",
    )
    state.tried_version += 1


def record_job(state, task, codes, n_classes, settings, n_folds, start, *, stopped=None) -> None:
    """Record a job's folds in ``state``; ``stopped``: it was stopped before its last fold
    (the reason), so its trial is not complete whatever its folds."""
    spec = task.spec
    algorithm = spec.algorithm.name
    stored = state.stored.get(algorithm, {})
    scores = [stored[i][1] for i in range(task.start) if stored[i][0] == "ok"]
    accuracies = [stored[i][3] for i in range(task.start) if stored[i][0] == "ok"]
    times = [stored[i][2] for i in range(task.start)]
    status, message = "ok", ""
    for record in task.folds:
        if record.status == "ok":
            if settings.metric == "accuracy" and spec.protocol != "bootstrap632" and n_classes:
                # the other metrics are computed once, when the folds are stored
                accuracy = score = float(np.mean(record.y_pred == codes[record.test_index]))
            else:
                metrics = fold_metrics(record, codes, n_classes)
                accuracy, score = float(metrics["accuracy"]), float(metrics[settings.metric])
            scores.append(score)
            accuracies.append(accuracy)
            times.append(record.fit_time)
        elif record.status == "timeout" and status == "ok":
            status, message = "timeout", record.error or BUDGET_STOP
        elif record.status == "error" and status == "ok":
            status, message = "error", record.error or "error"
    if stopped is not None and status == "ok" and task.start + len(task.folds) < n_folds:
        status = "timeout"
        message = f"{stopped} after {task.start + len(task.folds)} of {n_folds} folds"
    kept = tuple(r for r in task.folds if not (r.status == "timeout" and _budget_artefact(r.error)))
    if kept:
        state.results.append(JobResult(spec.dataset, algorithm, spec.protocol, spec.seed, kept))
    if status == "ok":
        state.accuracy[algorithm] = float(np.mean(accuracies))
    started = task.started  # set by the local pool (not by a Dask cluster's): its wall clock
    wall = time.perf_counter() - started if started is not None and stopped is None else None
    state.times.record(algorithm, task.folds, state.trials[algorithm].expected_time, job_wall=wall)
    trial = state.trials[algorithm]
    state.trials[algorithm] = replace(
        trial,
        order=state.started[algorithm],
        status=status,
        fold_scores=tuple(scores),
        fit_time=float(np.mean(times)) if times else float("nan"),
        finished=time.perf_counter() - start,
        message=message if status != "ok" or not task.start else f"{task.start} folds reused",
    )


def _budget_artefact(error: str | None) -> bool:
    """A fold stopped by the budget, or never started after one was: not about the algorithm."""
    return bool(error) and (error.startswith(BUDGET_STOP) or error.startswith(NOT_RUN))


def leaderboard_key(trial: Trial):
    """The leaderboard's order: the eligible trials by selection score (best first), then
    those with some fold scores, then the rest, each group in the first ranking's order."""
    eligible = np.isfinite(trial.selection_score)
    return (
        0 if eligible else 1 if trial.fold_scores else 2,
        -trial.selection_score if eligible else 0.0,
        trial.planned,
    )
