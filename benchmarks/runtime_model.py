"""How well the runtime model predicts fit times on datasets it has not seen.

Usage::

    python benchmarks/runtime_model.py
    python benchmarks/runtime_model.py --markdown docs/benchmarks/runtime-model.md
    python benchmarks/runtime_model.py --history extra=sqlite:///other.sqlite

Leave-one-dataset-out on each run history (the built-in knowledge base, TabZilla's runs and
``benchmarks/histories/realworld-dev``, each imported into a temporary knowledge base; more
with ``--history NAME=URL``): for every
dataset, :class:`metarec.recommender._runtime.RuntimeModel` is fitted on the others and
predicts the fit time of every algorithm that has an ok time there.  Baseline, in the same
run: the algorithm's median time over the other datasets (a time not scaled to the size).

Printed per history: the share of times inside the 80 % interval (coverage), the share within
a factor 3 of the prediction, and the median absolute error in decades (|log10 ratio|).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from metarec.recommender._runtime import RuntimeModel, size_features

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _histories import REALWORLD, TABZILLA, load_history
from _pages import markdown_table, write_page


def history(kb):
    """(size features, fit times with NaN where not ok) of a knowledge base."""
    runs = kb.runs()
    times = runs.pivot(index="dataset", columns="algorithm", values="fit_time")
    status = runs.pivot(index="dataset", columns="algorithm", values="status")
    times = times.where(status == "ok")
    mf = kb.metafeatures().set_index("dataset").reindex(times.index)
    X = size_features(mf["n_instances"], mf["n_features"], mf["n_classes"])
    return X, times.to_numpy(dtype=float)


def leave_one_dataset_out(X, T, *, coverage=0.8):
    """Per held-out time: model prediction, interval, and the median baseline."""
    out = {k: [] for k in ("truth", "model", "low", "high", "median")}
    everything = np.arange(len(T))
    for i in everything:
        keep = everything != i
        observed = np.isfinite(T[i]) & (T[i] > 0)
        if not observed.any():
            continue
        model = RuntimeModel(coverage=coverage).fit(X[keep], T[keep])
        expected, low, high = model.predict(X[i : i + 1], interval=True)
        others = np.where(T[keep] > 0, T[keep], np.nan)
        out["truth"].append(T[i][observed])
        out["model"].append(expected[0][observed])
        out["low"].append(low[0][observed])
        out["high"].append(high[0][observed])
        out["median"].append(np.nanmedian(others, axis=0)[observed])
    return {k: np.concatenate(v) for k, v in out.items()}


def figures(result) -> dict:
    truth = result["truth"]
    row = {"times": truth.size}
    row["coverage (80 % interval)"] = float(
        np.mean((truth >= result["low"]) & (truth <= result["high"]))
    )
    for name in ("model", "median"):
        ratio = np.abs(np.log10(truth / result[name]))
        row[f"{name}: within x3"] = float(np.mean(ratio <= np.log10(3)))
        row[f"{name}: median decades off"] = float(np.median(ratio))
    return row


def main(argv=None) -> None:
    from metarec.storage import KnowledgeBase, open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabzilla", type=Path, default=TABZILLA)
    parser.add_argument("--history", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    kbs = {"built-in": open_builtin()}
    workdir = Path(tempfile.mkdtemp(prefix="metarec-runtime-"))
    for name, folder, runs in (
        ("TabZilla", args.tabzilla, "runs.csv"),
        ("realworld-dev", REALWORLD, "runs.csv.gz"),
    ):
        if folder.is_dir():
            kbs[name] = load_history(folder, runs, workdir / f"{name}.sqlite")
    for item in args.history:
        name, _, url = item.partition("=")
        kbs[name] = KnowledgeBase(url, create=False)
    rows = {name: figures(leave_one_dataset_out(*history(kb))) for name, kb in kbs.items()}
    columns = ["history", *next(iter(rows.values()))]
    table = markdown_table(columns, [[name, *row.values()] for name, row in rows.items()])
    print(table)
    write_page(
        args.markdown,
        "Expected fit time on unseen datasets",
        "Leave-one-dataset-out: the runtime model (one power law of fit time in rows, features "
        "and classes per algorithm, with a split-conformal 80 % interval) against the "
        "algorithm's median time over the other datasets. Written by "
        f"`python benchmarks/runtime_model.py`.\n\n{table}",
    )


if __name__ == "__main__":
    sys.exit(main())
