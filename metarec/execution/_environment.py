"""The environment of a process that measures fits: every thread pool limited to one thread."""

from __future__ import annotations

import os

__all__ = ["THREAD_VARIABLES", "worker_environment"]

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def worker_environment() -> dict[str, str]:
    """The environment of a worker: the parent's, with every thread pool limited to one.

    Every variable of :data:`THREAD_VARIABLES` is ``"1"``, ``LOKY_MAX_CPU_COUNT`` is ``"1"``,
    ``PYTHONWARNINGS`` is ``"ignore"`` and ``METAREC_WORKER_PARENT`` is this process's pid
    (the worker exits when its parent is no longer that process).

    Returns
    -------
    dict of str to str
        A copy of ``os.environ`` with those variables set; ``os.environ`` is not changed.
    """
    env = dict(os.environ)
    env.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    env["LOKY_MAX_CPU_COUNT"] = "1"
    env["PYTHONWARNINGS"] = "ignore"
    env["METAREC_WORKER_PARENT"] = str(os.getpid())
    return env
