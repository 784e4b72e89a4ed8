"""Re-importing the same runs: as fast as importing them, named (source, source_run_id) or not.

Usage::

    python benchmarks/reimport_speed.py
    python benchmarks/reimport_speed.py --rows 500000 1000000 --markdown docs/benchmarks/reimport.md

For each size, a run file of named runs and one of unnamed runs (5,000 datasets, 1 fold,
accuracy and time) is imported into a new SQLite knowledge base with ``metarec import runs``
in a fresh process, then imported again (nothing to add).  Printed: wall seconds of both, the
ratio re-import / import (the baseline measured in the same run), and the peak RSS of each.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page


def run_file(path: Path, n: int, *, named: bool) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "dataset": np.char.add("dataset_", (np.arange(n) % 5000).astype(str)),
            "algorithm": np.char.add("algo_", (np.arange(n) // 5000).astype(str)),
            "fold": 0,
            "accuracy": rng.uniform(0.5, 1.0, n).round(6),
            "time": rng.uniform(0.1, 10.0, n).round(6),
        }
    )
    if named:
        frame["source"] = "openml"
        frame["source_run_id"] = np.arange(n).astype(str)
    frame.to_csv(path, index=False)


def timed_import(db: Path, path: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``metarec import runs`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "metarec.cli", "--db", str(db), "import", "runs", str(path)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[500_000, 1_000_000])
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in args.rows:
            for named in (True, False):
                path = Path(folder) / f"runs-{n}-{named}.csv"
                run_file(path, n, named=named)
                db = Path(folder) / f"kb-{n}-{named}.sqlite"
                first, first_rss = timed_import(db, path)
                again, again_rss = timed_import(db, path)
                kind = "named" if named else "unnamed"
                rows.append([f"{n:,} {kind}", first, again, again / first, first_rss, again_rss])
                print(
                    f"{n:>9,} {kind:8} import {first:6.2f} s, re-import {again:6.2f} s, "
                    f"ratio {again / first:.2f}",
                    flush=True,
                )
                path.unlink()
                db.unlink()
    columns = [
        "runs",
        "import s",
        "re-import s",
        "re-import / import",
        "import MiB",
        "re-import MiB",
    ]
    table = markdown_table(columns, rows)
    print(table)
    write_page(
        args.markdown,
        "Re-importing the same runs",
        "`metarec import runs` of a file into a new SQLite knowledge base, then of the same file "
        "again (nothing to add), each in a fresh process; peak RSS is the largest of the "
        "processes so far. Written by `python benchmarks/reimport_speed.py`.\n\n" + table,
    )


if __name__ == "__main__":
    sys.exit(main())
