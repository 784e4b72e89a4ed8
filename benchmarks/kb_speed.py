"""Whole-path speed of the knowledge base: recommend, rank and import, in fresh processes.

Usage::

    nice -n 10 python benchmarks/kb_speed.py [--datasets 5000] [--algorithms 200] [--repeat 3]
    python benchmarks/kb_speed.py --datasets 50000      # the 10-million-run variant

Everything is measured side by side in one run (ratios survive a loaded machine), each
command in a fresh process, timed by wall clock with its peak RSS (``/usr/bin/time``-style,
from ``wait4``); medians of ``--repeat`` runs, the two commands of a ratio alternating.

1. Built-in KB: ``metarec recommend sklearn:breast_cancer`` against the floor of any
   recommendation, ``python -c "import sklearn.ensemble, pandas"`` + loading the dataset +
   the metafeature extraction alone (target: ratio <= 1.3).  ``recommend`` is timed warm (the
   fitted recommender cached for the KB's data version, as every run after the first) and
   once cold (cache folder emptied first).
2. Synthetic KB of ``--datasets`` x ``--algorithms`` runs (one run per pair; 1,000,000 by
   default), metafeatures resampled (rows drawn with replacement) from the built-in KB's, so that
   neighbours are real:
   ``metarec import runs`` of its CSV against a plain ``executemany`` of the same four
   columns (dataset, algorithm, accuracy, time) into SQLite by the ``csv`` module, one
   transaction (target: ratio <= 3; medians of ``--import-repeat``, alternating), and the
   same import once more into the filled KB (every run already present); then
   ``recommend`` cold and warm (target: warm <= 1.5x the built-in warm time, peak RSS
   <= 400 MB) and ``rank --all`` cold and warm (<= 3 s).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
FLOOR = (
    "import sklearn.ensemble, pandas\n"
    "from metarec.data import load_dataset\n"
    "from metarec.metafeatures import extract\n"
    "d = load_dataset('sklearn:breast_cancer')\n"
    "extract(d.X, d.y)\n"
)


#: GNU time measures a child's peak RSS from a small process: ``wait4`` here would count this
#: script's own pages (Linux carries a vforking parent's high-water mark into the child).
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def run(cmd: list[str], env: dict) -> tuple[float, float]:
    """Run ``cmd``; return (wall seconds, peak RSS in MiB) of that one process."""
    if GNU_TIME:
        cmd = [GNU_TIME, "-f", "maxrss-kib=%M", *cmd]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err[-2000:]}")
    if GNU_TIME:
        return wall, int(err.rsplit("maxrss-kib=", 1)[1].split()[0]) / 1024
    return wall, usage.ru_maxrss / 1024


def median_pair(a, b, repeat):
    """Alternate two measurements ``repeat`` times; return their medians."""
    xs, ys = [], []
    for _ in range(repeat):
        xs.append(a())
        ys.append(b())
    med = lambda values: (  # noqa: E731
        statistics.median(v[0] for v in values),
        max(v[1] for v in values),
    )
    return med(xs), med(ys)


def metarec(*args) -> list[str]:
    return [sys.executable, "-m", "metarec.cli", *args]


def synthetic(tmp: Path, n_datasets: int, n_algorithms: int, seed: int = 0):
    """Write runs.csv (one run per pair) and metafeatures.parquet; return their paths."""
    from metarec.storage import open_builtin

    rng = np.random.default_rng(seed)
    builtin = open_builtin().metafeatures()
    picks = rng.integers(0, len(builtin), n_datasets)
    meta = builtin.iloc[picks].reset_index(drop=True)
    meta["dataset"] = [f"ds{i}" for i in range(n_datasets)]
    meta_path = tmp / "metafeatures.parquet"
    meta.to_parquet(meta_path, index=False)
    runs_path = tmp / "runs.csv"
    skill = rng.normal(0, 0.05, n_algorithms)
    speed = rng.uniform(-3, 2, n_algorithms)
    algorithms = np.array([f"algo{j}" for j in range(n_algorithms)], dtype=object)
    step = max(1, 200_000 // n_algorithms)
    for first in range(0, n_datasets, step):
        d = np.arange(first, min(first + step, n_datasets))
        di, aj = np.repeat(d, n_algorithms), np.tile(np.arange(n_algorithms), len(d))
        frame = pd.DataFrame(
            {
                "dataset": np.char.add("ds", di.astype(str)),
                "algorithm": algorithms[aj],
                "accuracy": np.clip(0.75 + skill[aj] + rng.normal(0, 0.05, len(di)), 0, 1),
                "time": 10 ** (speed[aj] + rng.normal(0, 0.3, len(di))),
            }
        )
        frame.to_csv(runs_path, mode="a", header=first == 0, index=False, float_format="%.6g")
    return runs_path, meta_path


def raw_executemany(csv_path: Path, db: Path) -> float:
    """The baseline: csv module + one executemany per 100,000 rows of the four columns."""
    start = time.perf_counter()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE runs (dataset TEXT, algorithm TEXT, accuracy REAL, time REAL)")
    conn.execute("BEGIN IMMEDIATE")
    with open(csv_path, newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        batch = []
        for d, a, acc, t in reader:
            batch.append((d, a, float(acc), float(t)))
            if len(batch) == 100_000:
                conn.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", batch)
                batch = []
        conn.executemany("INSERT INTO runs VALUES (?, ?, ?, ?)", batch)
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=5000)
    parser.add_argument("--algorithms", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-builtin", action="store_true")
    parser.add_argument(
        "--import-repeat", type=int, default=3, help="imports timed (medians, alternating)"
    )
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="metarec-kb-speed-"))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "METAREC_HOME": str(tmp / "home"),
        "OMP_NUM_THREADS": "1",
    }
    env.pop("METAREC_DB", None)
    cache = tmp / "home" / "cache"
    try:
        query = ["recommend", "sklearn:breast_cancer"]
        if not args.skip_builtin:
            print("== built-in knowledge base (fresh processes, medians)")
            run(metarec(*query), env)  # builds the built-in KB file and the cache
            floor, warm = median_pair(
                lambda: run([sys.executable, "-c", FLOOR], env),
                lambda: run(metarec(*query), env),
                args.repeat,
            )
            shutil.rmtree(cache, ignore_errors=True)
            cold = run(metarec(*query), env)
            print(f"imports + dataset + metafeatures alone : {floor[0]:6.2f} s {floor[1]:6.0f} MiB")
            print(f"metarec recommend (cache warm)         : {warm[0]:6.2f} s {warm[1]:6.0f} MiB")
            print(f"metarec recommend (cache cold, fits)   : {cold[0]:6.2f} s {cold[1]:6.0f} MiB")
            print(f"ratio warm / floor: {warm[0] / floor[0]:.2f} (target <= 1.3)")
        n_runs = args.datasets * args.algorithms
        print(f"\n== synthetic KB: {args.datasets:,} datasets x {args.algorithms} algorithms")
        start = time.perf_counter()
        runs_csv, meta = synthetic(tmp, args.datasets, args.algorithms)
        print(f"wrote {n_runs:,} runs in {time.perf_counter() - start:.0f} s")
        db = tmp / "big.sqlite"
        url = ["--db", str(db)]

        def fresh(path: Path) -> None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

        def raw_once():
            fresh(tmp / "raw.sqlite")
            return raw_executemany(runs_csv, tmp / "raw.sqlite"), 0.0

        def import_once():
            fresh(db)
            return run(metarec(*url, "import", "runs", str(runs_csv)), env)

        # alternating, medians (the last import is the KB used below)
        (raw, _), imported = median_pair(raw_once, import_once, args.import_repeat)
        print(f"plain 4-column executemany (csv module): {raw:7.1f} s")
        print(
            f"metarec import runs                    : {imported[0]:7.1f} s {imported[1]:6.0f} MiB"
        )
        print(f"ratio import / executemany: {imported[0] / raw:.2f} (target <= 3)")
        again = run(metarec(*url, "import", "runs", str(runs_csv)), env)
        print(f"the same import again (every run present): {again[0]:5.1f} s {again[1]:6.0f} MiB")
        run(metarec(*url, "import", "metafeatures", str(meta)), env)
        shutil.rmtree(cache, ignore_errors=True)
        cold = run(metarec(*url, *query), env)
        if args.skip_builtin:
            warms = [run(metarec(*url, *query), env) for _ in range(args.repeat)]
            warm = (statistics.median(w[0] for w in warms), max(w[1] for w in warms))
        else:  # side by side with the built-in KB, alternating, so load hits both alike
            run(metarec(*query), env)  # the built-in KB's cache was emptied above
            builtin, warm = median_pair(
                lambda: run(metarec(*query), env),
                lambda: run(metarec(*url, *query), env),
                args.repeat,
            )
        print(f"recommend, cache cold (fit {n_runs:,} runs): {cold[0]:6.2f} s {cold[1]:6.0f} MiB")
        print(f"recommend, cache warm                  : {warm[0]:6.2f} s {warm[1]:6.0f} MiB")
        if not args.skip_builtin:
            print(f"recommend on the built-in KB, same loop : {builtin[0]:6.2f} s")
            print(
                f"ratio warm / built-in warm: {warm[0] / builtin[0]:.2f} (target <= 1.5), "
                f"peak {warm[1]:.0f} MiB (target <= 400)"
            )
        shutil.rmtree(cache, ignore_errors=True)
        rank_cold = run(metarec(*url, "rank", "--all"), env)
        start_only, rank_warm = median_pair(
            lambda: run([sys.executable, "-c", "import pandas, sklearn"], env),
            lambda: run(metarec(*url, "rank", "--all"), env),
            args.repeat,
        )
        print(
            f"rank --all, cache cold                 : {rank_cold[0]:6.2f} s {rank_cold[1]:6.0f} MiB"
        )
        print(f"rank --all, cache warm                 : {rank_warm[0]:6.2f} s (target <= 3 s)")
        print(f"  (python -c 'import pandas, sklearn' in the same loop: {start_only[0]:.2f} s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _pages import run_with_page

    run_with_page(
        main,
        title="Speed of the knowledge base: recommend, rank and import",
        intro=(
            "Each command in a fresh process, wall time and peak RSS, medians of `--repeat` runs with the two commands of a ratio alternating: `metarec recommend` on the built-in knowledge base against the floor of any recommendation (the imports, loading the dataset and its metafeatures; target <= 1.3x), then a synthetic knowledge base of datasets x algorithms runs (metafeatures resampled from the built-in one's): `metarec import runs` against a plain four-column `executemany` into SQLite (target <= 3x), the same import again, `recommend` cold and warm (warm <= 1.5x the built-in's, peak RSS <= 400 MiB) and `rank --all` (<= 3 s)."
        ),
        script="kb_speed.py",
    )
