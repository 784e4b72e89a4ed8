"""What the configurations are worth at the sizes of large data, against their families' defaults.

Usage::

    python benchmarks/configurations_large.py [--build benchmarks/builds/large]
        [--markdown docs/benchmarks/configurations-large.md]

Reads the result files of the large datasets' ladder (``benchmarks/build_large.py
--configurations``: the defaults and the named configurations on stratified samples of
1,000, 4,000, 16,000 and 64,000 rows and on every row of each large dataset, one 60 / 20 / 20
holdout split per point, the same for every algorithm).  For each family with
configurations, each ladder size and each task it reports, in points (accuracy in
percentage points; R² clipped at 0 in hundredths for regression), over the datasets where
the default and at least one configuration completed:

- **chosen - default**: the configuration chosen *without* the dataset (the one of best
  mean difference to the default on the other datasets at that size, leave-one-dataset-out)
  minus the default, on the dataset: what a fixed choice of configuration gains on data it
  has not seen;
- **best - default**: the dataset's best configuration minus the default, an optimistic
  bound (the maximum of several noisy holdout scores), what a search among the
  configurations could reach at most;
- the share of datasets where the best configuration beats the default by more than half a
  point;

and, per task and size, the dataset's best configuration of any family minus its best
default algorithm of any (what the configurations add to the defaults at that size, at
most).

The configurations' own build runs them on 1,000 rows only; this page shows whether what
they are worth there holds on more rows.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
SEP = "@"


def bases() -> dict[str, str]:
    """Each configuration's family default (both tasks)."""
    from metarec.benchmark import default_configurations

    out = {}
    for task in ("classification", "regression"):
        out.update({a.name: a.configuration_of for a in default_configurations(task=task)})
    return out


def scores(build: Path) -> pd.DataFrame:
    """One row per (dataset, size, algorithm): the holdout score in points, with the task."""
    runs = pd.read_parquet(build / "builtin_runs.parquet")
    datasets = pd.read_parquet(build / "builtin_datasets.parquet").set_index("name")
    runs = runs[runs["status"] == "ok"]
    table = runs.groupby(["dataset", "algorithm"], as_index=False)["accuracy"].mean()
    name = table["dataset"].str.split(SEP).str[0]
    size = table["dataset"].str.split(SEP).str[1]
    table["size"] = np.where(size.notna(), size, "all")
    table["base"] = name
    task = datasets.loc[table["dataset"], "task"].to_numpy()
    table["task"] = np.where(task == "regression", "regression", "classification")
    table["points"] = 100.0 * table["accuracy"]
    return table


def family_table(table: pd.DataFrame, of: dict[str, str]) -> pd.DataFrame:
    """Per (task, family, size): the datasets, chosen - default, best - default, share won."""
    table = table.assign(family=table["algorithm"].map(of).fillna(table["algorithm"]))
    out = []
    for (task, family, size), group in table.groupby(["task", "family", "size"]):
        wide = group.pivot(index="base", columns="algorithm", values="points")
        if family not in wide or wide.shape[1] < 2:
            continue
        wide = wide[wide[family].notna()]
        gain = wide.drop(columns=family).sub(wide[family], axis=0)  # each minus the default
        gain = gain[gain.notna().any(axis=1)]
        if len(gain) == 0:
            continue
        chosen = []
        for dataset in gain.index:  # the configuration best on the other datasets
            others = gain.drop(index=dataset).mean()
            others = others[gain.loc[dataset].notna()].dropna()
            chosen.append(gain.loc[dataset, others.idxmax()] if len(others) else np.nan)
        best = gain.max(axis=1)
        out.append({
            "task": task, "family": family, "size": size, "datasets": len(gain),
            "chosen": float(np.nanmean(chosen)) if np.isfinite(chosen).any() else np.nan,
            "best": float(best.mean()), "won": float((best > 0.5).mean()),
        })  # fmt: skip
    return pd.DataFrame(out)


def overall_table(table: pd.DataFrame, of: dict[str, str]) -> pd.DataFrame:
    """Per (task, size): the datasets, and the mean of the dataset's best configuration (of
    any family) minus its best default algorithm (of any), with the share of datasets where
    it leads by more than half a point."""
    kind = np.where(table["algorithm"].isin(list(of)), "configuration", "default")
    best = table.assign(kind=kind).pivot_table(
        index=["task", "size", "base"], columns="kind", values="points", aggfunc="max"
    )
    best = best.reindex(columns=["configuration", "default"])
    lead = (best["configuration"] - best["default"]).dropna().rename("lead").reset_index()
    return lead.groupby(["task", "size"], as_index=False).agg(
        datasets=("lead", "size"),
        won=("lead", lambda x: float((x > 0.5).mean())),
        lead=("lead", "mean"),
    )


def overall_page(overall: pd.DataFrame) -> str:
    """The table of :func:`overall_table`: a row per task, a column per size."""
    sizes = sorted(overall["size"].unique(), key=_order)
    columns = ["task"] + [f"{'all rows' if s == 'all' else f'{int(s):,} rows'}" for s in sizes]
    rows = []
    for task, group in overall.groupby("task"):
        cells = group.set_index("size")
        rows.append([task] + [
            f"{cells.loc[s, 'lead']:+.2f} ({100 * cells.loc[s, 'won']:.0f} %, "
            f"n={cells.loc[s, 'datasets']})" if s in cells.index else ""
            for s in sizes
        ])  # fmt: skip
    return (
        "## Any configuration against any default\n\nThe dataset's best configuration (of "
        "any family) minus its best default algorithm (of the whole default portfolio), mean "
        "over the datasets, in points (accuracy in percentage points, R² in hundredths); in "
        "brackets the share of datasets where the configuration leads by more than half a "
        "point, and how many datasets. An optimistic bound for the configurations: the best "
        "of 78 noisy holdout scores against the best of about 20.\n\n"
        + markdown_table(columns, rows)
    )


def _order(size: str) -> int:
    return 10**12 if size == "all" else int(size)


def page(table: pd.DataFrame) -> str:
    """The tables of the page, one per task."""
    parts = []
    for task, group in table.groupby("task"):
        sizes = sorted(group["size"].unique(), key=_order)
        columns = ["family"] + [
            f"{'all rows' if s == 'all' else f'{int(s):,} rows'}: chosen / best (won)"
            for s in sizes
        ]
        rows = []
        for family, fam in group.groupby("family"):
            row = [family]
            for size in sizes:
                cell = fam[fam["size"] == size]
                if cell.empty:
                    row.append("")
                    continue
                c = cell.iloc[0]
                chosen = f"{c['chosen']:+.2f}" if np.isfinite(c["chosen"]) else "-"
                row.append(
                    f"{chosen} / {c['best']:+.2f} ({100 * c['won']:.0f} %, n={c['datasets']})"
                )
            rows.append(row)
        unit = "percentage points of accuracy" if task == "classification" else "hundredths of R²"
        parts.append(f"## {task.capitalize()}\n\nIn {unit}.\n\n{markdown_table(columns, rows)}")
    return "\n\n".join(parts)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "benchmarks" / "builds" / "large")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    of = bases()
    results = scores(args.build)
    table = family_table(results, of)
    text = (
        "`python benchmarks/configurations_large.py`: the large datasets' ladder "
        "(`benchmarks/build_large.py --configurations`), one holdout split per point. Per "
        "family and size: the configuration chosen on the other datasets (leave-one-dataset-"
        "out) minus the family's default / the dataset's best configuration minus the default "
        "(an optimistic bound), and in brackets the share of datasets where the best beats the "
        "default by more than half a point, and how many datasets.\n\n"
        + page(table)
        + "\n\n"
        + overall_page(overall_table(results, of))
    )
    print(text)
    write_page(args.markdown, "Configurations on large data", text)


if __name__ == "__main__":
    main()
