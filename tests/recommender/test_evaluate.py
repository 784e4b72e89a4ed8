"""Leave-one-dataset-out evaluation, loss-time curves, MIL and the tuning procedure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import InvalidInputError
from metarec.recommender import (
    A3RRanker,
    LearnedRanker,
    PerformanceMatrix,
    evaluate_recommender,
)
from metarec.recommender._evaluate import (
    bound_curve,
    evaluate_active_testing,
    loss_curve,
    mean_interval_loss,
)
from metarec.recommender._tune import tune_recommender
from tests.recommender._fakes import random_kb, tiny_kb


def matrix(kb) -> PerformanceMatrix:
    return PerformanceMatrix.from_kb(kb)


def test_loss_curve_and_mil_by_hand():
    times, losses = loss_curve([0.7, 0.9, 0.8], [1.0, 9.0, 90.0], best=0.9, start=0.5)
    np.testing.assert_allclose(times, [1.0, 10.0, 100.0])
    np.testing.assert_allclose(losses, [40.0, 20.0, 0.0, 0.0])
    # one decade at each loss between 0.1 s and 1000 s
    assert mean_interval_loss(times, losses, 0.1, 1000.0) == pytest.approx((40 + 20 + 0 + 0) / 4)
    # the interval cuts the steps
    assert mean_interval_loss(times, losses, 1.0, 100.0) == pytest.approx(10.0)
    assert mean_interval_loss(times, losses, 0.01, 0.1) == pytest.approx(40.0)


def test_bound_is_best_single_run_within_t():
    times, losses = bound_curve([0.9, 0.7, 0.8], [100.0, 1.0, 10.0], best=0.9, start=0.5)
    np.testing.assert_allclose(times, [1.0, 10.0, 100.0])
    np.testing.assert_allclose(losses, [40.0, 20.0, 10.0, 0.0])


def test_evaluation_by_hand_on_tiny_kb():
    rec = A3RRanker(k=1, n=4, weights=None)
    result = evaluate_recommender(matrix(tiny_kb()), rec, n_random=5)
    per = result.per_dataset.set_index(["method", "dataset"])
    # D2 left out: nearest other dataset is D1 (x=0), whose A3R order is A, C, B -> on D2: A, B
    assert per.loc[("metarec", "D2"), "top1_loss"] == pytest.approx(30.0)
    assert per.loc[("metarec", "D2"), "top3_loss"] == pytest.approx(0.0)
    # true A3R on D2: B (.9 @2s) beats A (.6 @2s): recommended A first -> rho = -1
    assert per.loc[("metarec", "D2"), "spearman"] == pytest.approx(-1.0)
    # AR on the same neighbour ranks B first
    assert per.loc[("AR", "D2"), "top1_loss"] == pytest.approx(0.0)
    assert set(result.summary["method"]) == {
        "metarec",
        "AR",
        "global AR*",
        "kNN AR*",
        "single best",
        "random",
        "bound",
    }
    assert result.t_lo == pytest.approx(1.0)
    assert result.t_hi == pytest.approx(102.0)  # D3: 1 + 100 + 1


def test_bound_below_every_method_and_summary_means():
    result = evaluate_recommender(
        matrix(random_kb(seed=2)), LearnedRanker(k=5, n=16, weights=None), n_random=3
    )
    summary = result.summary.set_index("method")
    per = result.per_dataset
    for method in summary.index:
        assert summary.loc["bound", "mil"] <= summary.loc[method, "mil"] + 1e-9
        np.testing.assert_allclose(
            summary.loc[method, "mil"], per.loc[per.method == method, "mil"].mean()
        )
        assert np.all(result.curves["bound"] <= result.curves[method] + 1e-9)
    assert (per["top3_loss"].dropna() <= per["top1_loss"].dropna() + 1e-9).all()
    assert abs(summary.loc["random", "spearman"]) < 0.5
    assert result.grid[0] == pytest.approx(result.t_lo) and result.grid[-1] == pytest.approx(
        result.t_hi
    )


def test_evaluate_errors():
    with pytest.raises(InvalidInputError):
        evaluate_recommender(matrix(tiny_kb()), datasets=["nope"])
    with pytest.raises(InvalidInputError, match="needs a PerformanceMatrix"):
        evaluate_recommender(None, A3RRanker())
    with pytest.raises(InvalidInputError, match="takes a ranker"):
        evaluate_recommender(matrix(tiny_kb()), 3)


def test_plot_writes_png(tmp_path):
    from metarec.recommender.plots import plot_loss_time

    result = evaluate_recommender(matrix(tiny_kb()), A3RRanker(k=1, weights=None), n_random=2)
    path = tmp_path / "curves.png"
    fig = plot_loss_time(result, path=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = fig.axes[0].get_lines()
    assert len(lines) == 7
    from matplotlib.colors import to_hex

    colours = [to_hex(line.get_color()) for line in lines]
    assert len(set(colours)) == len(colours)  # every curve its own colour


def test_tuning_never_sees_heldout_results():
    kbs = {"one": random_kb(n_datasets=14, seed=4), "two": random_kb(n_datasets=12, seed=5)}
    matrices = {name: matrix(kb) for name, kb in kbs.items()}
    grid = {"n_plan": (0, 2), "time_floor": (0.01, 1.0)}
    base = LearnedRanker(n_estimators=10)
    result = tune_recommender(matrices, grid, ranker=base, random_state=1)
    for name, (tuning, heldout) in result.splits.items():
        assert set(tuning).isdisjoint(heldout) and len(tuning) + len(heldout) > 10
        assert set(result.heldout[name].per_dataset["dataset"]) == set(heldout)
        methods = set(result.heldout[name].summary["method"])
        assert {"metarec", "former default", "global AR*", "single best"} <= methods
        # the former default's rows are there per dataset too, with its summary's means
        per = result.heldout[name].per_dataset
        former = per[per["method"] == "former default"]
        assert set(former["dataset"]) == set(heldout)
        summary = result.heldout[name].summary.set_index("method")
        assert former["mil_1s"].mean() == pytest.approx(summary.loc["former default", "mil_1s"])
    assert len(result.table) == 4
    key = result.table[["never_worse", "wins"]].to_numpy()
    assert all(tuple(a) >= tuple(b) for a, b in zip(key, key[1:], strict=False))
    assert result.table["wins"].max() <= 12 and result.table["never_worse"].max() <= 2
    top = result.table.iloc[0]
    assert result.best_params == {"n_plan": top["n_plan"], "time_floor": top["time_floor"]}
    # the first row's figures, recomputed independently on the tuning half
    tuning, heldout = result.splits["one"]
    mine = evaluate_recommender(
        matrices["one"],
        LearnedRanker(n_estimators=10, **result.best_params),
        baselines=False,
        datasets=tuning,
        extra_exclude=heldout,
    ).summary.iloc[0]
    assert mine["mil_1s"] == pytest.approx(top["one mil_1s"])
    assert mine["top1_loss"] == pytest.approx(top["one top1_loss"])
    # changing the held-out datasets' results does not change the tuning table
    runs = kbs["one"]._runs
    runs.loc[runs.dataset.isin(heldout), "accuracy"] = 0.01
    matrices["one"] = matrix(kbs["one"])
    again = tune_recommender(matrices, grid, ranker=base, random_state=1)
    cols = ["one mil_1s", "one top1_loss", "one top3_loss", "two mil_1s"]
    np.testing.assert_allclose(
        again.table[cols].to_numpy(float), result.table[cols].to_numpy(float)
    )


def test_active_testing_evaluation_by_hand():
    # D1 left out: neighbours D2 (x=1) and D3; the static and active sequences both start with
    # the first recommended algorithm, so step 1 is identical
    steps = evaluate_active_testing(
        matrix(tiny_kb()), LearnedRanker(k=2, n=4, weights=None), steps=2
    )
    assert list(steps["step"]) == [1, 2]
    assert steps.loc[0, "static_loss"] == pytest.approx(steps.loc[0, "active_loss"])
    assert (steps["active_loss"].diff().dropna() <= 1e-12).all()
    assert steps["n_datasets"].iloc[0] == 3
    with pytest.raises(InvalidInputError):
        evaluate_active_testing(matrix(tiny_kb()), steps=0)


def test_neighbours_beat_global_ranking_when_datasets_form_clusters():

    from tests.recommender._fakes import FrameKB

    rng = np.random.default_rng(0)
    rows, meta = [], []
    for i in range(24):
        cluster = i % 2
        meta.append(
            {
                "dataset": f"d{i}",
                "cluster_feature": cluster + rng.normal(0, 0.05),
                "majority_class_pct": 50.0,
            }
        )
        for j in range(4):
            # in cluster 0 algorithm 0 is best, in cluster 1 algorithm 3; all equally fast
            good = (cluster == 0 and j == 0) or (cluster == 1 and j == 3)
            acc = (0.9 if good else 0.7 - 0.02 * j) + rng.normal(0, 0.005)
            rows.append((f"d{i}", f"alg{j}", acc, 1.0 + rng.normal(0, 0.01), "ok"))
    runs = pd.DataFrame(rows, columns=["dataset", "algorithm", "accuracy", "fit_time", "status"])
    result = evaluate_recommender(
        matrix(FrameKB(runs, pd.DataFrame(meta))), LearnedRanker(k=5), n_random=2
    )
    s = result.summary.set_index("method")
    assert s.loc["metarec", "top1_loss"] == pytest.approx(0.0, abs=1e-9)
    assert s.loc["global AR*", "top1_loss"] > 5.0
    assert s.loc["metarec", "spearman"] > s.loc["global AR*", "spearman"]
    assert s.loc["metarec", "mil"] < s.loc["global AR*", "mil"]


def test_time_figures_on_a_persons_axis_by_hand():
    from metarec.recommender._evaluate import _Case

    # runs of 0.5 s, 20 s and 100 s: done at 0.5, 20.5 and 120.5 s; losses 40, 20, 10, 0
    times, losses = loss_curve([0.7, 0.8, 0.9], [0.5, 20.0, 100.0], best=0.9, start=0.5)
    np.testing.assert_allclose(losses, [40.0, 20.0, 10.0, 0.0])
    case = _Case("d", np.arange(3), None, None, 0.9, 0.5, None, None, 0.5, 120.5, 1.0)
    got = case.time_figures(times, losses)
    # the first run ends before the origin: from 1 s the loss is 20 until 20.5 s, then 10
    expected = (20 * np.log(20.5) + 10 * (np.log(120.5) - np.log(20.5))) / np.log(120.5)
    assert got["mil_1s"] == pytest.approx(expected)
    assert [got["loss_10s"], got["loss_60s"], got["loss_10min"]] == pytest.approx([20, 10, 0])
    # MIL from the shortest run counts the first half second as a third of a decade at 40
    assert got["mil"] > got["mil_1s"]
    # all runs in milliseconds: the interval still spans a decade past the origin
    fast = _Case("d", np.arange(3), None, None, 0.9, 0.5, None, None, 0.001, 0.01, 1.0)
    times, losses = loss_curve([0.7, 0.9], [0.002, 0.003], best=0.9, start=0.5)
    assert fast.time_figures(times, losses)["mil_1s"] == pytest.approx(0.0)


def test_gap_closed_by_hand():
    from metarec.recommender import gap_closed

    assert gap_closed(2.0, 4.0) == pytest.approx(0.5)  # half-way from SBS to the oracle
    assert gap_closed(6.0, 4.0) == pytest.approx(-0.5)  # worse than the single best
    assert gap_closed(0.0, 4.0) == pytest.approx(1.0)  # the oracle
    assert gap_closed(3.0, 4.0, oracle_loss=2.0) == pytest.approx(0.5)
    assert np.isnan(gap_closed(1.0, 0.0))  # the single best is perfect: nothing to close
    np.testing.assert_allclose(gap_closed([4.0, 1.0], 4.0), [0.0, 0.75])


def _losses(method_losses, sbs_losses):
    rows = []
    for i, (m, b) in enumerate(zip(method_losses, sbs_losses, strict=True)):
        rows.append({"method": "metarec", "dataset": f"d{i}", "top1_loss": m})
        rows.append({"method": "single best", "dataset": f"d{i}", "top1_loss": b})
    return pd.DataFrame(rows)


def test_gap_closed_interval_by_hand():
    from metarec.recommender import gap_closed_interval

    # every dataset closes half of its gap: every resample does too
    low, high = gap_closed_interval(_losses([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]), "metarec")
    assert (low, high) == pytest.approx((0.5, 0.5))
    # two datasets: resamples {d0, d0} close 1, {d1, d1} 0, {d0, d1} 1/2 (means 1 and 2),
    # with probabilities 1/4, 1/4, 1/2: the 5 % and 95 % quantiles are 0 and 1
    per_dataset = _losses([0.0, 2.0], [2.0, 2.0])
    assert gap_closed_interval(per_dataset, "metarec") == pytest.approx((0.0, 1.0))
    # a 40 % interval lies inside the middle value's mass
    assert gap_closed_interval(per_dataset, "metarec", confidence=0.4) == pytest.approx((0.5, 0.5))
    # the single best is the oracle everywhere: no gap in any resample
    low, high = gap_closed_interval(_losses([1.0, 0.0], [0.0, 0.0]), "metarec")
    assert np.isnan(low) and np.isnan(high)
    # a dataset one method lacks is left out of the pairs
    uneven = pd.concat(
        [per_dataset, pd.DataFrame([{"method": "single best", "dataset": "d9", "top1_loss": 50.0}])]
    )
    assert gap_closed_interval(uneven, "metarec") == pytest.approx((0.0, 1.0))
    with pytest.raises(InvalidInputError, match="'AR'"):
        gap_closed_interval(per_dataset, "AR")
    with pytest.raises(InvalidInputError, match="confidence"):
        gap_closed_interval(per_dataset, "metarec", confidence=1.0)


def test_difference_interval_by_hand():
    from metarec.recommender import difference_interval

    # the same difference on every dataset: the interval is that point
    per_dataset = _losses([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    assert difference_interval(
        per_dataset, "metarec", "single best", column="top1_loss"
    ) == pytest.approx((-1.0, -1.0, -1.0))
    # two datasets with differences -2 and 0: resample means -2, 0 (1/4 each) and -1 (1/2)
    per_dataset = _losses([0.0, 2.0], [2.0, 2.0])
    difference, low, high = difference_interval(
        per_dataset, "metarec", "single best", column="top1_loss"
    )
    assert (difference, low, high) == pytest.approx((-1.0, -2.0, 0.0))
    with pytest.raises(InvalidInputError, match="'mil_1s'"):
        difference_interval(per_dataset, "metarec", "single best", column="mil_1s")


def test_summary_reports_gap_closed_against_the_single_best_baseline():
    rec = A3RRanker(k=1, n=4, weights=None)
    summary = evaluate_recommender(matrix(tiny_kb()), rec, n_random=5).summary.set_index("method")
    sbs = summary.loc["single best", "top1_loss"]
    assert sbs > 0
    for method in ("metarec", "AR", "single best"):
        expected = (sbs - summary.loc[method, "top1_loss"]) / sbs
        assert summary.loc[method, "top1_gap_closed"] == pytest.approx(expected)
    assert summary.loc["single best", "top1_gap_closed"] == pytest.approx(0.0)
    for column in ("mil_1s", "loss_10s", "loss_60s", "loss_10min", "top3_gap_closed"):
        assert column in summary.columns
    with pytest.raises(InvalidInputError, match="time_origin"):
        evaluate_recommender(matrix(tiny_kb()), rec, time_origin=float("nan"))


def test_transfer_ranks_a_new_collection_from_the_source_alone():
    from metarec.recommender._evaluate import evaluate_transfer
    from tests.recommender._fakes import FrameKB

    # one target dataset next to D1 (x = 0.1); C is best there, D is unknown to the source
    runs = pd.DataFrame(
        {
            "dataset": ["N"] * 4,
            "algorithm": ["A", "B", "C", "D"],
            "accuracy": [0.7, 0.8, 0.9, 0.5],
            "fit_time": [1.0, 4.0, 1.0, 1.0],
            "status": ["ok"] * 4,
            "n_runs": 1,
            "n_failed": 0,
        }
    )
    meta = pd.DataFrame(
        {"dataset": ["N"], "x": [0.1], "constant": [3.0], "majority_class_pct": [50.0]}
    )
    rec = A3RRanker(k=1, n=4, weights=None)
    result = evaluate_transfer(matrix(tiny_kb()), matrix(FrameKB(runs, meta)), rec, n_random=3)
    s = result.summary.set_index("method")
    # D1's A3R order is A, C, B: A first on N loses 20 points, C is among the first three
    assert s.loc["metarec", "top1_loss"] == pytest.approx(20.0)
    assert s.loc["metarec", "top3_loss"] == pytest.approx(0.0)
    # the source's single best by mean accuracy (B: .9, .9, and D3's timeout as its 60 %
    # majority class = .8; A .767; C .6) loses 10
    assert s.loc["single best", "top1_loss"] == pytest.approx(10.0)
    assert s.loc["metarec", "top1_gap_closed"] == pytest.approx(-1.0)
    assert int(s.loc["metarec", "n_datasets"]) == 1


def test_time_figures_follow_the_run_order_and_top_k_the_ranking_by_hand():
    from metarec.recommender._evaluate import _Case, _Collected
    from metarec.recommender._ranking import RankedAlgorithm, Ranking

    # a slow accurate answer (100 s, 0.9) ranked first; the run order puts a quick one first
    acc, time = np.array([0.9, 0.8, 0.6]), np.array([100.0, 0.5, 0.2])
    grid = np.geomspace(0.2, 100.7, 5)
    scores = np.array([3.0, 2.0, 1.0])
    case = _Case("d", np.arange(3), acc, time, 0.9, 0.5, scores, grid, 0.2, 100.7, 1.0)
    row, _ = case.record("m", np.array([0, 1, 2]), np.array([1, 2, 0]))
    assert row["top1_loss"] == pytest.approx(0.0) and row["top3_loss"] == pytest.approx(0.0)
    # run: 0.8 at 0.5 s, 0.6 at 0.7 s, 0.9 at 100.7 s: from 1 s the loss is 10 until 100.7 s
    assert row["mil_1s"] == pytest.approx(10.0)
    assert [row["loss_10s"], row["loss_60s"], row["loss_10min"]] == pytest.approx([10, 10, 0])
    ranked, _ = case.record("m", np.array([0, 1, 2]))  # run in the ranking's order
    # the majority class only until the answer ends at 100 s, then no loss until 100.7 s
    assert ranked["mil_1s"] == pytest.approx(40.0 * np.log(100.0) / np.log(100.7))
    assert ranked["loss_10s"] == pytest.approx(40.0)
    # a Ranking with a run order is scored the same way through record_ranking
    entries = tuple(
        RankedAlgorithm(name, float("nan"), r + 1, 0.5, 1.0, 1) for r, name in enumerate("abc")
    )
    collected = _Collected()
    index = {"a": 0, "b": 1, "c": 2}
    collected.record_ranking(case, "m", Ranking(entries, run_order=("b", "c", "a")), index)
    collected.record_ranking(case, "plain", Ranking(entries), index)
    by = {r["method"]: r for r in collected.rows}
    assert by["m"]["mil_1s"] == pytest.approx(10.0) and by["m"]["top1_loss"] == 0.0
    assert by["plain"]["mil_1s"] == pytest.approx(ranked["mil_1s"])
    assert Ranking(entries, run_order=("b", "c", "a")).run_sequence == ["b", "c", "a"]
    assert Ranking(entries).run_sequence == ["a", "b", "c"]
    frame = Ranking(entries, run_order=("b", "c", "a")).to_frame()
    assert list(frame["rank"]) == [1, 2, 3] and list(frame["run"]) == [3, 1, 2]
    for bad in (("a", "b"), ("a", "b", "b"), ("a", "b", "d")):
        with pytest.raises(InvalidInputError, match="run_order"):
            Ranking(entries, run_order=bad)
    assert "run column (b, c, a)." in Ranking(entries, run_order=("b", "c", "a")).explain()


def test_evaluation_scores_a_learned_ranking_and_its_run_order_separately():
    kb = random_kb(seed=7)
    rec = LearnedRanker(n_estimators=10, k=5, random_state=0, run_floor=0.01)
    s = evaluate_recommender(matrix(kb), rec, n_random=2).summary.set_index("method")
    ranked = s.loc["metarec (run as ranked)"]
    for figure in ("top1_loss", "top3_loss", "spearman"):  # the same ranking
        assert s.loc["metarec", figure] == pytest.approx(ranked[figure])
    # the time figures are of two orders: both at or above the bound, and recorded apart
    assert s.loc["metarec", "mil"] >= s.loc["bound", "mil"] - 1e-9
    assert ranked["mil"] >= s.loc["bound", "mil"] - 1e-9
    plain = evaluate_recommender(matrix(kb), rec.set_params(run_floor=None), n_random=2).summary
    assert "metarec (run as ranked)" not in set(plain["method"])
    row = plain.set_index("method").loc["metarec"]
    assert row["mil"] == pytest.approx(ranked["mil"]) and row["top1_loss"] == ranked["top1_loss"]


def test_rankers_without_a_root_are_scored_against_a3rs_default_root():
    """ARR and AR have no A3R root: the true order (Spearman) and the AR* baselines take
    A3R's default n = 32, as for a ranker with that root."""
    from metarec.recommender import ARRRanker, AverageRankRanker

    m = matrix(random_kb(seed=2))

    def rows(result, method):
        per = result.per_dataset
        return per[per["method"] == method].reset_index(drop=True)

    ar = evaluate_recommender(m, AverageRankRanker(k=3), n_random=2)
    arr = evaluate_recommender(m, ARRRanker(k=3), n_random=2)
    rooted = evaluate_recommender(m, AverageRankRanker(k=3, n=32), n_random=2)
    other = evaluate_recommender(m, AverageRankRanker(k=3, n=2), n_random=2)
    for result in (ar, arr):
        assert {"metarec", "AR", "global AR*", "kNN AR*", "a3r"} <= set(result.summary["method"])
        pd.testing.assert_frame_equal(rows(result, "single best"), rows(rooted, "single best"))
    assert not np.allclose(
        rows(other, "single best")["spearman"], rows(rooted, "single best")["spearman"]
    )
    # global AR* is average rank of A3R with n = 32 whichever ranker is evaluated
    pd.testing.assert_frame_equal(rows(ar, "global AR*"), rows(rooted, "global AR*"))
    pd.testing.assert_frame_equal(rows(arr, "global AR*"), rows(rooted, "global AR*"))
    pd.testing.assert_frame_equal(
        rows(ar, "metarec").drop(columns="method"), rows(rooted, "AR").drop(columns="method")
    )
