"""Running jobs: fold splits, the warm worker pool, the Dask executor, signals, the run store.

The layer below both :mod:`metarec.benchmark` (which plans a grid of jobs and reports) and
:mod:`metarec.automl` (which plans adaptively and chooses an answer):

- jobs (:class:`JobSpec`: one algorithm on one dataset; :func:`fold_splits`,
  :func:`evaluate_fold`, :func:`fold_metrics`; :func:`job_task` makes a pool's task);
- the warm worker pool (:class:`WorkerPool`: single-threaded worker processes with a time
  limit per fold, a deadline per job, a memory cap, crash isolation, never outliving their
  parent; generic: a task names the function a worker runs) and :class:`DaskPool`, the same
  on a Dask cluster;
- stopping on SIGINT and SIGTERM (:class:`Signals`, :class:`Stop`);
- the run store (:func:`register_dataset`, :func:`register_algorithm`,
  :func:`store_results`, :func:`stored_folds`, :func:`stored_name`).
"""

from metarec.execution._dask import DaskPool, connect_scheduler
from metarec.execution._jobs import (
    JOB_MODULES,
    FoldRecord,
    JobResult,
    JobSpec,
    evaluate_fold,
    failed_fold,
    fold_metrics,
    fold_splits,
    job_task,
    score_predictions,
    unsplittable,
)
from metarec.execution._pool import (
    BUDGET_STOP,
    NOT_RUN,
    THREAD_VARIABLES,
    CallTask,
    JobTask,
    WorkerPool,
    available_cores,
    run_tasks,
    worker_count,
    worker_environment,
)
from metarec.execution._signals import Signals, Stop
from metarec.execution._store import (
    SOURCE,
    ResultCache,
    machine_description,
    nosimple_by_fold,
    register_algorithm,
    register_dataset,
    run_rows,
    store_results,
    stored_folds,
    stored_name,
)

__all__ = [
    "JOB_MODULES",
    "JobSpec",
    "FoldRecord",
    "JobResult",
    "fold_splits",
    "evaluate_fold",
    "fold_metrics",
    "score_predictions",
    "unsplittable",
    "failed_fold",
    "job_task",
    "JobTask",
    "CallTask",
    "WorkerPool",
    "run_tasks",
    "worker_count",
    "available_cores",
    "worker_environment",
    "THREAD_VARIABLES",
    "BUDGET_STOP",
    "NOT_RUN",
    "DaskPool",
    "connect_scheduler",
    "Signals",
    "Stop",
    "SOURCE",
    "ResultCache",
    "machine_description",
    "register_dataset",
    "register_algorithm",
    "nosimple_by_fold",
    "run_rows",
    "store_results",
    "stored_folds",
    "stored_name",
]
