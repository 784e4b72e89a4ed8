"""Benchmark the configurations on every built-in dataset, on at most 1,000 rows (a long build).

Usage (one command; rerun it to resume, on this machine or a new one)::

    python benchmarks/build_configurations.py ../shared/datasets/pmlb
        --regression ../shared/datasets/regression [--large ../shared/datasets/large] [-j 1] [--timeout 20] [--max-rows 1000]
        [--out benchmarks/builds/configurations] [--work DIR] [--only NAMES] [--limit N]

The design, from measurements of the earlier attempt (cv5 of the 156 configurations on the
built-in datasets at their own sizes: 3.3 CPU hours for 23 of them): every configuration of
``metarec/_resources/default_configurations.json`` of the dataset's task, and the default
of each configured family again, run with ``metarec benchmark --protocol cv5 --seed 0``
on a stratified subsample of ``--max-rows`` rows of each built-in dataset (seed 0; a
dataset of at most that many rows is used whole).  A subsample is stored as a dataset of
its own, named ``<name>@<rows>`` (``spambase@1000``), with its own metafeatures, so that
the defaults and the configurations compare on the same rows and folds, and the defaults'
full results on the whole dataset are left as they were.  With ``--large`` the large
datasets (``manifest.csv`` and ``data/<name>.csv.gz``, as for ``build_large.py``) get their
configurations on the same ``<name>@1000`` subsample as the first point of their ladder (the
same rows: the same stratified draw with seed 0).  Every fit is single-threaded and
killed at ``--timeout`` seconds.

Resumable: after every dataset the build's knowledge base is written to ``--out`` as the
four built-in resource files, which are committed; on a machine without the work
directory's database it is filled from them, and ``metarec benchmark`` skips every
(dataset, algorithm) pair already stored.  The datasets run smallest first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_large import SEP, open_build_kb, subsample

ROOT = Path(__file__).resolve().parents[1]
CONFIGURATIONS = ROOT / "metarec" / "_resources" / "default_configurations.json"


def _datasets(folder: Path, pattern: str, task: str):
    """(name, path, task, rows) of the readable datasets of ``folder``."""
    import pandas as pd

    out = []
    for path in sorted(folder.glob(pattern)):
        if path.name == "summary.csv":
            continue
        name = path.name.removesuffix(".gz").removesuffix(".tsv").removesuffix(".csv")
        frame = pd.read_csv(path, sep="\t" if ".tsv" in path.name else ",")
        if list(frame.columns).count("target") != 1:
            print(f"left out {path.name}: not one column 'target'", flush=True)
            continue
        out.append((name, path, task, len(frame)))
    return out


def _names(task: str) -> list[str]:
    """The configurations of ``task`` and the defaults of their families."""
    from metarec.benchmark import default_configurations

    configurations = default_configurations(task=task)
    families = sorted({a.configuration_of for a in configurations})
    return families + [a.name for a in configurations]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="folder of PMLB .tsv.gz files")
    parser.add_argument("--regression", type=Path, help="folder of regression .csv files")
    parser.add_argument(
        "--large", type=Path, help="folder with manifest.csv and data/*.csv.gz (large datasets)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per fit")
    parser.add_argument("--max-rows", type=int, default=1000)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "builds" / "configurations"
    )
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--only", default=None, help="comma-separated dataset names")
    parser.add_argument("--limit", type=int, default=None, help="the first N datasets only")
    args = parser.parse_args(argv)

    import pandas as pd

    from metarec.benchmark import export_builtin

    work = args.work or args.out / ".work"
    work.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{work / 'build.sqlite'}"
    kb = open_build_kb(db, args.out)
    datasets = _datasets(args.data, "*.tsv.gz", "classification")
    if args.regression:
        datasets += _datasets(args.regression, "*.csv", "regression")
    if args.large:
        manifest = pd.read_csv(args.large / "manifest.csv")
        datasets += [
            (row.name, args.large / "data" / f"{row.name}.csv.gz", row.task, int(row.rows))
            for row in manifest.itertuples()
        ]
    if args.only:
        datasets = [d for d in datasets if d[0] in args.only.split(",")]
    datasets.sort(key=lambda d: (min(d[3], args.max_rows), d[0]))
    if args.limit:
        datasets = datasets[: args.limit]
    start = time.perf_counter()
    for name, path, task, rows in datasets:
        names = _names(task)
        point = name if rows <= args.max_rows else f"{name}{SEP}{args.max_rows}"
        stored = kb.runs(aggregate=False, datasets=[point])
        todo = [n for n in names if n not in set(stored["algorithm"])] if len(stored) else names
        if not todo:
            continue
        file = work / f"{point}.csv.gz"
        if not file.exists():
            frame = pd.read_csv(path, sep="\t" if ".tsv" in path.name else ",")
            part = subsample(frame, args.max_rows, task)
            part.to_csv(file.with_suffix(".tmp"), index=False, compression="gzip")
            os.replace(file.with_suffix(".tmp"), file)
        command = [
            sys.executable, "-m", "metarec.cli", "--db", db, "benchmark", str(file),
            "--target", "target", "--task", task, "--protocol", "cv5", "--seed", "0",
            "-j", str(args.jobs), "--timeout", str(args.timeout), "--cache-dir",
            str(work / "cache"), "--portfolio", str(CONFIGURATIONS),
            "--algorithms", ",".join(todo), "--format", "csv",
        ]  # fmt: skip
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{point}: benchmark failed (exit {done.returncode}): "
                  f"{done.stderr.strip()[-400:]}", flush=True)  # fmt: skip
            if done.returncode in (130, 143):
                return done.returncode
            continue
        kb.close()
        kb = open_build_kb(db, args.out)
        export_builtin(kb, args.out)
        total = (time.perf_counter() - start) / 60
        print(f"{point}: {len(todo)} algorithms in {time.perf_counter() - began:.0f} s "
              f"({total:.1f} min so far)", flush=True)  # fmt: skip
    runs = kb.runs(aggregate=False)
    if len(runs):
        print(f"build: {len(runs)} runs, {runs['status'].value_counts().to_dict()}, fit CPU "
              f"{runs['fit_time'].sum() / 3600:.2f} h", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
