"""A search's folds in the knowledge base and the result cache: those stored by an earlier
call (reused instead of refitted), storing the new ones at the end, and the time kept for
storing them.

The algorithms are registered from the search's own portfolio, so that one outside the
default portfolio is stored under its own estimator and parameters.
"""

from __future__ import annotations

import numpy as np

__all__ = ["store_seconds", "store_search", "stored_search_folds", "result_cache"]

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


def stored_search_folds(kb, name: str, settings) -> dict:
    """The folds of ``name`` stored with this search's protocol, seed and metric.

    Returns
    -------
    dict
        ``algorithm -> {fold: (status, score, fit time, accuracy)}``
        (:func:`metarec.execution.stored_folds`).
    """
    from metarec.execution import stored_folds

    return stored_folds(
        kb, name, protocol=settings.protocol, seed=settings.random_state, metric=settings.metric
    )


def result_cache():
    """Where whole jobs are kept with their predictions (the benchmark's cache)."""
    from metarec._config import data_dir
    from metarec.execution import ResultCache

    return ResultCache(data_dir() / "benchmark-cache")


def store_search(
    kb, name, ds, codes, state, *, n_classes, n_folds, settings, metafeatures, portfolio, cache
) -> int:
    """Store the folds run now; keep whole jobs with their predictions for the next call.

    Parameters
    ----------
    kb : KnowledgeBase
        Where the folds go (with the dataset, its metafeatures and the algorithms).
    name : str
        The name the dataset is stored under.
    ds : Dataset
        The data (its fingerprint keys the cache).
    codes : ndarray
        Class codes (or the target) of every row.
    state : SearchState
        The results of the folds run now.
    n_classes : int
        Classes of the target (0: regression).
    n_folds : int
        Folds of the protocol: a job of every fold is kept in ``cache``.
    settings : RunSettings
        The protocol, seed and metric.
    metafeatures : dict of str to float
        The dataset's metafeatures (stored when the knowledge base has none of it).
    portfolio : Portfolio
        The search's algorithms: each is registered from its entry.
    cache : ResultCache
        Where whole jobs are kept.

    Returns
    -------
    int
        Folds stored.
    """
    import contextlib

    import pandas as pd

    from metarec.execution import register_algorithm, register_dataset, store_results

    if not state.results:
        return 0
    register_dataset(kb, name, ds)
    for result in state.results:
        register_algorithm(kb, portfolio[result.algorithm])
    if not len(kb.metafeatures(datasets=[name])):
        kb.import_metafeatures(pd.DataFrame([{"dataset": name, **metafeatures}]))
    stored = store_results(kb, state.results, (codes, n_classes), protocol=settings.protocol)
    for result in state.results:
        if len(result.folds) == n_folds:
            with contextlib.suppress(OSError):  # a full disk costs the next call a refit
                cache.save(
                    ds.fingerprint,
                    portfolio[result.algorithm],
                    settings.protocol,
                    settings.random_state,
                    result,
                )
    return stored
