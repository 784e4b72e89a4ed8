"""Running a pool's tasks on a Dask cluster: warm worker processes on every Dask worker.

:class:`DaskPool` has :class:`~metarec.execution.WorkerPool`'s interface (``run(tasks,
on_job=, on_call=, check=, more=)``, ``close()``), so the benchmark and ``metarec run`` use
either.  A Dask worker runs an event loop and a thread pool, so a fit cannot be forked from
it safely, and a fresh interpreter per fold would spend a second or more importing its
libraries each time.  Instead each Dask worker thread keeps one warm worker process of
:mod:`metarec.execution._pool` (single-threaded BLAS and OpenMP, the fold's time limit and
memory cap, killed with its parent) for as long as the Dask worker lives, exactly as the local
pool does, and a job sent there runs all its folds in it.  A job's data travel to a Dask
worker once (scattered, then cached there) and to its warm process once per data set.

The pool keeps as many tasks submitted as the cluster has worker threads (or ``n_jobs``),
asks ``more()`` for the next one as each finishes, and gives up on a job whose deadline
passes (its future is cancelled; the fold running on the cluster ends at its own time limit,
the time left when it was sent).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from metarec.exceptions import BenchmarkError
from metarec.execution._pool import BUDGET_STOP, CallTask, JobTask, WorkerPool

__all__ = ["DaskPool", "connect_scheduler"]

#: Seconds Dask may take to connect to, and hear from, a scheduler.
CONNECT_TIMEOUT = 20.0
#: Seconds the first look at a TCP scheduler's port may take before Dask is left to try.
PROBE_TIMEOUT = 3.0


def connect_scheduler(address: str):
    """A ``distributed.Client`` of the Dask scheduler at ``address``.

    Dask retries a refused connection until its timeout, so a mistyped host or port would
    keep the command silent for :data:`CONNECT_TIMEOUT` seconds before failing.  A TCP or
    TLS address is therefore looked at first: a name that does not resolve, or a port that
    refuses the connection, is an error at once; a host that does not answer within
    :data:`PROBE_TIMEOUT` seconds is left to Dask's own timeout.

    Parameters
    ----------
    address : str
        The scheduler's address, ``tcp://host:port`` (or ``host:port``, ``tls://...``, any
        scheme Dask knows).

    Returns
    -------
    distributed.Client

    Raises
    ------
    BenchmarkError
        When dask.distributed is not installed or the scheduler cannot be reached; the
        message names the address and the reason.
    """
    try:
        from distributed import Client
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError as exc:  # pragma: no cover
        raise BenchmarkError(
            "--scheduler needs dask.distributed: pip install 'metarec[dask]'"
        ) from exc
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location) if scheme in ("tcp", "tls") else (None, None)
    except ValueError as exc:
        raise BenchmarkError(f"not a Dask scheduler address: {address!r} ({exc})") from None
    if host is not None:
        try:
            socket.create_connection((host, port), timeout=PROBE_TIMEOUT).close()
        except (ConnectionRefusedError, socket.gaierror) as exc:
            raise BenchmarkError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        except OSError:  # no answer yet (a slow network): Dask's own timeout decides
            pass
    try:
        return Client(address, timeout=f"{CONNECT_TIMEOUT:g}s")
    except OSError as exc:
        raise BenchmarkError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc


#: The warm worker pool of each thread of this process (on a Dask worker), by thread id.
_POOLS: dict[int, WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def _warm_pool(modules, warm_up) -> WorkerPool:
    """This thread's warm pool of one worker process, started on first use."""
    key = threading.get_ident()
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None or pool.modules != list(modules):
            if pool is not None:
                pool.close()
            pool = _POOLS[key] = WorkerPool(1, modules, warm_up=warm_up)
    return pool


def _run_remote(task, data, modules, warm_up, seconds_left):
    """Run one job (or call) on this Dask worker's warm process; what the local pool returns.

    A job gives its list of fold records; a call ``(status, value)``.  ``seconds_left`` is
    the job's deadline as seconds from now (clocks of two machines are not compared).
    """
    pool = _warm_pool(modules, warm_up)
    if isinstance(task, CallTask):
        task.deadline = None if seconds_left is None else time.perf_counter() + seconds_left
        out: list = []
        pool.run([task], on_call=lambda _task, status, value: out.append((status, value)))
        return out[0] if out else ("error", "the call returned nothing")
    task.data = data
    task.deadline = None if seconds_left is None else time.perf_counter() + seconds_left
    pool.run([task])
    return task.folds


class DaskPool:
    """Jobs and calls on the Dask scheduler at ``address`` (see the module documentation).

    Parameters
    ----------
    address : str
        The scheduler's address (:func:`connect_scheduler`).
    n_jobs : int, default=1
        Tasks at once; 1 means every worker thread of the cluster.
    modules : sequence of str, default=()
        Modules each warm process imports first.
    warm_up : callable, optional
        Called once in each warm process before its first task.
    """

    def __init__(self, address: str, n_jobs: int = 1, modules=(), *, warm_up=None) -> None:
        self.client = connect_scheduler(address)
        threads = sum(self.client.nthreads().values()) or 1
        self.n_workers = threads if n_jobs == 1 else max(1, n_jobs)
        self.modules = list(modules)
        self.warm_up = warm_up
        self._scattered: dict[Any, Any] = {}

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (the cluster and its warm processes go on)."""
        self._scattered.clear()
        self.client.close()

    def _data(self, task: JobTask):
        """The task's data on the cluster: scattered once per data key."""
        if task.data_key not in self._scattered:
            self._scattered.clear()  # one data set at a time, as jobs arrive grouped
            self._scattered[task.data_key] = self.client.scatter(task.data, hash=False)
        return self._scattered[task.data_key]

    def _submit(self, task):
        left = None if task.deadline is None else task.deadline - time.perf_counter()
        if isinstance(task, CallTask):  # its deadline travels as seconds from now
            shipped = CallTask(task.label, task.func, task.args)
            return self.client.submit(
                _run_remote, shipped, None, self.modules, self.warm_up, left, pure=False
            )
        shipped = JobTask(
            task.function,
            task.payload,
            task.data_key,
            None,
            task.splits,
            task.failure,
            timeout=task.timeout,
            start=task.start + len(task.folds),
        )
        data = self._data(task)
        return self.client.submit(
            _run_remote, shipped, data, self.modules, self.warm_up, left, pure=False
        )

    def run(self, tasks, *, on_job=None, on_call=None, check=None, more=None, **callbacks) -> None:
        """Run ``tasks``, then what ``more()`` gives, on the cluster (see the module doc).

        A job's folds all run on one Dask worker and its records are appended to its
        ``folds`` when it ends.  A job still running at its ``deadline`` (a
        ``time.perf_counter()`` value of this process) is given up: its future is cancelled,
        its next fold recorded as ``"timeout"`` (:data:`~metarec.execution.BUDGET_STOP`) and
        the rest as not run, all with 0.0 seconds.  A job whose Dask worker fails gets an
        ``"error"`` record for its next fold and ends there.

        Parameters
        ----------
        tasks : sequence of JobTask or CallTask
            What to run first, in order.
        on_job : callable, optional
            ``on_job(task)`` when a job's folds are recorded.
        on_call : callable, optional
            ``on_call(task, status, value)`` when a call returns: ``"ok"`` and what ``func``
            returned, or ``"error"`` and a message.
        check : callable, optional
            Called at least twice a second; may raise to stop.
        more : callable, optional
            Asked for the next task (a JobTask or CallTask, or None) whenever one finishes and
            ``tasks`` are used up.
        **callbacks
            Other callbacks of :meth:`WorkerPool.run <metarec.execution.WorkerPool.run>`
            (``on_fold``): accepted and ignored on Dask, where a job's folds come back
            together.

        Raises
        ------
        BaseException
            Whatever ``check``, ``more`` or a callback raises, and KeyboardInterrupt, once the
            futures still running are cancelled.
        """
        from distributed import wait

        queue = list(tasks)
        running: dict = {}
        check = check or (lambda: None)

        def fill() -> None:
            while len(running) < self.n_workers:
                task = queue.pop(0) if queue else (more() if more is not None else None)
                if task is None:
                    return
                running[self._submit(task)] = task

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
                        self._finished(task, future, on_job, on_call)
                    elif isinstance(task, JobTask) and task.deadline and now > task.deadline:
                        del running[future]
                        future.cancel()
                        self._stopped(task)
                        if on_job is not None:
                            on_job(task)
                fill()
        except BaseException:
            for future in running:
                future.cancel()
            raise

    @staticmethod
    def _finished(task, future, on_job, on_call) -> None:
        if isinstance(task, CallTask):
            try:
                status, value = future.result()
            except Exception as exc:  # the Dask worker died or the call failed
                status, value = "error", f"{type(exc).__name__}: {exc}"
            if on_call is not None:
                on_call(task, status, value)
            return
        try:
            task.folds.extend(future.result())
        except Exception as exc:  # the Dask worker died
            index = task.start + len(task.folds)
            if index < len(task.splits):
                test = task.splits[index][1]
                task.folds.append(task.failure(index, "error", str(exc), 0.0, test))
        if on_job is not None:
            on_job(task)

    @staticmethod
    def _stopped(task: JobTask) -> None:
        """Record a job given up at its deadline: its next fold stopped, the rest not run."""
        index = task.start + len(task.folds)
        if index >= len(task.splits):
            return
        task.folds.append(task.failure(index, "timeout", BUDGET_STOP, 0.0, task.splits[index][1]))
        task.folds.extend(task.not_run(index + 1, seconds=0.0))
