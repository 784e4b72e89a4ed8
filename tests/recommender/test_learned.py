"""The learned strategy: performance model, loss-time planner, tried= and budget=."""

from __future__ import annotations

import math
import pickle
import platform

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from metarec.exceptions import InvalidInputError, UnknownNameError
from metarec.recommender import LearnedRanker, Recommender, evaluate_recommender
from metarec.recommender._model import PerformanceModel
from metarec.recommender._planner import expected_area, plan_first
from tests.recommender._fakes import random_kb

QUERY = {"x": 0.5, "constant": 3.0, "majority_class_pct": 50.0}


def test_expected_area_by_hand():
    # two neighbours, two algorithms; floor 1 s, horizon 1000 s (log axis 0 .. log 1000)
    acc = np.array([[0.9, 0.8], [0.7, np.nan]])
    time = np.array([[10.0, 0.5], [100.0, np.nan]])
    w = np.array([1.0, 3.0])
    best = np.array([0.9, 0.8])
    start = np.array([0.5, 0.6])
    clock = np.zeros(2)
    area, reduction, cost = expected_area(acc, time, w, best, start, clock, 1.0, 1000.0)
    top = math.log(1000.0)
    # algorithm 0, neighbour 0: loss 40 until 10 s, then 0
    a00 = 40.0 * math.log(10.0)
    # algorithm 0, neighbour 1: loss 20 until 100 s, then 10 until the horizon
    a01 = 20.0 * math.log(100.0) + 10.0 * (top - math.log(100.0))
    assert area[0] == pytest.approx((1.0 * a00 + 3.0 * a01) / 4.0)
    assert reduction[0] == pytest.approx((1.0 * 40.0 + 3.0 * 10.0) / 4.0)
    assert cost[0] == pytest.approx((math.log(10.0) + 3.0 * math.log(100.0)) / 4.0)
    # algorithm 1 ran on neighbour 0 only, within the floor: no log time, loss 10 after it
    assert area[1] == pytest.approx(10.0 * top)
    assert cost[1] == pytest.approx(0.0)
    # with a clock already at 10 s on neighbour 0, the same run moves it to 10.5 s
    area2, _, _ = expected_area(acc, time, w, best, start, np.array([10.0, 0.0]), 1.0, 1000.0)
    expected = 40.0 * math.log(10.5 / 10.0) + 10.0 * (top - math.log(10.5))
    assert area2[1] == pytest.approx(expected)


def test_plan_first_by_hand():
    acc = np.array([[0.9, 0.8], [0.7, np.nan]])
    time = np.array([[10.0, 0.5], [100.0, np.nan]])
    w, best = np.array([1.0, 3.0]), np.array([0.9, 0.8])
    start, clock = np.array([0.5, 0.6]), np.zeros(2)
    cands = np.array([True, True])
    args = (acc, time, w, best, start, clock, cands)
    picks, areas = plan_first(*args, n_plan=2, floor=1.0, horizon=1000.0, rule="area")
    # areas by hand: algorithm 1 = 10 log 1000 = 69.1, algorithm 0 = 73.3 -> 1 first
    assert picks == [1, 0]
    assert areas[0] == pytest.approx(10.0 * math.log(1000.0))
    # the ratio rule takes the run that costs no log time first too
    picks, _ = plan_first(*args, n_plan=1, floor=1.0, horizon=1000.0, rule="ratio")
    assert picks == [1]
    # a fast run that helps little: free under a 1 s floor, so first; with a 1 ms floor its
    # 0.5 s cost log(500) = 6.2 for 5 points (0.8/unit) loses to algorithm 0's
    # 17.5 points for 10.9 units (1.6/unit)
    small = acc.copy()
    small[0, 1] = 0.55
    args = (small, time, w, best, start, clock, cands)
    picks, _ = plan_first(*args, n_plan=1, floor=1.0, horizon=1000.0, rule="ratio")
    assert picks == [1]
    picks, _ = plan_first(*args, n_plan=1, floor=1e-3, horizon=1000.0, rule="ratio")
    assert picks == [0]
    # nothing to gain: no pick
    picks, _ = plan_first(acc, time, w, best, best, clock, cands, n_plan=2, floor=1.0, horizon=1e3)
    assert picks == []


def test_model_targets_and_prediction_shapes():
    model = PerformanceModel(n=4, n_estimators=5, random_state=0)
    acc = np.array([[0.8, 0.9, 0.5], [0.6, 0.9, np.nan]])
    logt = np.log(np.array([[1.0, 16.0, 1.0], [2.0, 2.0, np.nan]]))
    present = np.isfinite(acc)
    t = model.targets(acc, logt, present)
    # D1: z = log .8, log .9 - log 16 / 4, log .5 -> order A (0), C, B: ranks 0, 1, .5
    np.testing.assert_allclose(t[0, :3], [0.0, 1.0, 0.5])
    np.testing.assert_allclose(t[0, 3:6], [0.1, 0.0, 0.4])
    assert np.isnan(t[1, 2]) and t[1, -1] == pytest.approx(0.9)
    model.fit(np.array([[0.0], [1.0]]), acc, logt, present)
    pred = model.predict(np.array([[0.5], [np.nan]]))
    assert pred["rank"].shape == (2, 3) and pred["best"].shape == (2,)
    assert np.all(pred["gap"] >= 0)


def test_learned_ranking_frame_and_basis():
    # without the answer: the planner's picks, then the model's order
    rec = Recommender(LearnedRanker(n_estimators=10, k=5, answer_n=None)).fit(random_kb(seed=3))
    frame = rec.recommend(metafeatures={"f1": 0.1, "f2": 0.5}).to_frame()
    for column in (
        "algorithm",
        "rank",
        "score",
        "expected_accuracy",
        "expected_accuracy_low",
        "expected_accuracy_high",
        "expected_time",
        "n_datasets",
        "n_failed",
        "basis",
    ):
        assert column in frame.columns
    assert sorted(frame["algorithm"]) == sorted(rec.algorithms_)
    basis = list(frame["basis"])
    n_planned = basis.count("planner")
    assert 1 <= n_planned <= rec.ranker_.n_plan and basis[:n_planned] == ["planner"] * n_planned
    assert set(basis[n_planned:]) == {"model"}
    ok = frame["n_datasets"] > 0
    assert (frame.loc[ok, "expected_accuracy_low"] <= frame.loc[ok, "expected_accuracy_high"]).all()
    # the score (expected loss after the rows so far) never grows down the table
    assert np.all(np.diff(frame["score"].to_numpy()) <= 1e-12)
    # with the answer (the default): the best predicted accuracy first, then the planner
    default = Recommender(LearnedRanker(n_estimators=10, k=5)).fit(random_kb(seed=3))
    ranked = default.recommend(metafeatures={"f1": 0.1, "f2": 0.5})
    assert ranked.entries[0].basis == "answer"
    best = max(ranked, key=lambda e: e.expected_accuracy)
    assert ranked.entries[0].expected_accuracy == best.expected_accuracy


def test_strategies_side_by_side_and_params():
    kb = random_kb(seed=5)
    for strategy in ("learned", "a3r", "arr", "ar", "ar*"):
        ranker = LearnedRanker(n_estimators=5) if strategy == "learned" else strategy
        rec = Recommender(ranker).fit(kb)
        ranking = rec.recommend(metafeatures={"f1": 0.0})
        assert ranking.method == strategy and len(ranking) == 6
        assert set(Recommender(LearnedRanker()).get_params()) >= {
            "ranker",
            "ranker__n_plan",
            "ranker__time_floor",
        }
    with pytest.raises(UnknownNameError):
        Recommender("magic").fit(kb)
    with pytest.raises(InvalidInputError):
        Recommender(LearnedRanker(time_floor=0)).fit(kb)
    # the classic strategies do not fit a model
    assert not hasattr(Recommender("a3r").fit(kb), "model_")


def test_fitted_learned_recommender_pickles_and_predicts_the_same():
    rec = Recommender(LearnedRanker(n_estimators=5, random_state=0)).fit(random_kb(seed=6))
    again = pickle.loads(pickle.dumps(rec))
    q = {"f1": 0.3, "f2": 0.2, "f3": -1.0}
    assert again.recommend(metafeatures=q).algorithms == rec.recommend(metafeatures=q).algorithms
    copy = clone(rec)
    assert type(copy.ranker) is LearnedRanker and copy.ranker is not rec.ranker
    assert copy.ranker.get_params() == rec.ranker.get_params()
    assert {k: v for k, v in copy.get_params().items() if k != "ranker"} == {
        k: v for k, v in rec.get_params().items() if k != "ranker"
    }


def test_tried_on_the_learned_strategy():
    # planner evidence: the neighbours only (no prior, no model pseudo-neighbour)
    rec = Recommender(
        LearnedRanker(
            n_estimators=10,
            k=5,
            random_state=0,
            prior_weight=0,
            model_weight=0,
            answer_n=None,
            time_floor=0.001,
        )
    ).fit(random_kb(seed=7))
    q = {"f1": 0.2, "f2": 0.4}
    first = rec.recommend(metafeatures=q)
    done = first.algorithms[0]
    after = rec.recommend(metafeatures=q, tried={done: (0.99, 1.0)})
    assert done not in after.algorithms and len(after) == len(first) - 1
    assert after.tried == (done,)
    # its score is still the expected loss (from the best accuracy already reached)
    assert first.score_name == after.score_name == "expected_loss"
    scores = after.to_frame()["score"].to_numpy()
    assert np.all(np.diff(scores) <= 1e-12)
    # each neighbour starts from its own result of the tried algorithm and its clock: the
    # planner's first pick is what plan_first gives from that state
    from metarec.recommender._planner import plan_first

    j = rec.ranker_.algorithm_index_[done]
    nb = [rec.ranker_.dataset_index_[n.name] for n in after.neighbours]
    pres = rec.ranker_.present_[nb]
    acc = np.where(pres, rec.ranker_.accuracy_[nb], np.nan)
    tim = np.where(pres, np.clip(rec.ranker_.time_[nb], 1e-4, None), np.nan)
    best = np.nanmax(acc, axis=1)
    start = np.minimum(rec.ranker_.baseline_[nb], best)
    start = np.where(pres[:, j], np.maximum(start, acc[:, j]), start)
    clock = np.where(pres[:, j], tim[:, j], 0.0)
    keep = np.ones(len(rec.algorithms_), dtype=bool)
    keep[j] = False
    w = np.array([n.weight for n in after.neighbours])
    ranker = rec.ranker_
    horizon = max(float(rec.ranker_.row_time_.max()), 10 * ranker.time_floor)
    picks, _ = plan_first(
        acc,
        tim,
        w,
        best,
        start,
        clock,
        keep,
        n_plan=ranker.n_plan,
        floor=ranker.time_floor,
        horizon=horizon,
        rule=ranker.plan_rule,
    )
    planned = [e.algorithm for e in after if e.basis == "planner"]
    assert planned == [rec.algorithms_[p] for p in picks]


def test_budget_on_the_learned_strategy():
    rec = Recommender(LearnedRanker(n_estimators=10, k=5, random_state=0)).fit(random_kb(seed=7))
    q = {"f1": 0.2, "f2": 0.4}
    full = rec.recommend(metafeatures=q).to_frame().set_index("algorithm")
    budget = float(full["expected_time"].min()) * 1.5
    plan = rec.recommend(metafeatures=q, budget=budget)
    assert 1 <= len(plan) and plan.budget == budget
    frame = plan.to_frame()
    # every step fits: cumulative predicted time within the budget
    assert (frame["cumulative_time"] <= budget + 1e-9).all()
    assert set(frame["basis"]) == {"budget plan"}
    with pytest.raises(InvalidInputError):
        rec.recommend(metafeatures=q, budget=-1)


def test_model_never_sees_the_left_out_dataset():
    kb = random_kb(n_datasets=12, seed=8)
    rec = Recommender(LearnedRanker(n_estimators=5, k=3, random_state=0)).fit(kb)
    result = evaluate_recommender(None, rec.ranker_, baselines=False, fitted=True)
    assert result.summary["n_datasets"].iloc[0] == 12
    # one refit per left-out dataset, each without it
    fits = [key[0] for key in rec.ranker_.predictions_]
    assert sorted(f[0] for f in fits) == sorted(rec.datasets_) and all(len(f) == 1 for f in fits)
    # poisoning the left-out dataset's own results changes nothing of its recommendation
    d = rec.datasets_[0]
    runs = kb._runs.copy()
    runs.loc[runs.dataset == d, "accuracy"] = np.where(
        runs.loc[runs.dataset == d, "algorithm"] == "alg5", 1.0, 0.01
    )
    from tests.recommender._fakes import FrameKB

    other = Recommender(LearnedRanker(n_estimators=5, k=3, random_state=0)).fit(
        FrameKB(runs, kb._metafeatures)
    )
    query = {c: v for c, v in other.ranker_.raw_metafeatures_.loc[d].items() if np.isfinite(v)}
    a = rec.recommend(metafeatures=query, exclude=[d]).algorithms
    b = other.recommend(metafeatures=query, exclude=[d]).algorithms
    assert a == b


def test_learned_strategy_on_tiny_kb_learns_the_order():
    # two clusters of datasets; the best algorithm differs by cluster, the model must learn it
    rng = np.random.default_rng(0)
    rows, meta = [], []
    for i in range(30):
        cluster = i % 2
        meta.append({"dataset": f"d{i}", "c": cluster + rng.normal(0, 0.05)})
        for j in range(4):
            good = (cluster == 0 and j == 0) or (cluster == 1 and j == 3)
            acc = (0.9 if good else 0.7 - 0.02 * j) + rng.normal(0, 0.005)
            rows.append((f"d{i}", f"alg{j}", acc, 1.0, "ok"))
    runs = pd.DataFrame(rows, columns=["dataset", "algorithm", "accuracy", "fit_time", "status"])
    from tests.recommender._fakes import FrameKB

    rec = Recommender(LearnedRanker(n_plan=0, n_estimators=20, random_state=0)).fit(
        FrameKB(runs, pd.DataFrame(meta))
    )
    assert rec.recommend(metafeatures={"c": 0.0}).algorithms[0] == "alg0"
    assert rec.recommend(metafeatures={"c": 1.0}).algorithms[0] == "alg3"


def test_time_scaling_by_rows_multiplies_neighbour_times():
    from metarec.recommender._learned import row_ratio

    rec = Recommender(LearnedRanker(n_estimators=5, time_scaling="rows")).fit(random_kb(seed=9))
    idx = np.array([0, 1, 2])
    theirs = rec.ranker_.raw_metafeatures_["n_instances"].to_numpy(float)[idx]
    ratio = row_ratio(rec.ranker_, {"n_instances": 1000.0}, idx)
    np.testing.assert_allclose(ratio, 1000.0 / theirs)
    np.testing.assert_allclose(row_ratio(rec.ranker_, {"f1": 0.0}, idx), 1.0)
    with pytest.raises(InvalidInputError):
        Recommender(LearnedRanker(time_scaling="cubic")).fit(random_kb(seed=9))


@pytest.mark.slow
def test_learned_default_on_the_builtin_kb_end_to_end():
    from metarec.storage import open_builtin

    kb = open_builtin()
    rec = Recommender().fit(kb)
    names = list(rec.datasets_[:12])
    result = evaluate_recommender(None, rec.ranker_, datasets=names, fitted=True, n_random=5)
    s = result.summary.set_index("method")
    assert s.loc["metarec", "mil_1s"] < s.loc["random", "mil_1s"]
    assert s.loc["metarec", "top1_loss"] < s.loc["random", "top1_loss"]
    assert s.loc["metarec", "spearman"] > s.loc["random", "spearman"]
    # one model per left-out dataset, none of which saw it nor its samples (<name>@<rows>)
    base = {n: n.partition("@")[0] for n in rec.datasets_}
    family = {d: tuple(sorted(n for n in rec.datasets_ if base[n] == base[d])) for d in names}
    assert any(len(f) > 1 for f in family.values())  # GAMETES_... and GAMETES_...@1000
    assert {tuple(sorted(key[0])) for key in rec.ranker_.predictions_} == set(family.values())
    again = pickle.loads(pickle.dumps(rec))
    q = {c: v for c, v in rec.ranker_.raw_metafeatures_.iloc[0].items() if np.isfinite(v)}
    assert again.recommend(metafeatures=q).algorithms == rec.recommend(metafeatures=q).algorithms


def test_compact_forest_predicts_as_the_forest():
    from sklearn.ensemble import ExtraTreesRegressor

    from metarec.recommender._model import CompactForest

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(200, 4)), rng.normal(size=(200, 3))
    forest = ExtraTreesRegressor(10, min_samples_leaf=2, random_state=0).fit(X, Y)
    Xt = rng.normal(size=(30, 4))
    np.testing.assert_allclose(CompactForest(forest).predict(Xt), forest.predict(Xt), atol=1e-6)
    rec = Recommender(LearnedRanker(n_estimators=5, random_state=0)).fit(random_kb(seed=12))
    assert isinstance(rec.ranker_.model_.trees_, CompactForest)
    # only leaves are stored, as float32
    assert all(t[-1].dtype == np.float32 for t in rec.ranker_.model_.trees_.trees)


def test_planner_evidence_prior_and_model_pseudo_neighbour():
    from metarec.recommender._learned import evidence

    ranker = LearnedRanker(n_estimators=5, k=3, random_state=0, prior_weight=0, model_weight=0)
    rec = Recommender(ranker).fit(random_kb(seed=13)).ranker_  # the fitted state evidence reads
    n_d, n_a = rec.accuracy_.shape
    idx, w = np.array([0, 1, 2]), np.array([1.0, 0.5, 0.25])
    excluded = np.zeros(n_d, dtype=bool)
    excluded[4] = True
    exp_acc, log_time = np.full(n_a, 0.7), np.zeros(n_a)
    acc, time, weights, best, start = evidence(rec, {}, idx, w, excluded, exp_acc, log_time, 0.8)
    assert acc.shape == (3, n_a)
    np.testing.assert_array_equal(weights, w)
    # the global evidence counts as 2 nearest neighbours, spread over the N - 1 kept datasets
    rec.set_params(prior_weight=2.0, model_weight=0.5)
    acc, time, weights, best, start = evidence(
        rec, {"majority_class_pct": 40.0}, idx, w, excluded, exp_acc, log_time, 0.8
    )
    assert acc.shape == (3 + n_d - 1 + 1, n_a)
    np.testing.assert_allclose(weights[3:-1], 2.0 / (n_d - 1))
    assert weights[:3].tolist() == w.tolist() and weights[-1] == 0.5
    kept = np.flatnonzero(~excluded)
    np.testing.assert_array_equal(
        np.isfinite(acc[3:-1]), rec.present_[kept] & np.isfinite(rec.accuracy_[kept])
    )
    # the pseudo-neighbour: predicted accuracy and time, the best of those, majority start
    np.testing.assert_allclose(acc[-1], 0.7)
    np.testing.assert_allclose(time[-1], 1.0)
    assert best[-1] == pytest.approx(0.7) and start[-1] == pytest.approx(0.4)
    # its best is its own best accuracy, not the model's separate prediction (0.8), which
    # no run reaches; without any predicted accuracy, that prediction
    varied = np.linspace(0.5, 0.75, n_a)
    best = evidence(rec, {}, idx, w, excluded, varied, log_time, 0.8)[3]
    assert best[-1] == pytest.approx(0.75)
    best = evidence(rec, {}, idx, w, excluded, np.full(n_a, np.nan), log_time, 0.8)[3]
    assert best[-1] == pytest.approx(0.8)


def test_the_expected_loss_after_running_every_algorithm_is_zero():
    rec = Recommender(LearnedRanker(n_estimators=5, k=3, random_state=0)).fit(random_kb(seed=13))
    name = str(rec.datasets_[0])
    query = {"n_instances": 500.0, "n_features": 8.0, "n_classes": 2.0}
    frame = rec.recommend(metafeatures=query, exclude=[name]).to_frame()
    assert len(frame) == len(rec.algorithms_)
    scores = frame.sort_values("rank")["score"].to_numpy()
    assert np.all(np.diff(scores) <= 1e-12) and scores[0] > 0
    assert scores[-1] == pytest.approx(0.0, abs=1e-9)


def test_planner_prior_over_a_large_kb_is_a_fixed_even_sample(monkeypatch):
    """Above PRIOR_ROWS datasets the prior's rows are an evenly spaced sample (the same for
    every query) carrying the whole prior weight, so the planner's work stops growing."""
    from metarec.recommender import _learned

    ranker = LearnedRanker(n_estimators=5, k=3, random_state=0, prior_weight=2.0, model_weight=0)
    rec = Recommender(ranker).fit(random_kb(seed=13)).ranker_  # the fitted state evidence reads
    n_d, n_a = rec.accuracy_.shape
    monkeypatch.setattr(_learned, "PRIOR_ROWS", 4)
    idx, w = np.array([0, 1, 2]), np.array([1.0, 0.5, 0.25])
    excluded = np.zeros(n_d, dtype=bool)
    excluded[0] = True
    exp_acc, log_time = np.full(n_a, 0.7), np.zeros(n_a)
    acc, _, weights, _, _ = _learned.evidence(rec, {}, idx, w, excluded, exp_acc, log_time, 0.8)
    kept = np.flatnonzero(~excluded)
    sample = kept[np.round(np.linspace(0, kept.size - 1, 4)).astype(int)]
    assert sample[0] == 1 and sample[-1] == n_d - 1  # both ends of the kept datasets
    assert acc.shape == (3 + 4, n_a)
    np.testing.assert_allclose(weights[3:], 2.0 / 4)
    np.testing.assert_array_equal(
        np.isfinite(acc[3:]), rec.present_[sample] & np.isfinite(rec.accuracy_[sample])
    )
    again = _learned.evidence(rec, {}, idx, w, excluded, exp_acc, log_time, 0.8)[0]
    np.testing.assert_array_equal(np.isnan(again), np.isnan(acc))
    with pytest.raises(InvalidInputError):
        Recommender(LearnedRanker(prior_weight=-1)).fit(random_kb(seed=13))


def test_default_planner_plans_on_the_shrunk_evidence():
    from metarec.recommender._learned import evidence, predict

    rec = Recommender(LearnedRanker(n_estimators=10, k=4, random_state=0, answer_n=None)).fit(
        random_kb(seed=14)
    )
    ranker = rec.ranker_
    assert ranker.prior_weight > 0 and ranker.model_weight > 0
    q = {"f1": 0.1, "f2": -0.3, "majority_class_pct": 40.0}
    ranking = rec.recommend(metafeatures=q)
    idx = np.array([rec.ranker_.dataset_index_[n.name] for n in ranking.neighbours])
    w = np.array([n.weight for n in ranking.neighbours])
    excluded = np.zeros(rec.datasets_.size, dtype=bool)
    pred = predict(ranker, q, excluded)
    exp_acc = np.clip(pred["best"][0] - pred["gap"][0], 0.0, 1.0)
    acc, time, weights, best, start = evidence(
        ranker, q, idx, w, excluded, exp_acc, pred["log_time"][0], pred["best"][0]
    )
    assert acc.shape[0] == idx.size + rec.datasets_.size + 1
    picks, _ = plan_first(
        acc,
        time,
        weights,
        best,
        start,
        np.zeros(acc.shape[0]),
        np.ones(rec.algorithms_.size, dtype=bool),
        n_plan=ranker.n_plan,
        floor=ranker.time_floor,
        horizon=max(float(rec.ranker_.row_time_.max()), 10 * ranker.time_floor),
        rule=ranker.plan_rule,
    )
    planned = [e.algorithm for e in ranking if e.basis == "planner"]
    assert planned == [rec.algorithms_[p] for p in picks] and len(planned) >= 1


def test_answer_n_puts_the_best_discounted_predicted_accuracy_first():
    from metarec.recommender._learned import predict

    kb = random_kb(seed=7)
    rec = Recommender(
        LearnedRanker(n_estimators=10, k=5, time_floor=1.0, answer_n=4.0, answer_patience=1.0)
    ).fit(kb)
    query = dict(rec.ranker_.raw_metafeatures_.iloc[0])
    excluded = np.zeros(rec.datasets_.size, dtype=bool)
    excluded[0] = True
    ranking = rec.recommend(metafeatures=query, exclude=[rec.datasets_[0]])
    pred = predict(rec.ranker_, query, excluded)
    acc = np.clip(pred["best"][0] - pred["gap"][0], 0.0, 1.0)
    # the expected time shown (the runtime model's, scaled to the query's size) discounts
    # the predicted accuracy beyond answer_patience = 1 s
    shown = ranking.to_frame().set_index("algorithm").loc[list(rec.algorithms_)]
    np.testing.assert_allclose(shown["expected_accuracy"], acc)
    score = np.log(np.clip(acc, 1e-3, None)) - np.maximum(np.log(shown["expected_time"]), 0.0) / 4
    assert ranking.algorithms[0] == rec.algorithms_[int(np.argmax(score))]
    assert ranking.entries[0].basis == "answer"
    assert sorted(ranking.algorithms) == sorted(rec.algorithms_)  # every algorithm once
    plain = Recommender(LearnedRanker(n_estimators=10, k=5, time_floor=1.0, answer_n=None)).fit(kb)
    first = plain.recommend(metafeatures=query, exclude=[rec.datasets_[0]]).entries[0]
    assert first.basis == "planner"
    with pytest.raises(InvalidInputError, match="answer_n"):
        Recommender(LearnedRanker(answer_n=0)).fit(kb)


def test_run_order_is_the_planner_on_its_own_floor_and_leaves_the_ranking_alone():
    kb = random_kb(seed=7)
    query = {"f1": 0.1, "f2": 0.5}
    base = dict(n_estimators=10, k=5, random_state=0)
    ranked = (
        Recommender(LearnedRanker(**base, run_floor=None)).fit(kb).recommend(metafeatures=query)
    )
    assert ranked.run_order == () and ranked.run_sequence == ranked.algorithms
    assert list(ranked.to_frame()["run"]) == list(ranked.to_frame()["rank"])
    both = Recommender(LearnedRanker(**base, run_floor=0.01)).fit(kb).recommend(metafeatures=query)
    # the ranking itself does not change; its run order is the answerless order of a
    # recommender whose planner counts time from run_floor
    assert both.algorithms == ranked.algorithms
    plain = Recommender(LearnedRanker(**base, answer_n=None, time_floor=0.01, run_floor=None)).fit(
        kb
    )
    assert both.entries[0].expected_time > 0.01  # (else the answer would run first)
    assert list(both.run_order) == plain.recommend(metafeatures=query).algorithms
    frame = both.to_frame().set_index("algorithm")
    assert [frame.loc[a, "run"] for a in both.run_order] == list(range(1, len(both) + 1))
    assert list(both.run_order) != both.algorithms
    assert f"run column ({', '.join(both.run_order[:3])}, ...)" in both.explain()
    assert "run column" not in ranked.explain()
    # an answer expected within run_floor costs nothing on that axis: it is run first
    answer = ranked.entries[0]
    assert answer.basis == "answer"
    quick = Recommender(LearnedRanker(**base, run_floor=2 * answer.expected_time)).fit(kb)
    assert quick.recommend(metafeatures=query).run_order[0] == answer.algorithm
    slow_floor = answer.expected_time / 2
    slow = (
        Recommender(LearnedRanker(**base, run_floor=slow_floor))
        .fit(kb)
        .recommend(metafeatures=query)
    )
    plain = Recommender(
        LearnedRanker(**base, answer_n=None, time_floor=slow_floor, run_floor=None)
    ).fit(kb)
    assert list(slow.run_order) == plain.recommend(metafeatures=query).algorithms
    # no answer and the same floor: the run order is the ranking's own
    same = Recommender(LearnedRanker(**base, answer_n=None, time_floor=0.3, run_floor=0.3)).fit(kb)
    assert same.recommend(metafeatures=query).run_order == ()
    # a budgeted plan is run in its own order
    assert (
        Recommender(LearnedRanker(**base, run_floor=0.01))
        .fit(kb)
        .recommend(metafeatures=query, budget=1.0)
        .run_order
        == ()
    )
    # everything tried: nothing left to rank or to run
    fitted = Recommender(LearnedRanker(**base, run_floor=0.01)).fit(kb)
    everything = {a: (0.5, 1.0) for a in fitted.algorithms_}
    empty = fitted.recommend(metafeatures=query, tried=everything)
    assert len(empty) == 0 and empty.run_order == () and empty.run_sequence == []
    # with a tried algorithm: the others, each once, in both orders
    tried = {str(fitted.algorithms_[0]): (0.6, 0.5)}
    after = fitted.recommend(metafeatures=query, tried=tried)
    assert sorted(after.run_order) == sorted(after.algorithms) == sorted(fitted.algorithms_[1:])
    assert LearnedRanker().get_params()["run_floor"] == 0.3
    assert LearnedRanker.for_task("regression").run_floor == 0.3
    assert LearnedRanker.for_task("regression").answer_margin == 0.1
    assert LearnedRanker.for_task("classification").run_floor == 0.3
    for bad in (0, -1.0, float("nan"), "fast", True):
        with pytest.raises(InvalidInputError, match="run_floor"):
            Recommender(LearnedRanker(run_floor=bad)).fit(kb)


def test_a_ranker_pickled_before_the_run_order_runs_as_ranked():
    kb = random_kb(seed=7)
    fresh = Recommender(LearnedRanker(n_estimators=10, k=5, random_state=0)).fit(kb)
    ranker = pickle.loads(pickle.dumps(fresh.ranker_))
    del ranker.__dict__["run_floor"]  # as before the parameter existed
    assert ranker.get_params()["run_floor"] is None
    assert ranker.rank({"f1": 0.1, "f2": 0.5}).run_order == ()


def test_a_metafeature_missing_on_every_dataset_raises_no_numpy_warning():
    """A metafeature only one dataset has (one stored by a newer metarec, say): left out,
    the model is fitted on a column with no value at all."""
    import warnings

    kb = random_kb(n_datasets=12, seed=4)
    kb._metafeatures["rare"] = np.where(np.arange(12) == 0, 1.0, np.nan)
    first = str(kb._metafeatures["dataset"].iloc[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rec = Recommender(LearnedRanker(n_estimators=5, random_state=0)).fit(kb)
        query = {c: v for c, v in kb._metafeatures.iloc[0].items() if c != "dataset"}
        assert len(rec.recommend(metafeatures=query, exclude=[first]).algorithms) == 6


def test_principal_directions_by_hand_and_their_signs():
    from metarec.recommender._model import principal_directions

    # rows on the line y = -2x: one direction, (1, -2)/sqrt(5) with its largest entry positive
    ys = np.array([[1.0, -2.0], [-1.0, 2.0], [2.0, -4.0]])
    basis, comps = principal_directions(ys, 1)
    s5 = math.sqrt(5.0)
    np.testing.assert_allclose(basis, [[-1 / s5, 2 / s5]], atol=1e-9)
    np.testing.assert_allclose(comps[:, 0], [-s5, s5, -2 * s5], atol=1e-9)
    # the sign is the data's, not the SVD's: -ys has the same directions, negated coordinates
    basis_neg, comps_neg = principal_directions(-ys, 1)
    assert np.array_equal(basis_neg, basis) and np.array_equal(comps_neg, -comps)
    # rounded to MACHINE_DECIMALS: a change in the 15th digit is not seen
    rng = np.random.default_rng(0)
    z = rng.normal(size=(40, 12))
    b1, c1 = principal_directions(z, 5)
    b2, c2 = principal_directions(z * (1 + 1e-15), 5)
    assert np.array_equal(b1, b2) and np.array_equal(c1, c2)


_FIT_ON_A_KERNEL = """
import json
import numpy as np
from metarec.recommender._model import PerformanceModel
rng = np.random.default_rng(3)
X = rng.normal(size=(120, 15))
acc = np.clip(0.7 + 0.1 * np.tanh(X[:, :1] + rng.normal(scale=0.5, size=(120, 20))), 0, 1)
logt = X[:, 1:2] + rng.normal(size=(120, 20))
present = rng.random((120, 20)) > 0.1
model = PerformanceModel(n=40.0, random_state=0).fit(X, acc, logt, present)
out = model.predict(rng.normal(size=(50, 15)))
print(json.dumps(np.concatenate([out["gap"].ravel(), out["rank"].ravel()]).tolist()))
"""


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"),
    reason="OpenBLAS's x86-64 kernels are chosen by name here",
)
def test_the_performance_model_is_the_same_on_every_blas_kernel():
    """OpenBLAS picks its kernels for the processor; OPENBLAS_CORETYPE forces one. The model
    fitted with two kernels that round differently predicts the same."""
    import json
    import os
    import subprocess
    import sys

    def predictions(kernel: str) -> list[float]:
        env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
        done = subprocess.run(
            [sys.executable, "-c", _FIT_ON_A_KERNEL],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    first, second = predictions("Haswell"), predictions("Nehalem")
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-9)


def test_single_best_by_hand():
    from metarec.recommender import PerformanceMatrix
    from metarec.recommender._matrix import single_best_order

    # means over the datasets each has a result on: A (0.8 + 0.6) / 2 = 0.7,
    # B 0.9 (one result), C (0.5 + 0.7 + 0.95) / 3 = 0.7167 -> B, C, A
    acc = np.array([[0.8, 0.0, 0.5], [0.6, 0.9, 0.7], [np.nan, np.nan, 0.95]])
    present = np.array([[True, False, True], [True, True, True], [False, False, True]])
    assert single_best_order(acc, present).tolist() == [1, 2, 0]
    present[1, 1] = False  # B has no result left: last
    assert single_best_order(acc, present).tolist() == [2, 0, 1]
    # a tie goes to the first column
    assert single_best_order(np.array([[0.5, 0.5]]), np.array([[True, True]])).tolist() == [0, 1]
    present[1, 1] = True
    matrix = PerformanceMatrix(
        np.array(["d1", "d2", "d3"], dtype=object),
        np.array(["A", "B", "C"], dtype=object),
        acc,
        np.ones_like(acc),
        present,
        np.zeros_like(present),
        pd.DataFrame(index=["d1", "d2", "d3"]),
    )
    assert matrix.single_best() == "B"
    # without d2, B has no result: C (0.5 + 0.95) / 2 = 0.725 against A 0.8 -> A
    assert matrix.single_best(exclude=["d2"]) == "A"
    assert matrix.single_best(exclude=["d1", "d2", "elsewhere"]) == "C"  # unknown: ignored
    assert matrix.single_best(exclude=["d1", "d2", "d3"]) is None


def test_the_evaluation_baseline_and_runs_anchor_are_the_matrix_single_best():
    """The evaluation's ``single best`` runs the matrix's order without the left-out
    dataset; a fitted Recommender answers the same single best (run's anchor)."""
    from metarec.recommender import PerformanceMatrix
    from metarec.recommender._matrix import single_best_order

    matrix = PerformanceMatrix.from_kb(random_kb(seed=11))  # a fifth of the cells missing
    ranker = LearnedRanker(n_estimators=10, k=5, random_state=0)
    names = [str(d) for d in matrix.datasets[:6]]
    result = evaluate_recommender(matrix, ranker, datasets=names)
    rows = result.per_dataset.set_index(["method", "dataset"])
    rec = Recommender(ranker).fit(matrix)
    for i, name in enumerate(names):
        others = matrix.subset(np.arange(matrix.shape[0]) != i)
        order = single_best_order(others.accuracy, others.present)
        first = next(j for j in order if matrix.present[i, j])
        best = max(np.nanmax(np.where(matrix.present[i], matrix.accuracy[i], np.nan)),
                   matrix.metafeatures["majority_class_pct"].iloc[i] / 100)  # fmt: skip
        loss = rows.loc[("single best", name), "top1_loss"]
        assert loss == pytest.approx(100 * (best - matrix.accuracy[i, first]))
        assert rec.single_best(exclude=[name]) == others.single_best()
        assert others.single_best() == str(matrix.algorithms[order[0]])


def test_answer_margin_puts_the_single_best_first_unless_the_answer_stands_out():
    from metarec.recommender._learned import predict
    from metarec.recommender._matrix import single_best_order

    kb = random_kb(seed=7)
    base = dict(n_estimators=10, k=5, time_floor=1.0, answer_n=4.0, random_state=0)
    plain = Recommender(LearnedRanker(**base)).fit(kb)
    strict = Recommender(LearnedRanker(**base, answer_margin=1e9)).fit(kb)
    lenient = Recommender(LearnedRanker(**base, answer_margin=0.0)).fit(kb)
    seen = 0
    for i, name in enumerate(plain.datasets_):
        query = dict(plain.ranker_.raw_metafeatures_.iloc[i])
        excluded = np.arange(plain.datasets_.size) == i
        sb = single_best_order(
            plain.ranker_.accuracy_[~excluded], plain.ranker_.present_[~excluded]
        )[0]
        answer = plain.recommend(metafeatures=query, exclude=[name])
        first = answer.algorithms[0]
        ranking = strict.recommend(metafeatures=query, exclude=[name])
        if first == plain.algorithms_[sb]:
            assert ranking.algorithms == answer.algorithms  # the answer is the single best
            continue
        seen += 1
        # the single best first, then the answer, then the rest in the same order
        assert ranking.algorithms[:2] == [plain.algorithms_[sb], first]
        assert [e.basis for e in ranking.entries[:2]] == ["single best", "answer"]
        rest = [a for a in answer.algorithms if a not in ranking.algorithms[:2]]
        assert ranking.algorithms[2:] == rest
        # margin 0: the answer stays first exactly when its expected rate is above the
        # single best's
        pred = predict(plain.ranker_, query, excluded)
        exp = np.clip(pred["best"][0] - pred["gap"][0], 0.0, 1.0)
        a = list(plain.algorithms_).index(first)
        kept = lenient.recommend(metafeatures=query, exclude=[name]).algorithms[0]
        assert (kept == first) == (exp[a] > exp[sb])
    assert seen > 0  # the test saw answers other than the single best
    assert LearnedRanker().answer_margin is None
    for bad in (-0.1, "wide", True, float("nan")):
        with pytest.raises(InvalidInputError, match="answer_margin"):
            Recommender(LearnedRanker(answer_margin=bad)).fit(kb)
