"""`metarec run` on a large dataset: is the budget kept, and why were slow algorithms skipped?

Usage::

    python benchmarks/run_large.py --markdown docs/benchmarks/run-large.md

A 200,000-row, 50-column ``make_classification`` dataset (seed 0) written to a CSV file;
``metarec run FILE --budget 60 --output model.joblib`` in a fresh process with a fresh
knowledge base (a copy of the built-in one).  Reports the command's wall time against the
budget (target: at most budget x 1.1), its peak resident memory and that of its worker
processes (``/usr/bin/time``-style, from ``wait4``), and the leaderboard: what ran, what was
skipped and why (expected time of its folds against the time left).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _large import large_csv
from _pages import markdown_table, write_page


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--budget", default="60")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="metarec-run-large-"))
    data = large_csv(work, args.rows, args.columns)
    model = work / "model.joblib"
    command = [
        sys.executable, "-m", "metarec", "--db", f"sqlite:///{work / 'kb.sqlite'}", "run",
        str(data), "--budget", args.budget, "--output", str(model), "--format", "json",
    ]  # fmt: skip
    env = {**os.environ, "METAREC_HOME": str(work / "home")}
    # build the built-in KB's copy once, outside the timed command
    subprocess.run(
        [sys.executable, "-m", "metarec", "recommend", "sklearn:iris", "--format", "csv"],
        env=env,
        capture_output=True,
        check=True,
    )
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"metarec run failed: {err.decode()[-2000:]}")
    doc = json.loads(out)
    budget = float(doc.get("budget", 0) or 0) or float(args.budget.rstrip("s"))
    rows = doc["results"]
    columns = ("algorithm", "cv_score", "fit_time", "expected_time", "planned", "order", "status")
    table = markdown_table(
        (*columns, "message"),
        [
            tuple("" if r.get(c) is None else r[c] for c in columns) + (r.get("message", ""),)
            for r in rows
        ],
    )
    summary = (
        f"- wall time of the command: {wall:.1f} s for a budget of {budget:g} s "
        f"({wall / budget:.2f} x the budget; target at most 1.10)\n"
        f"- peak resident memory of the largest process (command or worker): "
        f"{usage.ru_maxrss / 1024:.0f} MiB\n"
        f"- answer: {doc['best']}; {sum(r['status'] == 'ok' for r in rows)} algorithms "
        f"evaluated, {sum(r['status'] == 'skipped' for r in rows)} skipped, "
        f"{sum(r['status'] == 'timeout' for r in rows)} stopped by the budget"
    )
    print(summary)
    print(err.decode()[-1000:])
    write_page(
        args.markdown,
        "`metarec run` on a large dataset",
        f"{args.rows:,} rows x {args.columns} numeric columns (`make_classification`, seed "
        f"0), `metarec run FILE --budget {args.budget} --output model.joblib`, fresh process "
        "and knowledge base, -j 1, cv5.  Written by `python benchmarks/run_large.py`.\n\n"
        + summary
        + "\n\n"
        + table,
    )


if __name__ == "__main__":
    sys.exit(main())
