"""Speed and memory of ``KnowledgeBase.import_runs`` on a large run CSV (SQLite).

Usage::

    nice -n 10 python benchmarks/import_speed.py [--rows 1000000] [--quick] [--profile]

A synthetic CSV is written to a temporary directory: ``--rows`` rows of datasets x 20
algorithms x 50 folds (1,000 datasets for 1M rows), columns ``dataset, algorithm, fold,
accuracy, time`` (accuracy uniform in [0, 1], time exponential > 0, 6 decimals).

Speed, side by side in one run (so the ratio survives a loaded machine):

* metarec: ``KnowledgeBase(url).import_runs(csv)`` into a fresh SQLite file (schema made
  before the clock starts), then a re-import of the same file, which must add 0 rows.
* raw baseline: ``sqlite3`` into a fresh file with the ``datasets``, ``algorithms`` and
  ``runs`` tables of schema revision 0001 (a text ``UNIQUE(run_key)``, an index on
  ``(dataset_id, algorithm_id)``, foreign keys), metarec's pragmas (WAL, ``synchronous=NORMAL``, ``foreign_keys=ON``), ONE transaction.
  Timed: read the CSV with the ``csv`` module (streamed, no pandas); build tuples
  ``(run_key, dataset_id, algorithm_id, fold, status, accuracy, fit_time)`` (``float``/``int``,
  name -> id dicts, new names inserted); ``executemany`` ``INSERT ... ON CONFLICT(run_key) DO
  NOTHING`` per chunk of metarec's chunk size; COMMIT.  The run_key has metarec's format
  ``h:<32 hex>:0`` (a 128-bit ``blake2b`` of the row), so the unique index gets keys of the
  same length and random order as metarec's; a sequential natural key would make its B-tree
  inserts artificially cheap (``--raw-key natural`` shows that variant).  No validation:
  what metarec spends on checking rows counts against it.

Rows/s are printed from wall-clock and process CPU time, with metarec/raw ratios (target:
wall ratio >= 0.5).  ``--profile`` adds a cProfile of one more import (top 25, cumulative).

Memory: the import runs in fresh subprocesses on a ``--rows`` file and a 3x larger one, each
printing its peak RSS (``ru_maxrss``) and the peak's growth during the import.  With streamed
chunks the growth should hardly depend on the file size.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import hashlib
import json
import pstats
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_ALGORITHMS, N_FOLDS = 20, 50
CHUNK = 100_000  # metarec's DEFAULT_CHUNKSIZE; the baseline uses the same
RAW_DDL = """PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;
CREATE TABLE datasets (id INTEGER NOT NULL, name VARCHAR(255) NOT NULL, source VARCHAR(64),
  source_id VARCHAR(1024), task VARCHAR(32), n_instances INTEGER, n_features INTEGER,
  fingerprint VARCHAR(128), PRIMARY KEY (id), CONSTRAINT uq_datasets_name UNIQUE (name));
CREATE TABLE algorithms (id INTEGER NOT NULL, name VARCHAR(255) NOT NULL, family VARCHAR(128),
  library VARCHAR(128), parameters TEXT, PRIMARY KEY (id),
  CONSTRAINT uq_algorithms_name UNIQUE (name));
CREATE TABLE runs (id INTEGER NOT NULL, run_key VARCHAR(512) NOT NULL,
  dataset_id INTEGER NOT NULL, algorithm_id INTEGER NOT NULL, protocol VARCHAR(64),
  seed INTEGER, fold INTEGER, status VARCHAR(16) NOT NULL, accuracy FLOAT, fit_time FLOAT,
  predict_time FLOAT, source VARCHAR(64), source_run_id VARCHAR(255), error TEXT,
  PRIMARY KEY (id), CONSTRAINT uq_runs_run_key UNIQUE (run_key),
  FOREIGN KEY(dataset_id) REFERENCES datasets (id) ON DELETE CASCADE,
  FOREIGN KEY(algorithm_id) REFERENCES algorithms (id) ON DELETE CASCADE);
CREATE INDEX ix_runs_dataset_algorithm ON runs (dataset_id, algorithm_id);
"""
# Linux keeps a vfork()ed child's ru_maxrss at its parent's peak across exec: a tiny python
# in between starts each measured import, so its ru_maxrss is its own.
LAUNCH = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
RAW_INSERT = (
    "INSERT INTO runs (run_key, dataset_id, algorithm_id, fold, status, accuracy, fit_time) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_key) DO NOTHING"
)


def write_csv(path: Path, rows: int, seed: int = 0) -> None:
    """Write ``rows`` run rows, 200 datasets at a time (bounded memory)."""
    rng = np.random.default_rng(seed)
    per = N_ALGORITHMS * N_FOLDS
    algorithms = np.char.add("algo_", np.repeat(np.arange(N_ALGORITHMS), N_FOLDS).astype(str))
    for first in range(0, rows, 200 * per):
        n = min(200 * per, rows - first)
        d = np.arange(first // per, first // per + 200)
        columns = {
            "dataset": np.char.add("dataset_", np.repeat(d, per).astype(str))[:n],
            "algorithm": np.tile(algorithms, len(d))[:n],
            "fold": np.tile(np.arange(N_FOLDS), len(d) * N_ALGORITHMS)[:n],
            "accuracy": rng.random(n),
            "time": rng.exponential(10.0, n) + 1e-3,
        }
        frame = pd.DataFrame(columns)
        frame.to_csv(path, mode="a", header=first == 0, index=False, float_format="%.6f")


def timed(function):
    """Return ``(function(), wall seconds, CPU seconds of this process)``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def raw_load(conn: sqlite3.Connection, csv_path: Path, key: str) -> None:
    """The timed part of the baseline (see the module docstring)."""
    conn.execute("BEGIN IMMEDIATE")
    ids: dict[str, dict[str, int]] = {"datasets": {}, "algorithms": {}}

    def name_id(table: str, name: str) -> int:
        known = ids[table]
        if name not in known:
            cursor = conn.execute(f"INSERT INTO {table} (name) VALUES (?)", (name,))
            known[name] = cursor.lastrowid
        return known[name]

    with open(csv_path, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        d, a, f, acc, fit = (
            header.index(c) for c in ("dataset", "algorithm", "fold", "accuracy", "time")
        )
        batch: list[tuple] = []
        for row in reader:
            if key == "hash":
                digest = hashlib.blake2b("\x1f".join(row).encode(), digest_size=16).hexdigest()
                run_key = f"h:{digest}:0"
            else:
                run_key = f"{row[d]}:{row[a]}:{row[f]}"
            ids_ = name_id("datasets", row[d]), name_id("algorithms", row[a])
            batch.append((run_key, *ids_, int(row[f]), "ok", float(row[acc]), float(row[fit])))
            if len(batch) == CHUNK:
                conn.executemany(RAW_INSERT, batch)
                batch = []
        conn.executemany(RAW_INSERT, batch)
    conn.execute("COMMIT")


def speed(csv_path: Path, tmp: Path, rows: int, args) -> None:
    from metarec.storage import KnowledgeBase

    print(f"\n== speed: {rows:,} runs, chunks of {CHUNK:,}, raw key = {args.raw_key}")
    conn = sqlite3.connect(tmp / "raw.db", isolation_level=None)
    conn.executescript(RAW_DDL)
    _, raw_wall, raw_cpu = timed(lambda: raw_load(conn, csv_path, args.raw_key))
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == rows
    conn.close()
    kb = KnowledgeBase(f"sqlite:///{tmp / 'metarec.db'}")
    report, mr_wall, mr_cpu = timed(lambda: kb.import_runs(csv_path))
    assert report.added == rows and report.rejected == 0, report
    again, re_wall, re_cpu = timed(lambda: kb.import_runs(csv_path))
    assert again.added == 0 and again.present == rows, again
    kb.close()
    print(f"{'':30}{'wall s':>9}{'rows/s':>12}{'cpu s':>9}{'rows/s (cpu)':>14}")
    for label, wall, cpu in (
        ("raw sqlite3 (csv module)", raw_wall, raw_cpu),
        ("metarec import_runs", mr_wall, mr_cpu),
        ("metarec re-import (0 added)", re_wall, re_cpu),
    ):
        print(f"{label:30}{wall:9.2f}{rows / wall:12,.0f}{cpu:9.2f}{rows / cpu:14,.0f}")
    ratio = raw_wall / mr_wall
    print(f"ratio metarec/raw (rows/s): wall {ratio:.2f}, cpu {raw_cpu / mr_cpu:.2f}")
    verdict = "OK" if ratio >= 0.5 else "BELOW TARGET"
    print(f"target wall ratio >= 0.50: {verdict}; re-import added {again.added} rows")
    if args.profile:  # one more import, into a fresh file, not timed above
        print("\n== cProfile of a metarec import into a fresh file (top 25, cumulative)")
        with KnowledgeBase(f"sqlite:///{tmp / 'profiled.db'}") as kb, cProfile.Profile() as prof:
            kb.import_runs(csv_path)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def child(csv_path: str, db_path: str) -> None:
    """Import in this fresh process; print peak RSS before / after as JSON (KiB)."""
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{db_path}")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    report = kb.import_runs(csv_path)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kb.close()
    print(json.dumps({"before": before, "peak": peak, "added": report.added, "s": seconds}))


def memory(tmp: Path, rows: int) -> None:
    print(f"\n== memory: peak RSS of an import in a fresh process (chunks of {CHUNK:,})")
    print(f"{'rows':>10}{'CSV MiB':>9}{'s':>8}{'peak MiB':>10}{'before':>9}{'growth':>9}")
    growth: list[float] = []
    for n in (rows, 3 * rows):
        path = tmp / f"mem_{n}.csv"
        write_csv(path, n, seed=1)
        db = tmp / f"mem_{n}.db"
        cmd = [sys.executable, "-c", LAUNCH, sys.executable, __file__, "--child"]
        cmd += [str(path), str(db)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        assert result["added"] == n, result
        before, peak = result["before"] / 1024, result["peak"] / 1024
        size = path.stat().st_size / 2**20
        print(f"{n:>10,}{size:9.0f}{result['s']:8.1f}{peak:10.0f}{before:9.0f}{peak - before:9.0f}")
        growth.append(peak - before)
        for extra in [path, *tmp.glob(f"mem_{n}.db*")]:
            extra.unlink()
    print(f"growth 3x file / 1x file: {growth[1] / growth[0]:.2f} (3.00 = proportional to size)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="runs in the speed file")
    parser.add_argument("--quick", action="store_true", help="100,000-row smoke run")
    parser.add_argument("--raw-key", choices=("hash", "natural"), default="hash")
    parser.add_argument("--profile", action="store_true", help="also cProfile an import")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    rows = 100_000 if args.quick else args.rows
    versions = f"sqlite {sqlite3.sqlite_version}, pandas {pd.__version__}"
    print(f"python {sys.version.split()[0]}, {versions}")
    with tempfile.TemporaryDirectory(prefix="metarec-import-") as name:
        tmp = Path(name)
        if not args.skip_speed:
            csv_path = tmp / "runs.csv"
            start = time.perf_counter()
            write_csv(csv_path, rows)
            size = csv_path.stat().st_size / 2**20
            print(f"wrote {rows:,} rows ({size:.0f} MiB) in {time.perf_counter() - start:.1f} s")
            speed(csv_path, tmp, rows, args)
            csv_path.unlink()
        if not args.skip_memory:
            memory(tmp, rows)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _pages import run_with_page

    run_with_page(
        main,
        title="Speed and memory of importing runs",
        intro=(
            "`metarec import runs` of a run file (datasets x algorithms x folds, so that the performance matrix is grouped) against a raw `sqlite3` script writing the same rows in one transaction, rows per second of wall and CPU time (target: at least half the raw rate); a re-import (adds nothing); and the peak RSS of an import in a fresh process for files of one and three times the rows (memory bounded by the chunk, not the file)."
        ),
        script="import_speed.py",
    )
