"""Expected against measured fit times at 50,000 rows and more, leave-one-dataset-out.

Usage::

    python benchmarks/large_times.py [--build benchmarks/builds/large]
        [--markdown docs/benchmarks/large-times.md]

The measured times are those of the large-data build (``benchmarks/build_large.py``: the
default portfolio on the 13 datasets of ``shared/datasets/large`` along a ladder of sizes),
at its points of at least 50,000 rows.  For each large dataset, the runtime model
(:class:`metarec.recommender.RuntimeModel`, the recommender's, with its 80 % interval) is
fitted

* **before**: on the built-in knowledge base alone (the shipped one, at most 9,822
  classification and 33,000 regression rows), and
* **after**: on the built-in knowledge base and every ladder point of the *other* large
  datasets (the dataset's whole ladder is held out, its small points included),

(and, for the record, **before, raw width**: the built-in knowledge base alone with a
dataset's width its raw number of columns, the runtime model as it was before the encoded
width; **after, equal weights**: as after, every dataset weighing alike in the fit,
``size_weight=0``, the runtime model as it was before its weights) and predicts the fit time of every algorithm with an ok time at the dataset's points of
50,000 rows and more.  A dataset's size is its rows, its classes and its encoded width (the
numeric columns and each categorical one as its one-hot columns, as the recommender reads
it: :func:`metarec.recommender.encoded_width`).  Reported: the share of those times within a factor 2 of the
prediction (target at least 80 %), within a factor 3, and inside the 80 % interval, and
the median absolute error in decades, by task and in all.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
LARGE = 50_000
WIDTH = ("n_features", "n_numeric_features", "n_categorical_features",
         "categorical_cardinality_mean")  # fmt: skip


def _matrix(kb, *, encoded=True):
    """(dataset names, size features, fit times with NaN where not ok, algorithms, tasks)."""
    from metarec.recommender import encoded_width, size_features

    runs = kb.runs()
    times = runs.pivot(index="dataset", columns="algorithm", values="fit_time")
    status = runs.pivot(index="dataset", columns="algorithm", values="status")
    times = times.where(status == "ok")
    mf = kb.metafeatures().set_index("dataset").reindex(times.index)
    classes = mf["n_classes"] if "n_classes" in mf else np.ones(len(mf))
    width = encoded_width(
        *(mf[c] if c in mf else np.full(len(mf), np.nan) for c in WIDTH)
    )  # the recommender's width of a dataset (metarec.recommender.encoded_width)
    X = size_features(mf["n_instances"], width if encoded else mf["n_features"], classes)
    tasks = kb.datasets().set_index("name")["task"].reindex(times.index).fillna("")
    return list(times.index), X, times, tasks.to_numpy()


def _build_kb(folder: Path):
    import pandas as pd

    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{tempfile.mkdtemp()}/build.sqlite")
    kb.add_datasets(pd.read_parquet(folder / "builtin_datasets.parquet"))
    kb.add_algorithms(pd.read_parquet(folder / "builtin_algorithms.parquet"))
    kb.import_runs(pd.read_parquet(folder / "builtin_runs.parquet"))
    kb.import_metafeatures(pd.read_parquet(folder / "builtin_metafeatures.parquet"))
    return kb


def _scores(truth, expected, low, high) -> list:
    ratio = np.abs(np.log10(expected / truth))
    return [
        int(truth.size),
        f"{100 * np.mean(ratio <= np.log10(2)):.0f} %",
        f"{100 * np.mean(ratio <= np.log10(3)):.0f} %",
        f"{100 * np.mean((truth >= low) & (truth <= high)):.0f} %",
        float(np.median(ratio)),
    ]


def main(argv=None) -> None:
    from metarec.recommender import RuntimeModel
    from metarec.storage import open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "benchmarks" / "builds" / "large")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    builtin, build = open_builtin(), _build_kb(args.build)
    names_b, X_b, T_b, tasks_b = _matrix(builtin)
    names_l, X_l, T_l, tasks_l = _matrix(build)
    _, X_b0, _, _ = _matrix(builtin, encoded=False)  # the raw number of columns as width
    _, X_l0, _, _ = _matrix(build, encoded=False)
    # the built-in knowledge base without the build's datasets (it ships them too)
    mine = np.array([n not in set(names_l) for n in names_b])
    X_b, T_b, X_b0 = X_b[mine], T_b[mine], X_b0[mine]
    algorithms = sorted(set(T_b.columns) & set(T_l.columns))
    T_b, T_l = T_b[algorithms].to_numpy(float), T_l[algorithms].to_numpy(float)
    groups = np.array([n.split("@")[0] for n in names_l])
    rows = np.exp(X_l[:, 1])
    out = {"before, raw width": {}, "before": {}, "after, equal weights": {}, "after": {}}
    for group in sorted(set(groups)):
        held = groups == group
        test = np.flatnonzero(held & (rows >= LARGE - 0.5))
        if not test.size:
            continue
        task = "regression" if tasks_l[test[0]] == "regression" else "classification"
        after = (np.vstack([X_b, X_l[~held]]), np.vstack([T_b, T_l[~held]]))
        fits = {
            "before, raw width": (X_b0, T_b),
            "before": (X_b, T_b),
            "after, equal weights": after,
            "after": after,
        }
        for when, (X, T) in fits.items():
            weights = {"size_weight": 0.0} if when == "after, equal weights" else {}
            model = RuntimeModel(coverage=0.8, **weights).fit(X, T)
            query = X_l0[test] if when == "before, raw width" else X_l[test]
            expected, low, high = model.predict(query, interval=True)
            truth = T_l[test]
            seen = np.isfinite(truth) & (truth > 0)
            for key in (task, "all"):
                parts = out[when].setdefault(key, [[], [], [], []])
                for part, values in zip(parts, (truth, expected, low, high), strict=True):
                    part.append(values[seen])
    table = []
    for key in ("classification", "regression", "all"):
        for when in out:
            if key not in out[when]:
                continue
            truth, expected, low, high = (np.concatenate(p) for p in out[when][key])
            table.append([f"{key}, {when}", *_scores(truth, expected, low, high)])
    points = sorted({names_l[i] for i in np.flatnonzero(rows >= LARGE - 0.5)})
    text = (
        "`python benchmarks/large_times.py`: fit times of the default algorithms at the "
        f"large-data build's points of at least {LARGE:,} rows ({len(points)} points: "
        f"{', '.join(points)}), predicted by the runtime model fitted on the built-in "
        "knowledge base alone (before) and with the ladder points of the other large "
        "datasets (after; each dataset's whole ladder held out).\n\n"
        + markdown_table(
            [
                "task, model",
                "times",
                "within x2",
                "within x3",
                "inside the 80 % interval",
                "median error (decades)",
            ],
            table,
        )  # fmt: skip
    )
    print(text)
    write_page(args.markdown, "Expected fit times at 50,000 rows and more", text)


if __name__ == "__main__":
    main()
