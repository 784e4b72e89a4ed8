"""Recommend algorithms for a new dataset from the results on similar datasets.

The :class:`Recommender` ranks the algorithms of a knowledge base by their pairwise A3R
(accuracy/time ratio of ratios) on the datasets nearest to the new one in metafeature space;
:func:`evaluate_recommender` measures how good such rankings are by leave-one-dataset-out.
"""

from metarec.recommender._evaluate import EvaluationResult, evaluate_recommender
from metarec.recommender._ranker import METHODS, Recommender
from metarec.recommender._ranking import Neighbour, RankedAlgorithm, Ranking

__all__ = [
    "Recommender",
    "Ranking",
    "RankedAlgorithm",
    "Neighbour",
    "METHODS",
    "evaluate_recommender",
    "EvaluationResult",
]
