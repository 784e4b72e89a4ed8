"""Recommend, evaluate within a budget, and hand back the best fitted model."""

from metarec._duration import parse_duration
from metarec.automl._estimator import AutoClassifier, AutoRegressor, parse_budget
from metarec.automl._model import AveragedClassifier, AveragedRegressor, LabelledClassifier
from metarec.automl._search import METRICS, REGRESSION_METRICS, RunSettings, SearchResult, Trial

__all__ = [
    "AutoClassifier",
    "AutoRegressor",
    "LabelledClassifier",
    "AveragedClassifier",
    "AveragedRegressor",
    "RunSettings",
    "SearchResult",
    "Trial",
    "METRICS",
    "REGRESSION_METRICS",
    "parse_duration",
    "parse_budget",
]
