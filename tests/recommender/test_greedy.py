"""The portfolio for a dataset: greedy selection of configurations, weighted by similarity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import InvalidInputError
from metarec.recommender import A3RRanker, PerformanceMatrix, Recommender
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
    # only the weights' ratios matter (a weighted mean): a tenth each, the same
    assert greedy_portfolio(ranks, np.full(3, 0.1), size=2) == (order, pytest.approx(losses))
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


def test_greedy_from_a_start_chooses_the_rest_given_it():
    ranks = dataset_ranks(ACCURACY, PRESENT)
    # d3 weighs five, but a is in first: c next ((1 + 2 + 5 x 1) / 7 against b's
    # (1 + 1 + 5 x 2) / 7), the losses those of a, then a and c, then all three
    order, losses = greedy_portfolio(ranks, np.array([1.0, 1.0, 5.0]), size=3, start=[0])
    assert order == [0, 2, 1]
    assert losses == pytest.approx([(1 + 3 + 15) / 7, (1 + 2 + 5) / 7, 7 / 7])
    # a start counts towards the size, and is taken even where not allowed
    allowed = np.array([False, True, True])
    assert greedy_portfolio(ranks, np.ones(3), size=1, start=[0], allowed=allowed)[0] == [0]


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
    # the winner of the neighbours first; then 'high' or 'low' (each dataset is then at rank
    # 1) and 'middle' last, the tie of the three going to the first column
    assert ranker.portfolio(near_low, size=3) == ["low", "high", "middle"]
    assert ranker.portfolio(near_high, size=3) == ["high", "low", "middle"]
    # the collection's own portfolio: the same whatever the data (here 'low', 'high' and
    # 'middle' all have a mean rank of 2: the first by name)
    uniform = ranker.portfolio(near_low, size=1, weighting="uniform")
    assert uniform == ranker.portfolio(near_high, size=1, weighting="uniform") == ["high"]
    # 'middle' takes about 100 s: not with 50 s for 1 fold, nor among the candidates named
    assert ranker.portfolio(near_low, size=3, budget=50.0) == ["low", "high"]
    assert ranker.portfolio(near_low, size=3, candidates=["high", "middle"]) == ["middle", "high"]
    # the collection's first, then for the dataset given it: near 'low', 'high' then 'low'
    assert ranker.portfolio(near_low, size=2, weighting="uniform_first") == ["high", "low"]
    with pytest.raises(InvalidInputError, match="weighting must be one of 'similarity'"):
        ranker.portfolio(near_low, weighting="nearest")


def test_the_budget_holds_the_top_of_each_expected_time_interval_for_every_fold():
    """A configuration is a candidate exactly when the top of its expected time's interval
    (the ranking's ``expected_time_high``), times the folds, is within the budget."""
    ranker = A3RRanker(k=5, normalize=False).fit(_matrix())
    near_low = {"mf1": 0.1, "n_instances": 1000.0, "mf2": 0.5}
    high = {e.algorithm: e.expected_time_high for e in ranker.rank(near_low).entries}
    assert 90 < high["middle"] < 200 and high["low"] < 2  # 'middle' takes about 100 s
    every, quick = ["low", "high", "middle"], ["low", "high"]
    for folds in (1, 3):
        budget = high["middle"] * folds
        assert ranker.portfolio(near_low, size=3, budget=budget, n_folds=folds) == every
        below = np.nextafter(budget, 0.0)
        assert ranker.portfolio(near_low, size=3, budget=below, n_folds=folds) == quick
    # one fold by default; no fold counts as one; a budget no configuration fits: none
    assert ranker.portfolio(near_low, size=3, budget=high["middle"]) == every
    assert ranker.portfolio(near_low, size=3, budget=0.75 * high["middle"], n_folds=0) == quick
    assert ranker.portfolio(near_low, size=3, budget=high["low"] / 2) == []


def test_a_portfolio_holds_twenty_configurations_by_default():
    rng = np.random.default_rng(0)
    names = [f"c{j:02d}" for j in range(25)]
    runs = pd.DataFrame(
        [{"dataset": f"d{d}", "algorithm": name, "accuracy": rng.random(), "fit_time": 1.0}
         for d in range(6) for name in names]
    )  # fmt: skip
    meta = pd.DataFrame({"dataset": [f"d{d}" for d in range(6)], "mf1": np.arange(6.0)})
    matrix = PerformanceMatrix.from_frames(runs, meta)
    query = {"mf1": 2.0}
    chosen = A3RRanker(k=3).fit(matrix).portfolio(query)
    assert len(chosen) == 20 == len(set(chosen)) and set(chosen) < set(names)
    assert Recommender(A3RRanker(k=3)).fit(matrix).portfolio(metafeatures=query) == chosen


def _two_kinds(n_others: int, nearest: dict[str, float], others: dict[str, float]):
    """Dataset d0 (mf1 = 0) with the accuracies ``nearest``, and ``n_others`` datasets far
    from it (mf1 = 1) with the accuracies ``others``."""
    rows, names = [], [f"d{i}" for i in range(n_others + 1)]
    for i, name in enumerate(names):
        for algorithm, accuracy in (nearest if i == 0 else others).items():
            rows.append({"dataset": name, "algorithm": algorithm, "accuracy": accuracy,
                         "fit_time": 1.0})  # fmt: skip
    meta = pd.DataFrame({"dataset": names, "mf1": [0.0] + [1.0] * n_others})
    return PerformanceMatrix.from_frames(pd.DataFrame(rows), meta)


def test_the_collection_counts_as_four_nearest_neighbours_by_hand():
    """One neighbour (k = 1, weight 1) plus the prior weight P = 4 spread over the N
    datasets.  'a' is first on the nearest dataset d0 and second on the M = N - 1 others;
    'b' is first on the others and fourth on d0, behind two fillers.  Their weighted mean
    ranks are

    ``L(a) = (1 + P/N + 2 M P/N) / (1 + P)``,  ``L(b) = (4 (1 + P/N) + M P/N) / (1 + P)``

    so 'a' comes first exactly when ``P < 3 N / (N - 4)``: with N = 15 when P < 45/11
    (4.09), with N = 17 when P < 51/13 (3.92).  With P = 4: 'a' over 15 datasets
    (131/75 against 132/75), 'b' over 17 (148/85 against 149/85)."""
    query = {"mf1": 0.0}
    nearest = {"a": 0.9, "f1": 0.8, "f2": 0.7, "b": 0.6}
    others = {"a": 0.8, "f1": 0.5, "f2": 0.4, "b": 0.9}
    fifteen = _two_kinds(14, nearest=nearest, others=others)
    ranker = A3RRanker(k=1, normalize=False).fit(fifteen)
    assert ranker.portfolio(query, size=2) == ["a", "b"]
    ranks = dataset_ranks(fifteen.accuracy, fifteen.present)
    weights = np.array([1 + 4 / 15] + [4 / 15] * 14)
    assert greedy_portfolio(ranks, weights, size=1) == ([0], [pytest.approx(131 / 75)])
    # without the nearest dataset, or with every dataset weighing the same: 'b'
    assert ranker.portfolio(query, size=1, exclude=["d0"]) == ["b"]
    assert ranker.portfolio(query, size=1, weighting="uniform") == ["b"]
    seventeen = _two_kinds(16, nearest=nearest, others=others)
    ranker = A3RRanker(k=1, normalize=False).fit(seventeen)
    assert ranker.portfolio(query, size=2) == ["b", "a"]
    ranks = dataset_ranks(seventeen.accuracy, seventeen.present)
    weights = np.array([1 + 4 / 17] + [4 / 17] * 16)
    column_b = list(seventeen.algorithms).index("b")
    assert greedy_portfolio(ranks, weights, size=1) == ([column_b], [pytest.approx(148 / 85)])


def test_a_dataset_loses_at_most_the_clipped_rank():
    """One configuration ranked 1st on one dataset and 25th on the other: a loss of
    (1 + 20) / 2, the rank clipped at 20."""
    order, losses = greedy_portfolio(np.array([[1.0], [25.0]]), np.ones(2), size=1)
    assert order == [0] and losses == [10.5]
    # below the clip a rank counts in full
    assert greedy_portfolio(np.array([[1.0], [19.0]]), np.ones(2), size=1)[1] == [10.0]
    # the clip decides between a specialist and an all-rounder: ranks 1 and 30 (loss 10.5)
    # against 10 and 12 (loss 11)
    ranks = np.array([[1.0, 10.0], [30.0, 12.0]])
    assert greedy_portfolio(ranks, np.ones(2), size=1) == ([0], [10.5])
    assert greedy_portfolio(ranks, np.ones(2), size=1, clip=40.0) == ([1], [11.0])


def _dataset(n_rows: int, n_features: int, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n_rows, n_features)),
                     columns=[f"x{i}" for i in range(n_features)])  # fmt: skip
    y = pd.Series(np.where(X["x0"] + rng.normal(size=n_rows) > 0, "yes", "no"), name="label")
    return X, y


def test_the_recommenders_portfolio_for_a_dataset_from_its_rows():
    """Two datasets, each won by its own configuration; the portfolio for the rows of one of
    them starts with its winner (its weight 1 + 4/2 against the other's 4/2: mean ranks 7/5
    and 8/5)."""
    from metarec.metafeatures import extract

    small, wide = _dataset(40, 2, seed=1), _dataset(200, 8, seed=2)
    of_small, of_wide = extract(*small, random_state=0), extract(*wide, random_state=0)
    meta = pd.concat([of_small.to_frame("small"), of_wide.to_frame("wide")], ignore_index=True)
    runs = pd.DataFrame(
        {"dataset": ["small", "small", "wide", "wide"], "algorithm": ["x_c01", "y_c01"] * 2,
         "accuracy": [0.9, 0.8, 0.7, 0.95], "fit_time": [1.0, 100.0, 1.0, 100.0]}
    )  # fmt: skip
    rec = Recommender(A3RRanker(k=1, normalize=False)).fit(
        PerformanceMatrix.from_frames(runs, meta)
    )
    # from the rows (their metafeatures computed), or from the metafeatures
    assert rec.portfolio(*small) == ["x_c01", "y_c01"]
    assert rec.portfolio(*wide) == ["y_c01", "x_c01"]
    query = dict(of_small)
    assert rec.portfolio(metafeatures=query) == rec.ranker_.portfolio(query) == ["x_c01", "y_c01"]
    # each argument goes through to the ranker
    assert rec.portfolio(metafeatures=query, size=1) == ["x_c01"]
    assert rec.portfolio(metafeatures=query, candidates=["y_c01"]) == ["y_c01"]
    assert rec.portfolio(metafeatures=query, exclude=["small"]) == ["y_c01", "x_c01"]
    uniform = rec.portfolio(metafeatures=dict(of_wide), weighting="uniform")
    assert uniform == ["x_c01", "y_c01"]  # a tie: the first
    # the collection's first, then for the wide one: the same two here
    assert rec.portfolio(metafeatures=dict(of_wide), weighting="uniform_first") == uniform
    # a regression portfolio starts with the collection's first by default
    regression = Recommender(A3RRanker(k=1, normalize=False), task="regression").fit(
        PerformanceMatrix.from_frames(runs, meta)
    )
    assert regression.portfolio(metafeatures=dict(of_wide)) == ["x_c01", "y_c01"]
    assert regression.portfolio(metafeatures=dict(of_wide), weighting="similarity") == [
        "y_c01",
        "x_c01",
    ]
    high = {e.algorithm: e.expected_time_high for e in rec.recommend(metafeatures=query)}
    assert rec.portfolio(metafeatures=query, budget=high["y_c01"]) == ["x_c01", "y_c01"]
    assert rec.portfolio(metafeatures=query, budget=high["y_c01"], n_folds=2) == ["x_c01"]
    with pytest.raises(InvalidInputError, match="either X, y or metafeatures"):
        rec.portfolio(*small, metafeatures=query)
