"""Every ranking strategy through the same contract, and the learned one's answer and score."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from metarec.exceptions import InvalidInputError, NotFittedError, UnknownNameError
from metarec.recommender import (
    A3RRanker,
    ARRRanker,
    AverageRankRanker,
    LearnedRanker,
    PerformanceMatrix,
    Recommender,
    make_ranker,
)
from metarec.recommender._learned import expected_loss_along
from tests.recommender._fakes import random_kb, tiny_kb

RANKERS = [
    A3RRanker(k=5),
    ARRRanker(k=5),
    AverageRankRanker(k=5),
    AverageRankRanker(k=None, n=32),
    LearnedRanker(k=5, n_estimators=10, random_state=0),
    LearnedRanker(k=5, n_estimators=10, random_state=0, answer_n=float("inf"), time_floor=1.0),
]
IDS = ["a3r", "arr", "ar", "global ar*", "learned", "learned answer"]


@pytest.fixture(scope="module")
def matrix():
    return PerformanceMatrix.from_kb(random_kb(n_datasets=40, seed=3))


def test_matrix_subset_keeps_the_chosen_datasets_rows(matrix):
    picked = matrix.subset([4, 1])  # indices: the datasets' order stays the matrix's
    assert picked.datasets.tolist() == [matrix.datasets[1], matrix.datasets[4]]
    np.testing.assert_array_equal(picked.accuracy, matrix.accuracy[[1, 4]])
    np.testing.assert_array_equal(picked.time, matrix.time[[1, 4]])
    np.testing.assert_array_equal(picked.present, matrix.present[[1, 4]])
    assert picked.metafeatures.index.tolist() == matrix.metafeatures.index[[1, 4]].tolist()
    mask = np.zeros(matrix.shape[0], dtype=bool)
    mask[[1, 4]] = True
    assert matrix.subset(mask).datasets.tolist() == picked.datasets.tolist()
    assert picked.algorithms.tolist() == matrix.algorithms.tolist()


def _query(matrix, i):
    return matrix.metafeatures.iloc[i].to_dict()


@pytest.mark.parametrize("ranker", RANKERS, ids=IDS)
def test_contract(ranker, matrix):
    with pytest.raises(NotFittedError):
        clone(ranker).rank(_query(matrix, 0))
    fitted = clone(ranker).fit(matrix)
    assert clone(fitted).get_params() == ranker.get_params()  # fit changes no parameter
    name = str(matrix.datasets[0])
    ranking = fitted.rank(_query(matrix, 0), exclude=[name])
    # every algorithm exactly once, ranks 1..n, the excluded dataset never a neighbour
    assert sorted(ranking.algorithms) == sorted(matrix.algorithms)
    assert [e.rank for e in ranking] == list(range(1, len(ranking) + 1))
    assert name not in {nb.name for nb in ranking.neighbours}
    assert ranking.method == fitted.strategy
    # the score orders the table, in the direction its name says
    scores = np.array([e.score for e in ranking])
    finite = scores[np.isfinite(scores)]
    step = np.diff(finite)
    assert (step <= 1e-12).all() if ranking.score_name != "average_rank" else (step >= -1e-12).all()
    # intervals hold their expected value
    for e in ranking:
        if np.isfinite(e.expected_accuracy_low):
            assert e.expected_accuracy_low <= e.expected_accuracy <= e.expected_accuracy_high
        if np.isfinite(e.expected_time_low):
            assert e.expected_time_low <= e.expected_time <= e.expected_time_high
    # tried algorithms are dropped; a mistyped one is refused
    tried = {str(matrix.algorithms[0]): (0.8, 1.0)}
    after = fitted.rank(_query(matrix, 0), exclude=[name], tried=tried)
    assert str(matrix.algorithms[0]) not in after.algorithms
    assert len(after) == len(ranking) - 1
    with pytest.raises(UnknownNameError):
        fitted.rank(_query(matrix, 0), tried={"nope": (0.5, 1.0)})
    # a budget gives a plan whose expected loss never grows
    plan = fitted.rank(_query(matrix, 0), budget=5.0)
    assert plan.score_name == "expected_loss"
    assert np.all(np.diff([e.score for e in plan]) <= 1e-12)
    with pytest.raises(InvalidInputError, match="budget"):
        fitted.rank(_query(matrix, 0), budget=0)
    # a duration as people write it is a budget too
    assert fitted.rank(_query(matrix, 0), budget="5s").algorithms == plan.algorithms
    # a tried result that is not (accuracy in [0, 1], seconds >= 0) is refused by name
    first = str(matrix.algorithms[0])
    for bad in ["abc", (95.0, 1.0), (0.9, -5), (float("nan"), 0.1), (0.9,), (0.9, None)]:
        with pytest.raises(InvalidInputError, match=f"tried\\['{first}'\\]"):
            fitted.rank(_query(matrix, 0), tried={first: bad})
    with pytest.raises(InvalidInputError, match="must map each algorithm"):
        fitted.rank(_query(matrix, 0), tried=[first])
    # a misspelt excluded dataset is refused (it would silently stay a neighbour)
    with pytest.raises(UnknownNameError, match="exclude"):
        fitted.rank(_query(matrix, 0), exclude=[name + "x"])
    assert fitted.rank(_query(matrix, 0), exclude=name).algorithms == ranking.algorithms
    assert fitted.rank(_query(matrix, 0), exclude=None).algorithms == (
        fitted.rank(_query(matrix, 0)).algorithms
    )
    # a fitted ranker pickles and ranks the same afterwards
    again = pickle.loads(pickle.dumps(fitted))
    assert again.rank(_query(matrix, 0), exclude=[name]).algorithms == ranking.algorithms


@pytest.mark.parametrize("ranker", RANKERS, ids=IDS)
def test_fit_takes_a_matrix(ranker):
    with pytest.raises(InvalidInputError, match="PerformanceMatrix"):
        clone(ranker).fit(tiny_kb())


@pytest.mark.parametrize(
    ("strategy", "cls"),
    [("learned", LearnedRanker), ("a3r", A3RRanker), ("arr", ARRRanker), ("ar", AverageRankRanker)],
)
def test_the_facade_uses_the_strategys_ranker(strategy, cls):
    kb = random_kb(n_datasets=15, seed=2)
    learned = {"n_estimators": 5} if strategy == "learned" else {}
    rec = Recommender(make_ranker(strategy, k=4, random_state=0, **learned)).fit(kb)
    assert type(rec.ranker_) is cls
    query = kb.metafeatures().iloc[3].drop("dataset").to_dict()
    direct = clone(rec.ranker_).fit(PerformanceMatrix.from_kb(kb)).rank(query)
    assert rec.recommend(metafeatures=query).algorithms == direct.algorithms
    assert rec.datasets_ is rec.ranker_.datasets_  # fitted attributes read through


def test_a3r_by_hand():
    # tiny_kb, k=None, no normalisation, equal weights: D1 A .8@1 B .9@16 C .5@1,
    # D2 A .6@2 B .9@2, D3 A .9@1 B (timeout: majority .6)@100 C .7@1; n = 1
    ranker = A3RRanker(k=None, n=1, normalize=False, weights=None)
    ranking = ranker.fit(PerformanceMatrix.from_kb(tiny_kb())).rank({"x": 0.0})
    frame = ranking.to_frame().set_index("algorithm")
    ab = np.exp(np.mean([np.log((0.8 / 0.9) * 16), np.log(0.6 / 0.9), np.log((0.9 / 0.6) * 100)]))
    ac = np.exp(np.mean([np.log(0.8 / 0.5), np.log(0.9 / 0.7)]))
    assert frame.loc["A", "score"] == pytest.approx((ab + ac) / 2)
    # C against B: (0.5/0.9)*16 on D1, (0.7/0.6)*100 on D3: C is far ahead with n = 1
    assert ranking.algorithms[0] == "C" and ranking.score_name == "a3r_score"


def test_average_rank_by_hand():
    # ranks by accuracy: D1 B1 A2 C3; D2 B1 A2; D3 A1 C2 B3 (timeout = .6 < C's .7)
    ranker = AverageRankRanker(k=None, normalize=False, weights=None)
    ranking = ranker.fit(PerformanceMatrix.from_kb(tiny_kb())).rank({"x": 0.0})
    assert ranking.to_frame().set_index("algorithm")["score"].to_dict() == pytest.approx(
        {"A": 5 / 3, "B": 5 / 3, "C": 2.5}
    )
    assert ranking.score_name == "average_rank"


def test_expected_loss_along_by_hand():
    # two evidence rows weighing 1 and 3; best .9 / .8; start .5 / .5
    acc = np.array([[0.9, 0.7, np.nan], [0.6, 0.8, 0.7]])
    weights = np.array([1.0, 3.0])
    best, start = np.array([0.9, 0.8]), np.array([0.5, 0.5])
    # order 1, 0, 2: after 1 -> row losses 20, 0; after 0 -> 0, 0; after 2 -> 0, 0
    got = expected_loss_along(np.array([1, 0, 2]), acc, weights, best, start)
    np.testing.assert_allclose(got, [(20 * 1 + 0 * 3) / 4, 0.0, 0.0])
    # order 2, 0: row 0 has no result for 2 (start .5 -> 40), row 1 .7 -> 10
    got = expected_loss_along(np.array([2, 0]), acc, weights, best, start)
    np.testing.assert_allclose(got, [(40 + 30) / 4, (0 + 3 * 10) / 4])


def test_the_answer_waits_for_accuracy_only_within_its_patience():
    from metarec.recommender._learned import _answer

    class R:  # the fitted state _answer reads
        answer_n = 8.0
        answer_patience = 10.0
        algorithms_ = np.array(["fast", "slow", "slower"], dtype=object)

        def _ties(self, j):
            return np.arange(j.size)

    keep = np.ones(3, dtype=bool)
    acc = np.array([0.80, 0.82, 0.83])
    # within 10 s nothing is discounted: the most accurate wins
    assert _answer(R(), acc, np.array([1.0, 5.0, 9.0]), keep) == 2
    # slower takes 1000 s: log(.83) - log(100) / 8 = -0.762 < log(.82) - 0 = -0.198
    assert _answer(R(), acc, np.array([1.0, 5.0, 1000.0]), keep) == 1
    # slow takes 20 s: log(.82) - log(2) / 8 = -0.285 < log(.80) = -0.223 -> fast
    assert _answer(R(), acc, np.array([1.0, 20.0, 1000.0]), keep) == 0


def test_learned_score_is_the_expected_loss_and_never_grows():
    kb = random_kb(n_datasets=25, seed=5)
    rec = Recommender(LearnedRanker(k=5, n_estimators=10, random_state=0)).fit(kb)
    ranking = rec.recommend(metafeatures=kb.metafeatures().iloc[0].drop("dataset").to_dict())
    scores = [e.score for e in ranking]
    assert ranking.score_name == "expected_loss"
    assert all(b <= a + 1e-12 for a, b in zip(scores, scores[1:], strict=False))
    assert scores[-1] >= 0.0


# and no RuntimeWarning ("Mean of empty slice") from the model's algorithm left without results
@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("alone", [True, False], ids=["alone", "beside others"])
def test_an_algorithm_compared_on_too_few_datasets_is_never_the_answer(alone):
    """One result (alone on a dataset without metafeatures, or a win beside the others on
    one dataset) would make the model predict it best everywhere."""
    import pandas as pd

    from tests.recommender._fakes import FrameKB

    kb = random_kb(n_datasets=40, seed=3)
    runs, meta = kb.runs(), kb.metafeatures()
    dataset = "brand_new" if alone else str(meta["dataset"].iloc[0])
    newcomer = pd.DataFrame(
        {"dataset": [dataset], "algorithm": ["newcomer"], "accuracy": [1.0],
         "fit_time": [0.01], "status": ["ok"], "n_runs": [1], "n_failed": [0]}
    )  # fmt: skip
    rec = Recommender(LearnedRanker(random_state=0, n_estimators=20)).fit(
        FrameKB(pd.concat([runs, newcomer], ignore_index=True), meta)
    )
    for i in range(1, 8):
        ranking = rec.recommend(metafeatures=meta.iloc[i].drop("dataset").to_dict())
        frame = ranking.to_frame().set_index("algorithm")
        assert ranking.algorithms[0] != "newcomer"
        assert ranking.algorithms[-1] == "newcomer"
        assert frame.loc["newcomer", "basis"] == "few datasets"
        assert ranking.run_order[-1] == "newcomer"
        planned = rec.recommend(metafeatures=meta.iloc[i].drop("dataset").to_dict(), budget=100.0)
        assert "newcomer" not in planned.algorithms and len(planned.algorithms) > 0
