"""Recommend algorithms for a new dataset from the results on similar datasets.

The :class:`Recommender` is the facade: it reads a knowledge base into a
:class:`PerformanceMatrix` and fits the ranker of its strategy, one estimator per strategy
(:class:`LearnedRanker`, the default; the classic :class:`A3RRanker`, :class:`ARRRanker` and
:class:`AverageRankRanker`).  :func:`evaluate_recommender` measures rankings by
leave-one-dataset-out, :func:`evaluate_transfer` on the datasets of another knowledge base.
"""

from metarec.recommender._cache import fitted_recommender
from metarec.recommender._evaluate import (
    EvaluationResult,
    evaluate_recommender,
    evaluate_transfer,
)
from metarec.recommender._learned import LearnedRanker
from metarec.recommender._matrix import PerformanceMatrix
from metarec.recommender._ranker import METHODS, Recommender
from metarec.recommender._ranking import Neighbour, RankedAlgorithm, Ranking
from metarec.recommender._strategies import A3RRanker, ARRRanker, AverageRankRanker

__all__ = [
    "Recommender",
    "fitted_recommender",
    "PerformanceMatrix",
    "LearnedRanker",
    "A3RRanker",
    "ARRRanker",
    "AverageRankRanker",
    "Ranking",
    "RankedAlgorithm",
    "Neighbour",
    "METHODS",
    "evaluate_recommender",
    "evaluate_transfer",
    "EvaluationResult",
]
