"""Rebuild metarec's built-in knowledge base: the default portfolios on PMLB and regression data.

Usage (from a checkout, one command; rerun the same command to resume after an interruption)::

    python benchmarks/rebuild_builtin.py /path/to/pmlb --regression /path/to/regression
        [-j 2] [--timeout 60] [--db sqlite:///builtin.sqlite] [--out metarec/_resources]

Steps:

1. Refuses to start unless every algorithm of the default portfolio can run here (the
   gradient-boosting libraries come with ``pip install -e ".[boosting]"``): a built-in KB
   must not silently lack algorithms.
2. ``metarec --db DB benchmark PMLB_DIR --protocol cv10 --seed 0 -j J --timeout T``: stratified
   10-fold CV, the same folds for every algorithm.  A rerun skips what is stored (resumes).
   Then the regression datasets (``--regression``, CSV files whose last column ``target`` is
   the response): ``benchmark FILES --target target --protocol cv5 --seed 0 -j J --timeout T``,
   five folds (the regression part has several datasets of 10,000-33,000 rows where ten folds
   of every regressor would take hours on two cores).
3. The configurations (``metarec/_resources/default_configurations.json``, see
   :mod:`metarec.algorithms._configurations`) of both tasks, and for classification the
   defaults of their families again: ``benchmark FILES --portfolio CONFIGURATIONS
   --algorithms NAMES --protocol cv5 --seed 0``, five folds, so that every configuration of a
   family is compared with its default on the same folds (``--no-configurations`` leaves
   them out; ``--max-rows N`` runs them on the datasets of at most N rows only, the others
   keeping their defaults' results).  With ``--seed-builtin`` an empty DB first receives the shipped built-in
   knowledge base, so that only the configurations run.
4. :func:`metarec.benchmark.export_builtin` of DB into ``--out`` (four zstd Parquet files),
   then prints what the KB holds (datasets, algorithms, runs by status, failed pairs by
   algorithm) and the size of every resource file, for the README.
``--merge BUILD...`` instead adds the result files of long builds (``benchmarks/builds/
large``: the defaults along a ladder of sizes of the large datasets) to the shipped ones.

5. The default recommenders fitted on the new built-in knowledge base, written into
   ``metarec/_resources/recommenders`` (:func:`metarec.recommender.ship_recommenders`): a
   new installation's first call reads them instead of fitting.  After a change of the
   recommender's code they are stale (a test says so): ``--recommenders-only`` writes them
   again and does nothing else.

PMLB_DIR is a folder of ``.tsv.gz`` files with a ``target`` column (117 classification
datasets in this project's copy); the regression folder holds 126 ``.csv`` files and a
``summary.csv`` that is not a dataset.  Files metarec refuses to read (e.g. ``schizo``, whose
header names two columns ``target``) are left out and listed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readable(
    folder: Path, pattern: str = "*.tsv.gz", max_rows: int | None = None
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The files of ``folder`` that metarec reads unambiguously, and the others with why.

    A file metarec refuses (e.g. PMLB's ``schizo``, whose header names two columns
    ``target``) is left out of the built-in KB and reported, rather than stopping the rebuild
    or guessing which column is the label; so is one of more than ``max_rows`` rows.
    """
    from metarec.data import load_dataset
    from metarec.exceptions import MetarecError

    files, refused = [], []
    for path in sorted(folder.glob(pattern)):
        if path.name == "summary.csv":
            continue
        try:
            rows = load_dataset(path, target="target").X.shape[0]
        except MetarecError as exc:
            refused.append((path, " ".join(str(exc).split())))
        else:
            if max_rows is not None and rows > max_rows:
                refused.append((path, f"{rows} rows, more than --max-rows {max_rows}"))
            else:
                files.append(path)
    return files, refused


def _benchmark(args, files: list[Path], protocol: str, task: str, extra=()) -> int:
    """Run (or resume) ``metarec benchmark`` of ``files`` into ``args.db``; the exit code."""
    command = [
        sys.executable, "-m", "metarec.cli", "--db", args.db, "benchmark", *map(str, files),
        "--target", "target", "--task", task, "--protocol", protocol, "--seed", "0",
        "-j", str(args.jobs),
        "--timeout", str(args.timeout), *extra,
    ]  # fmt: skip
    print("$", " ".join(command[2:8]), "...", " ".join(command[-11 - len(extra) :])[:300],
          flush=True)  # fmt: skip
    start = time.perf_counter()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(command, env=env)
    if done.returncode != 0:
        print(f"error: the benchmark stopped (exit {done.returncode}); run the same command "
              "again to resume", file=sys.stderr)  # fmt: skip
        return done.returncode
    print(f"benchmark ({protocol}): {(time.perf_counter() - start) / 60:.1f} min wall")
    return 0


def _configuration_options(task: str) -> list[str]:
    """``--portfolio`` and ``--algorithms`` of the configurations of ``task`` (with their
    families' defaults for classification, whose defaults were run with ten folds)."""
    from metarec.algorithms import default_configurations, default_portfolio

    configurations = default_configurations(task=task)
    names = [a.name for a in configurations]
    if task == "classification":
        bases = {a.configuration_of for a in configurations}
        names = [a.name for a in default_portfolio(task=task) if a.name in bases] + names
    path = ROOT / "metarec" / "_resources" / "default_configurations.json"
    return ["--portfolio", str(path), "--algorithms", ",".join(names)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="folder of PMLB .tsv.gz files")
    parser.add_argument("--regression", help="folder of regression .csv files (target 'target')")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per fit")
    parser.add_argument("--db", default=f"sqlite:///{ROOT / 'builtin.sqlite'}")
    parser.add_argument("--out", default=str(ROOT / "metarec" / "_resources"))
    parser.add_argument("--max-rows", type=int, default=None,
                        help="configurations only on datasets of at most this many rows")  # fmt: skip
    parser.add_argument("--no-configurations", action="store_true",
                        help="the default portfolio only")  # fmt: skip
    parser.add_argument("--seed-builtin", action="store_true",
                        help="fill an empty DB with the shipped built-in KB first")  # fmt: skip
    parser.add_argument("--recommenders-only", action="store_true",
                        help="only write the shipped fitted recommenders again")  # fmt: skip
    parser.add_argument("--merge", nargs="+", type=Path, default=None, metavar="BUILD",
                        help="only add the result files of these builds (benchmarks/builds/"
                        "large ...) to the shipped resource files")  # fmt: skip
    args = parser.parse_args(argv)
    if args.recommenders_only:
        return _ship_recommenders()
    if args.merge:
        return _merge(args.merge, Path(args.out))

    from metarec.algorithms import default_portfolio
    from metarec.benchmark import export_builtin
    from metarec.storage import KnowledgeBase

    missing = default_portfolio(task="all").missing()
    if missing:
        hints = "; ".join(sorted({a.install_hint for a in missing}))
        print(
            f"error: {', '.join(a.name for a in missing)} cannot run here ({hints}); "
            "the built-in knowledge base needs the whole default portfolio",
            file=sys.stderr,
        )
        return 1
    if args.seed_builtin:
        from metarec.storage import open_seeded

        kb, seeded = open_seeded(args.db)
        print("the DB builds on the built-in knowledge base" if seeded else "DB not empty")
    parts = [(Path(args.data), "*.tsv.gz", "cv10", "classification")]
    if args.regression:
        parts.append((Path(args.regression), "*.csv", "cv5", "regression"))
    for folder, pattern, protocol, task in parts:
        files, refused = _readable(folder, pattern)
        for path, why in refused:
            print(f"left out {path.name}: {why}", file=sys.stderr)
        code = _benchmark(args, files, protocol, task)
        if code:
            return code
    if not args.no_configurations:
        for folder, pattern, _, task in parts:
            files, refused = _readable(folder, pattern, args.max_rows)
            for path, why in refused:
                print(f"configurations leave out {path.name}: {why}", file=sys.stderr)
            code = _benchmark(args, files, "cv5", task, _configuration_options(task))
            if code:
                return code

    kb = KnowledgeBase(args.db)
    written = export_builtin(kb, args.out)
    runs = kb.runs(aggregate=False)
    pairs = kb.runs()
    info = kb.info()
    print(f"datasets {info['datasets']} (classification {info['classification_datasets']}, "
          f"regression {info['regression_datasets']}), algorithms {info['algorithms']}, "
          f"runs {len(runs)} ({runs['status'].value_counts().to_dict()})")  # fmt: skip
    failed = pairs[pairs["n_failed"] > 0].groupby("algorithm").size()
    print("failed (dataset, algorithm) pairs by algorithm:", failed.to_dict() or "none")
    total = 0
    for name, path in written.items():
        size = path.stat().st_size
        total += size
        print(f"{path}  {size / 1e6:.2f} MB ({name})")
    print(f"resources in all: {total / 1e6:.2f} MB")
    return _ship_recommenders()


def _merge(builds: list[Path], out: Path) -> int:
    """The shipped resource files and those of ``builds`` (the four built-in files each, as
    benchmarks/build_large.py writes them) into one knowledge base, written to ``out``."""
    import tempfile

    import pandas as pd

    from metarec.benchmark import export_builtin
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{tempfile.mkdtemp()}/merged.sqlite")
    for folder in [out, *builds]:
        kb.add_datasets(pd.read_parquet(folder / "builtin_datasets.parquet"))
        kb.add_algorithms(pd.read_parquet(folder / "builtin_algorithms.parquet"))
        # a fold run again by a later build (the family defaults beside their configurations,
        # on a dataset used whole) keeps the shipped result: the same fold, other timings
        report = kb.import_runs(
            pd.read_parquet(folder / "builtin_runs.parquet"), on_conflict="keep"
        )
        kb.import_metafeatures(pd.read_parquet(folder / "builtin_metafeatures.parquet"))
        print(f"{folder}: {report.added} runs added", flush=True)
    for name, path in export_builtin(kb, out).items():
        print(f"{path}  {path.stat().st_size / 1e6:.2f} MB ({name})")
    return _ship_recommenders()


def _ship_recommenders() -> int:
    from metarec.recommender import ship_recommenders

    for path in ship_recommenders():
        print(f"{path}  {path.stat().st_size / 1e6:.2f} MB (fitted recommender)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
