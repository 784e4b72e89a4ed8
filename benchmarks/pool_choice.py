"""Which process pool runs the benchmark's folds: metarec's own, pebble or loky?

Usage::

    python benchmarks/pool_choice.py --markdown docs/benchmarks/pool-choice.md

``pip install -e ".[bench]"`` installs pebble and loky.  The same five probes on each pool
(2 workers unless said otherwise), each in this process or in a fresh parent process:

- throughput: 400 tiny calls (``math.sqrt``), pool start included; and the time to the first
  result (a fresh interpreter's start-up).
- an overrunning fit: a warm 1-worker pool gets a 30 s call that must stop after 1 s, then a
  tiny call; the time until the tiny call's result (the budget is kept only if it is short).
- a crash: 1 call that ends its process (``os._exit``) among 6 calls of 0.3 s; how many of the
  6 still return a result.
- the parent killed (``SIGKILL``, as the out-of-memory killer or a closed terminal would): a
  parent process runs a 60 s call on a 1-worker pool and is killed after 2 s; is the worker
  gone 3 s later?
- BLAS threads in a worker, the parent having loaded numpy with its defaults (folds must be
  single-threaded, or 2 workers on 2 cores oversubscribe).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _pool_probe as probe  # noqa: E402
from _pages import markdown_table, write_page  # noqa: E402

POOLS = ("metarec", "pebble", "loky")


# --------------------------------------------------------------------------- adapters
class _Metarec:
    def __init__(self, n: int) -> None:
        from metarec.execution import WorkerPool

        self.pool = WorkerPool(n)

    def map(self, calls, *, timeout=None):
        """Run ``(func, args)`` calls; return each result or ``"error: ..."``, in order."""
        from metarec.execution import CallTask

        results = {}
        deadline = None if timeout is None else time.perf_counter() + timeout
        tasks = [CallTask(i, f, a, deadline=deadline) for i, (f, a) in enumerate(calls)]
        self.pool.run(tasks, on_call=lambda t, s, v: results.__setitem__(t.label, _res(s, v)))
        return [results[i] for i in range(len(calls))]

    def close(self):
        self.pool.close()


def _res(status, value):
    return value if status == "ok" else f"error: {str(value)[:60]}"


class _Pebble:
    def __init__(self, n: int) -> None:
        import pebble

        self.pool = pebble.ProcessPool(max_workers=n)

    def map(self, calls, *, timeout=None):
        futures = [self.pool.schedule(f, args=a, timeout=timeout) for f, a in calls]
        return [_outcome(future) for future in futures]

    def close(self):
        self.pool.stop()
        self.pool.join()


class _Loky:
    def __init__(self, n: int) -> None:
        import loky

        self.n = n
        self.pool = loky.ProcessPoolExecutor(max_workers=n)

    def map(self, calls, *, timeout=None):
        import concurrent.futures

        futures = [self.pool.submit(f, *a) for f, a in calls]
        out = []
        for future in futures:
            try:
                out.append(future.result(timeout=timeout))
            except concurrent.futures.TimeoutError:
                # no way to stop one call: kill every worker and start a new pool
                self.pool.shutdown(wait=True, kill_workers=True)
                self.__init__(self.n)
                out.append("error: timeout (pool restarted)")
            except Exception as exc:
                out.append(f"error: {type(exc).__name__}")
        return out

    def close(self):
        self.pool.shutdown(wait=True, kill_workers=True)


def _outcome(future):
    try:
        return future.result()
    except Exception as exc:
        return f"error: {type(exc).__name__}"


ADAPTERS = {"metarec": _Metarec, "pebble": _Pebble, "loky": _Loky}


# --------------------------------------------------------------------------- probes
def throughput(kind: str, n_calls: int = 400) -> tuple[float, float]:
    """(seconds to the first result of a new pool, calls per second over ``n_calls``)."""
    start = time.perf_counter()
    pool = ADAPTERS[kind](2)
    try:
        pool.map([(math.sqrt, (1.0,))])
        first = time.perf_counter() - start
        start = time.perf_counter()
        results = pool.map([(math.sqrt, (float(i),)) for i in range(n_calls)])
        rate = n_calls / (time.perf_counter() - start)
    finally:
        pool.close()
    assert results[-1] == math.sqrt(n_calls - 1)
    return first, rate


def overrun(kind: str) -> tuple[float, str]:
    """Seconds from submitting a 30 s call with a 1 s limit to the next call's result."""
    pool = ADAPTERS[kind](1)
    try:
        pool.map([(math.sqrt, (1.0,))])  # warm
        start = time.perf_counter()
        slow = pool.map([(probe.nap, (30.0,))], timeout=1.0)
        after = pool.map([(math.sqrt, (4.0,))])
        return time.perf_counter() - start, f"{slow[0]} / {after[0]}"
    finally:
        pool.close()


def crash(kind: str) -> int:
    """How many of 6 calls of 0.3 s return a result when a 7th call kills its process."""
    pool = ADAPTERS[kind](2)
    try:
        calls = [(probe.nap, (0.3,))] * 3 + [(probe.crash, ())] + [(probe.nap, (0.3,))] * 3
        results = pool.map(calls)
    finally:
        pool.close()
    return sum(r == 0.3 for r in results)


_PARENT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {here!r})
    import _pool_probe as probe
    import pool_choice
    pool = pool_choice.ADAPTERS[{kind!r}](1)
    print(pool.map([(probe.pid, ())])[0], flush=True)
    pool.map([(probe.nap, (60.0,))])
    """
)


def parent_killed(kind: str) -> bool:
    """Is the worker gone 3 s after its parent was killed with SIGKILL mid-call?"""
    code = _PARENT.format(here=str(HERE), kind=kind)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    time.sleep(2.0)
    parent.kill()
    parent.wait()
    time.sleep(3.0)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    return not alive


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def blas(kind: str) -> int:
    """BLAS threads in a worker of a pool created after the parent loaded numpy."""
    import numpy  # noqa: F401  (the parent has numpy loaded, as metarec's CLI has)

    pool = ADAPTERS[kind](1)
    try:
        return pool.map([(probe.blas_threads, ())])[0]
    finally:
        pool.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pools", default=",".join(POOLS))
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    for kind in args.pools.split(","):
        first, rate = throughput(kind)
        stop_s, stop_what = overrun(kind)
        survived = crash(kind)
        gone = parent_killed(kind)
        threads = blas(kind)
        row = (kind, first, rate, stop_s, stop_what, f"{survived} of 6", "yes" if gone else "NO")
        rows.append((*row, threads))
        print(rows[-1], flush=True)
    columns = (
        "pool",
        "first result (s)",
        "tiny calls / s",
        "30 s call limited to 1 s: next result after (s)",
        "limited call / next call",
        "calls that survive a crash",
        "worker gone after parent SIGKILL",
        "BLAS threads in a worker",
    )
    table = markdown_table(columns, rows)
    print(table)
    write_page(
        args.markdown,
        "Which process pool runs the folds",
        "metarec's own `WorkerPool` (`metarec.execution.WorkerPool`) against pebble's "
        "`ProcessPool` and loky's `ProcessPoolExecutor`, each with its defaults, on the same "
        "probes (see the script's docstring).  Written by "
        "`python benchmarks/pool_choice.py`.\n\n" + table + "\n\n" + _READING,
    )


_READING = """\
What the benchmark needs from a pool, and which probe shows it:

- **Stop one fit at a deadline and go on** (the budget of `metarec run`, `--timeout` of
  `benchmark`): pebble's `schedule(timeout=)` kills and replaces the one worker, as
  `WorkerPool` does; loky cannot stop one call, only shut the whole pool down (every other
  fit in progress is lost) and start a new one.  pebble replaces the worker sooner because
  it forks the parent; `WorkerPool` starts a fresh interpreter (its first result, and the
  next one after a kill, include that start).
- **A crash costs one fold, not the run**: loky marks the pool broken and fails every pending
  call; pebble and `WorkerPool` replace the dead worker.
- **No worker outlives its parent**, even a parent killed with `SIGKILL`: `WorkerPool`'s
  workers ask the kernel for `PR_SET_PDEATHSIG`; a pebble or loky worker in the middle of a
  fit runs it to the end.
- **Single-threaded folds**: `WorkerPool` starts each worker with the thread variables set
  before numpy loads; a pebble worker is a fork of the parent and keeps its BLAS pool size
  (forking a parent that holds database connections and threads is also what Python's own
  documentation warns against).
- Not probed, also needed: a memory cap per fold (the worker's address-space limit, lowered
  around each fold) and the fit and predict times measured inside the worker, around `fit`
  and `predict` only.  Both would fit in a task function of any pool.

The hand-written pool is kept: neither library gives the deadline kill, the crash isolation,
the death with the parent and single-threaded workers together; pebble comes closest, and
would need a spawn context (losing its start-up advantage) and a parent-death guard of its
own.
"""


if __name__ == "__main__":
    sys.exit(main())
