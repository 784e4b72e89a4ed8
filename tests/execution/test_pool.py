"""The warm worker processes: single-threaded, killable, and they never outlive their parent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import Algorithm
from metarec.execution import CallTask, JobSpec, WorkerPool, fold_splits, job_task, run_tasks


def _thread_counts():
    from threadpoolctl import threadpool_info

    return os.environ.get("OMP_NUM_THREADS"), sorted({p["num_threads"] for p in threadpool_info()})


def _spec(estimator: str, *, timeout=None, memory_limit_mb=None, params=None) -> JobSpec:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["a", "b"])
    y = (X["a"] > 0).to_numpy().astype(int)
    algorithm = Algorithm("under_test", estimator, params=params or {})
    return JobSpec("toy", algorithm, X, y, 2, ("a", "b"), (), "cv5", 0, timeout, memory_limit_mb)


def _run(spec: JobSpec) -> list:
    finished = []
    run_tasks(
        [job_task(spec, fold_splits(spec))],
        n_workers=1,
        on_job=lambda task: finished.append(task.folds),
    )
    (folds,) = finished
    return folds


def test_workers_load_numpy_with_one_thread_per_pool():
    # the parent may have any thread settings; the worker's environment fixes them
    answers = []
    run_tasks(
        [CallTask("threads", _thread_counts, ())],
        n_workers=1,
        on_call=lambda task, status, value: answers.append((status, value)),
    )
    ((status, (omp, counts)),) = answers
    assert status == "ok" and omp == "1"
    assert counts == [1]


def test_every_fold_is_fitted_and_timed_in_the_worker():
    folds = _run(_spec("sklearn.tree:DecisionTreeClassifier"))
    assert [f.fold for f in folds] == [0, 1, 2, 3, 4]
    assert all(f.status == "ok" for f in folds)
    assert all(0 <= f.fit_time < 5 and 0 <= f.fit_wall_time < 5 for f in folds)
    assert sum(len(f.test_index) for f in folds) == 60


def test_a_fold_over_the_time_limit_is_killed_and_the_rest_not_run():
    folds = _run(_spec("tests.benchmark.estimators:SleepyClassifier", timeout=0.5))
    assert [f.status for f in folds] == ["timeout"] * 5
    assert "0.5 s time limit" in folds[0].error and "not run" in folds[1].error
    # killed once past its limit, long before its 60 s sleep would have ended
    assert 0.5 <= folds[0].fit_time < 30
    assert [f.fit_time for f in folds[1:]] == [0.5] * 4  # the time the limit allowed


def test_a_crashing_fold_is_an_error_and_the_next_folds_still_run(tmp_path):
    marker = str(tmp_path / "crashed")
    folds = _run(_spec("tests.benchmark.estimators:CrashOnceClassifier", params={"marker": marker}))
    assert [f.status for f in folds] == ["error", "ok", "ok", "ok", "ok"]
    assert "worker process died (SIGKILL)" in folds[0].error


def test_memory_cap_is_an_error_of_the_fold_not_of_the_worker():
    spec = _spec(
        "tests.benchmark.estimators:GreedyClassifier",
        memory_limit_mb=1500,
        params={"megabytes": 4000},
    )
    folds = _run(spec)
    assert all(f.status == "error" for f in folds)
    assert all("memory cap of 1500" in f.error for f in folds), [f.error for f in folds]


def test_closing_the_pool_kills_a_busy_worker(tmp_path):
    """The pool is closed while its worker is in the middle of a fit (begun, a 4 s sleep
    to go): the worker dies by SIGKILL at once, and the fit never ends. A worker that was
    only left to end by itself would finish the fit before being killed 5 s later."""
    params = {"folder": str(tmp_path), "seconds": 4.0}
    spec = _spec("tests.benchmark.estimators:NappingClassifier", params=params)
    pool = WorkerPool(1)
    (worker,) = pool.workers

    class Closed(Exception):
        pass

    def check():  # called at least twice a second while the job runs
        if (tmp_path / "started").exists():
            pool.close()
            raise Closed

    with pytest.raises(Closed):
        pool.run([job_task(spec, fold_splits(spec))], check=check)
    assert pool.workers == []
    assert worker.process.returncode == -signal.SIGKILL
    assert not (tmp_path / "finished").exists()
    _assert_gone([worker.process.pid])
    assert worker.stderr.closed  # the file that kept what it wrote to stderr is released


def _assert_gone(pids, within=5.0):
    deadline = time.monotonic() + within
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if _alive(p)]
        time.sleep(0.1)
    assert not alive, f"still running: {alive}"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_die_with_a_parent_killed_by_sigkill():
    script = textwrap.dedent(
        """
        import sys, time
        from metarec.execution._pool import WorkerPool
        pool = WorkerPool(2)
        print(" ".join(str(w.process.pid) for w in pool.workers), flush=True)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    _assert_gone(pids)


def test_allocation_failures_of_native_libraries_count_as_the_memory_cap():
    import errno

    from metarec.execution._jobs import _out_of_memory

    assert _out_of_memory(MemoryError())
    assert _out_of_memory(OSError(errno.ENOMEM, "failed to map segment from shared object"))
    assert _out_of_memory(RuntimeError("std::bad_alloc"))
    try:
        try:
            raise MemoryError
        except MemoryError as inner:
            raise ValueError("fit failed") from inner
    except ValueError as outer:
        assert _out_of_memory(outer)
    assert not _out_of_memory(ValueError("Input contains NaN"))
    assert not _out_of_memory(OSError(errno.ENOENT, "no such file"))


def test_a_fit_within_the_memory_cap_succeeds_though_the_worker_maps_more():
    """The cap is what a fit may add: a warm worker alone maps more than a gigabyte of address
    space, so an absolute cap of 300 MB failed every fold."""
    spec = _spec("sklearn.tree:DecisionTreeClassifier", memory_limit_mb=300)
    folds = _run(spec)
    assert [f.status for f in folds] == ["ok"] * 5, [f.error for f in folds]


def test_a_job_that_cannot_end_by_its_deadline_stops_after_the_fold_that_shows_it():
    from metarec.execution._pool import _late

    quick = _spec("tests.benchmark.estimators:SleepyClassifier", params={"seconds": 0.0})
    spec = _spec("tests.benchmark.estimators:SleepyClassifier", params={"seconds": 1.0})
    with WorkerPool(1) as pool:
        pool.run([job_task(quick, fold_splits(quick))])  # a warm worker, holding the data
        # 5 folds of at least 1 s cannot end within 4.9 s: at the pace of the first fold,
        # however slow, the 4 left end after the deadline
        task = job_task(spec, fold_splits(spec), deadline=time.perf_counter() + 4.9)
        pool.run([task])
    statuses = [f.status for f in task.folds]
    assert statuses == ["ok", "timeout", "timeout", "timeout", "timeout"]
    # stopped by the rule after the first fold, not killed at the deadline in the second
    stop = re.fullmatch(
        r"stopped: the time budget ran out \(at (\S+) s a fold, the 4 fold\(s\) left would "
        r"end (\S+) s after it\)",
        task.folds[1].error,
    )
    assert stop and float(stop[1]) >= 1.0 and float(stop[2]) > 0
    assert task.folds[2].error.startswith("not run")
    # the rule by hand: 2 folds in 3 s, so the 3 left end at 3 + 3 x 1.5 = 7.5 s
    splits = fold_splits(spec)

    def started(**options):
        task = job_task(spec, splits, **options)
        task.started = 0.0
        return task

    assert _late(started(folds=[0, 1], deadline=7.5), 3.0) is None
    late = _late(started(folds=[0, 1], deadline=7.0), 3.0)
    assert late == (
        "stopped: the time budget ran out (at 1.5 s a fold, the 3 fold(s) left would end "
        "0.5 s after it)"
    )
    # folds reused from before the task (start=2) are not run: 1 fold in 2.5 s, 2 left
    reused = started(start=2, folds=[0], deadline=7.5)
    assert _late(reused, 2.5) is None
    reused.deadline = 7.4
    assert "the 2 fold(s) left" in _late(reused, 2.5)
    # no deadline, no rule
    assert _late(started(folds=[0]), 100.0) is None


def test_the_cores_are_joblibs_count_which_respects_quotas(monkeypatch):
    """A container's CPU quota (or LOKY_MAX_CPU_COUNT) is what joblib.cpu_count reads, not
    the host's cores or the CPU affinity: -j -1 starts that many workers."""
    import joblib

    from metarec.execution import available_cores, worker_count

    code = "from metarec.execution import available_cores; print(available_cores())"
    env = {**os.environ, "LOKY_MAX_CPU_COUNT": "1"}
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert shown.stdout.strip() == "1", shown.stderr
    monkeypatch.setattr(joblib, "cpu_count", lambda: 3)
    assert available_cores() == 3
    assert [worker_count(n) for n in (-1, -2, 2, 8)] == [3, 2, 2, 3]


def test_a_worker_fits_each_task_on_its_own_folds_of_the_same_data():
    """A large dataset's search sends the same data with other folds (a bigger sample, under
    a protocol of its own) to the worker that holds it: each task's folds are the ones used.
    k nearest neighbours with k = 15 cannot predict after a fit on 10 rows, and can after
    one on 50: the second task, run on the same warm worker, must fit on its 50."""
    from dataclasses import replace

    spec = _spec("sklearn.neighbors:KNeighborsClassifier", params={"n_neighbors": 15})
    test = np.arange(50, 60)
    small = replace(spec, protocol="holdout-large@10")
    large = replace(spec, protocol="holdout-large")
    finished = []
    run_tasks(
        [job_task(small, [(np.arange(10), test)]), job_task(large, [(np.arange(50), test)])],
        n_workers=1,
        on_job=lambda task: finished.append((task.spec.protocol, task.folds[0].status)),
    )
    assert sorted(finished) == [("holdout-large", "ok"), ("holdout-large@10", "error")]
