"""A new user's first calls: inside their budget, and the knowledge base they leave behind.

Usage::

    python benchmarks/first_call.py [--repeats 3] [--markdown docs/benchmarks/first-call.md]

Each measurement starts from a fresh ``METAREC_HOME`` (no knowledge base, no cache), in a
fresh process, as a new installation meets it:

* ``metarec run sklearn:breast_cancer --budget 10 --output m.joblib``: wall time against
  the target (at most 10.5 s), and then the user's knowledge base file: its size and rows
  (only that run's: the built-in knowledge base is read where metarec is installed);
* ``metarec run sklearn:breast_cancer --budget 3 --output m.joblib``: at most 3.5 s, with a
  saved model;
* ``metarec recommend sklearn:breast_cancer`` twice in one home: the first call's wall time
  over the second's (target at most 1.3).

Wall times are the elapsed seconds of the whole command (``/usr/bin/time``'s, measured with
``wait4``), and peak resident memory of the command and its worker processes.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

RUN_TARGETS = {10: 10.5, 3: 3.5}


def _timed(args, env) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) of the command and its children, exit code."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "metarec", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    error = process.stderr.read().decode() if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"metarec {' '.join(args)} failed ({code}): {error[-400:]}")
    return wall, usage.ru_maxrss / 1024, code


def _fresh_home() -> tuple[Path, dict]:
    home = Path(tempfile.mkdtemp(prefix="metarec-first-"))
    env = {**os.environ, "METAREC_HOME": str(home / "home"), "MPLCONFIGDIR": str(home / "mpl")}
    env.pop("METAREC_DB", None)
    return home, env


def _kb_rows(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("datasets", "algorithms", "runs", "metafeatures")
        }
    finally:
        conn.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    data = "sklearn:breast_cancer"
    run_rows, kb_rows, recommend_rows = [], [], []
    for budget, target in RUN_TARGETS.items():
        walls = []
        for _ in range(args.repeats):
            home, env = _fresh_home()
            model = home / "m.joblib"
            wall, rss, _ = _timed(
                ["run", data, "--budget", str(budget), "--output", str(model)], env
            )
            walls.append(wall)
            kb = home / "home" / "kb.sqlite"
            if budget == 10 and len(kb_rows) == 0:
                rows = _kb_rows(kb)
                kb_rows.append(
                    [f"after `run --budget {budget}`", f"{kb.stat().st_size / 1e6:.2f} MB",
                     rows["datasets"], rows["algorithms"], rows["runs"], rows["metafeatures"]]
                )  # fmt: skip
            run_rows.append(
                [f"`run --budget {budget}`", wall, target, "yes" if model.is_file() else "no",
                 f"{rss:.0f}"]
            )  # fmt: skip
            print(f"run --budget {budget}: {wall:.2f} s (target {target} s), {rss:.0f} MiB")
    ratios = []
    for _ in range(args.repeats):
        home, env = _fresh_home()
        first, _, _ = _timed(["recommend", data, "--format", "csv"], env)
        second, _, _ = _timed(["recommend", data, "--format", "csv"], env)
        ratios.append(first / second)
        recommend_rows.append([first, second, first / second])
        print(f"recommend: first {first:.2f} s, second {second:.2f} s, ratio {first / second:.2f}")
    load = os.getloadavg()[0]
    text = (
        f"`python benchmarks/first_call.py --repeats {args.repeats}`: every call in a fresh "
        "`METAREC_HOME` and a fresh process, on `sklearn:breast_cancer` (569 rows). Load "
        f"average when it ended: {load:.1f} on {os.cpu_count()} cores.\n\n"
        "## `run` inside its budget\n\n"
        + markdown_table(
            ["call", "wall (s)", "target (s)", "model saved", "peak RSS (MiB)"], run_rows
        )
        + "\n\n## The knowledge base the first `run` leaves\n\n"
        "The built-in knowledge base is read where metarec is installed; the user's file "
        "holds only what the run stored.\n\n"
        + markdown_table(
            ["file", "size", "datasets", "algorithms", "runs", "metafeature rows"], kb_rows
        )
        + "\n\n## The first `recommend` against the second\n\n"
        + markdown_table(["first (s)", "second (s)", "first / second"], recommend_rows)
        + f"\n\nMedian ratio {statistics.median(ratios):.2f} (target at most 1.3)."
    )
    write_page(args.markdown, "A new user's first calls", text)


if __name__ == "__main__":
    main()
