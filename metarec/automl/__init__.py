"""Recommend, evaluate within a budget, and hand back the best fitted model.

The names are imported when first used, so that the command line reads the answer's
methods (:data:`ENSEMBLE_METHODS`) without loading scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "AutoClassifier": "metarec.automl._estimator",
    "AutoRegressor": "metarec.automl._estimator",
    "LabelledClassifier": "metarec.automl._model",
    "AveragedClassifier": "metarec.automl._model",
    "AveragedRegressor": "metarec.automl._model",
    "RunSettings": "metarec.automl._search",
    "SearchResult": "metarec.automl._search",
    "Trial": "metarec.automl._trials",
    "METRICS": "metarec.automl._search",
    "REGRESSION_METRICS": "metarec.automl._search",
    "ENSEMBLE_METHODS": "metarec.automl._methods",
    "TIE_MIN_ROWS": "metarec.automl._answer",
    "posterior_scores": "metarec.automl._select",
    "selection_order": "metarec.automl._select",
    "tied_with": "metarec.automl._select",
    "ensemble_selection": "metarec.automl._ensemble",
    "parse_duration": "metarec._duration",
    "parse_budget": "metarec.automl._estimator",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'metarec.automl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
