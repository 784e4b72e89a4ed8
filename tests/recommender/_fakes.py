"""A small in-memory knowledge base with hand-checkable results."""

from __future__ import annotations

import numpy as np
import pandas as pd


class FrameKB:
    """Anything with ``runs()``, ``metafeatures()`` and ``datasets()`` will do for the recommender.

    ``tasks`` maps dataset names to their task; the others have none recorded
    (classification).
    """

    def __init__(
        self, runs: pd.DataFrame, metafeatures: pd.DataFrame, tasks: dict | None = None
    ) -> None:
        self._runs = runs
        self._metafeatures = metafeatures
        self._tasks = dict(tasks or {})

    def datasets(self) -> pd.DataFrame:
        names = sorted(set(self._runs["dataset"].astype(str)))
        return pd.DataFrame({"name": names, "task": [self._tasks.get(n) for n in names]})

    def runs(self, **kwargs) -> pd.DataFrame:
        return self._runs.copy()

    def metafeatures(self, **kwargs) -> pd.DataFrame:
        return self._metafeatures.copy()

    def algorithms(self) -> pd.DataFrame:
        names = sorted(self._runs["algorithm"].unique())
        return pd.DataFrame(
            {"name": names, "family": "other", "library": "fake==1.0", "parameters": "{}"}
        )


def tiny_kb() -> FrameKB:
    """Three datasets x three algorithms; see tests for the hand computations.

    D1: A .8 @1s, B .9 @16s, C .5 @1s;  D2: A .6 @2s, B .9 @2s (C never ran);
    D3: A .9 @1s, B timed out after 100 s, C .7 @1s (majority class 60%).
    """
    rows = [
        ("D1", "A", 0.8, 1.0, "ok"),
        ("D1", "B", 0.9, 16.0, "ok"),
        ("D1", "C", 0.5, 1.0, "ok"),
        ("D2", "A", 0.6, 2.0, "ok"),
        ("D2", "B", 0.9, 2.0, "ok"),
        ("D3", "A", 0.9, 1.0, "ok"),
        ("D3", "B", np.nan, 100.0, "timeout"),
        ("D3", "C", 0.7, 1.0, "ok"),
    ]
    runs = pd.DataFrame(rows, columns=["dataset", "algorithm", "accuracy", "fit_time", "status"])
    runs["n_runs"] = 1
    runs["n_failed"] = (runs["status"] != "ok").astype(int)
    meta = pd.DataFrame(
        {
            "dataset": ["D1", "D2", "D3"],
            "x": [0.0, 1.0, 10.0],
            "constant": [3.0, 3.0, 3.0],
            "majority_class_pct": [50.0, 50.0, 60.0],
            "n_classes": [2, 2, 2],
            "n_instances": [100, 100, 100],
            "n_features": [4, 4, 4],
            "class_imbalance_ratio": [1.0, 1.0, 1.5],
        }
    )
    return FrameKB(runs, meta)


def random_kb(n_datasets=30, n_algorithms=6, *, missing=0.2, failed=0.05, seed=0) -> FrameKB:
    """A random KB with missing and failed results, for property tests."""
    rng = np.random.default_rng(seed)
    d = [f"d{i:03d}" for i in range(n_datasets)]
    a = [f"alg{j}" for j in range(n_algorithms)]
    rows = []
    skill = rng.normal(0, 0.05, n_algorithms)
    speed = rng.uniform(-2, 2, n_algorithms)
    for name in d:
        base = rng.uniform(0.55, 0.9)
        for j, alg in enumerate(a):
            if rng.random() < missing:
                continue
            acc = float(np.clip(base + skill[j] + rng.normal(0, 0.03), 0.05, 1.0))
            t = float(10 ** (speed[j] + rng.normal(0, 0.3)))
            status = "ok"
            if rng.random() < failed:
                acc, status = np.nan, "timeout"
            rows.append((name, alg, acc, t, status))
    runs = pd.DataFrame(rows, columns=["dataset", "algorithm", "accuracy", "fit_time", "status"])
    runs["n_runs"] = 1
    runs["n_failed"] = (runs["status"] != "ok").astype(int)
    meta = pd.DataFrame(
        {
            "dataset": d,
            "f1": rng.normal(size=n_datasets),
            "f2": rng.uniform(size=n_datasets),
            "f3": np.where(rng.random(n_datasets) < 0.2, np.nan, rng.normal(size=n_datasets)),
            "majority_class_pct": rng.uniform(40, 70, n_datasets),
            "n_classes": rng.integers(2, 5, n_datasets),
            "n_instances": rng.integers(50, 5000, n_datasets),
            "n_features": rng.integers(2, 100, n_datasets),
            "class_imbalance_ratio": rng.uniform(1, 5, n_datasets),
            "acir": rng.uniform(0.3, 1, n_datasets),
        }
    )
    return FrameKB(runs, meta)
