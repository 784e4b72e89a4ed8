"""Small functions that the pool comparison runs inside worker processes (importable by name)."""

from __future__ import annotations

import os
import time


def pid() -> int:
    """The worker's process id."""
    return os.getpid()


def nap(seconds: float) -> float:
    """Sleep, then return how long."""
    time.sleep(seconds)
    return seconds


def crash() -> None:
    """Die at once, as a segfault or the out-of-memory killer would end a fit."""
    os._exit(70)


def blas_threads() -> int:
    """How many threads the worker's BLAS would use (numpy loaded the way a fit loads it)."""
    import numpy  # noqa: F401  (loads the BLAS library)
    from threadpoolctl import threadpool_info

    return max((info["num_threads"] for info in threadpool_info()), default=0)
