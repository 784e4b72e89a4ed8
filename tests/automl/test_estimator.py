"""AutoClassifier and AutoRegressor as estimators: fit, predict, save, clone, bad input."""

from __future__ import annotations

import time

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from metarec.algorithms import default_portfolio
from metarec.automl import (
    AutoClassifier,
    AutoRegressor,
    AveragedClassifier,
    LabelledClassifier,
    RunSettings,
)
from metarec.data import load_dataset
from metarec.exceptions import BenchmarkError, InvalidInputError, NotFittedError
from metarec.recommender import PerformanceMatrix
from metarec.storage import KnowledgeBase
from tests.automl._fakes import FixedRecommender, regression_dataset, toy_frame, toy_search

#: Seconds of the fitted fixture's search (far more than it needs).
FIT_BUDGET = 240


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("METAREC_HOME", str(home))
        X, y = toy_frame(300, seed=1)
        url = f"sqlite:///{home / 'kb.sqlite'}"
        # a budget far beyond what 300 rows need (about 15 s): every algorithm runs; the
        # default answer (an average).  It stays below pytest's timeout of a test (300 s in
        # pyproject.toml), which counts this fixture in its first test.
        auto = AutoClassifier(budget=FIT_BUDGET, kb=url, random_state=0).fit(X, y)
        yield auto, url, X, y


def test_auto_classifier_fits_predicts_and_explains(fitted):
    auto, url, X, y = fitted
    board = auto.leaderboard_
    assert board.iloc[0]["algorithm"] == auto.best_algorithm_
    eligible = board[board["selection_score"].notna()]
    assert list(eligible["selection_score"]) == sorted(eligible["selection_score"], reverse=True)
    # every installed algorithm of the portfolio ran all its folds, the configurations the
    # built-in knowledge base knows included
    portfolio = default_portfolio(configurations=True)
    assert set(board["algorithm"]) == {a.name for a in portfolio if a.is_installed()}
    assert (board["status"] == "ok").all() and len(eligible) == len(board)
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
    # the default answer: an equal-weight average of the three best of the leaderboard and
    # the knowledge base's single best algorithm (on 300 rows every one joins), each
    # refitted on every row
    result = auto.search_
    top = list(eligible["algorithm"][:3])
    anchor = PerformanceMatrix.from_kb(kb, task="classification").single_best(
        exclude=[result.dataset]
    )
    assert anchor is not None
    joins = anchor in set(eligible["algorithm"]) and anchor not in top
    assert list(result.members) == top + [anchor] * joins
    assert result.weights == pytest.approx([1 / len(result.members)] * len(result.members))
    assert result.answer == "average" and auto.ensemble_ == result.members
    model = auto.best_estimator_
    assert isinstance(model, AveragedClassifier) and list(model.classes_) == ["no", "yes"]
    members = [
        LabelledClassifier.from_fitted(m, model.classes_, X.columns) for m in model.estimators_
    ]
    votes = [
        m.predict_proba(X) if hasattr(m, "predict_proba") else np.eye(2)[m.pipeline_.predict(X)]
        for m in members
    ]
    np.testing.assert_allclose(auto.predict_proba(X), np.mean(votes, axis=0))
    in_answer = board["message"].str.startswith("in the answer, weight")
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


def test_a_save_that_fails_leaves_the_old_files_and_no_temporary_one(fitted, tmp_path, monkeypatch):
    auto = fitted[0]
    model_path, sidecar = auto.save(tmp_path / "model.joblib")
    before = model_path.read_bytes(), sidecar.read_text()

    def full_disk(value, filename, *args, **kwargs):
        with open(filename, "wb") as handle:
            handle.write(b"half a model")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(joblib, "dump", full_disk)
    with pytest.raises(OSError, match="No space"):
        auto.save(model_path)
    assert (model_path.read_bytes(), sidecar.read_text()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.joblib", "model.json"]


def test_the_saved_model_predicts_as_in_process(fitted, tmp_path):
    auto, _, X, y = fitted
    model_path, sidecar = auto.save(tmp_path / "model.joblib")
    held_out, _ = toy_frame(100, seed=7)
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
        ({"budget": 0.5}, "a budget of 0.5 is too short: a search needs at least 1 s"),
        ({"protocol": "cv7"}, "unknown protocol"),
        ({"metric": "f1"}, "unknown metric"),
        ({"ensemble_size": 0}, "ensemble_size"),
        ({"ensemble_size": 1.5}, "ensemble_size"),
        ({"ensemble_size": True}, "ensemble_size"),
        ({"ensemble_size": "many"}, "ensemble_size"),
        ({"random_state": None}, "random_state must be a whole number"),
        ({"random_state": np.random.RandomState(0)}, "random_state must be a whole number"),
        ({"portfolio": ["knn"]}, "portfolio must be a Portfolio"),
        ({"portfolio": "missing.json"}, "portfolio file not found"),
    ],
)
def test_bad_settings_are_refused_before_any_work(tmp_path, params, message):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    X, y = toy_frame()
    with pytest.raises((BenchmarkError, ValueError), match=message):
        AutoClassifier(kb=url, **params).fit(X, y)
    assert not (tmp_path / "kb.sqlite").exists() or KnowledgeBase(url).count("runs") in (0, 38650)


def test_a_regression_search_keeps_the_best_regressor_and_stores_r2(tmp_path):
    import pandas as pd

    from metarec.automl import AveragedRegressor
    from metarec.automl._search import search as run_search

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    X, y = regression_dataset()
    ds = load_dataset(X.assign(price=y), target="price", name="prices")
    fixed = FixedRecommender([("knn_regressor", 0.8, 0.01), ("mean", 0.0, 0.01),
                    ("linear_regression", 0.9, 0.01)])  # fmt: skip
    portfolio = default_portfolio(task="regression").select(
        ["mean", "linear_regression", "knn_regressor"]
    )
    start = time.perf_counter()
    settings = RunSettings(budget=60, ensemble_method="selection")
    result = run_search(ds, kb, settings, deadline=start + 60, start=start,
                        recommender=fixed, portfolio=portfolio)  # fmt: skip
    assert result.best == "linear_regression"
    # selection keeps the best alone (the others only worsen its out-of-fold predictions),
    # behind the wrapper that reads any X as an average does
    assert isinstance(result.model, AveragedRegressor) and len(result.model.estimators_) == 1
    assert np.corrcoef(result.model.predict(X), y)[0, 1] > 0.99
    expected = result.model.predict(X)
    np.testing.assert_allclose(result.model.predict(X.to_numpy()), expected)  # an array
    nullable = X.astype("Float64")
    nullable.iloc[0, 0] = pd.NA  # pandas' nullable column with a gap: taken as in training
    assert np.isfinite(result.model.predict(nullable)).all()
    scores = {t.algorithm: t.cv_score for t in result.trials}
    assert scores["mean"] == 0.0 and scores["linear_regression"] > 0.99  # R² clipped at 0
    runs = kb.runs(aggregate=False)
    assert set(runs["algorithm"]) == {"mean", "linear_regression", "knn_regressor"}
    assert runs["r2"].notna().all() and "nosimple_auc" not in runs.columns
    assert kb.datasets().set_index("name").loc["prices", "task"] == "regression"


def test_bad_x_and_y_are_refused_in_the_words_of_the_python_api(tmp_path):
    import scipy.sparse

    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    X, y = toy_frame()
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
    fixed = FixedRecommender(
        [("gaussian_nb", 0.8, 50.0), ("majority", 0.5, 50.0), ("knn", 0.9, 50.0)]
    )
    result = toy_search(kb, fixed, budget=5.0)
    assert result.model is None
    X, y = toy_frame()
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
    X, y = regression_dataset()
    with pytest.raises(BenchmarkError, match="y looks continuous; AutoClassifier chooses"):
        AutoClassifier(kb=url).fit(X, y)
    X, labels = toy_frame()
    with pytest.raises(BenchmarkError, match="y looks like class labels; AutoRegressor"):
        AutoRegressor(kb=url).fit(X, labels)
    X, y = regression_dataset()
    with pytest.raises(BenchmarkError, match="unknown metric 'tau' for a regression target"):
        AutoRegressor(kb=url, metric="tau").fit(X, y)


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
    monkeypatch.setattr("metarec.storage.open_seeded", open_run_kb)
    monkeypatch.setattr(module, "search", fake_search)
    X, y = toy_frame()
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
    from metarec.execution import stored_name

    X, y = toy_frame(n=60)
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


def test_the_estimator_chosen_decides_what_whole_numbers_are():
    """25 ages of 3 rows each are a quantity by the loader's rule (a median of 3 rows per
    value), but classes to an AutoClassifier (its user chose), without a note; an
    AutoRegressor takes five codes as a quantity; a fraction is a quantity to either."""
    import warnings

    from metarec.data import infer_task

    rng = np.random.default_rng(0)
    ages = rng.permutation(np.repeat(np.arange(20, 45), 3))
    assert infer_task(pd.Series(ages)) == "regression"
    X = pd.DataFrame({"a": rng.normal(size=ages.size)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the estimator was chosen: no advice to regress
        ds = AutoClassifier(budget=5, kb=None)._dataset(X, ages)
    assert ds.task == "multiclass" and ds.y.nunique() == 25
    codes = rng.permutation(np.repeat(np.arange(1, 6), 10))
    assert infer_task(pd.Series(codes)) == "multiclass"
    X = pd.DataFrame({"a": rng.normal(size=codes.size)})
    assert AutoRegressor(kb=None)._dataset(X, codes).task == "regression"
    assert AutoClassifier(kb=None)._dataset(X, codes).task == "multiclass"
    fractions = codes + 0.5 * (codes == 5)
    assert AutoClassifier(kb=None)._dataset(X, fractions).task == "regression"
    words = np.where(codes > 2, "high", "low")  # labels as text: detected as they are
    assert AutoClassifier(kb=None)._dataset(X, words).task == "binary"


def test_an_algorithm_outside_the_default_portfolio_goes_from_the_kb_to_a_fitted_model(
    tmp_path, monkeypatch
):
    """An algorithm of a portfolio file, benchmarked into a small knowledge base, is
    searched, refitted and stored by a search given that portfolio: the model is its own
    (the refit and the storing build it from the search's portfolio, not the default one).
    A file's path as ``portfolio`` adds its algorithms to the default ones."""
    import json

    from metarec.algorithms import load_portfolio
    from metarec.benchmark import run_benchmark

    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "home"))
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"algorithms": [
        {"name": "nearest_centroid", "estimator": "sklearn.neighbors:NearestCentroid",
         "family": "neighbors", "scale": True}]}))  # fmt: skip
    assert "nearest_centroid" not in default_portfolio(task="all", configurations=True).names
    portfolio = load_portfolio(extra)  # the default portfolio and the file's algorithm
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    datasets = []
    for seed in range(5):
        X, y = toy_frame(120, seed=seed)
        datasets.append(load_dataset(X.assign(target=y), target="target", name=f"toy{seed}"))
    run_benchmark(
        datasets, kb, portfolio=portfolio, algorithms=["nearest_centroid", "majority"],
        protocol="cv5", cache_dir=tmp_path / "cache",
    )  # fmt: skip
    X, y = toy_frame(200, seed=9)
    auto = AutoClassifier(
        budget=120, kb=kb, portfolio=portfolio.select(["nearest_centroid"]), ensemble_size=1
    ).fit(X, y)
    assert auto.best_algorithm_ == "nearest_centroid" and auto.ensemble_ == ("nearest_centroid",)
    assert auto.search_.trial("nearest_centroid").status == "ok"
    assert (auto.predict(X) == y).mean() > 0.6
    assert auto.describe()["estimator"] == "sklearn.neighbors:NearestCentroid"
    stored = kb.runs(aggregate=False, datasets=[auto.search_.dataset])
    assert set(stored["algorithm"]) == {"nearest_centroid"} and len(stored) == 5
    # a path: the file's algorithms join the default ones (and their configurations)
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    chosen = AutoClassifier(portfolio=str(extra))._portfolio(ds)
    assert {"nearest_centroid", "logistic_regression", "knn_c01"} <= set(chosen.names)
    assert {a.task for a in chosen} == {"classification"}  # the data's task only


def test_a_fit_over_the_memory_cap_fails_as_an_error_and_the_search_answers_with_the_rest(
    tmp_path, monkeypatch
):
    """``memory_limit_mb`` reaches the workers: an algorithm whose fit allocates 4,000 MB
    fails every fold under a cap of 1,500 MB ("exceeded the memory cap"), and the answer is
    the one that fitted.  The same algorithm allocating 1 MB was benchmarked into the
    knowledge base, so it is a candidate, recommended like any other."""
    import json

    from metarec.algorithms import load_portfolio
    from metarec.benchmark import run_benchmark

    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "home"))

    def portfolio_of(megabytes):
        path = tmp_path / f"greedy{megabytes}.json"
        path.write_text(json.dumps({"algorithms": [
            {"name": "greedy", "estimator": "tests.benchmark.estimators:GreedyClassifier",
             "params": {"megabytes": megabytes}, "family": "test", "scale": False},
            {"name": "nearest_centroid", "estimator": "sklearn.neighbors:NearestCentroid",
             "family": "neighbors", "scale": True}]}))  # fmt: skip
        return load_portfolio(path, include_default=False)

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    datasets = []
    for seed in range(4):
        X, y = toy_frame(120, seed=seed)
        datasets.append(load_dataset(X.assign(target=y), target="target", name=f"toy{seed}"))
    run_benchmark(datasets, kb, portfolio=portfolio_of(1), protocol="cv5",
                  cache_dir=tmp_path / "cache")  # fmt: skip
    X, y = toy_frame(200, seed=9)
    auto = AutoClassifier(
        budget=120, kb=kb, portfolio=portfolio_of(4000), ensemble_size=1, memory_limit_mb=1500
    ).fit(X, y)
    greedy = auto.search_.trial("greedy")
    assert greedy.status == "error"
    assert "exceeded the memory cap of 1500" in greedy.message
    assert auto.ensemble_ == ("nearest_centroid",)


@pytest.mark.parametrize("value", [0, -5, float("nan"), "1 GB", True])
def test_a_memory_limit_that_is_not_a_positive_number_is_refused(value):
    X, y = toy_frame(40, seed=0)
    with pytest.raises(InvalidInputError, match="memory_limit_mb must be a positive number"):
        AutoClassifier(budget=5, memory_limit_mb=value).fit(X, y)
