"""Recommend algorithms for a new dataset from the results on similar datasets.

The :class:`Recommender` is the facade: it reads a knowledge base into a
:class:`PerformanceMatrix` and fits the ranker it holds, one estimator per strategy
(:class:`LearnedRanker`, the default; the classic :class:`A3RRanker`, :class:`ARRRanker` and
:class:`AverageRankRanker`), named in one registry (:func:`make_ranker`,
:func:`strategy_names`).  :func:`evaluate_recommender` measures a ranker by
leave-one-dataset-out on a matrix, :func:`evaluate_transfer` on another knowledge base's.

The names are imported when first used, so that the command line reads the strategies'
names (:func:`strategy_names`) without loading scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Recommender": "metarec.recommender._ranker",
    "METHODS": "metarec.recommender._ranker",
    "PORTFOLIO_WEIGHTING": "metarec.recommender._ranker",
    "fitted_recommender": "metarec.recommender._cache",
    "ship_recommenders": "metarec.recommender._cache",
    "PerformanceMatrix": "metarec.recommender._matrix",
    "BaseRanker": "metarec.recommender._base",
    "LearnedRanker": "metarec.recommender._learned",
    "A3RRanker": "metarec.recommender._strategies",
    "ARRRanker": "metarec.recommender._strategies",
    "AverageRankRanker": "metarec.recommender._strategies",
    "make_ranker": "metarec.recommender._registry",
    "strategy_names": "metarec.recommender._registry",
    "Ranking": "metarec.recommender._ranking",
    "RankedAlgorithm": "metarec.recommender._ranking",
    "Neighbour": "metarec.recommender._ranking",
    "evaluate_recommender": "metarec.recommender._evaluate",
    "evaluate_transfer": "metarec.recommender._evaluate",
    "EvaluationResult": "metarec.recommender._evaluate",
    "gap_closed": "metarec.recommender._compare",
    "gap_closed_interval": "metarec.recommender._compare",
    "difference_interval": "metarec.recommender._compare",
    "tune_recommender": "metarec.recommender._tune",
    "TuningResult": "metarec.recommender._tune",
    "split_datasets": "metarec.recommender._tune",
    "DEFAULT_GRID": "metarec.recommender._tune",
    "RuntimeModel": "metarec.recommender._runtime",
    "encoded_width": "metarec.recommender._runtime",
    "size_features": "metarec.recommender._runtime",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'metarec.recommender' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
