"""`metarec run` against the AutoML systems a user would pick instead, on the same outer folds.

Usage::

    pip install -e ".[bench]"                      # FLAML (development only)
    python -m venv /tmp/ag && /tmp/ag/bin/pip install "autogluon.tabular[lightgbm,catboost,xgboost]"
    AUTOGLUON_PYTHON=/tmp/ag/bin/python python benchmarks/run_vs_flaml.py --jobs 1 \
        --markdown docs/benchmarks/run-vs-flaml.md
    ... --task regression --markdown docs/benchmarks/run-vs-automl-regression.md

Datasets: classification, the first 20 by name of the ``../shared/realworld-dev`` files with
under 1,000 rows (real data outside the built-in knowledge base); regression, the first 20 by
name of the regression collection's files under 1,000 rows, each held out of the knowledge
base while it is the test (a copy of the built-in one without it).  Outer 5-fold CV (seed 0;
stratified for classification), the same folds for every method; each method sees only the
training part and is scored on the test part (accuracy; for regression R²).  Methods:

- ``metarec run --budget 10`` / ``--budget 60`` ``--ensemble-method selection``: the
  command in a fresh process, with a fresh knowledge base copied from the built-in one,
  ``--output`` a model that then predicts the test part (ensemble selection over the
  out-of-fold predictions).  Its wall time is the whole command, start-up included.
- ``configs10`` / ``configs60``: ``metarec run --budget 10`` / ``60`` as a user runs it (the
  default answer, ``--ensemble-method average``) on the built-in knowledge base with its
  configurations.
- ``portfolio60``: recorded only, never computed: ``configs60``'s results at a commit where
  only the configurations of the portfolio chosen for the dataset were candidates (now every
  configuration the knowledge base knows is), copied into its folder of the cache.
- ``average10`` / ``average60``: the same on a knowledge base of the default algorithms alone
  (the candidates of a knowledge base without configurations).
- FLAML ``AutoML().fit(X, y, time_budget=10 / 60, n_jobs=1, seed=0)``.
- AutoGluon (``autogluon.tabular`` from PyPI, in its own virtual environment named by
  ``AUTOGLUON_PYTHON``) ``TabularPredictor(...).fit(train, time_limit=10 / 60, presets=
  "best_quality" / the default preset, num_cpus=1, num_gpus=0, dynamic_stacking=False)``.
- blind pick: every algorithm of metarec's default portfolio, inner 3-fold CV on the
  training part, the best mean score refitted (no knowledge base), single-threaded.
- single best: the built-in KB's single best algorithm, alone.

Every (method, dataset, fold) result is kept in ``--cache`` as a small JSON file and only
missing ones are computed (``metarec run``'s under the built-in knowledge base's version, the
single best's under its name: a new knowledge base computes them again), so the run can be stopped and resumed.  ``--jobs`` runs that many
results at once (1 keeps every method on a core of its own beside the others' work; each
method is given one CPU).
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

from _kb_frames import builtin_version
from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
REALWORLD = ROOT.parent / "shared" / "realworld-dev"
REGRESSION = ROOT.parent / "shared" / "datasets" / "regression"
METHODS = (
    "metarec10", "metarec60", "configs10", "configs60", "portfolio60", "average10", "average60",
    "flaml10", "flaml60", "autogluon_best10",
    "autogluon_best60", "autogluon10", "autogluon60", "blind", "single_best",
)  # fmt: skip
LABELS = {
    "metarec10": "metarec run --budget 10 --ensemble-method selection",
    "metarec60": "metarec run --budget 60 --ensemble-method selection",
    "configs10": "metarec run --budget 10 (the default answer, configurations known)",
    "configs60": "metarec run --budget 60 (the default answer, configurations known)",
    "portfolio60": "metarec run --budget 60 (only the portfolio's configurations candidates; recorded at 03b1406)",
    "average10": "metarec run --budget 10, defaults only, averaged answer (the default)",
    "average60": "metarec run --budget 60, defaults only, averaged answer (the default)",
    "flaml10": "FLAML time_budget=10",
    "flaml60": "FLAML time_budget=60",
    "autogluon_best10": "AutoGluon best_quality, time_limit=10",
    "autogluon_best60": "AutoGluon best_quality, time_limit=60",
    "autogluon10": "AutoGluon default preset, time_limit=10",
    "autogluon60": "AutoGluon default preset, time_limit=60",
    "blind": "blind pick (all default algorithms, inner 3-fold CV)",
    "single_best": "single best of the KB",
}
BUDGETS = {m: int("".join(c for c in m if c.isdigit())) for m in METHODS if m[-1].isdigit()}
N_DATASETS = 20
N_FOLDS = 5
HOME = Path(tempfile.gettempdir()) / "metarec-vs-automl-home"
TEMPLATES = Path(tempfile.gettempdir()) / "metarec-vs-automl-kbs"


def datasets(task: str) -> list[str]:
    """The first 20 by name of the files of the task's collection with under 1,000 rows."""
    if task == "classification":
        manifest = pd.read_csv(REALWORLD / "manifest.csv")
        return sorted(manifest.loc[manifest["rows"] < 1000, "name"])[:N_DATASETS]
    summary = pd.read_csv(REGRESSION / "summary.csv")
    rows = "rows" if "rows" in summary.columns else "n_rows"
    names = summary.loc[summary[rows] < 1000, summary.columns[0]].astype(str)
    return sorted(n.removesuffix(".csv") for n in names)[:N_DATASETS]


def load(name: str, task: str):
    from metarec.data import load_dataset

    if task == "classification":
        return load_dataset(REALWORLD / "data" / f"{name}.csv", target="target")
    return load_dataset(REGRESSION / f"{name}.csv", target="target", task="regression")


def outer_folds(ds) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import KFold, StratifiedKFold

    if ds.task == "regression":
        return list(KFold(N_FOLDS, shuffle=True, random_state=0).split(ds.X))
    codes = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)[1]
    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=0).split(codes, codes))


def single_best_algorithm(task: str) -> str:
    """The built-in KB's single best algorithm of the task."""
    from metarec.recommender import PerformanceMatrix
    from metarec.storage import open_builtin

    return PerformanceMatrix.from_kb(open_builtin(), task=task).single_best()


def score(ds, test, predicted) -> float:
    """Accuracy, or R² for regression, on the test rows."""
    y = np.asarray(ds.y)[test]
    if ds.task == "regression":
        from metarec.evaluation import r2_score

        return r2_score(y.astype(float), np.asarray(predicted, dtype=float))
    return float(np.mean(np.asarray(predicted).astype(str) == y.astype(str)))


# --------------------------------------------------------------------------- knowledge bases
def kb_template(*, without: str | None = None, defaults_only: bool = False) -> Path:
    """A SQLite copy of the built-in knowledge base, without a dataset or the configurations
    (made once and kept; every call copies it)."""
    name = (
        f"builtin-{builtin_version()}-{without or 'all'}-"
        f"{'defaults' if defaults_only else 'full'}.sqlite"
    )
    path = TEMPLATES / name
    if path.exists():
        return path
    from _kb_frames import builtin_copy

    TEMPLATES.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    builtin_copy(tmp, without=without, defaults_only=defaults_only)
    tmp.replace(path)
    return path


def result_path(cache: Path, method: str, name: str, fold: int, single_best: str) -> Path:
    """Where one (method, dataset, fold) result is kept."""
    if method.startswith(("metarec", "average", "configs", "portfolio")):
        return cache / method / builtin_version() / f"{name}-{fold}.json"
    if method == "single_best":
        return cache / method / single_best / f"{name}-{fold}.json"
    return cache / method / f"{name}-{fold}.json"


# --------------------------------------------------------------------------- the methods
def _portfolio_fit(name: str, ds, seed: int = 0):
    from metarec.algorithms import default_portfolio

    return default_portfolio(task="all", configurations=True)[name].build_pipeline(
        numeric_columns=tuple(ds.numeric_columns),
        categorical_columns=tuple(ds.categorical_columns),
        random_state=seed,
    )


def _target(ds):
    """What the pipelines are fitted on: class codes, or the values."""
    if ds.task == "regression":
        return None, np.asarray(ds.y, dtype=float)
    return np.unique(np.asarray(ds.y).astype(str), return_inverse=True)


def run_blind(ds, train, test) -> dict:
    import warnings

    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
    from threadpoolctl import threadpool_limits

    from metarec.algorithms import default_portfolio

    warnings.simplefilter("ignore")
    classes, codes = _target(ds)
    X_train, y_train = ds.X.iloc[train], codes[train]
    start = time.perf_counter()
    scores = {}
    splitter = KFold if ds.task == "regression" else StratifiedKFold
    with threadpool_limits(1):
        inner = splitter(3, shuffle=True, random_state=0)
        for algorithm in default_portfolio(
            task="regression" if classes is None else "classification"
        ):
            try:
                pipeline = _portfolio_fit(algorithm.name, ds)
                scores[algorithm.name] = float(
                    np.mean(cross_val_score(pipeline, X_train, y_train, cv=inner))
                )
            except Exception:  # an algorithm that fails here is not chosen
                continue
        best = max(scores, key=scores.get)
        model = _portfolio_fit(best, ds).fit(X_train, y_train)
        predicted = model.predict(ds.X.iloc[test])
    if classes is not None:
        predicted = classes[np.asarray(predicted).astype(int)]
    return {"accuracy": score(ds, test, predicted), "seconds": time.perf_counter() - start,
            "choice": best}  # fmt: skip


def run_single_best(ds, train, test, *, algorithm: str) -> dict:
    import warnings

    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    classes, codes = _target(ds)
    start = time.perf_counter()
    with threadpool_limits(1):
        model = _portfolio_fit(algorithm, ds).fit(ds.X.iloc[train], codes[train])
        predicted = model.predict(ds.X.iloc[test])
    if classes is not None:
        predicted = classes[np.asarray(predicted).astype(int)]
    return {"accuracy": score(ds, test, predicted), "seconds": time.perf_counter() - start,
            "choice": algorithm}  # fmt: skip


def run_flaml(ds, train, test, *, budget: int) -> dict:
    import warnings

    from flaml import AutoML

    warnings.simplefilter("ignore")
    X = ds.X.copy()
    for column in ds.categorical_columns:
        X[column] = X[column].astype("category")
    regression = ds.task == "regression"
    y = np.asarray(ds.y, dtype=float) if regression else np.asarray(ds.y).astype(str)
    start = time.perf_counter()
    automl = AutoML()
    automl.fit(
        X.iloc[train], y[train], task="regression" if regression else "classification",
        metric="r2" if regression else "accuracy", time_budget=budget, n_jobs=1, seed=0,
        verbose=0,
    )  # fmt: skip
    predicted = automl.predict(X.iloc[test])
    seconds = time.perf_counter() - start
    return {"accuracy": score(ds, test, predicted), "seconds": seconds,
            "choice": str(automl.best_estimator)}  # fmt: skip


AUTOGLUON_SCRIPT = """
import json, sys, time
import pandas as pd
from autogluon.tabular import TabularPredictor
train, test, out, limit, presets, problem, metric, where = sys.argv[1:9]
train, test = pd.read_parquet(train), pd.read_parquet(test)
start = time.perf_counter()
options = {"presets": presets} if presets != "default" else {}
predictor = TabularPredictor(label="target", problem_type=problem, eval_metric=metric,
                             path=where, verbosity=0)
predictor.fit(train, time_limit=float(limit), num_cpus=1, num_gpus=0,
              dynamic_stacking=False, **options)
predicted = predictor.predict(test.drop(columns=["target"]))
seconds = time.perf_counter() - start
json.dump({"predicted": [str(v) if problem != "regression" else float(v) for v in predicted],
           "seconds": seconds, "choice": str(predictor.model_best)}, open(out, "w"))
"""


def run_autogluon(ds, train, test, *, budget: int, presets: str) -> dict:
    python = os.environ.get("AUTOGLUON_PYTHON")
    if not python:
        raise RuntimeError("AUTOGLUON_PYTHON names the python of a venv with autogluon.tabular")
    work = Path(tempfile.mkdtemp(prefix="vs-autogluon-"))
    try:
        frame = ds.X.copy()
        regression = ds.task == "regression"
        frame["target"] = (
            np.asarray(ds.y, dtype=float) if regression else np.asarray(ds.y).astype(str)
        )
        frame.iloc[train].to_parquet(work / "train.parquet")
        frame.iloc[test].to_parquet(work / "test.parquet")
        problem = (
            "regression"
            if regression
            else ("binary" if frame["target"].nunique() == 2 else "multiclass")
        )
        command = [
            python, "-c", AUTOGLUON_SCRIPT, str(work / "train.parquet"),
            str(work / "test.parquet"), str(work / "out.json"), str(budget), presets, problem,
            "r2" if regression else "accuracy", str(work / "models"),
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"AutoGluon failed: {done.stderr[-800:]}")
        out = json.loads((work / "out.json").read_text())
        return {"accuracy": score(ds, test, out["predicted"]), "seconds": out["seconds"],
                "choice": out["choice"]}  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_metarec(
    ds, train, test, *, budget: int, name: str, fold: int, average=False, defaults_only=False
) -> dict:
    """``metarec run`` in a fresh process on the training part, a fresh knowledge base."""
    import joblib

    template = kb_template(
        without=name if ds.task == "regression" else None, defaults_only=defaults_only
    )
    work = Path(tempfile.mkdtemp(prefix="metarec-vs-automl-"))
    try:
        frame = ds.X.iloc[train].copy()
        frame["target"] = np.asarray(ds.y)[train]
        data = work / f"{name}.csv"
        frame.to_csv(data, index=False)
        model = work / "model.joblib"
        shutil.copyfile(template, work / "kb.sqlite")
        env = {**os.environ, "METAREC_HOME": str(HOME / template.stem)}
        command = [
            sys.executable, "-m", "metarec", "--db", f"sqlite:///{work / 'kb.sqlite'}", "run",
            str(data), "--target", "target", "--budget", str(budget), "--output", str(model),
            "--format", "json", "-j", "1", "--task", ds.task if ds.task == "regression"
            else "classification",
        ]  # fmt: skip
        command += ["--ensemble-method", "average" if average else "selection"]
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"metarec run failed on {name} fold {fold}: {done.stderr[-500:]}")
        estimator = joblib.load(model)
        predicted = estimator.predict(ds.X.iloc[test])
        sidecar = json.loads(model.with_suffix(".json").read_text())
        return {
            "accuracy": score(ds, test, predicted),
            "seconds": seconds,
            "choice": "+".join(sidecar.get("ensemble") or [sidecar["algorithm"]]),
            "ran": sidecar.get("n_evaluated"),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compute(method: str, name: str, fold: int, task: str, single_best: str) -> dict:
    ds = load(name, task)
    train, test = outer_folds(ds)[fold]
    if method.startswith("metarec"):
        return run_metarec(ds, train, test, budget=BUDGETS[method], name=name, fold=fold)
    if method.startswith(("average", "configs")):
        return run_metarec(
            ds, train, test, budget=BUDGETS[method], name=name, fold=fold, average=True,
            defaults_only=method.startswith("average"),
        )  # fmt: skip
    if method.startswith("portfolio"):
        raise RuntimeError(
            f"{method} is recorded only: the results of configs60 at a commit where only the "
            "portfolio's configurations were candidates, copied to its folder"
        )
    if method.startswith("flaml"):
        return run_flaml(ds, train, test, budget=BUDGETS[method])
    if method.startswith("autogluon"):
        presets = "best_quality" if "best" in method else "default"
        return run_autogluon(ds, train, test, budget=BUDGETS[method], presets=presets)
    if method == "blind":
        return run_blind(ds, train, test)
    return run_single_best(ds, train, test, algorithm=single_best)


def _task(args) -> tuple:
    method, name, fold, task, single_best, path = args
    os.chdir(tempfile.mkdtemp(prefix="vs-automl-"))  # CatBoost (in FLAML) writes into the cwd
    result = compute(method, name, fold, task, single_best)
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
    parser.add_argument("--task", choices=("classification", "regression"),
                        default="classification")  # fmt: skip
    parser.add_argument("--cache", type=Path, default=ROOT / "benchmarks" / ".cache" / "vs-automl")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")
    task = args.task
    cache = args.cache / task
    single_best = single_best_algorithm(task)
    names = datasets(task)
    todo = []
    for method in methods:
        for name in names:
            for fold in range(N_FOLDS):
                path = result_path(cache, method, name, fold, single_best)
                if not path.exists():
                    todo.append((method, name, fold, task, single_best, path))
    print(f"{len(todo)} results to compute; single best of the KB: {single_best}", flush=True)
    for name in names if task == "regression" else [None]:  # the knowledge bases, once
        if any(t[0].startswith(("metarec", "configs")) for t in todo):
            kb_template(without=name)
        if any(t[0].startswith("average") for t in todo):
            kb_template(without=name, defaults_only=True)
    # the long budgets first, so that the short tasks fill the gaps at the end; the methods
    # interleaved by dataset and fold, so that a run stopped early leaves paired results
    todo.sort(key=lambda t: (-BUDGETS.get(t[0], 0), t[1], t[2]))
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_task, t) for t in todo]
        for n, future in enumerate(as_completed(futures), 1):
            method, name, fold, result = future.result()
            print(f"[{n}/{len(todo)}] {method} {name} fold {fold}: {result}", flush=True)
    records = []  # the methods asked for (all by default): a page of a subset says so
    for method in [m for m in METHODS if m in methods]:
        for name in names:
            for fold in range(N_FOLDS):
                path = result_path(cache, method, name, fold, single_best)
                if path.exists():
                    record = json.loads(path.read_text())
                    records.append({"method": method, "dataset": name, "fold": fold, **record})
    results = pd.DataFrame(records)
    summary = summarise(results, BUDGETS)
    print(summary.round(3).to_string(index=False))
    figure = "R²" if task == "regression" else "accuracy"
    sections = []
    for method in ("configs10", "configs60", "metarec10", "metarec60"):
        if method in set(results["method"]):
            paired = against(results, method)
            print(paired.round(3).to_string(index=False))
            sections.append(
                f"{LABELS[method]} against each method, paired over the cells ({figure} "
                "points; `datasets_below`: datasets where it is more than 0.3 points below; "
                "`beyond_noise`: those of them where it is also more than two standard errors "
                "of the dataset's paired difference over its 5 outer folds below):\n\n"
                + markdown_table(list(paired.columns), paired.itertuples(index=False))
            )
    choices = (
        results.groupby("method")["choice"]
        .agg(lambda c: ", ".join(f"{k} {v}" for k, v in c.value_counts().head(4).items()))
        .rename(index=LABELS)
    )
    collection = (
        "`realworld-dev` (files under 1,000 rows, the first 20 by name)"
        if task == "classification"
        else "the regression collection (files under 1,000 rows, the first 20 by name; each "
        "held out of the knowledge base while it is tested)"
    )
    left_out = [m for m in METHODS if m not in methods]
    text = (
        f"{len(names)} datasets of {collection}: {', '.join(names)}; outer {N_FOLDS}-fold "
        "CV, the same folds for every method; "
        f"{figure} {'(percent) ' if task == 'classification' else '(x 100) '}on the outer test "
        "parts, `wall_s` the mean wall time of one outer fold (for `metarec run`: the whole "
        "command, start-up included), `best_on` the (dataset, fold) cells where the method is "
        "best or tied, `over_budget` the calls over budget x 1.1 + 2 s.  Every method had one "
        "CPU.  Written by `python benchmarks/run_vs_flaml.py"
        + (" --task regression" if task == "regression" else "")
        + (
            f" --methods {args.methods}`; not on this page: {', '.join(left_out)}"
            if left_out
            else "`"
        )
        + ".\n\n"
        + markdown_table(list(summary.columns), summary.itertuples(index=False))
        + "\n\n"
        + "\n\n".join(sections)
        + "\n\nPer dataset (mean over the outer folds):\n\n"
        + per_dataset(results)
        + "\n\nMost frequent choices:\n\n"
        + "\n".join(f"- {method}: {text}" for method, text in choices.items())
    )
    automl = any(m.startswith(("flaml", "autogluon")) for m in methods)
    title = (
        "`metarec run` against AutoML systems"
        if automl
        else "`metarec run` against its averaged answer and the blind pick"
    ) + (", regression" if task == "regression" else "")
    write_page(args.markdown, title, text)


if __name__ == "__main__":
    sys.exit(main())
