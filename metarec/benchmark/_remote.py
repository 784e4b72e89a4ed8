"""Benchmark jobs on a Dask cluster: every fold in an isolated, single-threaded interpreter.

A Dask worker runs an event loop and a thread pool, so a fit cannot be forked from it safely;
:func:`~metarec.benchmark._isolation.run_isolated` starts a fresh interpreter per fold there,
with the fold's time limit and memory cap.  :func:`run_job` is what ``metarec benchmark
--scheduler`` sends; :func:`run_folds` resumes a job from a given fold (``metarec run
--scheduler``).  Local runs use warm worker processes instead (:mod:`metarec.benchmark._workers`).
"""

from __future__ import annotations

import socket

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
from metarec.exceptions import BenchmarkError

__all__ = ["run_job", "run_folds", "connect_scheduler"]

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
