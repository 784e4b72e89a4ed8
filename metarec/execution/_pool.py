"""Warm, single-threaded, killable worker processes that run jobs fold by fold.

The pool is generic: a job (:class:`JobTask`) names a function the worker calls once per fold
(``function(payload, data, index, train, test)``, imported by reference) and the data it
reads, sent once per worker and data key; what a fold returns (a record) is the caller's, and
so is the record of a fold that failed (``JobTask.failure``).  A plain call
(:class:`CallTask`) runs one function.  :mod:`metarec.execution._jobs` is what the benchmark
and ``metarec run`` give it: one algorithm evaluated on one dataset.

Each worker is a fresh interpreter (``python -m metarec.execution._worker``) started with
``OMP_NUM_THREADS=1``, ``OPENBLAS_NUM_THREADS=1``, ``MKL_NUM_THREADS=1`` (and the other thread
variables) in its environment, so numpy, scipy and scikit-learn load with one-thread BLAS and
OpenMP pools whatever the parent process has already loaded.  It imports the modules it is
given once and runs the warm-up function it is given, then runs many folds in-process: the
fit and predict times of :mod:`metarec.execution._jobs` are measured around ``fit`` and
``predict`` in the worker, so they are the work of the fit alone
(no process start, import or pickling in them) and agree with an in-process
``cross_validate``.

Isolation is kept by the parent (:func:`run_tasks`): it knows which fold a worker is on and
kills the worker (``SIGKILL``) when the fold exceeds the time limit; a worker that crashes
(segfault, ``os._exit``, out of memory) is replaced and the job continues with its next fold;
the memory cap is the worker's address-space limit, lowered for the duration of each fold.

A worker never outlives its parent: it is in its own session and process group (a Ctrl-C
at the terminal reaches only the parent, which decides), it asks the kernel to kill it when its
parent dies (``prctl(PR_SET_PDEATHSIG)`` on Linux), a watchdog thread also exits when the
parent's pid changes (other systems), and it exits when its command pipe closes.  The parent
kills its workers when it stops for any reason (end, error, SIGINT, SIGTERM).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from metarec._text import error_line
from metarec.exceptions import BenchmarkError
from metarec.execution._environment import THREAD_VARIABLES, worker_environment

__all__ = [
    "THREAD_VARIABLES",
    "BUDGET_STOP",
    "NOT_RUN",
    "JobTask",
    "CallTask",
    "WorkerPool",
    "run_tasks",
    "worker_count",
    "available_cores",
    "worker_environment",
]

#: How a fold stopped by its task's deadline (a time budget) begins its error message.
BUDGET_STOP = "stopped: the time budget ran out"
#: The error of the folds after one that hit the time limit (not run: they would too).
NOT_RUN = "not run: an earlier fold hit the time limit"

_HEADER = struct.Struct("!Q")
_PR_SET_PDEATHSIG = 1


def _pack(message: Any) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


# --------------------------------------------------------------------------- worker side
def _read_exactly(stream, n: int) -> bytes:
    data = stream.read(n)
    if data is None or len(data) < n:
        raise EOFError
    return data


def _receive(stream) -> Any:
    (size,) = _HEADER.unpack(_read_exactly(stream, _HEADER.size))
    return pickle.loads(_read_exactly(stream, size))


def _die_with_parent(parent: int) -> None:
    """Exit when the parent process dies, even if it is killed with SIGKILL."""
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)

    def watch() -> None:  # portable fallback: poll the parent's pid
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="metarec-parent-watch", daemon=True).start()


def _worker_main() -> None:  # pragma: no cover - runs in the worker process
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(int(os.environ.get("METAREC_WORKER_PARENT", os.getppid())))
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever an algorithm prints goes to stderr, not into the results
    stream = sys.stdin.buffer

    def send(message: Any) -> None:
        out.write(_pack(message))
        out.flush()

    try:
        _, path, modules, warm_up = _receive(stream)
    except EOFError:
        os._exit(0)
    sys.path[:] = path
    import importlib
    import warnings

    import joblib

    warnings.simplefilter("ignore")
    joblib.parallel_config(backend="sequential").__enter__()  # for the worker's lifetime
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:  # reported per fold when the algorithm runs
            pass
    if warm_up is not None:
        try:
            warm_up()  # so that no first-call cost lands in a measured time
        except Exception:
            pass
    data: dict[Any, tuple] = {}
    send(("ready", os.getpid()))
    while True:
        try:
            message = _receive(stream)
        except EOFError:
            break
        kind = message[0]
        if kind == "data":
            _, key, value, splits = message
            data.clear()  # one data set at a time: jobs arrive grouped by data
            data[key] = (value, splits)
        elif kind == "job":
            _, function, payload, key, start = message
            value, splits = data[key]
            for index in range(start, len(splits)):
                # the worker's own clock (perf_counter is the system's monotonic clock, the
                # same in every process): the parent may read this message late
                send(("start", index, time.perf_counter()))
                train, test = splits[index]
                send(("fold", function(payload, value, index, train, test)))
            send(("done",))
        elif kind == "call":
            _, func, args = message
            try:
                send(("value", func(*args)))
            except Exception as exc:
                send(("failed", error_line(exc)))
        else:
            break
    os._exit(0)


# --------------------------------------------------------------------------- parent side
@dataclass
class JobTask:
    """Folds ``start..`` of one job, each run in a worker by ``function``.

    ``function(payload, data, index, train, test)`` (a module-level function: it travels by
    reference) returns the fold's record; ``failure(index, status, message, seconds, test)``
    builds, in the parent, the record of a fold that did not finish (killed at its time
    limit or deadline, its worker dead, or not run after a fold that hit the time limit).
    ``data`` is sent to a worker once per ``data_key`` with ``splits`` (the (train, test)
    indices of every fold); ``payload`` with every job.

    Parameters
    ----------
    function : callable
        ``function(payload, data, index, train, test)``, run in the worker for each fold: it
        returns the fold's record.  A module-level function (pickled by reference).
    payload : object
        The first argument of ``function``, sent (pickled) with every job.
    data_key : object
        Names ``data``: tasks with equal keys share the data a worker already holds.
    data : object
        The second argument of ``function``, sent once to each worker that runs a job of
        ``data_key`` (a worker keeps one key's data at a time).
    splits : sequence of (train, test)
        The indices of every fold; ``train`` and ``test`` of fold ``index`` are the last two
        arguments of ``function``.
    failure : callable
        ``failure(index, status, message, seconds, test)``, called in the parent: the record
        of a fold that did not finish (``status`` ``"error"`` or ``"timeout"``, ``seconds``
        the wall-clock time it ran or, for a fold not run, was given).
    timeout : float, optional
        Seconds (wall clock, from the fold's start in the worker) a fold may run before its
        worker is killed and it is recorded as ``"timeout"``; None or 0 for no limit.
    start : int, default=0
        The index of the first fold to run.
    folds : list, optional
        The records received so far, for folds ``start..`` in order; the pool appends to it.
        Empty by default.
    deadline : float, optional
        A ``time.perf_counter()`` value: a fold still running then is killed and recorded as
        ``"timeout"`` (error :data:`BUDGET_STOP`), and the job is stopped earlier when its
        pace shows its folds cannot end by then.  None for no deadline.
    started : float, optional
        The ``time.perf_counter()`` value when the task's first fold started in a worker; set
        by the pool, None until then.
    spec : object, optional
        The caller's description of the job (a :class:`~metarec.execution.JobSpec`, say);
        the pool does not read it.
    """

    function: Callable[..., Any]
    payload: Any
    data_key: Any
    data: Any
    splits: Sequence[tuple[Any, Any]]
    failure: Callable[..., Any]
    #: seconds a fold may take before its worker is killed (None: no limit)
    timeout: float | None = None
    start: int = 0
    folds: list = field(default_factory=list)  # the records received so far
    #: ``time.perf_counter()`` value after which a running fold is killed (a time budget)
    deadline: float | None = None
    #: ``time.perf_counter()`` when its first fold started (set by the pool)
    started: float | None = None
    #: the caller's description of the job (a JobSpec, say); the pool does not read it
    spec: Any = None

    def not_run(self, first: int, seconds: float | None = None) -> list:
        """Records of folds ``first..``, not run after a fold that hit the time limit.

        Parameters
        ----------
        first : int
            The index of the first fold not run.
        seconds : float, optional
            The time recorded for each fold; None means the task's ``timeout`` (0.0 when it
            has none).

        Returns
        -------
        list
            ``failure(index, "timeout", NOT_RUN, seconds, test)`` for each fold from ``first``
            to the last (:data:`NOT_RUN`); empty when ``first`` is past the last fold.
        """
        limit = float(self.timeout or 0.0) if seconds is None else float(seconds)
        return [
            self.failure(i, "timeout", NOT_RUN, limit, self.splits[i][1])
            for i in range(first, len(self.splits))
        ]


@dataclass
class CallTask:
    """A plain call ``func(*args)`` in a worker (metafeature extraction), with a label.

    Parameters
    ----------
    label : object
        The caller's name for the call; the pool does not read it.
    func : callable
        A module-level function (pickled by reference), called in the worker.
    args : tuple
        Its positional arguments (pickled).
    deadline : float, optional
        A ``time.perf_counter()`` value: a call still running then is killed (its worker with
        it) and reported as an error (:data:`BUDGET_STOP`).  None for no deadline.
    """

    label: Any
    func: Callable[..., Any]
    args: tuple
    #: ``time.perf_counter()`` value after which the call is killed (reported as an error)
    deadline: float | None = None


class _Worker:
    def __init__(self, path: list[str], modules: Sequence[str], warm_up=None) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "metarec.execution._worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=worker_environment(),
            start_new_session=True,  # its own process group: a Ctrl-C reaches only the parent
            close_fds=True,
        )
        self.fd = self.process.stdout.fileno()
        self.buffer = bytearray()
        self.task: JobTask | CallTask | None = None
        self.fold: int | None = None
        self.fold_started = 0.0
        self.data_key: Any = None
        self.send(("init", path, list(modules), warm_up))

    def send(self, message: Any) -> None:
        try:
            self.process.stdin.write(_pack(message))
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError):  # it died: the scheduler sees its pipe close
            pass

    def messages(self) -> tuple[list[Any], bool]:
        """Read what is available; return the complete messages and whether the pipe closed."""
        chunk = os.read(self.fd, 1 << 20)
        self.buffer += chunk
        found = []
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            found.append(pickle.loads(bytes(self.buffer[_HEADER.size : _HEADER.size + size])))
            del self.buffer[: _HEADER.size + size]
        return found, not chunk

    def kill(self) -> None:
        try:
            self.process.kill()
        except ProcessLookupError:  # pragma: no cover
            pass
        self.close()
        self.stderr.close()

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - it ignores a closed pipe
            self.process.kill()
            self.process.wait()

    def death(self) -> str:
        """Why the worker ended, with the tail of what it wrote to stderr."""
        self.close()
        code = self.process.returncode
        if code is not None and code < 0:
            reason = f"worker process died ({signal.Signals(-code).name})"
        else:
            reason = f"worker process exited ({code}) without a result"
        tail = ""
        if not self.stderr.closed:
            self.stderr.seek(0)
            tail = " ".join(self.stderr.read()[-2000:].decode(errors="replace").split())[-300:]
            self.stderr.close()
        return f"{reason}: {tail}" if tail else reason


class WorkerPool:
    """Up to ``n_workers`` warm worker processes.

    ``start`` of them (all by default) are started at once, so that their imports overlap
    the caller's work, the others when tasks wait for them.  Each imports ``modules`` and
    calls ``warm_up()`` (a module-level function, or None) before its first task.
    :meth:`close` (also the end of a ``with`` block) kills them.  If starting a worker fails,
    those already started are killed and the exception propagates.

    Parameters
    ----------
    n_workers : int
        The most worker processes running at once.
    modules : sequence of str, default=()
        Modules each worker imports when it starts (one that fails to import is skipped: the
        error comes with the fold that needs it).
    start : int, optional
        Workers started at once, at most ``n_workers``; None means ``n_workers``.
    warm_up : callable, optional
        A module-level function of no arguments, called once in each worker after its imports
        (its exceptions ignored) so that no first-call cost lands in a measured time.
    """

    def __init__(
        self,
        n_workers: int,
        modules: Sequence[str] = (),
        *,
        start: int | None = None,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        self.n_workers = n_workers
        self.modules = list(modules)
        self.warm_up = warm_up
        self.path = [p or os.getcwd() for p in sys.path]
        self.workers: list[_Worker] = []
        try:
            for _ in range(n_workers if start is None else min(start, n_workers)):
                self.workers.append(self._new_worker())
        except BaseException:
            self.close()
            raise

    def _new_worker(self) -> _Worker:
        return _Worker(self.path, self.modules, self.warm_up)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Kill every worker and wait for it (a fit in progress is abandoned)."""
        workers, self.workers = self.workers, []
        for worker in workers:
            worker.kill()

    def run(
        self,
        tasks: Sequence[JobTask | CallTask],
        *,
        on_fold: Callable[[JobTask], None] | None = None,
        on_job: Callable[[JobTask], None] | None = None,
        on_call: Callable[[CallTask, str, Any], None] | None = None,
        check: Callable[[], None] | None = None,
        more: Callable[[], JobTask | CallTask | None] | None = None,
    ) -> None:
        """Run ``tasks`` in order of the list on the pool's workers.

        ``on_fold(task)`` is called after each finished fold (``task.folds`` grows),
        ``on_job(task)`` when all folds of a job are recorded, ``on_call(task, status, value)``
        when a call returns (``status`` ``"ok"`` or ``"error"`` with a message).  Folds over
        the time limit (``task.timeout``) kill their worker and are recorded as ``timeout``; a
        worker that dies is recorded as an ``error`` of its fold and replaced.  On any
        exception (KeyboardInterrupt included) every worker is killed.  ``check()`` is called
        at least twice a second and may raise to stop the run.  ``more()``, when given, is
        asked for the next task whenever a worker is free and ``tasks`` are used up (a plan
        that changes with the results); the run ends when it returns None and no worker is
        busy.  A fold still running at its task's ``deadline`` is killed and recorded as
        ``timeout``, like a fold over the time limit, and a job whose folds cannot end by its
        ``deadline`` at the pace of those it finished is stopped after the fold that shows
        it (the rest recorded as ``timeout``); a call past its ``deadline`` is killed and
        reported as an error.

        Parameters
        ----------
        tasks : sequence of JobTask or CallTask
            What to run first, in order.  A job's records are appended to its ``folds`` and
            its ``started`` is set; after a worker dies the rest of its job goes back to the
            front of the queue.
        on_fold : callable, optional
            ``on_fold(task)``, after each fold recorded (a failed one included).
        on_job : callable, optional
            ``on_job(task)``, when every fold of a job is recorded.
        on_call : callable, optional
            ``on_call(task, status, value)``, when a call ends: ``"ok"`` and what ``func``
            returned, or ``"error"`` and a one-line message.
        check : callable, optional
            ``check()``, called at least twice a second; it may raise to stop the run.
        more : callable, optional
            ``more()``, asked for the next task (a JobTask or CallTask, or None) whenever a
            worker is free and ``tasks`` are used up.

        Raises
        ------
        BaseException
            Whatever ``check``, ``more`` or a callback raises (:class:`~metarec.execution.Stop`,
            say), and KeyboardInterrupt, once every worker is killed.
        """
        try:
            _schedule(self, deque(tasks), on_fold, on_job, on_call, check or (lambda: None), more)
        except BaseException:
            self.close()
            raise


def run_tasks(
    tasks: Sequence[JobTask | CallTask],
    *,
    n_workers: int,
    modules=(),
    warm_up=None,
    **callbacks,
) -> None:
    """Run ``tasks`` on a fresh :class:`WorkerPool` of ``n_workers``.

    Parameters
    ----------
    tasks : sequence of JobTask or CallTask
        What to run, in order.
    n_workers : int
        Worker processes.
    modules : sequence of str, default=()
        Modules each worker imports first.
    warm_up : callable, optional
        Called once in each worker before its first task.
    **callbacks
        ``on_fold``, ``on_job``, ``on_call``, ``check``, ``more`` (see :meth:`WorkerPool.run`).
    """
    with WorkerPool(n_workers, modules, warm_up=warm_up) as pool:
        pool.run(tasks, **callbacks)


def available_cores() -> int:
    """The cores this process may use: :func:`joblib.cpu_count`.

    The fewest of the machine's cores, the process's CPU affinity, and the CPU quota of
    its control group (a container limited to 2 CPUs on a 64-core host may use 2: one
    worker per host core would share them and inflate every measured fit time), and
    ``LOKY_MAX_CPU_COUNT`` when set.

    Returns
    -------
    int
        At least 1.
    """
    import joblib

    return max(1, int(joblib.cpu_count()))


def worker_count(n_jobs: int) -> int:
    """Worker processes for ``n_jobs``, never more than the cores.

    joblib's convention: a positive number of workers, -1 for every core, -2 for all but
    one, and so on.  More workers than cores would share them: every fit's wall time would
    grow with the count (and a budget meant for the work would go to the processes' start
    and memory), so a larger request is capped at the cores (the caller says so).

    Parameters
    ----------
    n_jobs : int
        Workers asked for; not 0.

    Returns
    -------
    int
        Between 1 and :func:`available_cores`.

    Raises
    ------
    BenchmarkError
        ``n_jobs`` is 0 or not a whole number.
    """
    import numbers

    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise BenchmarkError(
            f"-j/--jobs must be a number of parallel jobs (1, 2, ...) or -1 for all cores, "
            f"-2 for all but one; got {n_jobs}"
        )
    cores = available_cores()
    wanted = int(n_jobs) if n_jobs > 0 else cores + 1 + int(n_jobs)
    return min(max(1, wanted), cores)


def _kill_time(worker: _Worker) -> float | None:
    """When the worker's current fold or call must be killed (``perf_counter``), or None."""
    task = worker.task
    if isinstance(task, CallTask):
        return task.deadline
    if not isinstance(task, JobTask) or worker.fold is None:
        return None
    limits = [task.deadline] if task.deadline is not None else []
    if task.timeout:
        limits.append(worker.fold_started + task.timeout)
    return min(limits) if limits else None


def _late(task, now: float) -> str | None:
    """Why a job must stop now (its folds cannot end by its deadline), or None.

    At the pace of its folds so far (wall clock since its first fold started, over the folds
    it finished), the folds still to run would end after the task's ``deadline``: they would be
    killed there, and the time spent on them would be lost to the other tasks.  Stopped as
    soon as that is known, after a fold.
    """
    if not isinstance(task, JobTask) or task.deadline is None or task.started is None:
        return None
    remaining = len(task.splits) - task.start - len(task.folds)
    if remaining <= 0 or not task.folds:
        return None
    pace = (now - task.started) / len(task.folds)
    if now + pace * remaining <= task.deadline:
        return None
    return (
        f"{BUDGET_STOP} (at {pace:.3g} s a fold, the {remaining} fold(s) "
        f"left would end {now + pace * remaining - task.deadline:.3g} s after it)"
    )


def _schedule(pool: WorkerPool, queue: deque, on_fold, on_job, on_call, check, more=None) -> None:
    workers = pool.workers

    def finish_fold(worker: _Worker, record) -> None:
        task = worker.task
        task.folds.append(record)
        worker.fold = None
        if on_fold is not None:
            on_fold(task)

    def finish_job(worker: _Worker) -> None:
        task, worker.task = worker.task, None
        if on_job is not None:
            on_job(task)

    def assign(worker: _Worker, task) -> None:
        worker.task = task
        if isinstance(task, CallTask):
            worker.send(("call", task.func, task.args))
            return
        if worker.data_key != task.data_key:
            worker.send(("data", task.data_key, task.data, list(task.splits)))
            worker.data_key = task.data_key
        start = task.start + len(task.folds)
        worker.send(("job", task.function, task.payload, task.data_key, start))

    def lost(worker: _Worker, reason: str, status: str = "error") -> None:
        """The worker ended (killed or crashed) in the middle of its task."""
        workers.remove(worker)
        task = worker.task
        if task is None:
            return
        if isinstance(task, CallTask):
            worker.task = None
            if on_call is not None:
                on_call(task, "error", reason)
            return
        index = worker.fold if worker.fold is not None else task.start + len(task.folds)
        elapsed = time.perf_counter() - worker.fold_started if worker.fold is not None else 0.0
        if index < len(task.splits):
            finish_fold(worker, task.failure(index, status, reason, elapsed, task.splits[index][1]))
            if status == "timeout":
                for record in task.not_run(index + 1):
                    finish_fold(worker, record)
        if task.start + len(task.folds) >= len(task.splits):
            finish_job(worker)
        else:
            worker.task = None
            queue.appendleft(task)  # the rest of its folds, on a fresh worker

    def next_task():
        if not queue and more is not None:
            task = more()
            if task is not None:
                queue.append(task)
        return queue.popleft() if queue else None

    while True:
        check()
        for worker in [w for w in workers if w.task is None]:
            task = next_task()
            if task is None:
                break
            assign(worker, task)
        while len(workers) < pool.n_workers and all(w.task is not None for w in workers):
            task = next_task()
            if task is None:
                break
            worker = pool._new_worker()
            workers.append(worker)
            assign(worker, task)
        if not queue and not any(w.task is not None for w in workers):
            break
        now = time.perf_counter()
        wait = 0.5
        for w in workers:
            kill_at = _kill_time(w)
            if kill_at is not None:
                wait = min(wait, max(0.0, kill_at - now))
        busy = {w.fd: w for w in workers if w.task is not None}
        ready, _, _ = select.select(list(busy), [], [], wait)
        for fd in ready:
            worker = busy[fd]
            found, closed = worker.messages()
            for message in found:
                kind = message[0]
                if kind == "start":
                    worker.fold = message[1]
                    worker.fold_started = min(message[2], time.perf_counter())
                    if worker.task.started is None:
                        worker.task.started = worker.fold_started
                elif kind == "fold":
                    finish_fold(worker, message[1])
                    late = _late(worker.task, time.perf_counter())
                    if late is not None:
                        worker.kill()
                        lost(worker, late, "timeout")
                        break
                elif kind == "done":
                    finish_job(worker)
                elif kind in ("value", "failed"):
                    task, worker.task = worker.task, None
                    if on_call is not None:
                        on_call(task, "ok" if kind == "value" else "error", message[1])
            if closed and worker in workers:
                lost(worker, worker.death())
        now = time.perf_counter()
        for worker in list(workers):
            kill_at = _kill_time(worker)
            if kill_at is None or now <= kill_at:
                continue
            task = worker.task
            worker.kill()
            if isinstance(task, CallTask) or (
                task.deadline is not None and kill_at == task.deadline
            ):
                lost(worker, BUDGET_STOP, "timeout")
            else:
                lost(worker, f"killed after the {task.timeout:g} s time limit", "timeout")
