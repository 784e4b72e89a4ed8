"""Benchmark jobs on a Dask cluster: every fold in an isolated, single-threaded interpreter.

A Dask worker runs an event loop and a thread pool, so a fit cannot be forked from it safely;
:func:`~metarec.benchmark._isolation.run_isolated` starts a fresh interpreter per fold there,
with the fold's time limit and memory cap.  :func:`run_job` is what ``metarec benchmark
--scheduler`` sends; :func:`run_folds` resumes a job from a given fold (``metarec run
--scheduler``).  Local runs use warm worker processes instead (:mod:`metarec.benchmark._workers`).
"""

from __future__ import annotations

from metarec.benchmark._folds import (
    FoldRecord,
    JobResult,
    JobSpec,
    failed_fold,
    fit_predict,
    fold_splits,
    not_run_folds,
    ok_fold,
)
from metarec.benchmark._isolation import run_isolated

__all__ = ["run_job", "run_folds"]


def run_folds(spec: JobSpec, start: int = 0) -> list[FoldRecord]:
    """Evaluate folds ``start..`` of ``spec``, one isolated child per fold.

    After the first fold that times out, the remaining folds are recorded as timed out
    without being run (their time is the limit), since the same algorithm on the same data
    would hit the limit again.
    """
    splits = fold_splits(spec)
    bootstrap = spec.protocol == "bootstrap632"
    folds: list[FoldRecord] = []
    for index in range(start, len(splits)):
        train, test = splits[index]
        outcome = run_isolated(
            fit_predict,
            spec,
            train,
            test,
            bootstrap,
            timeout=spec.timeout,
            memory_limit_mb=spec.memory_limit_mb,
        )
        if outcome.status != "ok":
            folds.append(failed_fold(index, outcome.status, outcome.error, outcome.wall_time, test))
            if outcome.status == "timeout":
                folds.extend(not_run_folds(spec, splits, index + 1))
                break
            continue
        folds.append(ok_fold(spec, index, test, outcome.value))
    return folds


def run_job(spec: JobSpec) -> JobResult:
    """Evaluate ``spec.algorithm`` on every fold of ``spec.protocol`` (see :func:`run_folds`)."""
    folds = tuple(run_folds(spec))
    return JobResult(spec.dataset, spec.algorithm.name, spec.protocol, spec.seed, folds)
