"""The Dask executor: the same pool's guarantees on a cluster, with warm processes there."""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import Algorithm
from metarec.execution import (
    BUDGET_STOP,
    NOT_RUN,
    CallTask,
    DaskPool,
    JobSpec,
    JobTask,
    failed_fold,
    fold_splits,
    job_task,
)

pytestmark = pytest.mark.slow


def _pid_fold(payload, data, index, train, test):
    """A fold that says which process ran it."""
    return (index, os.getpid(), payload)


def _spec(estimator: str, *, timeout=None, params=None) -> JobSpec:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["a", "b"])
    y = (X["a"] > 0).to_numpy().astype(int)
    algorithm = Algorithm("under_test", estimator, params=params or {})
    return JobSpec("toy", algorithm, X, y, 2, ("a", "b"), (), "cv5", 0, timeout)


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip(
        "distributed",
        reason="the Dask executor's extra is not installed: pip install 'metarec[dask]'",
    )
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as running:
        yield running


def _pid_job(payload, splits):
    return JobTask(_pid_fold, payload, "same data", np.arange(3), splits, failed_fold)


def test_jobs_on_one_dask_worker_share_one_warm_process(cluster):
    splits = [(np.arange(2), np.arange(2, 3))] * 3
    done = []
    with DaskPool(cluster.scheduler_address) as pool:
        pool.run([_pid_job("a", splits), _pid_job("b", splits)], on_job=done.append)
        workers = pool.client.run(os.getpid)
    assert [t.payload for t in done] == ["a", "b"]
    pids = {pid for task in done for _, pid, _ in task.folds}
    assert len(pids) == 1  # one interpreter ran all six folds, imported once
    (pid,) = pids
    assert pid not in workers.values() and pid != os.getpid()  # a process of its own
    assert [index for index, _, _ in done[0].folds] == [0, 1, 2]


def test_a_fold_over_its_time_limit_on_dask_is_killed_and_the_rest_not_run(cluster):
    spec = _spec("tests.benchmark.estimators:SleepyClassifier", timeout=0.5)
    done = []
    with DaskPool(cluster.scheduler_address) as pool:
        pool.run([job_task(spec, fold_splits(spec))], on_job=done.append)
    (task,) = done
    assert [f.status for f in task.folds] == ["timeout"] * 5
    assert "killed after the 0.5 s time limit" in task.folds[0].error
    assert all(f.error == NOT_RUN for f in task.folds[1:])


def test_a_job_past_its_deadline_on_dask_is_given_up(cluster):
    spec = _spec("tests.benchmark.estimators:SleepyClassifier", params={"seconds": 30.0})
    done = []
    started = time.perf_counter()
    with DaskPool(cluster.scheduler_address) as pool:
        pool.run(
            [job_task(spec, fold_splits(spec), deadline=time.perf_counter() + 2.0)],
            on_job=done.append,
        )
    (task,) = done
    assert time.perf_counter() - started < 25.0  # not the 30 s fold
    assert task.folds[0].status == "timeout" and task.folds[0].error.startswith(BUDGET_STOP)
    assert [f.status for f in task.folds] == ["timeout"] * 5


def test_a_call_runs_on_the_cluster(cluster):
    answers = []
    with DaskPool(cluster.scheduler_address) as pool:
        pool.run(
            [CallTask("sum", sum, ([1, 2, 3],)), CallTask("bad", int, ("x",))],
            on_call=lambda task, status, value: answers.append((task.label, status, value)),
        )
    assert sorted(answers)[0][:2] == ("bad", "error") and "ValueError" in sorted(answers)[0][2]
    assert sorted(answers)[1] == ("sum", "ok", 6)
