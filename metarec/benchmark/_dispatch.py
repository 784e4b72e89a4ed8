"""Where a benchmark's jobs run: warm local worker processes, or a Dask cluster."""

from __future__ import annotations

from metarec.benchmark._folds import JobResult
from metarec.benchmark._portfolio import Portfolio
from metarec.benchmark._remote import connect_scheduler, run_job
from metarec.benchmark._report import Failure

__all__ = ["preload_modules", "run_locally", "run_on_dask", "extract_metafeatures"]


def extract_metafeatures(
    name: str, X, y, seed: int, task: str | None = None
) -> tuple[str, dict[str, float]]:
    from metarec.metafeatures import extract

    return name, dict(extract(X, y, task=task, random_state=seed))


def preload_modules(portfolio: Portfolio) -> list[str]:
    """Modules the workers import once, before their first fold."""
    modules = ["sklearn.pipeline", "sklearn.compose", "sklearn.impute", "sklearn.preprocessing"]
    modules += sorted({a.estimator.partition(":")[0] for a in portfolio})
    return [*modules, "metarec.evaluation", "metarec.metafeatures"]


def run_locally(
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
    """Run the jobs on warm local worker processes (:mod:`metarec.benchmark._workers`)."""
    from metarec.benchmark._workers import CallTask, JobTask

    tasks: list = [
        CallTask(name, extract_metafeatures, (name, ds.X, ds.y, random_state, ds.task))
        for name, ds in mf_jobs
    ]
    jobs = [
        JobTask(
            spec,
            splits[spec.dataset],
            folds=list(partial.get((spec.dataset, spec.algorithm.name), [])),
        )
        for spec in specs
    ]
    tasks += jobs
    finished: set[int] = set()

    def on_job(task: JobTask) -> None:
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


def run_on_dask(
    scheduler, n_jobs, specs, mf_jobs, random_state, job_finished, metafeatures_finished
) -> None:
    """Run the jobs on a Dask cluster through joblib's dask backend."""
    import joblib

    if not specs and not mf_jobs:
        return
    client = connect_scheduler(scheduler)

    def tasks():
        for name, ds in mf_jobs:
            yield joblib.delayed(extract_metafeatures)(name, ds.X, ds.y, random_state, ds.task)
        for spec in specs:
            yield joblib.delayed(run_job)(spec)

    try:
        with joblib.parallel_config(backend="dask", n_jobs=-1 if n_jobs == 1 else n_jobs):
            for item in joblib.Parallel(return_as="generator_unordered")(tasks()):
                if isinstance(item, JobResult):
                    job_finished(item)
                else:
                    metafeatures_finished(*item)
    finally:
        client.close()
