"""A search's trials as tables: the leaderboard and scikit-learn's ``cv_results_``."""

from __future__ import annotations

import warnings

import numpy as np

from metarec.automl._search import SearchResult

__all__ = ["cv_results", "leaderboard"]


def leaderboard(result: SearchResult):
    """The trials as a table, best first."""
    import pandas as pd

    rows = []
    members = list(result.members)
    weights = dict(zip(result.members, result.weights, strict=False))
    for trial in result.trials:
        message = trial.message
        if trial.algorithm in members and len(members) > 1:
            place = (
                f"in the answer, weight {weights[trial.algorithm]:.2f} "
                f"({members.index(trial.algorithm) + 1} of {len(members)})"
            )
            message = f"{place}; {message}" if message else place
        rows.append(
            {
                "algorithm": trial.algorithm,
                "cv_score": trial.cv_score,
                "cv_sd": trial.cv_sd,
                "selection_score": trial.selection_score,
                "fit_time": trial.fit_time,
                "expected_score": trial.expected_score,
                "expected_time": trial.expected_time,
                "planned": trial.planned,
                "order": trial.order,
                "status": trial.status,
                "finished_at": trial.finished,
                "message": message,
            }
        )
    frame = pd.DataFrame(rows)
    frame["order"] = frame["order"].astype("Int64")
    return frame


def cv_results(result: SearchResult) -> dict[str, np.ndarray]:
    """The trials in scikit-learn's ``cv_results_`` layout (NaN where a fold did not run).

    As in scikit-learn's searches, ``std_test_score`` is the population standard deviation
    of the fold scores (the leaderboard's spread is the sample one) and ``rank_test_score``
    ranks ``mean_test_score`` (ties share the best rank; no score ranks last).  The
    answer is chosen by the selection score (``leaderboard_``), not by this rank.
    """
    from scipy.stats import rankdata

    trials = result.trials
    out: dict[str, np.ndarray] = {"algorithm": np.array([t.algorithm for t in trials])}
    folds = np.full((len(trials), result.n_folds), np.nan)
    for i, t in enumerate(trials):
        if t.complete:
            scores = np.asarray(t.fold_scores[: result.n_folds], dtype=float)
            folds[i, : scores.size] = scores
    for fold in range(result.n_folds):
        out[f"split{fold}_test_score"] = folds[:, fold]
    means = np.array([t.cv_score if t.complete else np.nan for t in trials])
    out["mean_test_score"] = means
    with warnings.catch_warnings():  # a trial without a fold: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = np.sqrt(np.nanmean((folds - np.nanmean(folds, axis=1, keepdims=True)) ** 2, 1))
    out["std_test_score"] = np.where(np.isfinite(means), spread, np.nan)
    out["mean_fit_time"] = np.array([t.fit_time for t in trials])
    out["rank_test_score"] = rankdata(-np.nan_to_num(means, nan=-np.inf), method="min").astype(
        np.int32
    )
    out["status"] = np.array([t.status for t in trials])
    return out
