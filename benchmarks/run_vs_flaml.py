"""`metarec run` against FLAML, the blind pick and the single best algorithm, on unseen data.

Usage::

    pip install "flaml[automl]"          # a development dependency, never a runtime one
    python benchmarks/run_vs_flaml.py --jobs 2 --markdown docs/benchmarks/run-vs-flaml.md

Datasets: the first 20 by name of the ``../shared/realworld-dev`` files with under 1,000 rows
(real classification data outside the built-in knowledge base).  Outer 5-fold stratified CV
(seed 0), the same folds for every method; each method sees only the training part and is
scored on the test part.  Methods:

- ``metarec run --budget 10`` / ``--budget 60``: the command in a fresh process, with a fresh
  home (so a fresh copy of the built-in KB, which has never seen the dataset: a KB that had
  stored the previous fold's runs would know the answer), ``--output`` a model that then
  predicts the test part (the default answer: the average of the three best algorithms by
  selection score).  Its wall time is the whole command, start-up included.
- FLAML ``AutoML().fit(X, y, task="classification", metric="accuracy", time_budget=10 / 60,
  n_jobs=1, seed=0)``.
- blind pick: every algorithm of metarec's default portfolio, inner stratified 3-fold CV on
  the training part, the best mean accuracy refitted (no knowledge base), single-threaded.
- single best: the built-in KB's best algorithm by mean accuracy over its datasets, alone.

Every (method, dataset, fold) result is kept in ``--cache`` as a small JSON file and only
missing ones are computed, so the run can be stopped and resumed.  ``--jobs`` runs that many
results at once (2 on 2 cores: FLAML and the blind pick use one core each; ``metarec run``
uses ``-j 1`` then).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
REALWORLD = ROOT.parent / "shared" / "realworld-dev"
METHODS = ("metarec10", "metarec60", "flaml10", "flaml60", "blind", "single_best")
LABELS = {
    "metarec10": "metarec run --budget 10",
    "metarec60": "metarec run --budget 60",
    "flaml10": "FLAML time_budget=10",
    "flaml60": "FLAML time_budget=60",
    "blind": "blind pick (all algorithms, inner 3-fold CV)",
    "single_best": "single best of the KB",
}
N_DATASETS = 20
N_FOLDS = 5
HOME = Path(tempfile.gettempdir()) / "metarec-vs-flaml-home"


def datasets() -> list[str]:
    """The first 20 by name of the realworld-dev files with under 1,000 rows."""
    manifest = pd.read_csv(REALWORLD / "manifest.csv")
    return sorted(manifest.loc[manifest["rows"] < 1000, "name"])[:N_DATASETS]


def load(name: str):
    from metarec.data import load_dataset

    return load_dataset(REALWORLD / "data" / f"{name}.csv", target="target")


def outer_folds(y) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedKFold

    codes = np.unique(np.asarray(y).astype(str), return_inverse=True)[1]
    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=0).split(codes, codes))


def single_best_algorithm() -> str:
    """The built-in KB's algorithm of best mean accuracy: the one ``metarec run`` averages in."""
    from metarec.automl._select import single_best
    from metarec.recommender import Recommender, fitted_recommender
    from metarec.storage import open_builtin

    return single_best(fitted_recommender(open_builtin(), Recommender(task="classification")))


# --------------------------------------------------------------------------- the methods
def _portfolio_fit(name: str, ds, train, seed: int = 0):
    from metarec.benchmark import build_pipeline, default_portfolio

    algorithm = default_portfolio()[name]
    pipeline = build_pipeline(
        algorithm,
        numeric_columns=tuple(ds.numeric_columns),
        categorical_columns=tuple(ds.categorical_columns),
        random_state=seed,
    )
    return pipeline


def _codes(y):
    classes, codes = np.unique(np.asarray(y).astype(str), return_inverse=True)
    return classes, codes


def run_blind(ds, train, test) -> dict:
    import warnings

    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from threadpoolctl import threadpool_limits

    from metarec.benchmark import default_portfolio

    warnings.simplefilter("ignore")
    classes, codes = _codes(ds.y)
    X_train, y_train = ds.X.iloc[train], codes[train]
    start = time.perf_counter()
    scores = {}
    with threadpool_limits(1):
        inner = StratifiedKFold(3, shuffle=True, random_state=0)
        for algorithm in default_portfolio():
            try:
                pipeline = _portfolio_fit(algorithm.name, ds, train)
                scores[algorithm.name] = float(
                    np.mean(cross_val_score(pipeline, X_train, y_train, cv=inner))
                )
            except Exception:  # an algorithm that fails here is not chosen
                continue
        best = max(scores, key=scores.get)
        model = _portfolio_fit(best, ds, train).fit(X_train, y_train)
        accuracy = float(np.mean(model.predict(ds.X.iloc[test]) == codes[test]))
    return {"accuracy": accuracy, "seconds": time.perf_counter() - start, "choice": best}


def run_single_best(ds, train, test, *, algorithm: str) -> dict:
    import warnings

    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    classes, codes = _codes(ds.y)
    start = time.perf_counter()
    with threadpool_limits(1):
        model = _portfolio_fit(algorithm, ds, train).fit(ds.X.iloc[train], codes[train])
        accuracy = float(np.mean(model.predict(ds.X.iloc[test]) == codes[test]))
    return {"accuracy": accuracy, "seconds": time.perf_counter() - start, "choice": algorithm}


def run_flaml(ds, train, test, *, budget: int) -> dict:
    import warnings

    from flaml import AutoML

    warnings.simplefilter("ignore")
    X = ds.X.copy()
    for column in ds.categorical_columns:
        X[column] = X[column].astype("category")
    y = np.asarray(ds.y).astype(str)
    start = time.perf_counter()
    automl = AutoML()
    automl.fit(
        X.iloc[train],
        y[train],
        task="classification",
        metric="accuracy",
        time_budget=budget,
        n_jobs=1,
        seed=0,
        verbose=0,
    )
    predicted = automl.predict(X.iloc[test])
    seconds = time.perf_counter() - start
    accuracy = float(np.mean(np.asarray(predicted).astype(str) == y[test]))
    return {"accuracy": accuracy, "seconds": seconds, "choice": str(automl.best_estimator)}


def run_metarec(ds, train, test, *, budget: int, name: str, fold: int) -> dict:
    """``metarec run`` in a fresh process and a fresh home on the training part."""
    import joblib

    work = Path(tempfile.mkdtemp(prefix="metarec-vs-flaml-"))
    try:
        frame = ds.X.iloc[train].copy()
        frame["target"] = np.asarray(ds.y)[train]
        data = work / f"{name}.csv"
        frame.to_csv(data, index=False)
        model = work / "model.joblib"
        # the built-in KB's SQLite copy and fitted recommender are kept in a shared home;
        # every call gets a fresh knowledge base (--db) copied from the built-in one
        env = {**os.environ, "METAREC_HOME": str(HOME)}
        command = [
            sys.executable, "-m", "metarec", "--db", f"sqlite:///{work / 'kb.sqlite'}", "run",
            str(data), "--target", "target", "--budget", str(budget), "--output", str(model),
            "--format", "json", "-j", "1",
        ]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"metarec run failed on {name} fold {fold}: {done.stderr[-500:]}")
        estimator = joblib.load(model)
        predicted = np.asarray(estimator.predict(ds.X.iloc[test])).astype(str)
        accuracy = float(np.mean(predicted == np.asarray(ds.y).astype(str)[test]))
        sidecar = json.loads(model.with_suffix(".json").read_text())
        return {
            "accuracy": accuracy,
            "seconds": seconds,
            "choice": sidecar["algorithm"],
            "ran": sidecar.get("n_evaluated"),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compute(method: str, name: str, fold: int, single_best: str) -> dict:
    ds = load(name)
    train, test = outer_folds(ds.y)[fold]
    if method.startswith("metarec"):
        return run_metarec(ds, train, test, budget=int(method[7:]), name=name, fold=fold)
    if method.startswith("flaml"):
        return run_flaml(ds, train, test, budget=int(method[5:]))
    if method == "blind":
        return run_blind(ds, train, test)
    return run_single_best(ds, train, test, algorithm=single_best)


def _task(args) -> tuple:
    method, name, fold, single_best, path = args
    os.chdir(tempfile.mkdtemp(prefix="vs-flaml-"))  # CatBoost (in FLAML) writes into the cwd
    result = compute(method, name, fold, single_best)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(result))
    tmp.replace(path)
    return method, name, fold, result


# --------------------------------------------------------------------------- the report
def summarise(results: pd.DataFrame, budgets: dict[str, int]) -> pd.DataFrame:
    """Mean accuracy, mean wall time, wins per method over the (dataset, fold) cells."""
    table = results.pivot_table(
        index=["dataset", "fold"], columns="method", values="accuracy"
    ).dropna()
    best = table.max(axis=1)
    rows = []
    for method in [m for m in METHODS if m in table.columns]:
        mine = results[results["method"] == method]
        row = {
            "method": LABELS[method],
            "accuracy": 100 * table[method].mean(),
            "wall_s": mine["seconds"].mean(),
            "max_wall_s": mine["seconds"].max(),
            "best_on": int((table[method] >= best - 1e-12).sum()),
            "cells": len(table),
        }
        if method in budgets:
            row["over_budget"] = int((mine["seconds"] > budgets[method] * 1.1 + 2).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def against(results: pd.DataFrame, method: str = "metarec10") -> pd.DataFrame:
    """``method`` minus each other method: mean paired difference (points) and its error.

    The standard error is that of the mean over the (dataset, fold) cells; ``datasets_below``
    counts the datasets where ``method``'s mean accuracy is more than 0.3 points below the
    other method's, ``beyond_noise`` those of them where it is also more than two standard
    errors of that dataset's paired difference (over its outer folds) below.
    """
    table = results.pivot_table(
        index=["dataset", "fold"], columns="method", values="accuracy"
    ).dropna()
    rows = []
    for other in [m for m in METHODS if m in table.columns and m != method]:
        diff = 100 * (table[method] - table[other])
        by_dataset = diff.groupby(level="dataset")
        mean, error = by_dataset.mean(), by_dataset.std(ddof=1) / np.sqrt(by_dataset.size())
        below = mean < -0.3
        rows.append(
            {
                "against": LABELS[other],
                "difference": diff.mean(),
                "standard_error": diff.std(ddof=1) / np.sqrt(len(diff)),
                "datasets_below": f"{int(below.sum())} of {len(mean)}",
                "beyond_noise": f"{int((below & (mean + 2 * error < 0)).sum())} of {len(mean)}",
            }
        )
    return pd.DataFrame(rows)


def per_dataset(results: pd.DataFrame) -> str:
    """Each dataset's mean accuracy per method, and metarec10's difference to the single best."""
    table = 100 * results.pivot_table(index="dataset", columns="method", values="accuracy")
    methods = [m for m in METHODS if m in table.columns]
    columns = ["dataset", *methods]
    rows = [[name, *(table.loc[name, m] for m in methods)] for name in table.index]
    if {"metarec10", "single_best"} <= set(methods):
        columns += ["metarec10 - single_best", "its standard error"]
        folds = results.pivot_table(
            index=["dataset", "fold"], columns="method", values="accuracy"
        ).dropna()
        diff = (100 * (folds["metarec10"] - folds["single_best"])).groupby(level="dataset")
        error = diff.std(ddof=1) / np.sqrt(diff.size())
        for row, name in zip(rows, table.index, strict=True):
            row.append(table.loc[name, "metarec10"] - table.loc[name, "single_best"])
            row.append(error.get(name, np.nan))
    return markdown_table(columns, rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / "benchmarks" / ".cache" / "vs-flaml")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")
    single_best = single_best_algorithm()
    names = datasets()
    todo = []
    for method in methods:
        for name in names:
            for fold in range(N_FOLDS):
                path = args.cache / method / f"{name}-{fold}.json"
                if not path.exists():
                    todo.append((method, name, fold, single_best, path))
    print(f"{len(todo)} results to compute; single best of the KB: {single_best}", flush=True)
    if any(t[0].startswith("metarec") for t in todo):  # build the shared home once
        subprocess.run(
            [sys.executable, "-m", "metarec", "recommend", "sklearn:iris", "--format", "csv"],
            env={**os.environ, "METAREC_HOME": str(HOME)},
            capture_output=True,
            check=True,
        )
    # FLAML's long budgets first, so that the short tasks fill the gaps at the end
    todo.sort(key=lambda t: -int("".join(c for c in t[0] if c.isdigit()) or 0))
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_task, t) for t in todo]
        for n, future in enumerate(as_completed(futures), 1):
            method, name, fold, result = future.result()
            print(f"[{n}/{len(todo)}] {method} {name} fold {fold}: {result}", flush=True)
    records = []
    for method in METHODS:
        for name in names:
            for fold in range(N_FOLDS):
                path = args.cache / method / f"{name}-{fold}.json"
                if path.exists():
                    record = json.loads(path.read_text())
                    records.append({"method": method, "dataset": name, "fold": fold, **record})
    results = pd.DataFrame(records)
    budgets = {"metarec10": 10, "metarec60": 60, "flaml10": 10, "flaml60": 60}
    summary = summarise(results, budgets)
    print(summary.round(3).to_string(index=False))
    columns = list(summary.columns)
    paired = against(results)
    print(paired.round(3).to_string(index=False))
    choices = (
        results.groupby("method")["choice"]
        .agg(lambda c: ", ".join(f"{k} {v}" for k, v in c.value_counts().head(5).items()))
        .rename(index=LABELS)
    )
    text = (
        f"{len(names)} datasets of `realworld-dev` (files under 1,000 rows, the first "
        f"{N_DATASETS} by name: {', '.join(names)}), outer {N_FOLDS}-fold stratified CV, "
        "the same folds for every method; accuracy in percent on the outer test parts, "
        "`wall_s` the mean wall time of one outer fold (for `metarec run`: the whole "
        "command, start-up included), `best_on` the (dataset, fold) cells where the method "
        "is best or tied, `over_budget` the calls over budget x 1.1 + 2 s.  Written by "
        "`python benchmarks/run_vs_flaml.py`.\n\n"
        + markdown_table(columns, summary.itertuples(index=False))
        + f"\n\n{LABELS['metarec10']} against each method, paired over the cells "
        "(accuracy points; `datasets_below`: datasets where it is more than 0.3 points "
        "below; `beyond_noise`: those of them where it is also more than two standard errors "
        "of the dataset's paired difference over its 5 outer folds below, i.e. a shortfall "
        "the folds' noise does not explain):\n\n"
        + markdown_table(list(paired.columns), paired.itertuples(index=False))
        + "\n\nPer dataset (mean accuracy over the outer folds, percent):\n\n"
        + per_dataset(results)
        + "\n\nMost frequent choices:\n\n"
        + "\n".join(f"- {method}: {text}" for method, text in choices.items())
    )
    write_page(args.markdown, "`metarec run` against FLAML", text)


if __name__ == "__main__":
    sys.exit(main())
