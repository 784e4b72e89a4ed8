"""A search's folds in the knowledge base: those stored by an earlier call, storing the new
ones, and the time kept for storing them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from metarec.automl._search import RunSettings

__all__ = ["store_seconds", "stored_folds", "store_folds"]

#: Seconds kept to score and store one fold's run in the knowledge base at the end (half
#: again the costs measured): a fold of several test rows (its ROC AUC and Tau, then the
#: insert) ...
STORE_SECONDS = 0.001
#: ... and per class (a one-vs-rest AUC each) ...
STORE_CLASS = 0.001
#: ... and per test row and class (sorting the scores, the probabilities' losses); a fold of
#: one test row (leave-one-out: no ROC AUC or Tau to compute) costs ``STORE_ONE_ROW``.
STORE_CELL = 5e-7
STORE_ONE_ROW = 0.0005


def store_seconds(test_rows, n_classes: int) -> np.ndarray:
    """Seconds kept to score and store folds of ``test_rows`` rows at the end of a search.

    ``STORE_SECONDS + c * (STORE_CLASS + STORE_CELL * rows)`` for ``c`` classes (1 for
    regression), ``STORE_ONE_ROW`` for a fold of one row.
    """
    rows = np.asarray(test_rows, dtype=float)
    classes = max(int(n_classes), 1)
    several = STORE_SECONDS + classes * (STORE_CLASS + STORE_CELL * rows)
    return np.where(rows > 1, several, STORE_ONE_ROW)


def stored_folds(kb, name: str, settings: RunSettings) -> dict:
    """``algorithm -> {fold: (status, score, fit time, accuracy)}`` stored with this protocol and seed.

    Folds that failed with an error are deterministic and reused as failures; only a prefix
    of folds can be resumed (folds run in order), so a gap ends what is reused.
    """
    if name not in set(kb.datasets()["name"]):
        return {}
    runs = kb.runs(aggregate=False, datasets=[name])
    if not len(runs) or settings.metric not in runs.columns:
        return {}
    mine = runs[
        (runs["source"] == "benchmark")
        & (runs["protocol"] == settings.protocol)
        & (runs["seed"] == settings.random_state)
        & runs["status"].isin(["ok", "error"])
    ]
    out: dict[str, dict[int, tuple[str, float, float, float]]] = {}
    for row in mine.itertuples(index=False):
        score = getattr(row, settings.metric)
        accuracy = row.accuracy
        out.setdefault(row.algorithm, {})[int(row.fold)] = (
            row.status,
            float(score),
            float(row.fit_time),
            float(accuracy),
        )
    for algorithm, folds in out.items():
        prefix = {}
        for index in range(len(folds) + 1):
            if index not in folds:
                break
            prefix[index] = folds[index]
        out[algorithm] = prefix
    return out


def store_folds(kb, name, ds, codes, n_classes, state, settings, metafeatures) -> int:
    """Store the folds run now (with the dataset, algorithms and metafeatures)."""
    import pandas as pd

    from metarec.benchmark import default_portfolio
    from metarec.benchmark._runner import (
        SOURCE,
        machine_description,
        nosimple_by_fold,
        register_algorithm,
        register_dataset,
        run_rows,
    )

    if not state.results:
        return 0
    portfolio = default_portfolio(task="all")
    register_dataset(kb, name, ds)
    for result in state.results:
        register_algorithm(kb, portfolio[result.algorithm])
    if not len(kb.metafeatures(datasets=[name])):
        kb.import_metafeatures(pd.DataFrame([{"dataset": name, **metafeatures}]))
    machine = machine_description()
    nosimple = nosimple_by_fold(state.results, codes, n_classes) if n_classes else {}
    rows = [
        row
        for result in state.results
        for row in run_rows(result, nosimple, codes, n_classes, machine)
    ]
    report = kb.import_runs(
        pd.DataFrame(rows), source=SOURCE, protocol=settings.protocol, on_conflict="keep"
    )
    return int(report.added)
