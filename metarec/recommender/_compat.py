"""Access to the evaluation library's A3R, ARR and normalized metric.

The recommender does not re-implement these measures: it calls
:func:`metarec.evaluation.a3r`, :func:`metarec.evaluation.arr` and
:func:`metarec.evaluation.normalized_metric`.  Only the vectorised aggregation of A3R over
datasets (a matrix product of log-scores, see :mod:`metarec.recommender._ranker`) works on
logarithms directly, because calling ``a3r`` on every pair of every dataset is exactly what it
avoids; the tests check that both give the same numbers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["a3r", "arr", "normalized_metric", "task_from_n_classes"]


def _fallback_a3r(sr_p, sr_q, t_p, t_q, *, n=8):  # pragma: no cover - until evaluation lands
    return (np.asarray(sr_p, float) / np.asarray(sr_q, float)) / (
        np.asarray(t_p, float) / np.asarray(t_q, float)
    ) ** (1.0 / n)


def _fallback_arr(sr_p, sr_q, t_p, t_q, *, acc_d=0.1):  # pragma: no cover
    return (np.asarray(sr_p, float) / np.asarray(sr_q, float)) / (
        1.0 + acc_d * np.log10(np.asarray(t_p, float) / np.asarray(t_q, float))
    )


def _fallback_normalized_metric(  # pragma: no cover
    score, *, task, n_instances, n_features, snr=None, imbalance_ratio=None, acir=None
):
    score = np.asarray(score, float)
    n = np.asarray(n_instances, float)
    d = np.asarray(n_features, float)
    f = 1.0 + np.maximum(0.0, 1.0 / (1.0 + np.exp(-(d / (0.05 * n) - 1.0))) - 0.5)
    h = 1.0
    if task == "binary" and imbalance_ratio is not None:
        h = 1.0 + np.log(np.maximum(np.asarray(imbalance_ratio, float), 1.0))
    elif task == "multiclass" and acir is not None:
        h = 1.0 + np.log(1.0 / np.clip(np.asarray(acir, float), 1e-12, 1.0))
    return np.clip(score * f / h, 0.0, 1.0)


try:  # the evaluation library, once it is part of the build
    from metarec.evaluation import a3r, arr, normalized_metric
except ImportError:  # pragma: no cover - placeholder while the evaluation library is built
    a3r, arr, normalized_metric = _fallback_a3r, _fallback_arr, _fallback_normalized_metric


def task_from_n_classes(n_classes: float) -> str | None:
    """``"binary"`` for 2 classes, ``"multiclass"`` for more, ``None`` otherwise (unknown)."""
    if n_classes is None or not np.isfinite(n_classes):
        return None
    if n_classes == 2:
        return "binary"
    if n_classes > 2:
        return "multiclass"
    return None
