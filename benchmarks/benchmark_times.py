"""Are the benchmark runner's stored times the fits' own cost, and what does a run cost?

One command, ratios against baselines measured in the same run:

    python benchmarks/benchmark_times.py [--dataset sklearn:iris] [--protocol cv5]
        [--markdown docs/benchmarks/benchmark-times.md]

1. In-process baseline: every pipeline of the default portfolio (``build_pipeline``,
   ``random_state=0``) fitted on the same folds the runner uses, in this process, BLAS/OpenMP
   limited to one thread, after one warm-up pass; CPU (``time.process_time``) and wall time of
   each ``fit``.  Also scikit-learn's ``cross_validate`` of the same pipelines and folds (its
   ``fit_time`` is wall time) and its total wall time.
2. ``metarec benchmark DATASET --protocol P -j J`` for J in 1, 2 in a fresh process with a
   fresh knowledge base and cache: the whole command's wall time, and the sums of the stored
   ``fit_time`` (CPU) and ``fit_wall_time``.

Targets: stored fit-time sums within 1.3x of the in-process ones, for every -j; the whole
command within 1.5x of plain ``cross_validate``.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before numpy loads: the baseline is single-threaded too

import argparse  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _pages import markdown_table, write_page  # noqa: E402


def in_process(dataset: str, protocol: str):
    """Per-(algorithm, fold) CPU and wall seconds of fit, in this process, warm."""
    import warnings

    from sklearn.base import clone
    from sklearn.model_selection import cross_validate

    from metarec.algorithms import build_pipeline, default_portfolio
    from metarec.data import load_dataset
    from metarec.evaluation import get_protocol

    warnings.simplefilter("ignore")
    ds = load_dataset(dataset)
    _, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
    folds = list(get_protocol(protocol, random_state=0).split(ds.X, y))
    pipelines = {
        a.name: build_pipeline(
            a,
            numeric_columns=tuple(ds.numeric_columns),
            categorical_columns=tuple(ds.categorical_columns),
            random_state=0,
        )
        for a in default_portfolio()
    }
    start = time.perf_counter()
    for pipeline in pipelines.values():
        cross_validate(pipeline, ds.X, y, cv=folds)
    cold_cv_wall = time.perf_counter() - start
    rows = []
    for name, pipeline in pipelines.items():
        for index, (train, _test) in enumerate(folds):
            model = clone(pipeline)
            X_train, y_train = ds.X.iloc[train], y[train]
            wall, cpu = time.perf_counter(), time.process_time()
            model.fit(X_train, y_train)
            rows.append(
                {
                    "algorithm": name,
                    "fold": index,
                    "cpu": time.process_time() - cpu,
                    "wall": time.perf_counter() - wall,
                }
            )
    start = time.perf_counter()
    cv_fit = 0.0
    for pipeline in pipelines.values():
        cv_fit += float(np.sum(cross_validate(pipeline, ds.X, y, cv=folds)["fit_time"]))
    warm_cv_wall = time.perf_counter() - start
    return pd.DataFrame(rows), cv_fit, cold_cv_wall, warm_cv_wall


def plain_cross_validate_process(dataset: str, protocol: str) -> float:
    """Wall seconds of a fresh process that cross-validates all pipelines (the user's path)."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "import numpy as np\n"
        "from sklearn.model_selection import cross_validate\n"
        "from metarec.benchmark import build_pipeline, default_portfolio\n"
        "from metarec.data import load_dataset\n"
        "from metarec.evaluation import get_protocol\n"
        f"ds = load_dataset({dataset!r})\n"
        "_, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)\n"
        f"folds = list(get_protocol({protocol!r}, random_state=0).split(ds.X, y))\n"
        "for a in default_portfolio():\n"
        "    p = build_pipeline(a, numeric_columns=tuple(ds.numeric_columns),\n"
        "        categorical_columns=tuple(ds.categorical_columns), random_state=0)\n"
        "    cross_validate(p, ds.X, y, cv=folds)\n"
    )
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def benchmark_command(dataset: str, protocol: str, jobs: int, work: Path):
    """Wall seconds of ``metarec benchmark`` and the runs it stored."""
    from metarec.storage import KnowledgeBase

    db = work / f"kb-j{jobs}.sqlite"
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(name, None)  # the command must get single-threaded fits by itself
    env["METAREC_HOME"] = str(work / f"home-j{jobs}")
    command = [
        sys.executable,
        "-m",
        "metarec.cli",
        "--db",
        f"sqlite:///{db}",
        "benchmark",
        dataset,
        "--protocol",
        protocol,
        "-j",
        str(jobs),
        "--cache-dir",
        str(work / f"cache-j{jobs}"),
        "--format",
        "csv",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    runs = KnowledgeBase(f"sqlite:///{db}").runs(aggregate=False)
    return wall, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="sklearn:iris")
    parser.add_argument("--protocol", default="cv5")
    parser.add_argument("--markdown", type=Path, default=None, help="write the page here")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    print(f"dataset {args.dataset}, protocol {args.protocol}; load average {os.getloadavg()}")
    base, cv_fit, cold_cv_wall, warm_cv_wall = in_process(args.dataset, args.protocol)
    fresh_cv_wall = plain_cross_validate_process(args.dataset, args.protocol)
    print(
        f"in-process: fit CPU sum {base['cpu'].sum():.2f} s, fit wall sum {base['wall'].sum():.2f} s"
        f" over {len(base)} fits; cross_validate fit_time sum {cv_fit:.2f} s"
    )
    print(
        f"plain cross_validate of all pipelines: {warm_cv_wall:.2f} s warm in-process, "
        f"{cold_cv_wall:.2f} s first pass in-process, {fresh_cv_wall:.2f} s as a fresh process"
    )
    per_algorithm = base.groupby("algorithm")[["cpu", "wall"]].sum()
    table: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in (1, 2):
            wall, runs = benchmark_command(args.dataset, args.protocol, jobs, Path(tmp))
            fit_cpu, fit_wall = runs["fit_time"].sum(), runs["fit_wall_time"].sum()
            print(
                f"-j {jobs}: stored fit CPU sum {fit_cpu:.2f} s "
                f"({fit_cpu / base['cpu'].sum():.2f}x in-process CPU), stored fit wall sum "
                f"{fit_wall:.2f} s ({fit_wall / cv_fit:.2f}x cross_validate fit_time); "
                f"whole command {wall:.2f} s = {wall / fresh_cv_wall:.2f}x the fresh-process "
                f"cross_validate, {wall / warm_cv_wall:.2f}x the warm in-process one"
            )
            stored = runs.groupby("algorithm")[["fit_time", "fit_wall_time"]].sum()
            ratio = (stored["fit_time"] / per_algorithm["cpu"]).sort_values()
            print(
                "   stored/in-process fit CPU per algorithm: "
                + ", ".join(f"{k} {v:.2f}" for k, v in ratio.items())
            )
            table.setdefault("stored fit CPU sum / the same fits in-process (CPU)", []).append(
                f"{fit_cpu / base['cpu'].sum():.2f}x"
            )
            table.setdefault("per algorithm, range", []).append(
                f"{ratio.min():.2f}-{ratio.max():.2f}x"
            )
            table.setdefault("stored fit wall sum / `cross_validate`'s `fit_time` sum", []).append(
                f"{fit_wall / cv_fit:.2f}x"
            )
            table.setdefault(
                "whole command / a fresh Python process running `cross_validate` of the same "
                "pipelines and folds",
                [],
            ).append(f"**{wall / fresh_cv_wall:.2f}x** ({wall:.2f} s / {fresh_cv_wall:.2f} s)")
            table.setdefault("the same / `cross_validate` in an already warm process", []).append(
                f"{wall / warm_cv_wall:.2f}x ({warm_cv_wall:.2f} s)"
            )
    print(f"load average after: {os.getloadavg()}")
    if args.markdown is not None:
        targets = {
            "stored fit CPU sum / the same fits in-process (CPU)": "within 1.3x",
            "whole command / a fresh Python process running `cross_validate` of the same "
            "pipelines and folds": "<= 1.5x",
        }
        rows = [(k, *v, targets.get(k, "")) for k, v in table.items()]
        text = "\n\n".join(
            [
                f"`metarec benchmark {args.dataset} --protocol {args.protocol}` (the default "
                f"portfolio, {len(base)} fits) against the same pipelines and folds fitted in "
                "this process (one BLAS/OpenMP thread, after a warm-up pass) and scikit-learn's "
                "`cross_validate`, all measured in the same run. Load average "
                f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after.",
                markdown_table(["", "`-j 1`", "`-j 2`", "target"], rows),
                "Written by `python benchmarks/benchmark_times.py --markdown "
                "docs/benchmarks/benchmark-times.md`.",
            ]
        )
        write_page(args.markdown, "What the benchmark runner's stored times cost", text)


if __name__ == "__main__":
    main()
