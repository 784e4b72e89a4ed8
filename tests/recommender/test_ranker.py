"""Rankings of the Recommender, checked against hand computations and a naive implementation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from metarec.evaluation import a3r, arr
from metarec.exceptions import InvalidInputError, NotFittedError, UnknownNameError
from metarec.recommender import (
    A3RRanker,
    ARRRanker,
    AverageRankRanker,
    LearnedRanker,
    PerformanceMatrix,
    Ranking,
    Recommender,
    make_ranker,
)
from metarec.recommender._scoring import average_rank, pairwise_log_score
from tests.recommender._fakes import random_kb, tiny_kb

QUERY = {"x": 0.4, "constant": 3.0}


def test_a3r_scores_by_hand():
    # neighbours D1 (distance 0.4/10) and D2 (0.6/10); n = 4
    # D1: A3R_AB = (.8/.9) / (1/16)^(1/4) = 1.7778, A3R_AC = 1.6, A3R_BC = (.9/.5) / 2 = 0.9
    # D2: A3R_AB = .6/.9 = 0.6667; C did not run on D2
    # geometric means: AB = sqrt(1.7778 * 0.6667), AC = 1.6, BC = 0.9
    rec = Recommender(A3RRanker(k=2, n=4, weights=None)).fit(tiny_kb())
    ranking = rec.recommend(metafeatures=QUERY)
    ab = math.sqrt((0.8 / 0.9) * 2 * (0.6 / 0.9))
    expected = {"A": (ab + 1.6) / 2, "B": (1 / ab + 0.9) / 2, "C": (1 / 1.6 + 1 / 0.9) / 2}
    frame = ranking.to_frame().set_index("algorithm")
    assert ranking.algorithms == ["A", "B", "C"]
    for name, value in expected.items():
        assert frame.loc[name, "score"] == pytest.approx(value, rel=1e-12)
    assert frame["n_datasets"].to_dict() == {"A": 2, "B": 2, "C": 1}
    assert frame.loc["A", "expected_accuracy"] == pytest.approx(0.7)
    assert frame.loc["B", "expected_time"] == pytest.approx(math.sqrt(16 * 2))
    assert list(frame["rank"]) == [1, 2, 3]
    nb = ranking.neighbours_frame()
    assert list(nb["name"]) == ["D1", "D2"]
    # range-normalised L1 on x (range 10); the query lacks 2 of the 3 usable metafeatures
    # (majority_class_pct, class_imbalance_ratio), so the sum over 1 is scaled by 3 / 1
    assert nb["distance"].tolist() == pytest.approx([3 * 0.04, 3 * 0.06])
    assert nb["n_features_compared"].tolist() == [1, 1]  # the constant metafeature is dropped
    only_x = Recommender(A3RRanker(k=2, n=4, features=["x", "constant"], weights=None)).fit(
        tiny_kb()
    )
    nb = only_x.recommend(metafeatures=QUERY).neighbours_frame()
    assert nb["distance"].tolist() == pytest.approx([0.04, 0.06])


def test_failed_run_counts_as_majority_class_at_its_time():
    rec = Recommender(A3RRanker(k=None, n=4, weights=None)).fit(tiny_kb())
    i, j = rec.ranker_.dataset_index_["D3"], rec.ranker_.algorithm_index_["B"]
    assert rec.ranker_.accuracy_[i, j] == pytest.approx(0.6)
    assert rec.ranker_.time_[i, j] == pytest.approx(100.0)
    assert rec.ranker_.failed_[i, j]
    ranking = rec.recommend(metafeatures=QUERY)
    frame = ranking.to_frame().set_index("algorithm")
    assert frame.loc["B", "n_failed"] == 1 and frame.loc["B", "n_datasets"] == 3
    # AB over D1, D2, D3: D3 ratio = (.9/.6) / (1/100)^(1/4)
    ab = ((0.8 / 0.9) * 2 * (0.6 / 0.9) * (0.9 / 0.6) * 100**0.25) ** (1 / 3)
    ac = math.sqrt(1.6 * (0.9 / 0.7))
    assert frame.loc["A", "score"] == pytest.approx((ab + ac) / 2)


def test_partial_failures_mix_in_the_majority_accuracy():
    kb = tiny_kb()
    runs = kb._runs
    runs.loc[(runs.dataset == "D1") & (runs.algorithm == "A"), ["n_runs", "n_failed"]] = [4, 1]
    rec = Recommender(A3RRanker(weights=None)).fit(kb)
    # 3 ok folds averaging .8 and one failure counted as .5
    assert rec.ranker_.accuracy_[
        rec.ranker_.dataset_index_["D1"], rec.ranker_.algorithm_index_["A"]
    ] == pytest.approx(0.725)


def test_exclude_and_k():
    rec = Recommender(A3RRanker(k=2, n=4, weights=None)).fit(tiny_kb())
    ranking = rec.recommend(metafeatures=QUERY, exclude=["D1"])
    assert [nb.name for nb in ranking.neighbours] == ["D2", "D3"]
    ranking = rec.recommend(metafeatures=QUERY, exclude="D2")
    assert [nb.name for nb in ranking.neighbours] == ["D1", "D3"]
    with pytest.raises(InvalidInputError):
        rec.recommend(metafeatures=QUERY, exclude=["D1", "D2", "D3"])


def test_average_rank_methods_by_hand():
    rec = Recommender(AverageRankRanker(k=2, weights=None)).fit(tiny_kb())
    frame = rec.recommend(metafeatures=QUERY).to_frame().set_index("algorithm")
    assert frame["score"].to_dict() == {"B": 1.0, "A": 2.0, "C": 3.0}
    assert list(frame.index) == ["B", "A", "C"]
    rec = Recommender(AverageRankRanker(k=2, n=4, weights=None)).fit(tiny_kb())
    ranking = rec.recommend(metafeatures=QUERY)
    # D1 by log SR - log T / 4: A, C, B; D2: B, A.  A: 1.5, B: 2, C: 2 (tie -> higher accuracy)
    assert ranking.algorithms == ["A", "B", "C"]
    assert ranking.to_frame()["score"].tolist() == [1.5, 2.0, 2.0]


def test_arr_matches_library_on_one_dataset():
    rec = Recommender(ARRRanker(k=1, acc_d=0.1, weights=None)).fit(tiny_kb())
    frame = rec.recommend(metafeatures={"x": 0.0}).to_frame().set_index("algorithm")
    sr = {"A": 0.8, "B": 0.9, "C": 0.5}
    t = {"A": 1.0, "B": 16.0, "C": 1.0}
    for p in sr:
        others = [q for q in sr if q != p]
        value = np.mean([arr(sr[p], sr[q], t[p], t[q], acc_d=0.1) for q in others])
        assert frame.loc[p, "score"] == pytest.approx(value)


def _naive_scores(rec, idx, w, n):
    """Loops over pairs and datasets with the evaluation library's a3r."""
    sr, t, m = (
        np.exp(rec.ranker_.log_sr_[idx]),
        np.exp(rec.ranker_._log_time(idx)),
        rec.ranker_.present_[idx],
    )
    n_alg = sr.shape[1]
    scores = np.full(n_alg, np.nan)
    for p in range(n_alg):
        values = []
        for q in range(n_alg):
            both = [d for d in range(len(idx)) if p != q and m[d, p] and m[d, q]]
            if both:
                logs = [math.log(a3r(sr[d, p], sr[d, q], t[d, p], t[d, q], n=n)) for d in both]
                values.append(math.exp(np.average(logs, weights=w[both])))
        if values:
            scores[p] = np.mean(values)
    return scores


@pytest.mark.parametrize("weights", [None, "distance"])
@pytest.mark.parametrize("k", [5, None])
def test_vectorised_a3r_equals_naive_pairs(weights, k):
    rec = Recommender(A3RRanker(k=k, n=8, weights=weights)).fit(random_kb(seed=3))
    query = {"f1": 0.1, "f2": 0.5, "f3": np.nan}
    ranking = rec.recommend(metafeatures=query)
    idx = np.array([rec.ranker_.dataset_index_[nb.name] for nb in ranking.neighbours])
    w = np.array([nb.weight for nb in ranking.neighbours])
    expected = _naive_scores(rec, idx, w, 8)
    frame = ranking.to_frame().set_index("algorithm")
    got = frame.loc[list(rec.algorithms_), "score"].to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    if weights == "distance":
        assert w.max() == pytest.approx(1.0) and (np.diff(w) <= 1e-12).all()


def test_pairwise_log_score_small():
    z = np.array([[0.0, 1.0], [2.0, 0.0]])
    m = np.array([[1.0, 1.0], [1.0, 0.0]])
    # only dataset 0 has both: score_0 = exp(0 - 1), score_1 = exp(1)
    np.testing.assert_allclose(pairwise_log_score(z, m, np.ones(2)), [math.exp(-1), math.exp(1)])
    m = np.array([[1.0, 0.0], [1.0, 0.0]])
    assert np.isnan(pairwise_log_score(z, m, np.ones(2))).all()


def test_average_rank_ties_and_missing():
    values = np.array([[3.0, 3.0, 1.0], [np.nan, 2.0, 5.0]])
    np.testing.assert_allclose(
        average_rank(values, np.ones(2)), [1.5, 1.75, 2.0]
    )  # (1.5 + 2) / 2, (3 + 1) / 2


def test_nan_metafeatures_rescale_distance():
    rec = Recommender(A3RRanker(k=None, distance="l1-range", weights=None)).fit(random_kb(seed=1))
    full = rec.recommend(metafeatures={"f1": 0.0, "f2": 0.5, "f3": 0.0})
    part = rec.recommend(metafeatures={"f1": 0.0, "f2": 0.5})
    nb_full = {nb.name: nb for nb in full.neighbours}
    for nb in part.neighbours:
        assert nb.n_features_compared <= 2
        assert np.isfinite(nb.distance)
        assert nb_full[nb.name].n_features_compared >= nb.n_features_compared
    # a pair with one metafeature compared out of 3 is scaled by 3
    rec2 = Recommender(A3RRanker(k=1, weights=None)).fit(tiny_kb())
    assert rec2.recommend(metafeatures={"x": 5.0}).neighbours[0].distance == pytest.approx(3 * 0.4)


def test_standardized_distance():
    rec = Recommender(A3RRanker(k=3, distance="standardized", features=["x"], weights=None)).fit(
        tiny_kb()
    )
    ranking = rec.recommend(metafeatures={"x": 0.0})
    sd = np.std([0.0, 1.0, 10.0])
    assert [nb.distance for nb in ranking.neighbours] == pytest.approx([0.0, 1 / sd, 10 / sd])


def test_no_common_metafeature_is_an_error_and_unknown_ignored():
    rec = Recommender(A3RRanker(k=2, weights=None)).fit(tiny_kb())
    with pytest.raises(InvalidInputError, match="metafeature in common"):
        rec.recommend(metafeatures={"unknown": 1.0})


def test_normalize_changes_only_clamped_cases():
    kb = random_kb(seed=5)
    plain = Recommender(A3RRanker(k=10, normalize=False, weights=None)).fit(kb)
    norm = Recommender(A3RRanker(k=10, normalize=True, weights=None)).fit(kb)
    q = {"f1": 0.0, "f2": 0.2, "f3": 0.1}
    a, b = plain.recommend(metafeatures=q), norm.recommend(metafeatures=q)
    assert not np.allclose(plain.ranker_.log_sr_, norm.ranker_.log_sr_)
    # the per-dataset factor cancels in SR_p / SR_q unless clamping applies
    assert a.algorithms == b.algorithms


def test_tried_drops_algorithms_and_reweights():
    rec = Recommender(A3RRanker(k=2, n=4, weights=None, normalize=False, tried_scale=0.2)).fit(
        tiny_kb()
    )
    ranking = rec.recommend(metafeatures=QUERY, tried={"A": (0.6, 2.0)})
    assert "A" not in ranking.algorithms and ranking.tried == ("A",)
    weights = {nb.name: nb.weight for nb in ranking.neighbours}
    # D1 is .2 off on A, D2 agrees exactly
    assert weights["D1"] == pytest.approx(math.exp(-0.2 / 0.2))
    assert weights["D2"] == pytest.approx(1.0)
    # candidates by expected log-A3R gain over the incumbent A, over neighbours where both ran:
    # B: D1 max(0, log(.9/.8) - log(16)/4) = 0, D2 log(.9/.6); C: D1 max(0, log(.5/.8)) = 0
    w1 = math.exp(-1)
    assert ranking.algorithms == ["B", "C"]
    assert ranking.to_frame()["score"].tolist() == pytest.approx([math.log(1.5) / (1 + w1), 0.0])


def test_budget_plan_by_hand():
    rec = Recommender(A3RRanker(k=2, n=4, weights=None)).fit(tiny_kb())
    plan = rec.recommend(metafeatures=QUERY, budget=2.0)
    assert plan.algorithms == ["A"]
    frame = plan.to_frame()
    assert frame["cumulative_time"].tolist() == pytest.approx([math.sqrt(2)])
    assert frame["expected_loss"].tolist() == pytest.approx([20.0])
    plan = rec.recommend(metafeatures=QUERY, budget=10.0)
    assert plan.algorithms == ["A", "B"]
    assert plan.to_frame()["expected_loss"].tolist() == pytest.approx([20.0, 0.0])
    with pytest.raises(InvalidInputError):
        rec.recommend(metafeatures=QUERY, budget=0)


def test_rank_stored_results():
    rec = Recommender(A3RRanker(n=4, weights=None)).fit(tiny_kb())
    one = rec.rank("D2")
    assert one.algorithms == ["B", "A"]  # C never ran on D2
    assert one.to_frame()["score"].tolist() == pytest.approx([1.5, 0.6 / 0.9])
    assert len(rec.rank().neighbours) == 3
    with pytest.raises(UnknownNameError):
        rec.rank("nope")
    # over every dataset: A's mean of .8, .6, .9 with the 10th to 90th percentile as its
    # 80 % interval (by hand: .6 + .2 x .2 = .64 and .8 + .8 x .1 = .88), not min-max
    a = rec.rank().to_frame().set_index("algorithm").loc["A"]
    assert a["expected_accuracy"] == pytest.approx(0.7667, abs=1e-4)
    assert (a["expected_accuracy_low"], a["expected_accuracy_high"]) == pytest.approx((0.64, 0.88))


def test_params_and_errors():
    rec = Recommender(A3RRanker(k=3, n=16, weights=None))
    assert rec.get_params()["ranker__k"] == 3
    assert A3RRanker().get_params()["weights"] == "distance"  # the tuned default
    assert rec.set_params(ranker__n=8).ranker.n == 8
    with pytest.raises(NotFittedError):
        rec.recommend(metafeatures=QUERY)
    with pytest.raises(UnknownNameError, match="unknown strategy 'x'"):
        Recommender("x").fit(tiny_kb())
    for bad in ({"k": 0}, {"n": -1}, {"distance": "cosine"}, {"weights": "w"}):
        with pytest.raises(InvalidInputError):
            Recommender(A3RRanker(**bad)).fit(tiny_kb())
    with pytest.raises(InvalidInputError, match="ranker must be a ranker"):
        Recommender(ranker=5).fit(tiny_kb())
    with pytest.raises(UnknownNameError, match="unknown metric 'balanced_accuracy'"):
        Recommender(A3RRanker(weights=None), metric="balanced_accuracy").fit(tiny_kb())
    with pytest.raises(UnknownNameError):
        Recommender(A3RRanker(features=["nope"], weights=None)).fit(tiny_kb())
    with pytest.raises(InvalidInputError):
        Recommender(A3RRanker(weights=None)).fit(tiny_kb()).recommend(
            np.zeros((2, 2)), [0, 1], metafeatures=QUERY
        )
    for ranker, name in (
        (ARRRanker(acc_d=-1), "acc_d"),
        (LearnedRanker(n_estimators=0), "n_estimators"),
        (LearnedRanker(min_samples_leaf=1.5), "min_samples_leaf"),
    ):
        with pytest.raises(InvalidInputError, match=name):
            Recommender(ranker).fit(tiny_kb())
    with pytest.raises(InvalidInputError, match="kb must be a KnowledgeBase"):
        Recommender().fit(None)


def test_not_fitted_is_scikit_learns_error_too():
    import sklearn.exceptions

    with pytest.raises(sklearn.exceptions.NotFittedError, match="fit"):
        Recommender().recommend(metafeatures=QUERY)
    with pytest.raises(NotFittedError):
        Recommender().recommend(metafeatures=QUERY)


def test_fit_opens_a_knowledge_base_given_by_its_path(tmp_path):
    from metarec.storage import KnowledgeBase, NoKnowledgeBaseError

    path = tmp_path / "kb.sqlite"
    with pytest.raises(NoKnowledgeBaseError):
        Recommender().fit(path)  # never created by a fit
    assert not path.exists()
    runs = tiny_kb().runs()[["dataset", "algorithm", "accuracy", "fit_time", "status"]]
    kb = KnowledgeBase(path)
    kb.import_runs(runs)
    kb.import_metafeatures(tiny_kb().metafeatures())
    kb.close()
    ranking = Recommender(A3RRanker(k=2, weights=None)).fit(str(path)).recommend(metafeatures=QUERY)
    assert sorted(ranking.algorithms) == sorted(runs["algorithm"].unique())


def test_explanations_of_a_budget_plan_and_of_an_empty_ranking():
    rec = Recommender(LearnedRanker(k=3, n_estimators=10, random_state=0)).fit(
        random_kb(n_datasets=20)
    )
    query = rec.ranker_.raw_metafeatures_.iloc[0].dropna().to_dict()
    plan = rec.recommend(metafeatures=query, budget=1e6)
    text = plan.explain()
    assert text.startswith("A plan for a budget of 1e+06 s: the algorithms to run, in this order")
    assert f"the first step is {plan.algorithms[0]} (" in text
    assert text.endswith("What to use is the first row of the ranking without a budget.")
    assert "Ranked by" not in text  # a plan, not a ranking of what to use
    none = rec.recommend(metafeatures=query, budget=1e-9)
    assert none.explain() == "No algorithm is expected to finish within the budget of 1e-09 s."
    everything = {str(a): (0.5, 1.0) for a in rec.ranker_.algorithms_}
    done = rec.recommend(metafeatures=query, tried=everything)
    assert done.explain().startswith("Nothing left to rank: every algorithm with results is")


def test_ranking_record_is_frozen():
    ranking = Recommender(A3RRanker(k=2, weights=None)).fit(tiny_kb()).recommend(metafeatures=QUERY)
    assert isinstance(ranking, Ranking)
    with pytest.raises(AttributeError):
        ranking.method = "x"
    assert "D1" in ranking.explain()
    assert len(ranking) == 3 and ranking[0].rank == 1


def test_learned_explanation_names_the_planner_positions_and_the_first_choice():
    from metarec.recommender._ranking import Neighbour, RankedAlgorithm, _spans

    assert _spans([2, 3, 4, 5, 7]) == "2-5, 7" and _spans([1]) == "1" and _spans([]) == ""

    def ranking(bases):
        entries = tuple(
            RankedAlgorithm(f"a{i}", 1.0, i + 1, 0.9, 0.5, 3, basis=b) for i, b in enumerate(bases)
        )
        return Ranking(entries, (Neighbour("D1", 1.0, 1.0),), method="learned")

    text = ranking(["answer", "planner", "planner", "planner", "model"]).explain()
    assert "positions 2-4 chosen by the loss-time planner from 1 neighbouring" in text
    assert "the first choice, a0, is the best expected accuracy (3 dataset(s) ran it" in text
    text = ranking(["planner", "model"]).explain()
    assert "position 1 chosen by the loss-time planner" in text
    assert "a0, is the loss-time planner's first pick" in text
    assert "planner" not in ranking(["model", "model"]).explain()
    from dataclasses import replace

    regression = replace(ranking(["answer", "model"]), task="regression").explain()
    assert "a0, is the best expected R² (3 dataset(s) ran it; predicted R² 0.900," in regression
    assert "accuracy" not in regression


def test_all_algorithms_ranked_even_without_evidence():
    rec = Recommender(A3RRanker(k=1, n=4, weights=None)).fit(tiny_kb())
    ranking = rec.recommend(metafeatures={"x": 1.0})  # nearest is D2, where C never ran
    frame = ranking.to_frame()
    assert frame["algorithm"].tolist()[-1] == "C"
    assert np.isnan(frame["score"].iloc[-1]) and frame["n_datasets"].iloc[-1] == 0


def test_every_pair_of_methods_runs():
    kb = random_kb(seed=7, n_algorithms=4)
    for method, distance in itertools.product(
        ("a3r", "arr", "ar", "ar*"), ("l1-range", "standardized")
    ):
        ranking = (
            Recommender(make_ranker(method, distance=distance, k=5, weights=None))
            .fit(kb)
            .recommend(metafeatures={"f1": 0.0, "f2": 0.0})
        )
        assert sorted(ranking.algorithms) == [f"alg{j}" for j in range(4)]


def test_recommend_from_X_y_uses_extracted_metafeatures():
    from metarec.metafeatures import extract

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    mf = extract(X, y)
    kb = tiny_kb()
    meta = kb._metafeatures
    meta["n_instances"] = [60, 600, 6000]
    meta["n_features"] = [3, 30, 300]
    rec = Recommender(
        A3RRanker(k=1, n=4, features=["n_instances", "n_features"], weights=None)
    ).fit(kb)
    from_xy = rec.recommend(X, y)
    from_mf = rec.recommend(metafeatures=dict(mf))
    assert from_xy.to_frame().equals(from_mf.to_frame())
    assert from_xy.neighbours[0].name == "D1" and from_xy.neighbours[0].distance == pytest.approx(
        0.0
    )
    with pytest.raises(InvalidInputError):
        rec.recommend(X)
    with pytest.raises(InvalidInputError, match=r"y has a single class \('1'\); nothing to"):
        rec.recommend(X, np.ones(60, dtype=int))
    with pytest.raises(InvalidInputError, match=r"every class of y has a single row \(60 clas"):
        rec.recommend(X, [f"row{i}" for i in range(60)])


def test_per_run_rows_are_aggregated():
    import pandas as pd

    from tests.recommender._fakes import FrameKB

    kb = tiny_kb()
    folds = pd.DataFrame(
        [
            ("D1", "A", 0.7, 1.0, "ok"),
            ("D1", "A", 0.9, 1.0, "ok"),
            ("D1", "A", np.nan, 4.0, "timeout"),
            ("D1", "B", np.nan, 10.0, "timeout"),
            ("D1", "B", np.nan, 30.0, "timeout"),
        ],
        columns=["dataset", "algorithm", "accuracy", "fit_time", "status"],
    )
    rec = Recommender("a3r").fit(FrameKB(folds, kb._metafeatures))
    i, a, b = (
        rec.ranker_.dataset_index_["D1"],
        rec.ranker_.algorithm_index_["A"],
        rec.ranker_.algorithm_index_["B"],
    )
    # A: two ok folds averaging .8, one failure counted as the majority class (.5)
    assert rec.ranker_.accuracy_[i, a] == pytest.approx((0.8 * 2 + 0.5) / 3)
    assert rec.ranker_.time_[i, a] == pytest.approx(2.0)
    assert rec.ranker_.failed_[i, b] and rec.ranker_.accuracy_[i, b] == pytest.approx(0.5)
    assert rec.ranker_.time_[i, b] == pytest.approx(20.0)


def test_normalize_uses_the_evaluation_library_per_dataset():
    from metarec.evaluation import normalized_metric

    kb = tiny_kb()
    kb._metafeatures.loc[2, "class_imbalance_ratio"] = np.nan  # D3 without imbalance ratio
    rec = Recommender(A3RRanker(normalize=True)).fit(kb)
    i = rec.ranker_.dataset_index_["D1"]
    expected = normalized_metric(
        0.8, task="binary", n_instances=100, n_features=4, imbalance_ratio=1.0
    )
    assert np.exp(rec.ranker_.log_sr_[i, rec.ranker_.algorithm_index_["A"]]) == pytest.approx(
        float(expected)
    )
    k = rec.ranker_.dataset_index_["D3"]
    expected = normalized_metric(0.9, task="binary", n_instances=100, n_features=4)
    assert np.exp(rec.ranker_.log_sr_[k, rec.ranker_.algorithm_index_["A"]]) == pytest.approx(
        float(expected)
    )


def test_a_metafeature_outside_the_kb_range_counts_as_the_nearest_end_of_it():
    """l1-range: beyond the range the excess is the same for every KB dataset, so the value
    is clipped to the range (same neighbour order, weights not flattened); standardized:
    at most 10 standard deviations away."""
    from metarec.recommender._neighbours import MetafeatureScaler, similarity_weights

    scaler = MetafeatureScaler("l1-range").fit(np.array([[0.0, 0.0], [2.0, 4.0]]), ["x", "y"])
    np.testing.assert_allclose(scaler.vector({"x": 1e308, "y": 2.0}), [1.0, 0.5])
    np.testing.assert_allclose(scaler.vector({"x": -1e308, "y": -8.0}), [0.0, 0.0])
    kb = scaler.transform(np.array([[0.0, 0.0], [2.0, 4.0], [1.0, 1.0]]))
    dist, _ = scaler.distances(kb, scaler.vector({"x": 1e6, "y": 0.0}))
    np.testing.assert_allclose(dist, [1.0, 1.0, 0.75])  # |1-0|+0, 0+|0-1|, |1-0.5|+|0-0.25|
    # the same order as with the unclipped value (x = 1e6: 5e5 ranges out, +499,999 each)
    raw = scaler.transform(np.array([[1e6, 0.0]]))[0]
    unclipped, _ = scaler.distances(kb, raw)
    np.testing.assert_allclose(unclipped - dist, unclipped[0] - dist[0])
    w = similarity_weights(dist, "distance")
    assert w.min() < 0.8 < w.max() == 1.0  # the nearest still weighs clearly more
    standardized = MetafeatureScaler("standardized").fit(np.array([[0.0], [2.0]]), ["x"])
    np.testing.assert_allclose(standardized.vector({"x": -1e308}), [-10.0])


def test_a_ranking_never_mixes_tasks():
    from metarec.exceptions import InvalidInputError
    from tests.recommender._fakes import FrameKB, tiny_kb

    plain = tiny_kb()
    runs = pd.concat(
        [
            plain.runs(),
            pd.DataFrame(
                {
                    "dataset": ["R1", "R1", "R2", "R2"],
                    "algorithm": ["ols", "forest", "ols", "forest"],
                    "accuracy": [0.6, 0.8, 0.9, 0.7],
                    "fit_time": [0.1, 2.0, 0.1, 3.0],
                    "status": "ok",
                    "n_runs": 1,
                    "n_failed": 0,
                }
            ),
        ],
        ignore_index=True,
    )
    meta = pd.concat(
        [plain.metafeatures(), pd.DataFrame({"dataset": ["R1", "R2"], "x": [2.0, 3.0]})]
    )
    mixed = FrameKB(runs, meta, tasks={"R1": "regression", "R2": "regression", "D1": "binary"})
    classification = PerformanceMatrix.from_kb(mixed, task="classification")
    alone = PerformanceMatrix.from_kb(plain)
    with pytest.raises(InvalidInputError, match="pass task='classification' or task='regr"):
        PerformanceMatrix.from_kb(mixed)  # both tasks: which one is not guessed
    assert classification.datasets.tolist() == alone.datasets.tolist() == ["D1", "D2", "D3"]
    assert classification.algorithms.tolist() == ["A", "B", "C"]
    np.testing.assert_array_equal(classification.accuracy, alone.accuracy)
    regression = PerformanceMatrix.from_kb(mixed, task="regression")
    assert regression.datasets.tolist() == ["R1", "R2"]
    assert regression.algorithms.tolist() == ["forest", "ols"]
    ranking = Recommender("ar", task="regression").fit(mixed).rank()
    assert set(ranking.algorithms) == {"forest", "ols"}
    assert set(Recommender().fit(mixed).rank().algorithms) == {"A", "B", "C"}
    with pytest.raises(InvalidInputError, match="no runs of regression datasets"):
        Recommender(task="regression").fit(plain)
    with pytest.raises(InvalidInputError, match="task must be 'classification' or 'regression'"):
        Recommender(task="ranking").fit(plain)


def test_recommend_checks_the_target_against_the_task():
    from metarec.exceptions import InvalidInputError
    from tests.recommender._fakes import tiny_kb

    model = Recommender("ar").fit(tiny_kb())
    X = pd.DataFrame({"x": np.arange(40.0)})
    with pytest.raises(InvalidInputError, match="y looks continuous but this Recommender ranks"):
        model.recommend(X, X["x"] * 1.5)
    # whole numbers with many distinct values (40 of 40) are a regression target too, as
    # load_dataset decides; few distinct codes are class labels, and so is any code as text
    with pytest.raises(InvalidInputError, match="y looks continuous but this Recommender ranks"):
        model.recommend(X, X["x"].astype(int) * 7)
    assert len(model.recommend(X, (X["x"] % 3).astype(int))) > 0
    assert len(model.recommend(X, (X["x"].astype(int) // 2 * 7).astype(str))) > 0


def test_a_dataset_far_larger_than_the_kb_gets_a_note_on_its_times():
    """The fake KB's largest dataset has fewer than 5,000 rows: 2x is still in range (no note),
    50,000 rows is extrapolated and says by how much; left out of the KB, the largest
    dataset no longer counts."""
    kb = random_kb(seed=3)
    rec = Recommender(A3RRanker(k=3)).fit(kb)
    sizes = rec.ranker_.raw_metafeatures_["n_instances"].to_numpy(float)
    largest = float(sizes.max())
    query = {"f1": 0.1, "f2": 0.5, "n_features": 10, "n_classes": 2}
    assert rec.recommend(metafeatures={**query, "n_instances": 2 * largest}).time_note == ""
    ranking = rec.recommend(metafeatures={**query, "n_instances": 50_000})
    assert ranking.time_note.startswith("Expected times are extrapolated: 50,000 rows is ")
    assert f"({largest:,.0f} rows)" in ranking.time_note
    assert ranking.explain().endswith(ranking.time_note)
    biggest = str(rec.datasets_[int(np.argmax(sizes))])
    second = float(np.sort(sizes)[-2])
    rows = 2.01 * second
    assert rows <= 2 * largest  # beyond twice the second largest, within twice the largest
    assert rec.recommend(metafeatures={**query, "n_instances": rows}).time_note == ""
    left_out = rec.recommend(metafeatures={**query, "n_instances": rows}, exclude=[biggest])
    assert f"({second:,.0f} rows)" in left_out.time_note
