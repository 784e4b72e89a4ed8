"""Evaluation science: metrics, Tau, contingency space, NoSimple, protocols, A3R and ARR.

Pure functions, numpy in and numbers out; nothing here touches storage, the recommender,
the benchmark runner or the command line.

* Confusion-matrix metrics (Table 2 of the contingency-space paper): :func:`accuracy_score`,
  :func:`balanced_accuracy_score`, :func:`geometric_mean_score`, :func:`precision_score`,
  :func:`recall_score`, :func:`f1_score`, :func:`gilbert_skill_score`,
  :func:`doolittle_skill_score`, :func:`heidke_skill_score`, :func:`true_skill_statistic`,
  :func:`youden_j_score`, and :func:`accuracy_confidence_interval`.
* Tau: :func:`tau_score`, :func:`weighted_tau_score`, :func:`multiclass_tau_score`,
  :func:`weighted_multiclass_tau_score`.
* Probability losses: :func:`quadratic_loss`, :func:`informational_loss`.
* Regression: :func:`r2_score` (its constant-target case decided once),
  :func:`regression_success_score` (the rankers' score, R² clipped at 0) and
  :func:`regression_scores` (RMSE, MAE, R²).
* Contingency space: :func:`metric_surface`, :func:`imbalance_sensitivity`,
  :func:`learning_path`, :func:`learning_path_length`.
* NoSimple: :func:`local_simple_objects`, :func:`standard_simple_objects`,
  :func:`nosimple_score`, :func:`nosimple_roc_auc_score`, :func:`simple_objects_effect`.
* Protocols: :func:`get_protocol`, :func:`run_protocol`, :func:`bootstrap632_estimate`,
  :func:`summarize`.
* Accuracy and time: :func:`a3r`, :func:`arr`, :func:`pairwise_a3r`, :func:`pairwise_arr`.
* Dataset-adaptive normalized metric: :func:`normalized_metric` and one function per task.

Figures are in :mod:`metarec.evaluation.plots` (matplotlib is imported only there).
"""

from __future__ import annotations

from metarec.evaluation._a3r import a3r, arr, arr_pole, pairwise_a3r, pairwise_arr
from metarec.evaluation._confusion import (
    CONFUSION_METRICS,
    accuracy_score,
    balanced_accuracy_score,
    doolittle_skill_score,
    f1_score,
    geometric_mean_score,
    gilbert_skill_score,
    heidke_skill_score,
    precision_score,
    recall_score,
    true_skill_statistic,
    youden_j_score,
)
from metarec.evaluation._contingency import (
    SURFACE_METRICS,
    LearningPath,
    Surface,
    imbalance_sensitivity,
    learning_path,
    learning_path_length,
    metric_surface,
    surface_metric_names,
)
from metarec.evaluation._normalized import (
    dimensionality_factor,
    imbalance_factor,
    multiclass_imbalance_factor,
    normalized_binary_metric,
    normalized_clustering_metric,
    normalized_metric,
    normalized_multiclass_metric,
    normalized_regression_metric,
    regression_snr,
    snr_factor,
)
from metarec.evaluation._nosimple import (
    SimpleObjectsEffect,
    local_simple_objects,
    nosimple_roc_auc_score,
    nosimple_score,
    roc_auc_columns,
    simple_objects_effect,
    standard_simple_objects,
)
from metarec.evaluation._probabilistic import (
    AccuracyInterval,
    accuracy_confidence_interval,
    informational_loss,
    quadratic_loss,
)
from metarec.evaluation._protocols import (
    PROTOCOLS,
    ProtocolResult,
    Summary,
    bootstrap632_estimate,
    get_protocol,
    run_protocol,
    summarize,
)
from metarec.evaluation._regression import r2_score, regression_scores, regression_success_score
from metarec.evaluation._tau import (
    multiclass_tau_score,
    per_class_recall,
    tau_from_rates,
    tau_score,
    weighted_multiclass_tau_score,
    weighted_tau_from_rates,
    weighted_tau_score,
)

__all__ = [
    "CONFUSION_METRICS",
    "PROTOCOLS",
    "SURFACE_METRICS",
    "LearningPath",
    "ProtocolResult",
    "SimpleObjectsEffect",
    "Surface",
    "imbalance_sensitivity",
    "learning_path",
    "learning_path_length",
    "metric_surface",
    "surface_metric_names",
    "AccuracyInterval",
    "Summary",
    "a3r",
    "accuracy_confidence_interval",
    "accuracy_score",
    "arr",
    "arr_pole",
    "balanced_accuracy_score",
    "bootstrap632_estimate",
    "dimensionality_factor",
    "doolittle_skill_score",
    "f1_score",
    "geometric_mean_score",
    "get_protocol",
    "gilbert_skill_score",
    "heidke_skill_score",
    "imbalance_factor",
    "informational_loss",
    "local_simple_objects",
    "multiclass_imbalance_factor",
    "multiclass_tau_score",
    "normalized_binary_metric",
    "normalized_clustering_metric",
    "normalized_metric",
    "normalized_multiclass_metric",
    "normalized_regression_metric",
    "nosimple_roc_auc_score",
    "nosimple_score",
    "pairwise_a3r",
    "pairwise_arr",
    "per_class_recall",
    "precision_score",
    "quadratic_loss",
    "r2_score",
    "recall_score",
    "regression_scores",
    "regression_snr",
    "regression_success_score",
    "roc_auc_columns",
    "run_protocol",
    "simple_objects_effect",
    "snr_factor",
    "standard_simple_objects",
    "summarize",
    "tau_from_rates",
    "tau_score",
    "true_skill_statistic",
    "weighted_multiclass_tau_score",
    "weighted_tau_from_rates",
    "weighted_tau_score",
    "youden_j_score",
]
