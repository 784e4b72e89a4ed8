"""Run one fit in a child process with a time limit and a memory cap.

An algorithm that crashes the interpreter, hangs, or exhausts memory must not take the
benchmark down with it.  :func:`run_isolated` forks the current process (``os.fork``, so the
child shares the already loaded data and libraries copy-on-write and starts in milliseconds),
applies an address-space limit in the child (``resource.RLIMIT_AS``), runs the function and
sends its pickled result back through a pipe.  The parent waits at most ``timeout`` seconds,
then kills the child.

``os.fork`` is used rather than :mod:`multiprocessing` because it also works inside daemonic
worker processes and inside loky workers.  Forking a process that runs other threads is not
safe (the child may inherit a lock another thread held, and wait on it forever), and a Dask
worker runs an event loop and a thread pool: there (:func:`_threaded_host`) the call runs in a
fresh interpreter instead (``python -m metarec.benchmark._isolation``), which receives the
pickled function and arguments on standard input and answers on standard output, with the
same time limit and memory cap.  The parent must not have started OpenMP
thread pools before forking (it only loads data), and the child limits BLAS/OpenMP to one
thread, so that the CPU time it measures is the work of the fit alone.  On platforms without
``fork`` the function runs in-process and neither limit applies.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metarec._text import error_line

__all__ = ["IsolatedOutcome", "run_isolated"]


@dataclass(frozen=True)
class IsolatedOutcome:
    """What happened to an isolated call.

    Attributes
    ----------
    status : {"ok", "timeout", "error"}
    value : object
        The function's return value when ``status == "ok"``.
    error : str or None
        One-line description of the failure.
    wall_time : float
        Seconds the parent waited.
    """

    status: str
    value: Any = None
    error: str | None = None
    wall_time: float = 0.0


def _child(func: Callable[..., Any], args: tuple, memory_limit_mb: float | None, fd: int) -> None:
    """Body of the forked child: never returns."""
    code = 0
    try:
        if memory_limit_mb is not None:
            import resource

            limit = int(memory_limit_mb * 1024 * 1024)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        warnings.simplefilter("ignore")
        try:
            import joblib
            from threadpoolctl import threadpool_limits

            # one thread, and no inherited joblib backend (a Dask client cannot be used
            # from a forked child): the fit's CPU time is its own work
            with threadpool_limits(1), joblib.parallel_config(backend="sequential"):
                payload = ("ok", func(*args), None)
        except MemoryError:
            payload = (
                "error",
                None,
                f"MemoryError: exceeded the memory cap of {memory_limit_mb} MB",
            )
        except Exception as exc:  # the algorithm's own failure, reported as data
            payload = ("error", None, error_line(exc))
        try:
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            data = pickle.dumps(("error", None, f"result could not be pickled: {exc}"))
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(data)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _threaded_host() -> bool:
    """Whether this process runs inside a Dask worker (threads, an event loop)."""
    import sys

    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return False
    return True


def _run_subprocess(func, args, timeout, memory_limit_mb, start) -> IsolatedOutcome:
    """Run ``func(*args)`` in a new interpreter (see the module docstring)."""
    import subprocess
    import sys

    from metarec.benchmark._environment import worker_environment

    payload = pickle.dumps((func, args, memory_limit_mb), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "metarec.benchmark._isolation"],
            input=payload,
            env=worker_environment(),  # one-thread BLAS/OpenMP before numpy loads
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        elapsed = time.perf_counter() - start
        return IsolatedOutcome(
            "timeout", None, f"killed after the {timeout:g} s time limit", elapsed
        )
    elapsed = time.perf_counter() - start
    if not done.stdout:
        tail = " ".join(done.stderr.decode(errors="replace").split())[-300:]
        return IsolatedOutcome(
            "error",
            None,
            f"worker process exited ({done.returncode}) without a result: {tail}",
            elapsed,
        )
    state, value, error = pickle.loads(done.stdout)
    return IsolatedOutcome(state, value, error, elapsed)


def run_isolated(
    func: Callable[..., Any],
    *args: Any,
    timeout: float | None = None,
    memory_limit_mb: float | None = None,
) -> IsolatedOutcome:
    """Call ``func(*args)`` in a forked child process.

    Parameters
    ----------
    func : callable
        Function to run; its return value must be picklable.
    *args
        Positional arguments.
    timeout : float, optional
        Seconds after which the child is killed and ``status="timeout"`` returned.
    memory_limit_mb : float, optional
        Address-space cap of the child in MiB; exceeding it yields ``status="error"``.

    Returns
    -------
    IsolatedOutcome
    """
    start = time.perf_counter()
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        try:
            value = func(*args)
        except Exception as exc:
            return IsolatedOutcome("error", None, f"{type(exc).__name__}: {exc}", 0.0)
        return IsolatedOutcome("ok", value, None, time.perf_counter() - start)

    if _threaded_host():
        return _run_subprocess(func, args, timeout, memory_limit_mb, start)
    read_fd, write_fd = os.pipe()
    with warnings.catch_warnings():
        # Python >= 3.12 warns about fork() in multi-threaded processes; the child only
        # runs the fit and writes to its pipe, it takes no lock of the parent's threads.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read_fd)
        _child(func, args, memory_limit_mb, write_fd)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = None if timeout is None else start + timeout
    timed_out = False
    try:
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.perf_counter())
            ready, _, _ = select.select([read_fd], [], [], wait)
            if not ready:
                timed_out = True
                break
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if timed_out:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if timed_out:
        return IsolatedOutcome(
            "timeout", None, f"killed after the {timeout:g} s time limit", elapsed
        )
    if not chunks:
        if os.WIFSIGNALED(status):
            sig = signal.Signals(os.WTERMSIG(status)).name
            return IsolatedOutcome("error", None, f"worker process died ({sig})", elapsed)
        return IsolatedOutcome("error", None, "worker process exited without a result", elapsed)
    state, value, error = pickle.loads(b"".join(chunks))
    return IsolatedOutcome(state, value, error, elapsed)


if __name__ == "__main__":  # pragma: no cover - the fresh interpreter of _run_subprocess
    import sys

    _func, _args, _limit = pickle.loads(sys.stdin.buffer.read())
    _result_fd = os.dup(1)
    os.dup2(2, 1)  # anything the algorithm prints goes to stderr, not into the result
    _child(_func, _args, _limit, _result_fd)
