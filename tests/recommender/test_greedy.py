"""The portfolio for a dataset: greedy selection of configurations, weighted by similarity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.recommender import A3RRanker, PerformanceMatrix
from metarec.recommender._greedy import dataset_ranks, greedy_portfolio

#: d1 prefers a, d2 b, d3 c (success rates by hand).
ACCURACY = np.array([[0.9, 0.8, 0.7], [0.6, 0.9, 0.8], [0.5, 0.6, 0.9]])
PRESENT = np.ones((3, 3), dtype=bool)


def test_ranks_by_hand_ties_share_the_lower_and_missing_come_last():
    np.testing.assert_array_equal(
        dataset_ranks(ACCURACY, PRESENT), [[1, 2, 3], [3, 1, 2], [3, 2, 1]]
    )
    accuracy = np.array([[0.9, 0.9, 0.5]])
    present = np.array([[True, True, False]])
    np.testing.assert_array_equal(dataset_ranks(accuracy, present), [[1, 1, 3]])


def test_greedy_by_hand_and_the_weights_choose_for_the_dataset():
    ranks = dataset_ranks(ACCURACY, PRESENT)
    # equal weights: b first (ranks 2, 1, 2: mean 5/3), then a and c tie (4/3): a, the first
    order, losses = greedy_portfolio(ranks, np.ones(3), size=2)
    assert order == [1, 0] and losses == pytest.approx([5 / 3, 4 / 3])
    # d3 weighs five: c first ((3 + 5 x 1) / 6 against b's 2 and a's 16 / 6)
    order, losses = greedy_portfolio(ranks, np.array([1.0, 0.0, 5.0]), size=1)
    assert order == [2] and losses == pytest.approx([8 / 6])
    # clipped at 2, every single one scores alike: the first
    assert greedy_portfolio(ranks, np.ones(3), size=1, clip=2.0)[0] == [0]
    # only the allowed: b left out, c first (mean 2 against a's 7/3)
    allowed = np.array([True, False, True])
    assert greedy_portfolio(ranks, np.ones(3), size=3, allowed=allowed)[0] == [2, 0]
    with pytest.raises(ValueError, match="weights"):
        greedy_portfolio(ranks, np.zeros(3), size=1)


def _matrix(n_datasets: int = 30):
    """Two kinds of datasets told apart by mf1: configuration 'low' wins where mf1 < 0.5,
    'high' elsewhere; 'middle' is second everywhere."""
    rng = np.random.default_rng(0)
    mf1 = np.linspace(0.0, 1.0, n_datasets)
    rows = []
    for d, value in enumerate(mf1):
        low = value < 0.5
        for name, accuracy in (
            ("low", 0.95 if low else 0.60),
            ("high", 0.60 if low else 0.95),
            ("middle", 0.90),
        ):
            rows.append(
                {"dataset": f"d{d}", "algorithm": name, "accuracy": accuracy,
                 "fit_time": {"low": 1.0, "high": 1.0, "middle": 100.0}[name]}
            )  # fmt: skip
    meta = pd.DataFrame(
        {"dataset": [f"d{d}" for d in range(n_datasets)], "mf1": mf1,
         "n_instances": 1000.0, "mf2": rng.random(n_datasets)}
    )  # fmt: skip
    return PerformanceMatrix.from_frames(pd.DataFrame(rows), meta)


def test_the_portfolio_is_chosen_for_the_dataset_and_fits_the_budget():
    ranker = A3RRanker(k=5, normalize=False).fit(_matrix())
    near_low = {"mf1": 0.1, "n_instances": 1000.0, "mf2": 0.5}
    near_high = {"mf1": 0.9, "n_instances": 1000.0, "mf2": 0.5}
    assert ranker.portfolio(near_low, size=1) == ["low"]
    assert ranker.portfolio(near_high, size=1) == ["high"]
    # the collection's own portfolio: the same whatever the data (here 'low', 'high' and
    # 'middle' all have a mean rank of 2: the first by name)
    uniform = ranker.portfolio(near_low, size=1, weighting="uniform")
    assert uniform == ranker.portfolio(near_high, size=1, weighting="uniform") == ["high"]
    # 'middle' takes about 100 s: not with 50 s for 1 fold, nor among the candidates named
    assert "middle" not in ranker.portfolio(near_low, size=3, budget=50.0)
    assert ranker.portfolio(near_low, size=3, candidates=["high", "middle"]) == ["middle", "high"]
