"""Recommend algorithms for a new dataset from the results on similar datasets.

The :class:`Recommender` ranks the algorithms of a knowledge base by their pairwise A3R
(accuracy/time ratio of ratios) on the datasets nearest to the new one in metafeature space;
:func:`evaluate_recommender` measures how good such rankings are by leave-one-dataset-out,
:func:`evaluate_transfer` on the datasets of another knowledge base.
"""

from metarec.recommender._evaluate import (
    EvaluationResult,
    evaluate_recommender,
    evaluate_transfer,
)
from metarec.recommender._ranker import METHODS, Recommender
from metarec.recommender._ranking import Neighbour, RankedAlgorithm, Ranking

__all__ = [
    "Recommender",
    "Ranking",
    "RankedAlgorithm",
    "Neighbour",
    "METHODS",
    "evaluate_recommender",
    "evaluate_transfer",
    "EvaluationResult",
]
