"""`metarec recommend` and `metarec metafeatures` on a file of a million rows.

Usage::

    python benchmarks/recommend_large.py [--rows 1130000] [--repeats 3]
        [--markdown docs/benchmarks/recommend-large.md]

The file: ``--rows`` rows of 7 numeric columns (normal and log-normal), 3 text columns (4,
100 and 2 levels) and a binary target that depends on two of them, written as CSV (seed 0).
Each command runs in a fresh process and a fresh ``METAREC_HOME`` (the built-in knowledge
base); the page gives its wall time and peak resident memory (``wait4``), against the
targets of at most 10 s and 2 GB, and for comparison the seconds pandas takes to read the
file.  Beyond 100,000 rows the metafeatures other than counts are estimated on a stratified
subsample of 100,000 rows (``metarec.metafeatures.extract``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page


def write_file(path: Path, rows: int) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"x{i}": rng.normal(size=rows) for i in range(4)})
    for i in range(4, 7):
        frame[f"x{i}"] = rng.lognormal(size=rows)
    frame["kind"] = rng.choice(["a", "b", "c", "d"], rows)
    frame["shop"] = np.char.add("s", rng.integers(0, 100, rows).astype(str))
    frame["flag"] = rng.choice(["yes", "no"], rows)
    signal = frame["x0"] + (frame["kind"] == "a") + rng.normal(size=rows)
    frame["target"] = np.where(signal > 0.8, "pos", "neg")
    frame.to_csv(path, index=False)


def timed(args: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``python -m metarec ARGS``."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "metarec", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"metarec {' '.join(args)} failed")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main(argv=None) -> None:
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_130_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="metarec-recommend-large-"))
    data = work / "large.csv"
    write_file(data, args.rows)
    size = data.stat().st_size / 2**20
    start = time.perf_counter()
    pd.read_csv(data)
    read = time.perf_counter() - start
    rows = []
    for command in (["metafeatures", str(data), "--format", "csv"],
                    ["recommend", str(data), "--format", "csv"]):  # fmt: skip
        walls, peaks = [], []
        for repeat in range(args.repeats):
            env = {**os.environ, "METAREC_HOME": str(work / f"home-{command[0]}-{repeat}")}
            env.pop("METAREC_DB", None)
            wall, peak = timed(command, env)
            walls.append(wall)
            peaks.append(peak)
            print(f"{command[0]}: {wall:.2f} s, {peak:.0f} MiB", flush=True)
        rows.append([f"`metarec {command[0]}`", statistics.median(walls), max(walls),
                     f"{max(peaks):.0f}"])  # fmt: skip
    load = os.getloadavg()[0]
    text = (
        f"`python benchmarks/recommend_large.py --rows {args.rows} --repeats {args.repeats}`: a "
        f"CSV file of {args.rows:,} rows and 10 feature columns ({size:.0f} MiB; pandas reads "
        f"it in {read:.1f} s), each command in a fresh process and home. Targets: at most "
        f"10 s and 2 GB. Load average when it ended: {load:.1f} on {os.cpu_count()} cores.\n\n"
        + markdown_table(["command", "median wall (s)", "slowest (s)", "peak RSS (MiB)"], rows)
        + "\n\nThe counts (rows, columns, kinds, missing values, classes) are exact; the other "
        "metafeatures are estimated on a stratified subsample of 100,000 rows."
    )
    write_page(args.markdown, "recommend on a million rows", text)


if __name__ == "__main__":
    main()
