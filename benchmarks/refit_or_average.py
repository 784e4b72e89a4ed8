"""The ensemble's members refitted on every row, or their fold models averaged.

Usage::

    python benchmarks/refit_or_average.py --markdown docs/benchmarks/refit-or-average.md [-j 2]

After ensemble selection over the out-of-fold predictions, ``metarec run`` refits each chosen
member on every training row and averages the refitted members with their weights.  The
alternative keeps the members' fold models (fitted on four fifths of the rows each) and
averages them.  This measures both once on the same selections: the datasets and outer folds
of ``run_vs_flaml.py`` (classification, the first 20 by name of ``../shared/realworld-dev``
under 1,000 rows, outer stratified 5-fold CV, seed 0); in each outer training part every
algorithm of the default portfolio gives out-of-fold probabilities by inner stratified 5-fold
CV (seed 0), ensemble selection (:func:`metarec.automl.ensemble_selection`, the
answer's rule) chooses members and weights, and the outer test part is predicted

- ``refit``: each member fitted again on the whole training part;
- ``fold average``: the mean of each member's five fold models' probabilities.

Reported: accuracy on the outer test parts (mean over datasets, and the paired difference
with a 90 % bootstrap interval), the seconds of the refit and of predicting the test part.
Single-threaded, ``-j`` (dataset, fold) pairs at once.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page
from run_vs_flaml import _portfolio_fit, _target, datasets, load, outer_folds

INNER_FOLDS = 5


def _probabilities(model, X, n_classes: int) -> np.ndarray:
    """Class probabilities over all ``n_classes`` codes (a fold may miss a class)."""
    out = np.zeros((len(X), n_classes))
    out[:, np.asarray(model.classes_, dtype=int)] = model.predict_proba(X)
    return out


def one(name: str, fold: int) -> dict:
    """Both answers on one outer fold of one dataset."""
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    from metarec.algorithms import default_portfolio
    from metarec.automl import ensemble_selection

    warnings.simplefilter("ignore")
    ds = load(name, "classification")
    train, test = outer_folds(ds)[fold]
    classes, codes = _target(ds)
    k = len(classes)
    X_train, y_train, X_test = ds.X.iloc[train], codes[train], ds.X.iloc[test]
    inner = list(StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=0).split(X_train, y_train))
    names, oof, fold_models = [], [], []
    with threadpool_limits(1):
        for algorithm in default_portfolio(task="classification"):
            if not algorithm.is_installed():
                continue
            try:
                prediction, models = np.zeros((len(train), k)), []
                for fit_rows, held in inner:
                    model = _portfolio_fit(algorithm.name, ds)
                    model.fit(X_train.iloc[fit_rows], y_train[fit_rows])
                    prediction[held] = _probabilities(model, X_train.iloc[held], k)
                    models.append(model)
            except Exception:  # an algorithm that fails here is not a candidate
                continue
            names.append(algorithm.name)
            oof.append(prediction)
            fold_models.append(models)
        selection = ensemble_selection(oof, y_train, metric="accuracy")
        weights = selection.counts / selection.counts.sum()
        members = np.flatnonzero(selection.counts)
        start = time.perf_counter()
        refitted = {m: _portfolio_fit(names[m], ds).fit(X_train, y_train) for m in members}
        refit_seconds = time.perf_counter() - start
        start = time.perf_counter()
        refit = sum(weights[m] * _probabilities(refitted[m], X_test, k) for m in members)
        refit_predict = time.perf_counter() - start
        start = time.perf_counter()
        average = sum(
            weights[m] * np.mean([_probabilities(f, X_test, k) for f in fold_models[m]], axis=0)
            for m in members
        )
        average_predict = time.perf_counter() - start
    y_test = codes[test]
    return {
        "dataset": name,
        "fold": fold,
        "members": "+".join(names[m] for m in members),
        "refit": float(np.mean(np.argmax(refit, axis=1) == y_test)),
        "fold average": float(np.mean(np.argmax(average, axis=1) == y_test)),
        "refit_seconds": refit_seconds,
        "refit_predict_seconds": refit_predict,
        "average_predict_seconds": average_predict,
    }


def _bootstrap(diff: np.ndarray, n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(n, diff.size))].mean(axis=1)
    return float(diff.mean()), float(np.percentile(means, 5)), float(np.percentile(means, 95))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--datasets", type=int, default=None, help="the first N datasets only")
    args = parser.parse_args(argv)
    names = datasets("classification")[: args.datasets]
    pairs = [(n, f) for n in names for f in range(5)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one, [n for n, _ in pairs], [f for _, f in pairs]))
    frame = pd.DataFrame(rows)
    by_dataset = frame.groupby("dataset")[["refit", "fold average"]].mean() * 100
    mean, lo, hi = _bootstrap((by_dataset["fold average"] - by_dataset["refit"]).to_numpy())
    seconds = frame[["refit_seconds", "refit_predict_seconds", "average_predict_seconds"]].mean()
    summary = markdown_table(
        ("answer", "accuracy (%)", "seconds to fit the answer", "seconds to predict"),
        [
            ("refit", by_dataset["refit"].mean(), seconds["refit_seconds"],
             seconds["refit_predict_seconds"]),
            ("fold average", by_dataset["fold average"].mean(), 0.0,
             seconds["average_predict_seconds"]),
        ],
    )  # fmt: skip
    table = markdown_table(
        ("dataset", "refit", "fold average", "difference"),
        [(d, r["refit"], r["fold average"], r["fold average"] - r["refit"])
         for d, r in by_dataset.iterrows()],
    )  # fmt: skip
    verdict = (
        f"Fold average minus refit: {mean:+.2f} points (90 % interval {lo:+.2f} to {hi:+.2f}) "
        f"over {len(by_dataset)} datasets; one member per selection on "
        f"{int((~frame['members'].str.contains('[+]')).sum())} of {len(frame)} folds."
    )
    print(summary)
    print(table)
    print(verdict)
    write_page(
        args.markdown,
        "The answer: refit the members, or average their fold models",
        "Ensemble selection over the default portfolio's inner out-of-fold probabilities, on "
        "the outer folds of `run_vs_flaml.py` (written by `python benchmarks/"
        "refit_or_average.py`): the chosen members refitted on the whole training part, "
        "against the mean of each member's five fold models. Accuracy in points, mean over "
        "datasets of the mean over outer folds; seconds per outer fold, one thread.\n\n"
        f"{summary}\n\n{verdict}\n\n{table}",
    )


if __name__ == "__main__":
    main()
