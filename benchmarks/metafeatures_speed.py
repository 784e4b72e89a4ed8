"""Speed of metarec's metafeature extraction against pymfe's, on the same synthetic data.

Usage::

    python benchmarks/metafeatures_speed.py [--quick] [--skip-large] [--pymfe-limit 600]
        [--groups general,statistical,info,landmarkers]

pymfe is not a dependency of metarec: when ``import pymfe`` fails, the script installs it
into the running interpreter's environment with ``python -m pip install -q pymfe`` first.

Only the groups both libraries have are compared (metarec name -> pymfe name): general ->
general, statistical -> statistical, info -> info-theory, landmarkers -> landmarking.  Each
group is extracted by its own call to each library, timed wall-clock including the
preparation of the data (metarec's ``extract(X, y, groups=[g])``, pymfe's
``MFE(groups=[g]).fit(X, y).extract()`` with its default summaries mean and sd); a total is
the sum of the groups.  Both libraries run their defaults: metarec's landmarkers use a
5,000-row subsample and 5 folds, pymfe's landmarking every row and 10 folds.

Workload (a), 20,000 rows x 50 numeric features with a binary target: both libraries in this
process, the ratio pymfe / metarec per group and in total (the goal is >= 10).
Workload (b), 200,000 rows x 100 features: metarec in this process; pymfe in a child process
(this script with ``--child``, in its own session) that is killed at ``--pymfe-limit``
seconds, reporting the groups it finished.  ``--quick`` shrinks the sizes for a smoke run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import pandas as pd

from metarec.metafeatures import extract

PYMFE_GROUP = {
    "general": "general",
    "statistical": "statistical",
    "info": "info-theory",
    "landmarkers": "landmarking",
}


def load_mfe():
    """pymfe's ``MFE`` class, installing pymfe with pip when it is missing."""
    try:
        importlib.import_module("pymfe")
    except ImportError:
        print("pymfe is not installed: running pip install -q pymfe", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pymfe"], check=True)
        importlib.invalidate_caches()
    return importlib.import_module("pymfe.mfe").MFE


def make_data(n_rows: int, n_features: int, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Numeric features (normal, a fifth informative, some skewed or rescaled), binary target."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_rows, n_features))
    n_informative = max(2, n_features // 5)
    logit = x[:, :n_informative] @ rng.normal(size=n_informative) + rng.normal(size=n_rows)
    y = (logit > np.quantile(logit, 0.35)).astype("int64")  # 65% / 35% classes
    skewed = rng.choice(n_features, size=n_features // 10, replace=False)
    x[:, skewed] = np.exp(x[:, skewed])
    x *= rng.uniform(0.1, 100.0, size=n_features)
    columns = [f"x{i}" for i in range(n_features)]
    return pd.DataFrame(x, columns=columns), pd.Series(y, name="target")


def time_metarec(X, y, group: str) -> tuple[float, int]:
    start = time.perf_counter()
    mf = extract(X, y, groups=[group], task="binary", random_state=0)
    return time.perf_counter() - start, len(mf)


def time_pymfe(MFE, x: np.ndarray, y: np.ndarray, group: str) -> tuple[float, int]:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MFE(groups=[PYMFE_GROUP[group]], random_state=0, suppress_warnings=True)
        names, _ = model.fit(x, y, suppress_warnings=True).extract(suppress_warnings=True)
    return time.perf_counter() - start, len(names)


def warm_up(MFE, groups: list[str]) -> None:
    """Run both libraries once on tiny data, so imports and first calls are not timed."""
    X, y = make_data(300, 5, seed=1)
    for group in groups:
        time_metarec(X, y, group)
        time_pymfe(MFE, X.to_numpy(), y.to_numpy(), group)


def child(shape: str, groups: list[str]) -> None:
    """pymfe on workload (b), one JSON line per finished group (read by the parent)."""
    MFE = load_mfe()
    n_rows, n_features = (int(v) for v in shape.split(","))
    X, y = make_data(n_rows, n_features)
    x, target = X.to_numpy(), y.to_numpy()
    del X, y
    for group in groups:
        seconds, count = time_pymfe(MFE, x, target, group)
        print(json.dumps({"group": group, "seconds": seconds, "n": count}), flush=True)


def pymfe_in_child(shape: str, groups: list[str], limit: float, memory_gb: float) -> dict:
    """Per-group pymfe results of a child process killed after ``limit`` seconds."""

    def cap_memory() -> None:
        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    command = [sys.executable, os.path.abspath(__file__), "--child", shape]
    command += ["--groups", ",".join(groups)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=cap_memory,
    )
    killed = False
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        killed = True
    wall = time.perf_counter() - start
    results = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            results[row["group"]] = (row["seconds"], row["n"])
    error = None
    if not killed and proc.returncode != 0:
        error = (stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
    return {"results": results, "killed": killed, "wall": wall, "error": error}


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.3f}"


def print_table(title: str, rows: list[tuple[str, float, int, float | None, int | None]]) -> None:
    print(f"\n{title}")
    header = (
        f"{'group':<13}{'metarec s':>11}{'n_mf':>6}{'pymfe s':>11}{'n_mf':>6}{'pymfe/metarec':>15}"
    )
    print(header)
    print("-" * len(header))
    for group, m_s, m_n, p_s, p_n in rows:
        ratio = "-" if p_s is None else f"{p_s / m_s:.1f}x"
        p_count = "-" if p_n is None else str(p_n)
        print(f"{group:<13}{fmt(m_s):>11}{m_n:>6}{fmt(p_s):>11}{p_count:>6}{ratio:>15}")


def workload_a(MFE, shape: tuple[int, int], groups: list[str]) -> None:
    X, y = make_data(*shape)
    x, target = X.to_numpy(), y.to_numpy()
    rows = []
    for group in groups:
        m_s, m_n = time_metarec(X, y, group)
        p_s, p_n = time_pymfe(MFE, x, target, group)
        print(f"  (a) {group}: metarec {m_s:.3f} s, pymfe {p_s:.3f} s", flush=True)
        rows.append((group, m_s, m_n, p_s, p_n))
    total = ("TOTAL", *(sum(r[i] for r in rows) for i in range(1, 5)))
    print_table(f"(a) {shape[0]:,} rows x {shape[1]} features, binary target", [*rows, total])
    slow = [r[0] for r in [*rows, total] if r[3] / r[1] < 10]
    verdict = "yes" if not slow else f"no (below 10x: {', '.join(slow)})"
    print(f"metarec >= 10x faster than pymfe on every group and in total: {verdict}")


def workload_b(shape: tuple[int, int], groups: list[str], limit: float, memory_gb: float) -> None:
    X, y = make_data(*shape)
    rows = [(group, *time_metarec(X, y, group)) for group in groups]
    del X, y
    m_total = sum(r[1] for r in rows)
    print(
        f"  (b) metarec finished in {m_total:.3f} s; pymfe in a child, limit {limit:g} s",
        flush=True,
    )
    child_run = pymfe_in_child(f"{shape[0]},{shape[1]}", groups, limit, memory_gb)
    done = child_run["results"]
    table = [(g, m_s, m_n, *done.get(g, (None, None))) for g, m_s, m_n in rows]
    p_total = sum(done[g][0] for g in groups) if len(done) == len(groups) else None
    p_count = sum(done[g][1] for g in groups) if p_total is not None else None
    table.append(("TOTAL", m_total, sum(r[2] for r in rows), p_total, p_count))
    print_table(f"(b) {shape[0]:,} rows x {shape[1]} features, binary target", table)
    if child_run["killed"]:
        finished = ", ".join(done) or "none"
        print(f"pymfe did not finish within {limit:g} s (groups finished: {finished})")
    elif child_run["error"]:
        print(f"pymfe failed after {child_run['wall']:.1f} s: {child_run['error']}")
    else:
        print(f"pymfe finished in {p_total:.1f} s (child wall time {child_run['wall']:.1f} s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 60 s limit")
    parser.add_argument("--skip-large", action="store_true", help="skip workload (b)")
    parser.add_argument("--groups", default=",".join(PYMFE_GROUP), help="metarec group names")
    parser.add_argument(
        "--pymfe-limit", "--limit", type=float, default=None, help="seconds for pymfe on (b)"
    )
    parser.add_argument("--pymfe-memory-gb", type=float, default=16.0, help="address-space cap")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = [g for g in groups if g not in PYMFE_GROUP]
    if unknown or not groups:
        parser.error(f"--groups must be among {', '.join(PYMFE_GROUP)}; got {unknown or 'none'}")
    if args.child is not None:
        child(args.child, groups)
        return
    small, large = ((2_000, 20), (20_000, 20)) if args.quick else ((20_000, 50), (200_000, 100))
    limit = args.pymfe_limit or (60.0 if args.quick else 600.0)
    MFE = load_mfe()
    warm_up(MFE, groups)
    workload_a(MFE, small, groups)
    if not args.skip_large:
        workload_b(large, groups, limit, args.pymfe_memory_gb)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _pages import run_with_page

    run_with_page(
        main,
        title="Speed of metafeature extraction against pymfe",
        intro=(
            "metarec's metafeature groups against pymfe's equivalent groups on the same synthetic data (pymfe installed by the script, run in a child process with a time and memory limit), seconds per group and in total, with the ratio (target: metarec at least 10x faster on every group and in total)."
        ),
        script="metafeatures_speed.py",
    )
