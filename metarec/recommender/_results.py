"""Preparing the knowledge base's results for ranking: per-run aggregation, the value a
failed run counts as, and the per-dataset normalized metric (see :mod:`metarec.recommender._ranker`).
"""

from __future__ import annotations

import numpy as np

from metarec.evaluation import normalized_metric

__all__ = ["aggregate_run_rows", "failure_baseline", "normalized_scores", "task_from_n_classes"]


def task_from_n_classes(n_classes: float) -> str | None:
    """``"binary"`` for 2 classes, ``"multiclass"`` for more, ``None`` otherwise (unknown)."""
    if n_classes is None or not np.isfinite(n_classes):
        return None
    if n_classes == 2:
        return "binary"
    if n_classes > 2:
        return "multiclass"
    return None


def aggregate_run_rows(runs, metric: str, time: str):
    """One row per (dataset, algorithm) from per-run rows, as ``KnowledgeBase.runs()`` does.

    The metric is the mean over ok runs, the time the mean over all runs; ``n_runs``,
    ``n_failed`` and ``status`` ("ok" if any run is ok, else the first failure status).
    """
    import pandas as pd

    status = runs["status"].fillna("ok").astype(str) if "status" in runs.columns else None
    ok = runs[metric].notna() if status is None else status.eq("ok") & runs[metric].notna()
    frame = pd.DataFrame(
        {
            "dataset": runs["dataset"],
            "algorithm": runs["algorithm"],
            metric: pd.to_numeric(runs[metric], errors="coerce").where(ok),
            time: pd.to_numeric(runs[time], errors="coerce"),
            "_ok": ok.astype(int),
            "_fail": status.where(~ok, None) if status is not None else None,
        }
    )
    grouped = frame.groupby(["dataset", "algorithm"], sort=False)
    out = grouped.agg(
        **{metric: (metric, "mean"), time: (time, "mean")},
        n_runs=("_ok", "size"),
        n_ok=("_ok", "sum"),
        failure=("_fail", "first"),
    ).reset_index()
    out["n_failed"] = out["n_runs"] - out["n_ok"]
    out["status"] = np.where(out["n_ok"] > 0, "ok", out["failure"].fillna("error"))
    return out.drop(columns=["n_ok", "failure"])


def failure_baseline(meta, metric: str, acc: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Value a failed run counts as, per dataset (see the module documentation)."""
    n = len(meta)
    base = np.full(n, np.nan)
    if metric == "accuracy":
        if "majority_class_pct" in meta.columns:
            base = meta["majority_class_pct"].to_numpy(float) / 100.0
        if "majority_class_size" in meta.columns and "n_instances" in meta.columns:
            with np.errstate(invalid="ignore", divide="ignore"):
                alt = meta["majority_class_size"].to_numpy(float) / meta["n_instances"].to_numpy(
                    float
                )
            base = np.where(np.isfinite(base), base, alt)
    with np.errstate(all="ignore"):
        worst = np.nanmin(np.where(ok, acc, np.nan), axis=1, initial=np.inf)
    worst = np.where(np.isfinite(worst), worst, np.nan)
    return np.where(np.isfinite(base), base, worst)


def normalized_scores(acc: np.ndarray, meta) -> np.ndarray:
    """Per-dataset normalized metric, vectorised by task; raw values where it cannot be computed.

    Datasets are grouped by task and by which optional inputs (``snr``, the imbalance ratio of
    the task) they have; each group is one call of the evaluation library's
    ``normalized_metric``, given only the inputs every dataset of the group has.
    """
    out = acc.copy()

    def column(name):
        if name in meta.columns:
            return meta[name].to_numpy(float)
        return np.full(len(meta), np.nan)

    n_classes = column("n_classes")
    n_inst, n_feat = column("n_instances"), column("n_features")
    snr, ci, acir = column("snr"), column("class_imbalance_ratio"), column("acir")
    tasks = np.array([task_from_n_classes(c) for c in n_classes], dtype=object)
    for task in ("binary", "multiclass"):
        imbalance_name, imbalance = ("imbalance_ratio", ci) if task == "binary" else ("acir", acir)
        base = (tasks == task) & np.isfinite(n_inst) & np.isfinite(n_feat)
        for has_snr in (True, False):
            for has_imbalance in (True, False):
                rows = (
                    base & (np.isfinite(snr) == has_snr) & (np.isfinite(imbalance) == has_imbalance)
                )
                if not rows.any():
                    continue
                kwargs = {}
                if has_snr:
                    kwargs["snr"] = snr[rows][:, None]
                if has_imbalance:
                    kwargs[imbalance_name] = imbalance[rows][:, None]
                values = normalized_metric(
                    np.nan_to_num(acc[rows], nan=0.0),
                    task=task,
                    n_instances=n_inst[rows][:, None],
                    n_features=n_feat[rows][:, None],
                    **kwargs,
                )
                values = np.asarray(values, dtype=float)
                out[rows] = np.where(np.isnan(acc[rows]) | ~np.isfinite(values), acc[rows], values)
    return out
