"""How fast ``metarec --help`` starts, against ``python -c pass`` measured in the same run.

``metarec --help`` imports only click and metarec's command table: scikit-learn, openml,
matplotlib, pandas and SQLAlchemy are imported inside the commands that need them.  This
script runs each command ``--repeat`` times (after one warm-up run, so the file cache is warm
for both), alternating the two so that machine load affects both alike, and prints the
median wall time of each, their difference (metarec's own start-up cost) and their ratio.

Run: ``python benchmarks/cli_startup.py [--repeat 20] [--markdown docs/benchmarks/cli-startup.md]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pages import markdown_table, write_page


def _time(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="runs of each command")
    parser.add_argument("--markdown", type=Path, default=None, help="write the page here")
    args = parser.parse_args()
    script = shutil.which("metarec")
    metarec = [script, "--help"] if script else [sys.executable, "-m", "metarec.cli", "--help"]
    baseline = [sys.executable, "-c", "pass"]
    _time(metarec), _time(baseline)  # warm-up
    times: dict[str, list[float]] = {"python -c pass": [], "metarec --help": []}
    for _ in range(args.repeat):
        times["python -c pass"].append(_time(baseline))
        times["metarec --help"].append(_time(metarec))
    base = statistics.median(times["python -c pass"])
    ours = statistics.median(times["metarec --help"])
    print(f"{'command':<16} {'median s':>9} {'min s':>7}")
    for name, values in times.items():
        print(f"{name:<16} {statistics.median(values):9.3f} {min(values):7.3f}")
    summary = (
        f"metarec start-up cost: {ours - base:.3f} s; ratio to python -c pass: {ours / base:.1f}x"
    )
    print(summary)
    if args.markdown is not None:
        rows = [(name, statistics.median(values), min(values)) for name, values in times.items()]
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        write_page(
            args.markdown,
            "Start-up time of the command line",
            "\n\n".join(
                [
                    "`metarec --help` imports only click and metarec's command table "
                    "(scikit-learn, openml, matplotlib, pandas and SQLAlchemy are imported inside "
                    f"the commands that need them). Each command ran {args.repeat} times, "
                    "alternating, after one warm-up run; seconds of wall time. Load average at "
                    f"the end: {load}.",
                    markdown_table(["command", "median s", "min s"], rows),
                    summary + ".",
                    f"Written by `python benchmarks/cli_startup.py --repeat {args.repeat} "
                    "--markdown docs/benchmarks/cli-startup.md`.",
                ]
            ),
        )


if __name__ == "__main__":
    main()
