"""Where a benchmark's jobs run: the warm local worker pool, or the same on a Dask cluster."""

from __future__ import annotations

from metarec.algorithms import Portfolio, preload_modules, warm_up
from metarec.benchmark._report import Failure
from metarec.execution import (
    JOB_MODULES,
    CallTask,
    DaskPool,
    JobResult,
    WorkerPool,
    job_task,
)

__all__ = ["open_pool", "run_jobs", "extract_metafeatures"]


def extract_metafeatures(
    name: str, X, y, seed: int, task: str | None = None
) -> tuple[str, dict[str, float]]:
    """A dataset's metafeatures, computed in a worker (a pool's call)."""
    from metarec.metafeatures import extract

    return name, dict(extract(X, y, task=task, random_state=seed))


def open_pool(scheduler: str | None, n_jobs: int, n_workers: int, portfolio: Portfolio, start=None):
    """The pool a benchmark's jobs run on: ``n_workers`` warm local workers (``start`` of them
    at once), or the Dask cluster at ``scheduler`` (``n_jobs`` tasks at once; 1: every
    worker thread), whose workers keep warm processes of their own."""
    modules = [*preload_modules(portfolio), *JOB_MODULES, "metarec.metafeatures"]
    if scheduler:
        return DaskPool(scheduler, n_jobs, modules, warm_up=warm_up)
    return WorkerPool(n_workers, modules, start=start, warm_up=warm_up)


def run_jobs(
    pool,
    specs,
    splits,
    partial,
    mf_jobs,
    random_state,
    job_finished,
    metafeatures_finished,
    failures,
    *,
    save_partial,
    check,
) -> None:
    """Run the jobs (and the metafeature extractions) on ``pool``, locally or on Dask."""
    tasks: list = [
        CallTask(name, extract_metafeatures, (name, ds.X, ds.y, random_state, ds.task))
        for name, ds in mf_jobs
    ]
    jobs = [
        job_task(
            spec, splits[spec.dataset], folds=partial.get((spec.dataset, spec.algorithm.name), [])
        )
        for spec in specs
    ]
    tasks += jobs
    finished: set[int] = set()

    def on_job(task) -> None:
        finished.add(id(task))
        spec = task.spec
        job_finished(
            JobResult(
                spec.dataset, spec.algorithm.name, spec.protocol, spec.seed, tuple(task.folds)
            )
        )

    def on_call(task: CallTask, status: str, value) -> None:
        if status == "ok":
            metafeatures_finished(*value)
        else:
            failures.append(
                Failure(task.label, "*", "error", 0, f"metafeatures not computed: {value}")
            )

    try:
        pool.run(tasks, on_job=on_job, on_call=on_call, check=check)
    except BaseException:
        # interrupted: keep the finished folds of unfinished jobs for the next run
        for task in jobs:
            if id(task) not in finished and task.folds:
                save_partial(task.spec, tuple(task.folds))
        raise
