"""A search's evaluations recorded as trials: a job's folds or stored folds become the
algorithm's :class:`~metarec.automl._search.Trial` in the search state, and the complete
trials are ranked for the answer."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from metarec.automl._select import choose, posterior_scores
from metarec.execution import BUDGET_STOP, NOT_RUN, JobResult, fold_metrics

__all__ = ["record_stored", "record_job", "eligible"]


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


def eligible(state) -> list[str]:
    """Complete trials from best to worst (sets their ``selection_score``)."""
    complete = [t for t in state.trials.values() if t.complete and t.fold_scores]
    if not complete:
        return []
    posterior = posterior_scores(
        [np.asarray(t.fold_scores) for t in complete],
        np.array([t.expected_score for t in complete]),
        np.array([t.expected_score_low for t in complete]),
        np.array([t.expected_score_high for t in complete]),
    )
    for trial, value in zip(complete, posterior, strict=True):
        state.trials[trial.algorithm] = replace(trial, selection_score=float(value))
    # ties go to the faster expected fit (the knowledge base's: the same on every call),
    # then to the first name; a measured time would make the same seed answer otherwise
    order = choose(
        posterior,
        np.array([t.expected_time for t in complete]),
        [t.algorithm for t in complete],
    )
    return [complete[i].algorithm for i in order]
