"""What the shipped built-in knowledge base holds, and what building it took.

Usage::

    python benchmarks/builtin_contents.py --markdown docs/benchmarks/builtin-kb.md

Reads the built-in knowledge base as a user's install does (``open_builtin``) and writes, for
each task: datasets (rows, features, classes), default algorithms and configurations, the
protocols, fold-level runs by status, (dataset, algorithm) pairs with a failed or timed-out
fold by family, and the CPU hours of fit and predict by family; then the size of every
resource file of ``metarec/_resources`` (what the wheel carries), the size of the wheel, and the
wall time and CPU hours of the long builds merged into it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]


def _family(name: str) -> str:
    from metarec.algorithms import configuration_base

    return configuration_base(name) or name


def _configuration_rows(datasets: pd.DataFrame, held: set[str]) -> str:
    """How many datasets hold a configuration's run, how many sources that covers, and on
    which rows: datasets used whole (up to 1,000 rows, and the large ones), samples by size."""
    from metarec.data import sample_base

    if not held:
        return "0"
    rows = datasets.set_index(datasets["name"].astype(str))["n_instances"]
    sources = {sample_base(n) for n in rows.index}
    whole = sorted(int(rows[d]) for d in held if sample_base(d) == d)
    samples = pd.Series([int(rows[d]) for d in held if sample_base(d) != d]).value_counts()
    small = [n for n in whole if n <= 1000]
    large = [n for n in whole if n > 1000]
    parts = [f"{len(small)} whole ({small[0]:,} to {small[-1]:,} rows)"] if small else []
    parts += [f"{k} sample{'s' * (k > 1)} of {n:,} rows" for n, k in samples.sort_index().items()]
    if large:
        parts.append(f"{len(large)} large ones whole ({large[0]:,} to {large[-1]:,} rows)")
    covered = len({sample_base(d) for d in held})
    return f"{len(held)}, covering {covered} of the {len(sources)} datasets: " + ", ".join(parts)


def _task_part(kb, task: str) -> tuple[str, str]:
    from metarec.algorithms import configuration_base
    from metarec.data import task_family

    datasets = kb.datasets()
    families = datasets["task"].map(lambda t: task_family(t) if t else "classification")
    datasets = datasets[families.eq(task)]
    runs = kb.runs(aggregate=False, datasets=list(datasets["name"]))
    names = sorted(set(runs["algorithm"].astype(str)))
    configurations = [a for a in names if configuration_base(a)]
    held = set(runs.loc[runs["algorithm"].isin(configurations), "dataset"].astype(str))
    with_configurations = _configuration_rows(datasets, held)
    status = runs["status"].value_counts().to_dict()
    runs = runs.assign(family=runs["algorithm"].astype(str).map(_family))
    failed = (
        runs[runs["status"] != "ok"].groupby("family")[["dataset", "algorithm"]].nunique()
        if (runs["status"] != "ok").any()
        else pd.DataFrame(columns=["dataset", "algorithm"])
    )
    pairs = runs[runs["status"] != "ok"][["dataset", "algorithm"]].drop_duplicates()
    hours = runs.groupby("family")[["fit_time", "predict_time"]].sum() / 3600
    protocols = (
        runs.groupby(runs["algorithm"].astype(str).map(lambda a: bool(configuration_base(a))))[
            "fold"
        ].max()
        + 1
    )
    sizes = (datasets["n_instances"].min(), datasets["n_instances"].max())
    widths = (datasets["n_features"].min(), datasets["n_features"].max())
    rows = [
        ("datasets", f"{len(datasets)} ({sizes[0]:,} to {sizes[1]:,} rows, "
                     f"{widths[0]} to {widths[1]} features)"),
        ("algorithms", f"{len(names) - len(configurations)} defaults and "
                       f"{len(configurations)} configurations"),
        ("datasets with configurations' results", with_configurations),
        ("folds", ", ".join(f"{'configurations' if k else 'defaults'}: {v}"
                            for k, v in protocols.items())),
        ("fold-level runs", f"{len(runs):,} ("
                            + ", ".join(f"{k} {v:,}" for k, v in sorted(status.items())) + ")"),
        ("(dataset, algorithm) pairs with a failed or timed-out fold", len(pairs)),
        ("CPU hours", f"fit {hours['fit_time'].sum():.1f}, predict "
                      f"{hours['predict_time'].sum():.2f}"),
    ]  # fmt: skip
    summary = markdown_table(("", ""), rows)
    table = hours.assign(
        failed_pairs=failed["algorithm"].reindex(hours.index).fillna(0).astype(int)
    ).sort_values("fit_time", ascending=False)
    by_family = markdown_table(
        ("family", "fit CPU hours", "predict CPU hours", "pairs with a failed fold"),
        [
            (f, r["fit_time"], r["predict_time"], int(r["failed_pairs"]))
            for f, r in table.iterrows()
        ],
    )
    return summary, by_family


def _wheel_mb() -> float:
    """The size of the package's wheel, built from this checkout."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", out],
            check=True, capture_output=True,
        )  # fmt: skip
        return sum(p.stat().st_size for p in Path(out).glob("*.whl")) / 1e6


def _builds() -> str:
    """Each long build's wall hours (from its log) and fit / predict CPU hours (its runs)."""
    import re

    rows = []
    for folder in sorted((ROOT / "benchmarks" / "builds").iterdir()):
        log, runs = folder / "build.log", folder / "builtin_runs.parquet"
        if not (log.exists() and runs.exists()):
            continue
        seconds = [
            float(m.group(1))
            for m in re.finditer(r": (?:done|\d+ algorithms) in (\d+) s", log.read_text())
        ]
        frame = pd.read_parquet(runs, columns=["dataset", "fit_time", "predict_time"])
        rows.append((
            folder.name, frame["dataset"].nunique(), len(frame), sum(seconds) / 3600,
            frame["fit_time"].sum() / 3600, frame["predict_time"].sum() / 3600,
        ))  # fmt: skip
    return markdown_table(
        ("build", "datasets", "fold-level runs", "wall hours", "fit CPU hours",
         "predict CPU hours"), rows,
    )  # fmt: skip


def main(argv=None) -> None:
    from metarec.storage import open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    kb = open_builtin()
    parts = []
    for task in ("classification", "regression"):
        summary, by_family = _task_part(kb, task)
        print(f"== {task}\n{summary}\n{by_family}")
        parts.append(f"## {task.capitalize()}\n\n{summary}\n\nBy family (a default and its "
                     f"configurations together):\n\n{by_family}")  # fmt: skip
    folder = ROOT / "metarec" / "_resources"
    resources = sorted(p for p in folder.rglob("*") if p.is_file())
    sizes = markdown_table(
        ("file", "MB"), [(str(p.relative_to(folder)), p.stat().st_size / 1e6) for p in resources]
    )
    total = sum(p.stat().st_size for p in resources) / 1e6
    builds = _builds()
    print(builds)
    wheel = _wheel_mb()
    print(f"wheel: {wheel:.2f} MB")
    print(sizes)
    print(f"resources in all: {total:.2f} MB")
    write_page(
        args.markdown,
        "The built-in knowledge base",
        "What the knowledge base shipped inside the package holds, read as an install reads "
        "it (`open_builtin`; written by `python benchmarks/builtin_contents.py`). It is "
        "built by `python benchmarks/rebuild_builtin.py` (see the benchmark guide).\n\n"
        + "\n\n".join(parts)
        + f"\n\n## Long builds\n\nThe result files of `benchmarks/builds/` merged into it "
        "(`rebuild_builtin.py --merge`): the wall time of their benchmark calls as their logs "
        "record it, and the CPU hours of the fits they stored. The configurations' build "
        "ran two fits at a time (`-j 2`); so did the large datasets' ladder for the configurations, after one at a time for the defaults.\n\n"
        f"{builds}\n\n## Resource files\n\n{sizes}\n\nIn all {total:.2f} MB; the wheel "
        f"(`pip wheel . --no-deps`) is {wheel:.2f} MB.",
    )


if __name__ == "__main__":
    main()
