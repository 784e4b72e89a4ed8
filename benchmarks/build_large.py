"""Benchmark the default portfolio on large datasets along a ladder of sizes (a long build).

Usage (one command; rerun it to resume, on this machine or a new one)::

    python benchmarks/build_large.py ../shared/datasets/large [-j 1] [--timeout 200]
        [--out benchmarks/builds/large] [--work DIR]

For every dataset of the folder (``data/<name>.csv.gz`` with a ``target`` column, and
``manifest.csv`` naming its task), the points of its ladder are: a stratified subsample
(classification; a random one for regression, seed 0) of 1,000, 4,000, 16,000 and 64,000
rows where the dataset has more than 1.25 times as many, and all its rows.  A subsample is
stored as a dataset of its own, named ``<name>@<rows>`` (``mortgages_home@16000``); all
rows keep the dataset's name.  Each point is benchmarked with ``metarec benchmark --protocol
holdout`` (one stratified 60 / 20 / 20 split: a fit on 60 % of the point's rows, scored on
the 20 % test part), every fit single-threaded and killed at ``--timeout`` seconds.

The points run in order of size across the datasets (every 1,000-row point first), so that
the cheap part of the ladder is complete early.  An algorithm does not climb past a point
where it failed or timed out, nor to a point where its time (fit plus predict) extrapolated
from its last two points (exponent between 1 and 2; 1 from a single point) exceeds the
timeout: the log says which were not run and why.

With ``--configurations`` the named configurations of each task
(``metarec/_resources/default_configurations.json``; ``--families`` keeps those of some
families) climb the same ladder beside the defaults, on the same points, split and timeout,
so that the knowledge base knows which configurations pay at the sizes people's data has
(the configurations' own build measures them on 1,000 rows only).

Resumable: after every point the build's knowledge base is written to ``--out`` as the
four built-in resource files (:func:`metarec.benchmark.export_builtin`), which are committed;
on a machine without the work directory's database, it is filled from them first, and
``metarec benchmark`` skips every (dataset, algorithm) pair already stored.  The built-in
knowledge base is then rebuilt from the PMLB and regression results together with these
(``benchmarks/rebuild_builtin.py --large``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LADDER = (1_000, 4_000, 16_000, 64_000)
#: A ladder point is taken only below this share of the dataset's rows (else: all rows).
MARGIN = 1.25
SEP = "@"


CONFIGURATIONS = ROOT / "metarec" / "_resources" / "default_configurations.json"


def _configurations(task: str, families: str | None) -> list[str]:
    """The names of ``task``'s configurations (of ``families``, comma-separated, if given)."""
    from metarec.benchmark import default_configurations

    wanted = None if families is None else set(families.split(","))
    return [
        a.name
        for a in default_configurations(task=task)
        if wanted is None or a.configuration_of in wanted
    ]


def points(rows: int) -> list[int]:
    """The sizes of a dataset's ladder: the fixed points well below its rows, then all rows."""
    return [n for n in LADDER if n * MARGIN <= rows] + [rows]


def subsample(frame, n: int, task: str, seed: int = 0):
    """``n`` rows of ``frame``: stratified by ``target`` for classification, else random."""
    from sklearn.model_selection import train_test_split

    if n >= len(frame):
        return frame
    strat = frame["target"] if task == "classification" else None
    try:
        part, _ = train_test_split(frame, train_size=n, stratify=strat, random_state=seed)
    except ValueError:  # a class too rare to stratify
        part, _ = train_test_split(frame, train_size=n, random_state=seed)
    return part.sort_index()


def extrapolated(history: list[tuple[int, float]], n: int) -> float:
    """Time at ``n`` rows from the last two (rows, seconds) points, exponent in [1, 2]."""
    import math

    (n1, t1) = history[-1]
    exponent = 1.0
    if len(history) >= 2:
        (n0, t0) = history[-2]
        if t0 > 0 and t1 > 0 and n1 > n0:
            exponent = min(2.0, max(1.0, math.log(t1 / t0) / math.log(n1 / n0)))
    return t1 * (n / n1) ** exponent


def open_build_kb(db: str, out: Path):
    """The build's knowledge base at ``db``; a new one is first filled from the result files
    in ``out`` (the resumption on another machine)."""
    from metarec.storage import KnowledgeBase

    path = Path(db.removeprefix("sqlite:///"))
    fresh = not path.exists()
    kb = KnowledgeBase(db)
    files = {t: out / f"builtin_{t}.parquet" for t in ("datasets", "algorithms", "runs")}
    if fresh and all(p.is_file() for p in files.values()):
        import pandas as pd

        kb.add_datasets(pd.read_parquet(files["datasets"]))
        kb.add_algorithms(pd.read_parquet(files["algorithms"]))
        kb.import_runs(pd.read_parquet(files["runs"]))
        mf = out / "builtin_metafeatures.parquet"
        if mf.is_file():
            kb.import_metafeatures(pd.read_parquet(mf))
        print(f"resumed from {out}: {len(kb.runs(aggregate=False))} runs", flush=True)
    return kb


def _plan(kb, name: str, ladder: list[int], n: int, algorithms: list[str], timeout: float):
    """The algorithms to run at point ``n`` of ``name``'s ladder, and the ones left out with why."""
    earlier = [m for m in ladder if m < n]
    runs = kb.runs(aggregate=False, datasets=[_point(name, m, ladder) for m in earlier])
    stored = kb.runs(aggregate=False, datasets=[_point(name, n, ladder)])
    done = set(stored["algorithm"]) if len(stored) else set()
    run, left = [], {}
    for algorithm in algorithms:
        if algorithm in done:
            continue
        mine = runs[runs["algorithm"] == algorithm] if len(runs) else runs
        if len(mine) and (mine["status"] != "ok").any():
            bad = mine[mine["status"] != "ok"].iloc[0]
            left[algorithm] = f"{bad['status']} at {bad['dataset']}"
            continue
        history = []
        for m in earlier:
            point = mine[mine["dataset"] == _point(name, m, ladder)] if len(mine) else mine
            if len(point):
                history.append((m, float((point["fit_time"] + point["predict_time"]).sum())))
        if history:
            expected = extrapolated(history, n)
            if expected > timeout:
                left[algorithm] = f"expected {expected:.0f} s > timeout {timeout:.0f} s"
                continue
        run.append(algorithm)
    return run, left


def _point(name: str, n: int, ladder: list[int]) -> str:
    return name if n == ladder[-1] else f"{name}{SEP}{n}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="folder with manifest.csv and data/*.csv.gz")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=200.0, help="seconds per fit")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "builds" / "large")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (subsamples, DB)")
    parser.add_argument("--only", default=None, help="comma-separated dataset names")
    parser.add_argument("--max-rows", type=int, default=None, help="points up to this size only")
    parser.add_argument(
        "--configurations",
        action="store_true",
        help="the named configurations too, on the same points",
    )
    parser.add_argument(
        "--families", default=None, help="with --configurations: comma-separated families only"
    )
    args = parser.parse_args(argv)

    import pandas as pd

    from metarec.benchmark import default_portfolio, export_builtin

    work = args.work or args.out / ".work"
    work.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{work / 'build.sqlite'}"
    kb = open_build_kb(db, args.out)
    manifest = pd.read_csv(args.data / "manifest.csv")
    if args.only:
        manifest = manifest[manifest["name"].isin(args.only.split(","))]
    jobs = []
    for row in manifest.itertuples():
        ladder = points(int(row.rows))
        jobs += [(n, row.name, row.task, ladder) for n in ladder]
    jobs.sort(key=lambda j: (j[0] if j[0] in LADDER else 10**9 + j[0], j[1]))
    frames: dict[str, pd.DataFrame] = {}
    start = time.perf_counter()
    for n, name, task, ladder in jobs:
        if args.max_rows is not None and n > args.max_rows:
            continue
        names = [a.name for a in default_portfolio(task=task)]
        if args.configurations:
            names += _configurations(task, args.families)
        todo, left = _plan(kb, name, ladder, n, names, args.timeout)
        point = _point(name, n, ladder)
        for algorithm, why in left.items():
            print(f"{point}: {algorithm} not run ({why})", flush=True)
        if not todo:
            continue
        path = work / f"{point}.csv.gz"
        if not path.exists():
            if name not in frames:
                frames = {name: pd.read_csv(args.data / "data" / f"{name}.csv.gz")}
            part = subsample(frames[name], n, task)
            part.to_csv(path.with_suffix(".tmp"), index=False, compression="gzip")
            os.replace(path.with_suffix(".tmp"), path)
        command = [
            sys.executable, "-m", "metarec.cli", "--db", db, "benchmark", str(path),
            "--target", "target", "--task", task, "--protocol", "holdout", "--seed", "0",
            "-j", str(args.jobs), "--timeout", str(args.timeout), "--cache-dir",
            str(work / "cache"), "--algorithms", ",".join(todo), "--format", "csv",
        ]  # fmt: skip
        if args.configurations:
            command += ["--portfolio", str(CONFIGURATIONS)]
        began = time.perf_counter()
        print(f"{point}: {len(todo)} algorithms ...", flush=True)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{point}: benchmark failed (exit {done.returncode}): "
                  f"{done.stderr.strip()[-500:]}", flush=True)  # fmt: skip
            if done.returncode in (130, 143):
                return done.returncode
            continue
        kb.close()
        kb = open_build_kb(db, args.out)
        export_builtin(kb, args.out)
        elapsed = time.perf_counter() - began
        total = (time.perf_counter() - start) / 60
        print(f"{point}: done in {elapsed:.0f} s ({total:.1f} min so far)", flush=True)
    runs = kb.runs(aggregate=False)
    print(f"build: {len(runs)} runs, {runs['status'].value_counts().to_dict()}, "
          f"fit CPU {runs['fit_time'].sum() / 3600:.2f} h", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
