"""A search's folds in the knowledge base: those stored by an earlier call, storing the new
ones, and the time kept for storing them."""

from __future__ import annotations

import numpy as np

__all__ = ["store_seconds", "store_folds"]

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


def store_folds(kb, name, ds, codes, n_classes, state, settings, metafeatures) -> int:
    """Store the folds run now (with the dataset, algorithms and metafeatures)."""
    import pandas as pd

    from metarec.benchmark import default_portfolio
    from metarec.execution import register_algorithm, register_dataset, store_results

    if not state.results:
        return 0
    portfolio = default_portfolio(task="all", configurations=True)
    register_dataset(kb, name, ds)
    for result in state.results:
        register_algorithm(kb, portfolio[result.algorithm])
    if not len(kb.metafeatures(datasets=[name])):
        kb.import_metafeatures(pd.DataFrame([{"dataset": name, **metafeatures}]))
    return store_results(kb, state.results, (codes, n_classes), protocol=settings.protocol)
