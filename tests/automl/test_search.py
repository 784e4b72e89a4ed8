"""The search loop on real worker processes and a real SQLite knowledge base."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from metarec.automl import AutoClassifier, AveragedClassifier, LabelledClassifier, RunSettings
from metarec.automl._refit import refit_answer
from metarec.automl._search import Trial, search
from metarec.benchmark import default_portfolio
from metarec.data import load_dataset
from metarec.exceptions import BenchmarkError, InvalidInputError, NotFittedError
from metarec.recommender import RankedAlgorithm, Ranking
from metarec.storage import KnowledgeBase


def _frame(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": rng.choice(["red", "green", "blue"], size=n),
        }
    )
    y = np.where(X["a"] + 0.5 * X["b"] + rng.normal(scale=0.5, size=n) > 0, "yes", "no")
    return X, y


class _Fixed:
    """A stand-in recommender with a fixed ranking (expected time per fold in seconds)."""

    def __init__(self, rows, run_order=(), plan=None):
        # run_order: of an unbudgeted ranking; plan: the algorithms of a budgeted one
        self.rows, self.run_order, self.budget_plan = rows, tuple(run_order), plan
        self.algorithms_ = np.array([r[0] for r in rows])
        # one other dataset on which each algorithm scored its expected accuracy
        self.datasets_ = np.array(["other"])
        self.accuracy_ = np.array([[r[1] for r in rows]])
        self.present_ = np.ones_like(self.accuracy_, dtype=bool)
        self.calls = []

    def recommend(self, *, metafeatures, tried=None, budget=None):
        self.calls.append((dict(tried or {}), budget))
        rows = self.rows
        if budget is not None and self.budget_plan is not None:
            rows = [r for name in self.budget_plan for r in rows if r[0] == name]
        return Ranking(
            tuple(
                RankedAlgorithm(
                    name, 1.0, i + 1, acc, t, 5, 0, acc - 0.1, acc + 0.1, "planner", t, t
                )
                for i, (name, acc, t) in enumerate(rows)
            ),
            run_order=self.run_order if budget is None else (),
        )


def _search(kb, recommender, budget=60.0, **settings):
    X, y = _frame()
    frame = X.assign(target=y)
    ds = load_dataset(frame, target="target", name="toy")
    portfolio = default_portfolio().select(["majority", "gaussian_nb", "knn"])
    start = time.perf_counter()
    return search(
        ds,
        kb,
        RunSettings(budget=budget, **settings),
        deadline=start + budget,
        start=start,
        recommender=recommender,
        portfolio=portfolio,
    )


def test_order_follows_the_plan_and_an_algorithm_that_cannot_fit_is_skipped(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 0.01), ("knn", 0.9, 1e4), ("majority", 0.5, 0.01)])
    result = _search(kb, fixed)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["gaussian_nb"].order == 1 and trials["majority"].order == 2
    assert trials["knn"].status == "skipped" and trials["knn"].order is None
    assert "expected" in trials["knn"].message and "left" in trials["knn"].message
    # each result went back to the recommender before the next choice
    assert set(fixed.calls[-1][0]) == {"gaussian_nb", "majority"}
    assert result.best == "gaussian_nb"  # the signal is learnable; majority is far behind
    assert len(trials["gaussian_nb"].fold_scores) == result.n_folds == 5
    # every fold that ran is stored, with the dataset's metafeatures
    runs = kb.runs(aggregate=False, datasets=["toy"])
    assert len(runs) == result.runs_stored == 10
    assert set(runs["algorithm"]) == {"gaussian_nb", "majority"}
    assert len(kb.metafeatures(datasets=["toy"])) == 1
    stored = runs[runs["algorithm"] == "gaussian_nb"].sort_values("fold")["accuracy"]
    np.testing.assert_allclose(stored, trials["gaussian_nb"].fold_scores)


def test_the_plan_follows_the_recommendations_run_order(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    rows = [("knn", 0.9, 1e4), ("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)]
    # ranked knn first (the answer, too slow to fit); run order: majority, gaussian_nb, knn
    fixed = _Fixed(rows, run_order=("majority", "gaussian_nb", "knn"))
    trials = {t.algorithm: t for t in _search(kb, fixed).trials}
    assert [trials[a].planned for a in ("majority", "gaussian_nb", "knn")] == [1, 2, 3]
    assert trials["knn"].status == "skipped"
    # not everything fits: the budgeted plan first, then the rest in the run order
    planned = _Fixed(rows, run_order=("majority", "gaussian_nb", "knn"), plan=["gaussian_nb"])
    trials = {t.algorithm: t for t in _search(KnowledgeBase(f"sqlite:///{tmp_path / 'c.sqlite'}"),
                                              planned).trials}  # fmt: skip
    assert trials["gaussian_nb"].order == 1 and trials["majority"].order == 2
    assert trials["knn"].status == "skipped"
    ranked = {t.algorithm: t for t in _search(KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}"),
                                              _Fixed(rows)).trials}  # fmt: skip
    assert [ranked[a].planned for a in ("knn", "gaussian_nb", "majority")] == [1, 2, 3]


def test_a_second_search_reuses_the_stored_folds_without_fitting(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01), ("knn", 0.9, 1e4)])
    first = _search(kb, fixed)
    again = _search(kb, fixed)
    before = {t.algorithm: t for t in first.trials}
    after = {t.algorithm: t for t in again.trials}
    assert after["gaussian_nb"].status == after["majority"].status == "stored"
    assert after["gaussian_nb"].fold_scores == pytest.approx(before["gaussian_nb"].fold_scores)
    assert again.runs_stored == 0 and again.best == first.best
    assert len(kb.runs(aggregate=False, datasets=["toy"])) == 10


def test_a_budget_too_small_for_anything_is_reported(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 50.0), ("majority", 0.5, 50.0), ("knn", 0.9, 50.0)])
    result = _search(kb, fixed, budget=5.0)
    assert result.best is None and result.model is None
    assert {t.status for t in result.trials} == {"skipped"}
    assert kb.count("runs") == 0

    from metarec.automl._estimator import _no_model

    assert _no_model(result, 5.0) == (
        "no algorithm finished every fold within the budget of 5 s; give a larger budget"
    )
    failed = tuple(
        replace(t, status="error", message="TypeError: boolean value of NA is ambiguous\n...")
        for t in result.trials
    )
    assert _no_model(replace(result, trials=failed, runs_stored=15), 5.0) == (
        "every algorithm failed on this data (15 fold result(s) stored); gaussian_nb: "
        "TypeError: boolean value of NA is ambiguous"
    )
    # some failed, the rest did not fit the budget: the failure is the news, not the budget
    mixed = (*failed[:2], *result.trials[2:])
    assert _no_model(replace(result, trials=mixed), 5.0) == (
        f"every algorithm that ran (2; {len(mixed) - 2} did not fit the budget) failed on this "
        "data; gaussian_nb: TypeError: boolean value of NA is ambiguous"
    )


def test_a_slow_first_choice_does_not_hold_back_time_for_its_refit_before_it_runs(tmp_path):
    """knn first, expected 3 s a fold (15 s for its folds: skipped with 6 s). Nothing is
    kept back for knn's refit (4.5 s), which would leave the quick ones no time: they run,
    and the search hands back a model."""
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("knn", 0.9, 3.0), ("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)])
    result = _search(kb, fixed, budget=6.0)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["knn"].status == "skipped"
    assert (
        trials["knn"].message.startswith("expected up to 15")
        and "to refit" in trials["knn"].message
    )
    assert trials["gaussian_nb"].status == trials["majority"].status == "ok"
    assert result.model is not None and result.best == "gaussian_nb"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("METAREC_HOME", str(home))
        X, y = _frame(300, seed=1)
        url = f"sqlite:///{home / 'kb.sqlite'}"
        auto = AutoClassifier(budget=30, kb=url, random_state=0).fit(X, y)
        yield auto, url, X, y


def test_auto_classifier_fits_predicts_and_explains(fitted):
    auto, url, X, y = fitted
    board = auto.leaderboard_
    assert board.iloc[0]["algorithm"] == auto.best_algorithm_
    eligible = board[board["selection_score"].notna()]
    assert list(eligible["selection_score"]) == sorted(eligible["selection_score"], reverse=True)
    assert len(eligible) >= 5  # small data: most of the portfolio runs within 30 s
    assert set(auto.predict(X)) <= {"yes", "no"} and auto.score(X, y) > 0.8
    assert list(auto.classes_) == ["no", "yes"]
    results = auto.cv_results_
    assert {"split0_test_score", "mean_test_score", "rank_test_score"} <= set(results)
    # scikit-learn's conventions: rank of the mean score (ties share the best rank, no
    # score last), population standard deviation of the fold scores
    means = results["mean_test_score"]
    for i in range(means.size):
        better = np.sum(np.nan_to_num(means, nan=-np.inf) > np.nan_to_num(means[i], nan=-np.inf))
        assert results["rank_test_score"][i] == better + 1
    folds = np.column_stack([results[f"split{k}_test_score"] for k in range(5)])
    done = np.isfinite(means)
    np.testing.assert_allclose(results["std_test_score"][done], folds[done].std(axis=1))
    kb = KnowledgeBase(url)
    assert kb.count("runs") > 38650  # the built-in runs it started from, and this search's
    # the answer averages the three best by selection score and the built-in KB's single
    # best (xgboost) when it is not among them, each refitted on every row (small data: no
    # member is left out for trailing the best)
    top3 = tuple(eligible["algorithm"].iloc[:3])
    assert auto.ensemble_ == top3 + (() if "xgboost" in top3 else ("xgboost",))
    model = auto.best_estimator_
    assert isinstance(model, AveragedClassifier)
    assert len(model.estimators_) == len(auto.ensemble_) >= 3
    members = [
        LabelledClassifier.from_fitted(m, model.classes_, X.columns) for m in model.estimators_
    ]
    votes = [
        m.predict_proba(X) if hasattr(m, "predict_proba") else np.eye(2)[m.pipeline_.predict(X)]
        for m in members
    ]
    np.testing.assert_allclose(auto.predict_proba(X), np.mean(votes, axis=0))
    in_answer = board["message"].str.startswith("averaged in the answer")
    assert in_answer.sum() == len(auto.ensemble_)


def test_arrays_and_integer_column_labels_predict_like_the_frame(fitted):
    """The fitted model takes an array of the training columns in their order, or a frame
    with the default integer labels, as the frame itself; a 1-d row is a clear error."""
    auto, _, X, _ = fitted
    expected = auto.predict(X)
    assert np.array_equal(auto.predict(X.to_numpy()), expected)
    assert np.array_equal(auto.predict(pd.DataFrame(X.to_numpy())), expected)
    np.testing.assert_allclose(auto.predict_proba(X.to_numpy()), auto.predict_proba(X))
    assert np.array_equal(auto.best_estimator_.predict(X.to_numpy()), expected)
    with pytest.raises(InvalidInputError, match="X must be 2-dimensional .* X.reshape"):
        auto.predict(X.to_numpy()[0])
    with pytest.raises(InvalidInputError, match="X has 2 columns; the model was trained on 3"):
        auto.predict(X.to_numpy()[:, :2])


def test_integer_column_labels_and_a_nullable_boolean_with_a_gap_are_learned(tmp_path):
    """``pd.DataFrame(array)`` (integer column labels) and a pandas ``boolean`` column with
    ``pd.NA`` are ordinary data: every fold succeeds."""
    X, y = _frame(120, seed=2)
    frame = pd.DataFrame(X[["a", "b"]].to_numpy())
    flags = pd.array(X["c"].eq("red").tolist(), dtype="boolean")
    flags[[3, 50]] = pd.NA
    frame["flag"] = flags
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 0.01), ("knn", 0.9, 0.01)])
    ds = load_dataset(frame.assign(target=y), target="target", name="ints")
    portfolio = default_portfolio().select(["gaussian_nb", "knn"])
    start = time.perf_counter()
    result = search(
        ds, kb, RunSettings(budget=30.0), deadline=start + 30.0, start=start,
        recommender=fixed, portfolio=portfolio,
    )  # fmt: skip
    assert {t.status for t in result.trials} == {"ok"}
    predicted = result.model.predict(frame)
    assert np.array_equal(predicted, result.model.predict(frame.to_numpy()))
    assert np.mean(predicted == y) > 0.7


def test_the_saved_model_predicts_as_in_process(fitted, tmp_path):
    auto, _, X, y = fitted
    model_path, sidecar = auto.save(tmp_path / "model.joblib")
    held_out, _ = _frame(100, seed=7)
    loaded = joblib.load(model_path)
    assert np.array_equal(loaded.predict(held_out), auto.predict(held_out))
    if hasattr(auto, "predict_proba"):  # not every algorithm estimates probabilities
        np.testing.assert_allclose(loaded.predict_proba(held_out), auto.predict_proba(held_out))
    assert hasattr(loaded, "predict_proba") == hasattr(auto, "predict_proba")
    import json

    meta = json.loads(sidecar.read_text())
    assert meta["algorithm"] == auto.best_algorithm_ == meta["cv_score_of"]
    assert meta["metric"] == meta["metric_meaning"] == "accuracy"
    assert meta["ensemble"] == list(auto.ensemble_) and len(meta["ensemble"]) >= 3
    assert meta["folds"] == 5 and meta["seed"] == 0 and meta["columns"] == ["a", "b", "c"]
    assert meta["data_fingerprint"] == auto.dataset_fingerprint_
    assert "scikit-learn" in meta["versions"] and "metarec" in meta["versions"]


def test_clone_and_params():
    auto = AutoClassifier(budget="2m", n_jobs=2, random_state=3)
    copy = clone(auto)
    assert copy.get_params() == auto.get_params()
    assert copy is not auto and "best_estimator_" not in copy.__dict__


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"budget": 0}, "positive"),
        ({"budget": "soon"}, "not a duration"),
        ({"protocol": "cv7"}, "unknown protocol"),
        ({"metric": "f1"}, "unknown metric"),
        ({"ensemble_size": 0}, "ensemble_size"),
        ({"ensemble_size": 1.5}, "ensemble_size"),
        ({"ensemble_size": True}, "ensemble_size"),
        ({"ensemble_size": "many"}, "ensemble_size"),
        ({"random_state": None}, "random_state must be a whole number"),
        ({"random_state": np.random.RandomState(0)}, "random_state must be a whole number"),
    ],
)
def test_bad_settings_are_refused_before_any_work(tmp_path, params, message):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    X, y = _frame()
    with pytest.raises((BenchmarkError, ValueError), match=message):
        AutoClassifier(kb=url, **params).fit(X, y)
    assert not (tmp_path / "kb.sqlite").exists() or KnowledgeBase(url).count("runs") in (0, 38650)


@pytest.mark.slow
def test_the_search_runs_on_a_dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01), ("knn", 0.9, 1e4)])
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = _search(kb, fixed, budget=120.0, scheduler=cluster.scheduler_address)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["gaussian_nb"].status == trials["majority"].status == "ok"
    assert trials["knn"].status == "skipped"
    assert len(trials["gaussian_nb"].fold_scores) == 5 and result.best == "gaussian_nb"
    assert result.runs_stored == 10


# ----------------------------------------------------------------------------- regression
def _regression_dataset(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = 30 + 12 * X["a"] - 4 * X["b"] + rng.normal(scale=0.5, size=n)
    return X, y.to_numpy()


def test_a_regression_search_keeps_the_best_regressor_and_stores_r2(tmp_path):
    from sklearn.pipeline import Pipeline

    from metarec.automl._search import search as run_search

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    X, y = _regression_dataset()
    ds = load_dataset(X.assign(price=y), target="price", name="prices")
    fixed = _Fixed([("knn_regressor", 0.8, 0.01), ("mean", 0.0, 0.01),
                    ("linear_regression", 0.9, 0.01)])  # fmt: skip
    portfolio = default_portfolio(task="regression").select(
        ["mean", "linear_regression", "knn_regressor"]
    )
    start = time.perf_counter()
    result = run_search(ds, kb, RunSettings(budget=60), deadline=start + 60, start=start,
                        recommender=fixed, portfolio=portfolio)  # fmt: skip
    assert result.best == "linear_regression"
    assert isinstance(result.model, Pipeline)  # a regressor predicts the target itself
    assert np.corrcoef(result.model.predict(X), y)[0, 1] > 0.99
    scores = {t.algorithm: t.cv_score for t in result.trials}
    assert scores["mean"] == 0.0 and scores["linear_regression"] > 0.99  # R² clipped at 0
    runs = kb.runs(aggregate=False)
    assert set(runs["algorithm"]) == {"mean", "linear_regression", "knn_regressor"}
    assert runs["r2"].notna().all() and "nosimple_auc" not in runs.columns
    assert kb.datasets().set_index("name").loc["prices", "task"] == "regression"


def test_bad_x_and_y_are_refused_in_the_words_of_the_python_api(tmp_path):
    import scipy.sparse

    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    X, y = _frame()
    numeric = X[["a", "b"]].to_numpy()
    with pytest.raises(InvalidInputError, match=r"y must hold one target .* shape \(240, 2\)"):
        AutoClassifier(kb=url).fit(X, np.c_[y, y])
    with pytest.raises(InvalidInputError, match="sparse matrix of shape"):
        AutoClassifier(kb=url).fit(scipy.sparse.csr_matrix(numeric), y)
    from metarec.exceptions import DataError

    with pytest.raises(DataError, match=r"^y has a single class \('yes'\); nothing to learn$"):
        AutoClassifier(kb=url).fit(X, np.full(len(y), "yes"))
    assert not (tmp_path / "kb.sqlite").exists()


def test_a_search_without_a_model_leaves_no_model_of_an_earlier_fit(tmp_path):
    """A refit that finds nothing: the earlier model, classes and columns are gone (the
    estimator is unfitted), what the failed search tried is kept."""
    import sklearn.exceptions
    from sklearn.utils.validation import check_is_fitted

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 50.0), ("majority", 0.5, 50.0), ("knn", 0.9, 50.0)])
    result = _search(kb, fixed, budget=5.0)
    assert result.model is None
    X, y = _frame()
    auto = AutoClassifier()
    earlier = {"best_estimator_": object(), "classes_": np.array(["no", "yes"]),
               "n_features_in_": 9, "best_algorithm_": "knn", "ensemble_": ("knn",)}  # fmt: skip
    auto.__dict__.update(earlier)
    check_is_fitted(auto)
    auto._set_fitted(result, load_dataset(X.assign(target=y), target="target", name="toy"))
    assert not set(earlier) & set(vars(auto))
    assert set(auto.leaderboard_["algorithm"]) == {"gaussian_nb", "majority", "knn"}
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(auto)
    with pytest.raises(sklearn.exceptions.NotFittedError, match="call fit"):
        auto.predict(X)
    with pytest.raises(NotFittedError):
        auto.save(tmp_path / "model.joblib")
    assert not (tmp_path / "model.joblib").exists()


def test_each_auto_estimator_refuses_the_other_task(tmp_path):
    from metarec.automl import AutoRegressor

    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    X, y = _regression_dataset()
    with pytest.raises(BenchmarkError, match="y looks continuous; AutoClassifier chooses"):
        AutoClassifier(kb=url).fit(X, y)
    X, labels = _frame()
    with pytest.raises(BenchmarkError, match="y looks like class labels; AutoRegressor"):
        AutoRegressor(kb=url).fit(X, labels)
    X, y = _regression_dataset()
    with pytest.raises(BenchmarkError, match="unknown metric 'tau' for a regression target"):
        AutoRegressor(kb=url, metric="tau").fit(X, y)


def test_the_answer_refits_only_the_members_that_fit_the_time_left():
    """Three wanted, 5 s left: the best (0.1 s expected) and the third (0.1 s) are refitted,
    the second (50 s expected) is skipped and said; with one wanted, or after a signal, the
    best alone."""
    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    trials = {
        name: Trial(name, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
        for i, (name, t) in enumerate([("gaussian_nb", 0.1), ("knn", 50.0), ("majority", 0.1)])
    }
    order = list(trials)
    notes = []
    deadline = time.perf_counter() + 5
    model, members = refit_answer(order, trials, ds, labels, codes, 3, 0, deadline, 1.0, notes)
    assert members == ("gaussian_nb", "majority")
    assert any(note.startswith("knn not refitted: expected 50 s") for note in notes)
    assert isinstance(model, AveragedClassifier)
    later = time.perf_counter() + 60
    single, alone = refit_answer(order, trials, ds, labels, codes, 1, 0, later, 1.0, [])
    assert alone == ("gaussian_nb",) and isinstance(single, LabelledClassifier)
    # stopped by a signal (no deadline): the best alone, however many were wanted
    stopped, members = refit_answer(order, trials, ds, labels, codes, 3, 0, None, 1.0, [])
    assert members == ("gaussian_nb",) and isinstance(stopped, LabelledClassifier)


def test_with_no_time_left_the_best_quick_refit_is_the_answer_not_the_last():
    """The deadline has passed: nothing fits, and the answer is the best algorithm whose refit
    is expected within a second (here the second of the order: the first expects 5 s), not
    the last of the order (majority); with no quick refit at all, the quickest.  One note
    says so instead of one per algorithm."""
    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)

    def trials_of(times):
        names = ["knn", "gaussian_nb", "lda", "majority"]
        return {
            n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
            for i, (n, t) in enumerate(zip(names, times, strict=True))
        }

    past = time.perf_counter() - 1.0
    notes = []
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    model, members = refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 1.0, notes)
    assert members == ("gaussian_nb",) and isinstance(model, LabelledClassifier)
    assert notes == [
        "no refit fitted the time left: gaussian_nb refitted anyway (the best whose refit is "
        "expected within 1 s, else the quickest)"
    ]
    # refit_scale 10: only majority (0.01 s) and lda (0.1 s) are quick; lda ranks higher
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    assert refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 10.0, [])[1] == (
        "lda",
    )
    # nothing quick: the quickest (lda at 2 s, ahead of knn and gaussian_nb)
    trials = trials_of([50.0, 3.0, 2.0, 2.5])
    assert refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 1.0, [])[1] == ("lda",)


def test_an_average_also_takes_the_single_best_algorithm():
    """The knowledge base's single best joins an average it is not part of (one member more),
    never a single answer, never twice, and only when it completed."""
    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    names = ["gaussian_nb", "majority", "knn"]
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=0.01)
        for i, n in enumerate(names)
    }
    later = time.perf_counter() + 60

    def members(size, anchor, order=names):
        notes = []
        model, chosen = refit_answer(
            order, trials, ds, labels, codes, size, 0, later, 1.0, notes, anchor=anchor
        )
        return chosen, notes

    chosen, notes = members(2, "knn")
    assert chosen == ("gaussian_nb", "majority", "knn")
    assert notes == ["knn joins the average as the knowledge base's single best"]
    assert members(2, "majority") == (("gaussian_nb", "majority"), [])
    assert members(1, "knn") == (("gaussian_nb",), [])
    assert members(2, "knn", order=names[:2]) == (("gaussian_nb", "majority"), [])
    assert members(2, None) == (("gaussian_nb", "majority"), [])


def test_an_average_leaves_out_members_clearly_below_the_best(monkeypatch):
    """Five folds each: lda trails the best by 6 points on every fold (clearly below),
    knn by 1 point on average with folds that disagree (a tie); lda and the single best
    (majority, as clearly below) are left out and said once, knn joins.  lda keeps its
    place: with two wanted, knn (third) does not replace it.  Below TIE_MIN_ROWS rows
    (these 60) every member joins."""
    from metarec.automl import _refit

    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    folds = {
        "gaussian_nb": (0.90, 0.80, 0.85, 0.95, 0.90),
        "lda": (0.84, 0.74, 0.79, 0.89, 0.84),
        "knn": (0.95, 0.75, 0.80, 0.90, 0.95),
        "majority": (0.60, 0.60, 0.60, 0.60, 0.60),
    }
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=f, fit_time=0.01)
        for i, (n, f) in enumerate(folds.items())
    }
    later = time.perf_counter() + 60
    order = list(trials)
    _, chosen = refit_answer(
        order, trials, ds, labels, codes, 3, 0, later, 1.0, [], anchor="majority"
    )
    assert chosen == ("gaussian_nb", "lda", "knn", "majority")
    monkeypatch.setattr(_refit, "TIE_MIN_ROWS", len(codes))
    notes = []
    _, chosen = refit_answer(
        order, trials, ds, labels, codes, 3, 0, later, 1.0, notes, anchor="majority"
    )
    assert chosen == ("gaussian_nb", "knn")
    assert notes == [
        "lda, majority not averaged: clearly below gaussian_nb's fold scores (more than 2 "
        "standard errors of the paired difference)"
    ]
    _, chosen = refit_answer(order, trials, ds, labels, codes, 2, 0, later, 1.0, [])
    assert chosen == ("gaussian_nb",)


def test_the_parents_own_model_work_runs_on_one_thread(tmp_path, monkeypatch):
    """Metafeatures, the recommender and the final refits run in the parent while workers
    keep the cores busy: on one thread (an OpenMP pool of every core there is ~100x slower)."""
    import sklearn.ensemble  # noqa: F401 - loads scikit-learn's OpenMP runtime
    from threadpoolctl import threadpool_info

    from metarec.automl import _search as module

    seen = {}

    def spy(*args, **kwargs):
        seen.update({p["filepath"]: p["num_threads"] for p in threadpool_info()})
        return "searched"

    monkeypatch.setattr(module, "_search", spy)
    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    start = time.perf_counter()
    assert search(ds, kb, RunSettings(budget=10), deadline=start + 10, start=start) == "searched"
    assert seen and set(seen.values()) == {1}
    assert any(p["num_threads"] > 1 for p in threadpool_info()) or os.cpu_count() == 1


def test_the_name_a_run_stores_data_under():
    """Its own name; the name under which the KB holds the same content (same task); its own
    name and 8 hex digits of the fingerprint when the KB holds another dataset of that name
    from elsewhere or for the other task; refused when the same file changed."""
    from metarec.automl._search import run_name

    X, y = _frame(60)
    ds = load_dataset(X.assign(target=y), target="target", name="iris")
    fp = ds.fingerprint

    def stored(*rows):
        columns = ["name", "source", "source_id", "task", "fingerprint"]
        return pd.DataFrame(list(rows), columns=columns)

    assert run_name(ds, stored()) == ("iris", None)
    assert run_name(ds, stored(("iris", "file", "x", "binary", fp))) == ("iris", None)
    assert run_name(ds, stored(("iris", "file", "x", "binary", None))) == ("iris", None)
    # the same content under another name (a renamed file, the same frame given to the API)
    assert run_name(ds, stored(("flowers", "frame", None, "binary", fp))) == (
        "flowers",
        "the knowledge base holds this data as 'flowers': stored under it",
    )
    # ... but not for the other task
    assert run_name(ds, stored(("flowers", "file", "x", "regression", fp))) == ("iris", None)
    # another dataset named iris (the built-in one): a name of its own, the same every time
    builtin = ("iris", "file", "/data/pmlb/iris.tsv.gz", "multiclass", "f" * 64)
    assert run_name(ds, stored(builtin)) == (
        f"iris-{fp[:8]}",
        f"the knowledge base holds another 'iris' (other content): stored as 'iris-{fp[:8]}'",
    )
    again = stored(builtin, (f"iris-{fp[:8]}", "file", "iris.csv", "binary", fp))
    assert run_name(ds, again) == (f"iris-{fp[:8]}", None)
    regression = ("iris", "file", "iris.csv", "regression", "f" * 64)
    assert run_name(ds, stored(regression))[0] == f"iris-{fp[:8]}"
    # the same file, changed since its runs: refused

    from_file = replace(ds, source="file", source_id="data/iris.csv")
    changed = stored(("iris", "file", "data/iris.csv", "binary", "f" * 64))
    with pytest.raises(BenchmarkError, match="holds 'iris' from data/iris.csv with other"):
        run_name(from_file, changed)


def test_another_metric_is_chosen_on_its_cv_scores_alone(tmp_path):
    """The knowledge base expects accuracy: with balanced accuracy there is no prior, the
    expected_score stays NaN and the selection score is the CV mean itself."""
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.99, 0.01), ("majority", 0.99, 0.01)])
    result = _search(kb, fixed, metric="balanced_accuracy")
    for trial in result.trials:
        assert np.isnan(trial.expected_score) and np.isnan(trial.expected_score_high)
        assert trial.selection_score == pytest.approx(np.mean(trial.fold_scores))
    shrunk = _search(KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}"), fixed)
    nb = next(t for t in shrunk.trials if t.algorithm == "gaussian_nb")
    assert nb.expected_score == 0.99
    assert nb.selection_score != pytest.approx(np.mean(nb.fold_scores))  # shrunk


def test_the_workers_start_before_the_knowledge_base_opens_and_end_with_the_fit(
    tmp_path, monkeypatch
):
    """Their imports overlap the filling of an empty KB; the search runs on that pool, and it
    is closed afterwards, also when opening the KB fails."""
    from metarec.automl import _estimator as module

    events = []

    class Pool:
        n_workers = 1

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            events.append("closed")

    pool = Pool()

    def open_pool(settings, portfolio):
        events.append(("pool", settings.n_jobs, sorted(portfolio.names)[:2]))
        return pool

    def open_run_kb(url):
        events.append("kb")
        if url == "broken":
            raise BenchmarkError("cannot open it")
        return KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}"), False

    def fake_search(ds, kb, settings, **kwargs):
        events.append(("search", kwargs["pool"] is pool))
        raise BenchmarkError("stop here")

    monkeypatch.setattr(module, "open_pool", open_pool)
    monkeypatch.setattr(module, "open_run_kb", open_run_kb)
    monkeypatch.setattr(module, "search", fake_search)
    X, y = _frame()
    with pytest.raises(BenchmarkError, match="stop here"):
        AutoClassifier(kb="fine", n_jobs=2).fit(X, y)
    assert events == [("pool", 2, ["adaboost", "bernoulli_nb"]), "kb", ("search", True), "closed"]
    events.clear()
    with pytest.raises(BenchmarkError, match="cannot open it"):
        AutoClassifier(kb="broken").fit(X, y)
    assert events[1:] == ["kb", "closed"]


def test_a_named_y_is_the_same_content_as_the_file_with_that_target(tmp_path):
    """``fit(frame.drop(columns=t), frame[t])`` and the file with target ``t`` share one
    fingerprint, so the knowledge base stores them as one dataset (one name, its folds)."""
    from metarec.benchmark._names import stored_name

    X, y = _frame(n=60)
    table = X.assign(label=y)[["a", "label", "b", "c"]]  # the target among the columns
    path = tmp_path / "survey.csv"
    table.to_csv(path, index=False)
    from_file = load_dataset(path, target="label")
    auto = AutoClassifier()
    named = auto._dataset(table.drop(columns="label"), table["label"])
    assert named.target == "label" and list(named.X.columns) == ["a", "b", "c"]
    assert named.fingerprint == from_file.fingerprint
    stored = pd.DataFrame(
        {"name": ["survey"], "source": ["file"], "source_id": [str(path)],
         "task": ["binary"], "fingerprint": [from_file.fingerprint]}
    )  # fmt: skip
    name, note = stored_name(named, stored, own=f"frame-{named.fingerprint[:12]}")
    assert name == "survey" and "holds this data as 'survey'" in note
    # an unnamed y, or one named like a column of X, is the estimator's own target column
    assert auto._dataset(table.drop(columns="label"), y).fingerprint != from_file.fingerprint
    clash = auto._dataset(table.drop(columns="label"), table["label"].rename("a"))
    assert clash.target == "__metarec_target__"


def test_a_signal_keeps_the_folds_a_running_job_finished_and_leaves_it_incomplete(tmp_path):
    import signal

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    X, y = _frame(n=6000)  # leave-one-out: 6,000 folds, far more than the seconds below
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    first_check = []

    def check():  # Ctrl-C a few seconds in, while the job runs
        first_check.append(time.perf_counter())
        if time.perf_counter() - first_check[0] > 6.0:
            raise KeyboardInterrupt

    start = time.perf_counter()
    result = search(
        ds,
        kb,
        RunSettings(budget=600.0, protocol="loo"),
        deadline=start + 600.0,
        start=start,
        recommender=_Fixed([("majority", 0.5, 0.001)]),
        portfolio=default_portfolio().select(["majority"]),
        check=check,
    )
    assert result.interrupted == signal.SIGINT
    (trial,) = result.trials
    assert trial.status == "timeout" and not np.isfinite(trial.selection_score)
    done = int(trial.message.split()[2])
    assert trial.message == f"interrupted after {done} of 6000 folds" and 0 < done < 6000
    assert len(trial.fold_scores) == done and result.best is None and result.model is None
    # the finished folds are stored (the next call resumes from them), in order
    runs = kb.runs(aggregate=False, datasets=["toy"])
    assert len(runs) == result.runs_stored == done
    assert sorted(runs["fold"]) == list(range(done))


def test_a_signal_while_a_finished_job_is_recorded_waits_for_the_recording():
    from metarec.automl._search import _codes, _Loop
    from metarec.benchmark import _folds
    from metarec.benchmark._signals import _Signals

    X, y = _frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)
    settings = RunSettings(budget=60.0, metric="balanced_accuracy")  # scored while recorded
    start = time.perf_counter()
    loop = _Loop(
        ds, "toy", codes, labels, settings, default_portfolio().select(["majority"]),
        _Fixed([("majority", 0.5, 0.001)]), {}, {}, start + 60, start,
        lambda n=1, total=None: None, 1,
    )  # fmt: skip
    signals = _Signals()  # its handler called by hand below: no handler is installed
    loop.critical = signals.critical

    class Pool:  # finishes the job's 5 folds, then hands it to on_job as the worker pool does
        def run(self, tasks, *, on_job, check, more):
            task = more()
            task.started = time.perf_counter()
            for i, (_, test) in enumerate(task.splits):
                out = {"y_pred": np.zeros(len(test), int), "proba": None, "decision": None,
                       "classes": np.arange(2), "fit_time": 0.001, "fit_wall_time": 0.001,
                       "predict_time": 0.0, "predict_wall_time": 0.0}  # fmt: skip
                task.folds.append(_folds.ok_fold(task.spec, i, test, out))
            on_job(task)

    real, scored = _folds.fold_metrics, []

    def fold_metrics(*args, **kwargs):  # Ctrl-C while the third fold is scored
        scored.append(1)
        if len(scored) == 3:
            signals._handle(2, None)
        return real(*args, **kwargs)

    _folds.fold_metrics = fold_metrics
    try:
        assert loop.run(Pool(), check=signals.check) == 2
    finally:
        _folds.fold_metrics = real
    trial = loop.state.trials["majority"]
    assert trial.status == "ok" and len(trial.fold_scores) == 5  # recorded whole, once
    assert len(loop.state.results) == 1 and len(loop.state.results[0].folds) == 5
    assert loop.running == {}


def test_a_search_measures_each_job_s_wall_clock(tmp_path, monkeypatch):
    from metarec.automl._foldtime import FoldTimes

    walls = []
    record = FoldTimes.record

    def spy(self, algorithm, folds, expected, *, job_wall=None):
        walls.append(
            (algorithm, job_wall, sum(f.fit_wall_time + f.predict_wall_time for f in folds))
        )
        return record(self, algorithm, folds, expected, job_wall=job_wall)

    monkeypatch.setattr(FoldTimes, "record", spy)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = _Fixed([("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)])
    _search(kb, fixed)
    assert {a for a, _, _ in walls} >= {"gaussian_nb", "majority"}
    # the job's wall clock, from its first fold's start to its end, holds its folds' times
    assert all(wall is not None and wall >= spent for _, wall, spent in walls)


def test_a_running_job_s_storing_is_kept_from_its_admission():
    from metarec.automl._search import END_MARGIN, _codes, _Loop
    from metarec.automl._storing import store_seconds

    X, y = _frame(n=300)
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)
    start = time.perf_counter()
    loop = _Loop(
        ds, "toy", codes, labels, RunSettings(budget=60.0, protocol="loo"),
        default_portfolio().select(["majority", "gaussian_nb"]),
        _Fixed([("majority", 0.5, 0.001), ("gaussian_nb", 0.8, 0.001)]), {}, {}, start + 60,
        start, lambda n=1, total=None: None, 2,
    )  # fmt: skip
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN)  # nothing admitted yet
    first = loop.next_task()
    own = store_seconds(np.ones(300), 2).sum()  # 300 one-row folds: 0.15 s
    assert own == pytest.approx(0.15)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN + own)
    assert first.deadline == pytest.approx(start + 60 - 0.3 - END_MARGIN - own)
    second = loop.next_task()  # its deadline keeps both jobs' storing
    assert second.deadline == pytest.approx(start + 60 - 0.3 - END_MARGIN - 2 * own)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN + 2 * own)
    # without storing nothing is kept for it
    loop.settings = RunSettings(budget=60.0, protocol="loo", store=False)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN)
