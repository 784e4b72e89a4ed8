"""Rules that choose `metarec run`'s answer among the evaluated algorithms, on unseen data.

Usage::

    python benchmarks/run_answer_choice.py --jobs 2 --markdown docs/benchmarks/run-answer.md

``metarec run`` evaluates algorithms on the user's data and then has to choose the answer
from a few noisy fold scores.  This script records, once per (dataset, outer fold), what a
``--budget 10`` search saw (every evaluated algorithm's inner fold scores, the knowledge
base's expectation of it with its 80 % interval, its fit time) and every evaluated
algorithm's class probabilities on the outer test part; each rule is then replayed on those
records, so that rules are compared on exactly the same searches.

Datasets (``../shared/realworld-dev``, real data outside the built-in knowledge base):

- ``tuning``: the files under 3,000 rows that ``run_vs_flaml.py`` does not use; the rules
  are chosen here.
- ``benchmark``: the 20 datasets of ``run_vs_flaml.py``; reported, never used to choose.
- ``large``: the files of 3,000 rows or more, where fold scores are precise and an average
  with a clearly worse model shows; reported.

Outer 5-fold stratified CV (seed 0, the folds of ``run_vs_flaml.py``).  Each search is
``AutoClassifier(budget=10, ensemble_size=1, store=False, n_jobs=1)`` on the training part,
with the built-in knowledge base, which has never seen these datasets.  The per-cell
records are kept in ``--cache``; only missing ones are computed.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page
from run_vs_flaml import N_FOLDS, REALWORLD, ROOT, load, outer_folds, single_best_algorithm
from run_vs_flaml import datasets as benchmark_datasets

from metarec.automl import TIE_MIN_ROWS

BUDGET = 10
MAX_ROWS = 3000


def large_datasets() -> list[str]:
    """realworld-dev files of 3,000 rows or more (where fold scores are precise)."""
    manifest = pd.read_csv(REALWORLD / "manifest.csv")
    return sorted(manifest.loc[manifest["rows"] >= MAX_ROWS, "name"])


def tuning_datasets() -> list[str]:
    """realworld-dev files under 3,000 rows that the FLAML comparison does not use."""
    manifest = pd.read_csv(REALWORLD / "manifest.csv")
    small = sorted(manifest.loc[manifest["rows"] < MAX_ROWS, "name"])
    used = set(benchmark_datasets())
    return [name for name in small if name not in used]


# --------------------------------------------------------------------------- the records
def record(name: str, fold: int) -> dict:
    """One search on an outer training part and every evaluated algorithm's test probabilities."""
    import warnings

    from threadpoolctl import threadpool_limits

    from metarec import AutoClassifier
    from metarec.algorithms import build_pipeline, default_portfolio
    from metarec.automl import AveragedClassifier

    warnings.simplefilter("ignore")
    ds = load(name)
    train, test = outer_folds(ds.y)[fold]
    X_train, X_test = ds.X.iloc[train], ds.X.iloc[test]
    y = pd.Series(np.asarray(ds.y).astype(str), name="target")
    work = Path(tempfile.mkdtemp(prefix="answer-choice-"))
    kb = work / "kb.sqlite"  # not created: store=False reads the built-in knowledge base
    search = AutoClassifier(
        budget=BUDGET, kb=str(kb), store=False, ensemble_size=1, n_jobs=1, random_state=0
    ).fit(X_train, y.iloc[train].reset_index(drop=True))
    portfolio = default_portfolio(task="all")
    algorithms = {}
    with threadpool_limits(1):
        for trial in search.search_.trials:
            if not trial.complete or not trial.fold_scores:
                continue
            pipeline = build_pipeline(
                portfolio[trial.algorithm],
                numeric_columns=tuple(ds.numeric_columns),
                categorical_columns=tuple(ds.categorical_columns),
                random_state=0,
            )
            model = AveragedClassifier([(trial.algorithm, pipeline)])
            try:
                model.fit(X_train, y.iloc[train].to_numpy())
                proba = model.predict_proba(X_test)
            except Exception:  # fails on all the training rows: not a candidate
                continue
            algorithms[trial.algorithm] = {
                "fold_scores": np.asarray(trial.fold_scores, dtype=float),
                "expected": trial.expected_score,
                "low": trial.expected_score_low,
                "high": trial.expected_score_high,
                "fit_time": trial.fit_time,
                "proba": proba,
            }
            classes = model.classes_
    return {"algorithms": algorithms, "classes": classes, "y_test": y.iloc[test].to_numpy()}


def _task(args) -> tuple[str, int]:
    name, fold, path = args
    os.chdir(tempfile.mkdtemp(prefix="answer-choice-cwd-"))  # CatBoost writes into the cwd
    result = record(name, fold)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(pickle.dumps(result))
    tmp.replace(path)
    return name, fold


# --------------------------------------------------------------------------- the rules
def _posterior(cell) -> tuple[list[str], np.ndarray]:
    from metarec.automl import posterior_scores

    names = list(cell["algorithms"])
    rows = [cell["algorithms"][a] for a in names]
    post = posterior_scores(
        [r["fold_scores"] for r in rows],
        np.array([r["expected"] for r in rows]),
        np.array([r["low"] for r in rows]),
        np.array([r["high"] for r in rows]),
    )
    return names, post


def _ordered(cell, by: str = "posterior") -> list[str]:
    from metarec.automl import selection_order

    names, post = _posterior(cell)
    if by == "cv":
        post = np.array([cell["algorithms"][a]["fold_scores"].mean() for a in names])
    fit = np.array([cell["algorithms"][a]["fit_time"] for a in names])
    return [names[i] for i in selection_order(post, fit)]


def top(k: int, *, anchor: bool = True, by: str = "posterior"):
    """The k best (by the posterior or the plain CV mean), and the single best when not among them."""

    def rule(cell, sbs):
        members = _ordered(cell, by)[:k]
        if anchor and k >= 2 and sbs in cell["algorithms"] and sbs not in members:
            members.append(sbs)
        return members

    return rule


def tied_top(k: int, z: float = 2.0, *, min_rows: int = 0):
    """The k best and the single best, each after the best only when tied with it within the
    folds' noise (``tied_with``), on training parts of ``min_rows`` rows or more
    (``metarec run``'s rule with ``min_rows=TIE_MIN_ROWS``)."""
    from metarec.automl import tied_with

    def rule(cell, sbs):
        if cell["n_train"] < min_rows:
            return top(k)(cell, sbs)
        order = _ordered(cell)
        folds = {a: cell["algorithms"][a]["fold_scores"] for a in order}
        members = [order[0]]
        members += [a for a in order[1:k] if tied_with(folds[order[0]], folds[a], z=z)]
        if sbs in folds and sbs not in members and tied_with(folds[order[0]], folds[sbs], z=z):
            members.append(sbs)
        return members

    return rule


def unless_beaten(z: float, k: int = 3):
    """The single best alone unless the best beats it on the same folds by ``z`` standard errors.

    The difference of the best (by the posterior) and the single best is taken fold by fold
    (every algorithm runs on the same folds); with ``d`` those differences over ``n`` folds,
    the best is trusted when ``mean(d) > z * sd(d) / sqrt(n)``; then the answer is the
    default average of the ``k`` best (and the single best), else the single best alone.
    """
    default = top(k)

    def rule(cell, sbs):
        if sbs not in cell["algorithms"]:
            return default(cell, sbs)
        best = _ordered(cell)[0]
        if best == sbs:
            return [sbs] if k == 1 else default(cell, sbs)
        d = cell["algorithms"][best]["fold_scores"] - cell["algorithms"][sbs]["fold_scores"]
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.inf
        return default(cell, sbs) if d.mean() > z * se else [sbs]

    return rule


def anchored(k: int, weight: int):
    """The k best and the single best counted ``weight`` times in the average."""

    def rule(cell, sbs):
        members = _ordered(cell)[:k]
        if sbs in cell["algorithms"]:
            members += [sbs] * (weight - (sbs in members))
        return members

    return rule


RULES = {
    "best alone (posterior)": top(1),
    "best alone (CV mean)": top(1, by="cv"),
    "2 best + single best": top(2),
    "3 best + single best, tied with the best from 3,000 rows (the default)": tied_top(
        3, min_rows=TIE_MIN_ROWS
    ),
    "3 best + single best, tied with the best at any size": tied_top(3),
    "3 best + single best, tied at z=1 at any size": tied_top(3, 1.0),
    "3 best + single best, tied at z=3 at any size": tied_top(3, 3.0),
    "3 best + single best": top(3),
    "5 best + single best": top(5),
    "5 best + single best, tied with the best at any size": tied_top(5),
    "3 best, no single best": top(3, anchor=False),
    "3 best by CV mean + single best": top(3, by="cv"),
    "single best unless beaten, z=0.5": unless_beaten(0.5),
    "single best unless beaten, z=1": unless_beaten(1.0),
    "single best unless beaten, z=2": unless_beaten(2.0),
    "3 best + single best, counted twice": anchored(3, 2),
    "2 best + single best, counted twice": anchored(2, 2),
}


def accuracy(cell, members) -> float:
    proba = sum(cell["algorithms"][a]["proba"] for a in members) / len(members)
    predicted = np.asarray(cell["classes"])[np.argmax(proba, axis=1)]
    return float(np.mean(predicted == cell["y_test"]))


def evaluate(cells: dict, sbs: str) -> pd.DataFrame:
    """Accuracy of every rule on every cell (and of the single best alone)."""
    manifest = pd.read_csv(REALWORLD / "manifest.csv").set_index("name")["rows"]
    rows = []
    for (name, fold), cell in cells.items():
        if not cell["algorithms"]:
            continue
        cell["n_train"] = int(manifest[name]) - len(cell["y_test"])
        row = {"dataset": name, "fold": fold}
        for label, rule in RULES.items():
            row[label] = accuracy(cell, rule(cell, sbs))
        if sbs in cell["algorithms"]:
            row["single best"] = accuracy(cell, [sbs])
        rows.append(row)
    return pd.DataFrame(rows)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy (percent), paired difference to the single best and datasets below it."""
    per_dataset = frame.drop(columns="fold").groupby("dataset").mean()
    rows = []
    for label in [*RULES, "single best"]:
        diff = 100 * (frame[label] - frame["single best"])
        below = 100 * (per_dataset[label] - per_dataset["single best"]) < -0.3
        rows.append(
            {
                "rule": label,
                "accuracy": 100 * frame[label].mean(),
                "minus_single_best": diff.mean(),
                "standard_error": diff.std(ddof=1) / np.sqrt(len(diff)),
                "datasets_below": f"{int(below.sum())} of {len(per_dataset)}",
                "worst_dataset": (100 * (per_dataset[label] - per_dataset["single best"])).min(),
                "cells": int(frame[label].notna().sum()),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache", type=Path, default=ROOT / "benchmarks" / ".cache" / "answer-choice"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    groups = {
        "tuning": tuning_datasets(),
        "benchmark": benchmark_datasets(),
        "large": large_datasets(),
    }
    todo = [
        (name, fold, args.cache / f"{name}-{fold}.pkl")
        for names in groups.values()
        for name in names
        for fold in range(N_FOLDS)
        if not (args.cache / f"{name}-{fold}.pkl").exists()
    ]
    print(f"{len(todo)} searches to record", flush=True)
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_task, t) for t in todo]
        for n, future in enumerate(as_completed(futures), 1):
            name, fold = future.result()
            print(f"[{n}/{len(todo)}] {name} fold {fold}", flush=True)
    sbs = single_best_algorithm()
    text = (
        "Rules that choose `metarec run`'s answer among the algorithms a `--budget 10` "
        "search evaluated, replayed on the same recorded searches (outer 5-fold CV on real "
        f"datasets outside the built-in KB; the single best of the KB is {sbs}).  "
        "`minus_single_best`: mean paired difference to the single best alone over the "
        "(dataset, fold) cells, in accuracy points; `datasets_below`: datasets where the "
        "rule's mean accuracy is more than 0.3 points below the single best's; "
        "`worst_dataset`: the lowest per-dataset difference; `cells`: the (dataset, fold) "
        "cells of the accuracy (the single best only where its search finished it: on large "
        "data a 10 s search does not always; the differences are over the cells where it "
        "did).  Rules are chosen on the tuning datasets; the benchmark datasets are those of "
        "the FLAML comparison, the large ones show where fold scores are precise.  Written by "
        "`python benchmarks/run_answer_choice.py`."
    )
    for group, names in groups.items():
        cells = {
            (name, fold): pickle.loads((args.cache / f"{name}-{fold}.pkl").read_bytes())
            for name in names
            for fold in range(N_FOLDS)
            if (args.cache / f"{name}-{fold}.pkl").exists()
        }
        table = summary(evaluate(cells, sbs))
        print(f"\n{group} ({len(names)} datasets)\n" + table.round(3).to_string(index=False))
        rules = table[table["rule"] != "single best"]
        below = rules["datasets_below"].str.split().str[0].astype(int)
        fewest = rules[below == below.min()]
        default = rules.loc[rules["rule"].str.endswith("(the default)"), "accuracy"].iloc[0]
        best = rules.loc[rules["accuracy"].idxmax()]
        verdict = (
            f"Highest mean accuracy: {best['rule']} ({best['accuracy'] - default:+.2f} points "
            f"against the default); fewest datasets below the single best: {below.min()}, "
            + (
                ", ".join(fewest["rule"])
                if len(fewest) <= 3
                else f"{len(fewest)} of the {len(rules)} rules, the default among them"
                if "(the default)" in " ".join(fewest["rule"])
                else f"{len(fewest)} of the {len(rules)} rules"
            )
            + "."
        )
        text += (
            f"\n\n## {group.capitalize()} datasets ({len(names)})\n\n{', '.join(names)}.\n\n"
            + markdown_table(list(table.columns), table.itertuples(index=False))
            + f"\n\n{verdict}"
        )
    write_page(args.markdown, "Choosing the answer of `metarec run`", text)


if __name__ == "__main__":
    sys.exit(main())
