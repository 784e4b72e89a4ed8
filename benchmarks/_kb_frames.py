"""Knowledge bases for the recommender benchmarks: the built-in one, or run/metafeature files.

Run files may hold one row per fold (as written by the benchmark runner) or one row per
(dataset, algorithm); fold rows are aggregated as ``KnowledgeBase.runs()`` does (means over ok
runs, times over all runs, ``n_runs``, ``n_failed``, ``status``).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd


class FrameKB:
    """An in-memory stand-in for a KnowledgeBase: ``runs()``, ``metafeatures()``, ``datasets()``.

    Every dataset is classification (no task recorded).
    """

    def __init__(self, runs: pd.DataFrame, metafeatures: pd.DataFrame) -> None:
        self._runs, self._metafeatures = runs, metafeatures

    def runs(self, **kwargs) -> pd.DataFrame:
        return self._runs.copy()

    def metafeatures(self, **kwargs) -> pd.DataFrame:
        return self._metafeatures.copy()

    def datasets(self) -> pd.DataFrame:
        names = pd.unique(self._runs["dataset"].astype(str))
        return pd.DataFrame({"name": names, "task": [None] * len(names)})


def aggregate_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, algorithm) from per-run rows."""
    runs = runs.copy()
    if "fit_time" not in runs.columns and "time" in runs.columns:
        runs["fit_time"] = runs["time"]
    if "status" not in runs.columns:
        runs["status"] = "ok"
    runs["status"] = runs["status"].fillna("ok")
    runs["_ok"] = runs["status"].eq("ok") & runs["accuracy"].notna()
    runs["_acc_ok"] = runs["accuracy"].where(runs["_ok"])
    grouped = runs.groupby(["dataset", "algorithm"], sort=False)
    out = grouped.agg(
        accuracy=("_acc_ok", "mean"),
        fit_time=("fit_time", "mean"),
        n_runs=("_ok", "size"),
        n_ok=("_ok", "sum"),
        first_status=("status", lambda s: next((v for v in s if v != "ok"), "ok")),
    ).reset_index()
    out["n_failed"] = out["n_runs"] - out["n_ok"]
    out["status"] = np.where(out["n_ok"] > 0, "ok", out["first_status"])
    return out.drop(columns=["n_ok", "first_status"])


def load_kb(runs_path: str | None = None, metafeatures_path: str | None = None):
    """The built-in KB, or a FrameKB from files (Parquet or CSV)."""
    if runs_path is None:
        from metarec.storage import open_builtin

        return open_builtin()

    def read(path):
        return pd.read_parquet(path) if str(path).endswith(".parquet") else pd.read_csv(path)

    runs = read(runs_path)
    if runs.duplicated(["dataset", "algorithm"]).any():
        runs = aggregate_runs(runs)
    meta = (
        read(metafeatures_path)
        if metafeatures_path
        else pd.DataFrame({"dataset": runs["dataset"].unique()})
    )
    return FrameKB(runs, meta)


@functools.lru_cache(maxsize=1)
def builtin_version() -> str:
    """The installed built-in knowledge base's version: copies of it made for another
    version are stale."""
    from metarec.storage import open_builtin

    return str(open_builtin().info()["builtin_version"])


def builtin_copy(path, *, without: str | None = None, defaults_only: bool = False) -> None:
    """Write to ``path`` a SQLite knowledge base holding the built-in one's rows, without
    the dataset ``without`` and its subsamples (``<name>@<rows>``), and without the
    configurations' results with ``defaults_only`` (its own rows: it does not build on the
    installed built-in part)."""
    from metarec.algorithms import default_configurations
    from metarec.storage import KnowledgeBase, open_builtin

    source = open_builtin()
    frames = [source.datasets(), source.algorithms(), source.runs(aggregate=False),
              source.metafeatures()]  # fmt: skip
    datasets, algorithms, runs, meta = (f.drop(columns=["origin"], errors="ignore") for f in frames)
    if without is not None:

        def kept(names) -> np.ndarray:  # a subsample is named <dataset>@<rows>
            return np.array([str(n).partition("@")[0] != without for n in names], dtype=bool)

        datasets = datasets[kept(datasets["name"])]
        runs, meta = runs[kept(runs["dataset"])], meta[kept(meta["dataset"])]
    if defaults_only:
        configurations = set(default_configurations(task="all").names)
        algorithms = algorithms[~algorithms["name"].isin(configurations)]
        runs = runs[~runs["algorithm"].isin(configurations)]
    kb = KnowledgeBase(f"sqlite:///{path}")
    kb.import_datasets(datasets)
    kb.import_algorithms(algorithms)
    kb.import_runs(runs)
    kb.import_metafeatures(meta)
    kb.close()
