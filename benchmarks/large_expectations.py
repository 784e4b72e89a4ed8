"""The first five recommendations on a large dataset: slow ones kept out, times that hold?

Usage::

    python benchmarks/large_expectations.py --markdown docs/benchmarks/large-expectations.md

A 200,000-row, 50-column ``make_classification`` dataset (seed 0, the one of
``benchmarks/run_large.py``) written to a CSV file.  ``metarec recommend FILE`` (fresh
process, the built-in knowledge base) gives the first five algorithms and their expected fit
times with 80 % intervals.  Each of the five is then measured with
``metarec benchmark FILE --algorithms NAME --protocol holdout --timeout 3600`` (a fresh
knowledge base; one fit on the 60 % training part, single-threaded worker, killed after an
hour): a time over the hour shows as ``timeout``.

Expected against measured: the knowledge base's times are cv10 fits, on 90 % of a dataset's
rows, so the expectation for the holdout's 120,000 training rows is the runtime model's for a
dataset of 120,000 / 0.9 rows (same features and classes); it is printed beside the table's
expectation for the whole 200,000 rows.  Targets: no algorithm of the first five over an hour,
and each measured time within a factor 3 of its expectation.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cli import metarec as _metarec
from _large import large_csv
from _pages import markdown_table, write_page

#: Share of the rows a holdout fit trains on, and of a cv10 fit (the knowledge base's).
HOLDOUT_TRAIN, CV10_TRAIN = 0.6, 0.9


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--first", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument(
        "--scaling",
        default="2500,10000,40000",
        help="comma-separated row counts (first rows of the data) at which the first ones are "
        "measured again; empty: none",
    )
    args = parser.parse_args(argv)
    import io

    import pandas as pd

    from metarec.recommender import Recommender, fitted_recommender, size_features
    from metarec.storage import KnowledgeBase, open_builtin

    work = Path(tempfile.mkdtemp(prefix="metarec-large-expectations-"))
    data = large_csv(work, args.rows, args.columns)
    env = {**os.environ, "METAREC_HOME": str(work / "home")}
    table = pd.read_csv(io.StringIO(_metarec("recommend", data, "--format", "csv", env=env)))
    first = table.head(args.first)
    recommender = fitted_recommender(open_builtin(), Recommender(task="classification"))
    equivalent = args.rows * HOLDOUT_TRAIN / CV10_TRAIN
    scaled, low, high = (
        v[0]
        for v in recommender.ranker_.runtime_.predict(
            size_features([equivalent], [args.columns], [2]), interval=True
        )
    )
    index = {str(name): j for j, name in enumerate(recommender.algorithms_)}
    url = f"sqlite:///{work / 'measured.sqlite'}"
    _metarec("--db", url, "db", "upgrade", env=env)
    rows = []
    for rank, row in enumerate(first.itertuples(), 1):
        _metarec(
            "--db", url, "benchmark", data, "--target", "target", "--algorithms", row.algorithm,
            "--protocol", "holdout", "--timeout", args.timeout, "-j", "1", env=env,
        )  # fmt: skip
        runs = KnowledgeBase(url).runs(aggregate=False)
        run = runs.loc[runs["algorithm"] == row.algorithm].iloc[-1]
        j = index[row.algorithm]
        expected = float(scaled[j])
        measured = float(run["fit_time"]) if run["status"] == "ok" else float("nan")
        ratio = measured / expected
        inside = "yes" if low[j] <= measured <= high[j] else "no"
        rows.append(
            [
                rank, row.algorithm, row.expected_time,
                f"{row.expected_time_low:.3g}-{row.expected_time_high:.3g}", expected,
                f"{low[j]:.3g}-{high[j]:.3g}", measured, run["status"], ratio,
                "yes" if 1 / 3 <= ratio <= 3 else "no", inside,
            ]
        )  # fmt: skip
        print(rows[-1], flush=True)
    columns = [
        "rank", "algorithm", f"expected ({args.rows:,} rows)", "80 % interval",
        "expected (holdout's training rows)", "80 % interval (holdout's training rows)",
        "measured fit time", "status", "measured / expected", "within x3",
        "inside the interval",
    ]  # fmt: skip
    text = markdown_table(columns, rows)
    over = sum(r[7] == "timeout" for r in rows)
    within = sum(r[9] == "yes" for r in rows)
    inside = sum(r[10] == "yes" for r in rows)
    summary = (
        f"- first {len(rows)} on {args.rows:,} x {args.columns}: "
        f"{', '.join(r[1] for r in rows)}\n"
        f"- over the {args.timeout:g} s limit: {over} of {len(rows)}\n"
        f"- measured within a factor 3 of the expectation: {within} of {len(rows)}\n"
        f"- measured inside the 80 % interval: {inside} of {len(rows)}"
    )
    print(text)
    print(summary)
    sizes = [int(v) for v in args.scaling.split(",") if v.strip()]
    scaling = _scaling(
        data, sizes, [r[1] for r in rows], {r[1]: r[6] for r in rows}, args, url, env,
        recommender, index,
    )  # fmt: skip
    write_page(
        args.markdown,
        "Expected times of the first recommendations on a large dataset",
        f"{args.rows:,} rows x {args.columns} numeric columns (`make_classification`, seed "
        "0). `metarec recommend FILE` (fresh process, built-in knowledge base) ranks; each of "
        f"the first {args.first} is measured with `metarec benchmark FILE --algorithms NAME "
        f"--protocol holdout --timeout {args.timeout:g}` (one single-threaded fit on the 60 % "
        "training part; a fit over the limit is killed and shows as `timeout`). The knowledge "
        "base's times are cv10 fits (90 % of a dataset's rows), so the expectation compared "
        "is the runtime model's for a dataset of "
        f"{args.rows * HOLDOUT_TRAIN:,.0f} / 0.9 rows; the table's own expectation for the "
        f"whole data is beside it.\n\n{summary}\n\n{text}\n\n{scaling}"
        "Written by `python benchmarks/large_expectations.py`.",
    )


def _scaling(data, sizes, algorithms, measured_full, args, url, env, recommender, index) -> str:
    """The same algorithms on the first ``sizes`` rows of the data: where the model departs.

    The knowledge base's largest dataset bounds the sizes its times were measured on; the
    local exponent between two sizes is ``log(t2 / t1) / log(n2 / n1)`` of the measured fit
    times, beside the runtime model's over the same step.
    """
    import numpy as np
    import pandas as pd

    from metarec.recommender import size_features
    from metarec.storage import KnowledgeBase

    if not sizes:
        return ""
    frame = pd.read_csv(data)
    sizes = sorted(n for n in sizes if n < args.rows)
    measured = {}
    for n in sizes:
        path = data.with_name(f"first-{n}.csv")
        frame.head(n).to_csv(path, index=False)
        _metarec(
            "--db", url, "benchmark", path, "--target", "target", "--algorithms",
            ",".join(algorithms), "--protocol", "holdout", "--timeout", args.timeout, "-j", "1",
            env=env,
        )  # fmt: skip
        runs = KnowledgeBase(url).runs(aggregate=False)
        runs = runs.loc[runs["dataset"].astype(str).str.startswith(path.stem)]
        for algorithm in algorithms:
            run = runs.loc[runs["algorithm"] == algorithm].iloc[-1]
            ok = run["status"] == "ok"
            measured[algorithm, n] = float(run["fit_time"]) if ok else float("nan")
    sizes = [*sizes, args.rows]
    for algorithm in algorithms:
        measured[algorithm, args.rows] = measured_full[algorithm]
    trained = np.array(sizes, dtype=float) * HOLDOUT_TRAIN / CV10_TRAIN
    n_features = np.full(len(sizes), args.columns)
    expected, low, high = recommender.ranker_.runtime_.predict(
        size_features(trained, n_features, [2] * len(sizes)), interval=True
    )
    largest = float(np.nanmax(recommender.ranker_.n_instances_))
    rows = []
    for algorithm in algorithms:
        e = expected[:, index[algorithm]]
        t = np.array([measured[algorithm, n] for n in sizes])
        steps = np.log(np.array(sizes[1:]) / np.array(sizes[:-1]))
        local = np.concatenate([[np.nan], np.log(t[1:] / t[:-1]) / steps])
        model = np.concatenate([[np.nan], np.log(e[1:] / e[:-1]) / steps])
        for k, n in enumerate(sizes):
            ratio = t[k] / e[k]
            lo, hi = low[k, index[algorithm]], high[k, index[algorithm]]
            rows.append(
                [
                    algorithm, n, e[k], f"{lo:.3g}-{hi:.3g}", t[k], ratio,
                    "yes" if 1 / 3 <= ratio <= 3 else "no", "yes" if lo <= t[k] <= hi else "no",
                    local[k], model[k],
                ]
            )  # fmt: skip
    table = markdown_table(
        [
            "algorithm", "rows", "expected", "80 % interval", "measured fit time",
            "measured / expected", "within x3", "inside the interval",
            "measured exponent (from the row above)", "model's exponent",
        ],
        rows,
    )  # fmt: skip
    print(table)
    return (
        "## The same algorithms on the first rows of the data\n\n"
        f"Each of the first {len(algorithms)} measured the same way on the first "
        f"{', '.join(f'{n:,}' for n in sizes[:-1])} rows of the data (one `metarec benchmark "
        "--protocol holdout` call per size), against the runtime model's expectation for "
        "the holdout's training rows of that size (as above: rows x 0.6 / 0.9). The largest dataset of the built-in knowledge base has "
        f"{largest:,.0f} rows: above it the model extrapolates. The exponents are the "
        "local slopes of log time over log rows from the size in the row above.\n\n"
        f"{table}\n\n"
    )


if __name__ == "__main__":
    sys.exit(main())
