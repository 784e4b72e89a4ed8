"""Running a search's evaluations on a Dask cluster instead of local worker processes.

:class:`DaskPool` has the part of :class:`~metarec.benchmark._workers.WorkerPool`'s interface
the search uses (``run(tasks, on_job=, check=, more=)``, ``close()``): it keeps as many jobs
submitted as the cluster has worker threads (or ``n_jobs``), asks ``more()`` for the next one
as each finishes, and gives up on a job whose deadline passes (its future is cancelled; the
fold running on the cluster ends at its own time limit, the time left when it was sent).
Each fold runs in a fresh interpreter on the Dask worker
(:func:`metarec.benchmark._remote.run_folds`), as ``metarec benchmark
--scheduler`` does.
"""

from __future__ import annotations

import time
from dataclasses import replace

from metarec.benchmark._remote import connect_scheduler, run_folds
from metarec.benchmark._workers import BUDGET_STOP

__all__ = ["DaskPool"]


class DaskPool:
    """Jobs of a search on the Dask scheduler at ``address``."""

    def __init__(self, address: str, n_jobs: int = 1) -> None:
        self.client = connect_scheduler(address)
        threads = sum(self.client.nthreads().values()) or 1
        self.n_workers = threads if n_jobs == 1 else max(1, n_jobs)

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def run(self, tasks, *, on_job=None, check=None, more=None, **_) -> None:
        from distributed import wait

        from metarec.benchmark._folds import failed_fold, not_run_folds

        queue = list(tasks)
        running: dict = {}
        check = check or (lambda: None)

        def fill() -> None:
            while len(running) < self.n_workers:
                task = queue.pop(0) if queue else (more() if more is not None else None)
                if task is None:
                    return
                left = (task.deadline or float("inf")) - time.perf_counter()
                spec = replace(task.spec, timeout=max(min(left, task.spec.timeout or left), 0.1))
                future = self.client.submit(run_folds, spec, task.start, pure=False)
                running[future] = task

        try:
            fill()
            while running:
                check()
                try:
                    done, _ = wait(list(running), timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:  # nothing finished in this half second
                    done = set()
                now = time.perf_counter()
                for future in list(running):
                    task = running[future]
                    if future in done:
                        del running[future]
                        try:
                            task.folds.extend(future.result())
                        except Exception as exc:  # the worker died or the call failed
                            index = task.start + len(task.folds)
                            test = task.splits[index][1]
                            task.folds.append(failed_fold(index, "error", str(exc), 0.0, test))
                    elif task.deadline is not None and now > task.deadline:
                        del running[future]
                        future.cancel()
                        index = task.start + len(task.folds)
                        spec = replace(task.spec, timeout=0.0)
                        stop = BUDGET_STOP
                        test = task.splits[index][1]
                        task.folds.append(failed_fold(index, "timeout", stop, 0.0, test))
                        task.folds.extend(not_run_folds(spec, task.splits, index + 1))
                    else:
                        continue
                    if on_job is not None:
                        on_job(task)
                fill()
        except BaseException:
            for future in running:
                future.cancel()
            raise
