"""When the command began: the budget of ``metarec run`` counts the interpreter's start-up."""

from __future__ import annotations

import os
import time

__all__ = ["mark_process_start", "command_start"]

_STARTED: float | None = None


def process_age() -> float:
    """Seconds since this process started (the interpreter's start-up included), or 0."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):  # not Linux: count from the entry point
        return 0.0


def mark_process_start() -> None:
    """Called by the console entry point: the process's start, on the ``perf_counter`` clock."""
    global _STARTED
    _STARTED = time.perf_counter() - process_age()


def command_start() -> float:
    """The process's start when run as ``metarec``; else (in-process, tests) now."""
    return _STARTED if _STARTED is not None else time.perf_counter()
