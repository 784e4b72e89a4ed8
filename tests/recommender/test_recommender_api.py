"""The Recommender as a scikit-learn estimator: its parameters, its rankers and strategies,
cloning and grids, and what its fitted facade names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

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
from tests.recommender._fakes import random_kb, tiny_kb

QUERY = {"x": 0.4, "constant": 3.0}


def test_a_loss_or_a_time_is_refused_as_the_ranking_metric():
    kb = random_kb(n_datasets=8)
    kb._runs["log_loss"] = 1.0 - kb._runs["accuracy"]
    for metric, kind in (("log_loss", "is a loss"), ("fit_time", "is a time")):
        with pytest.raises(InvalidInputError, match=f"metric: '{metric}' {kind}") as err:
            Recommender(metric=metric).fit(kb)
        assert "higher is better: accuracy" in str(err.value)
        assert err.value.cli_message.startswith(f"--metric: '{metric}'")


def test_the_ranking_keywords_are_the_rankers_and_a_kb_in_evaluate_still_warns():
    """The ranking parameters belong to the ranker (``Recommender(A3RRanker(k=2))``); the
    facade takes none of them.  ``evaluate_recommender(kb, Recommender)`` still warns and
    gives what a matrix and a ranker give."""
    from metarec.recommender import evaluate_recommender

    for former in ({"strategy": "a3r"}, {"k": 3}, {"random_state": 0}, {"colour": "blue"}):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            Recommender(**former)
    rec = Recommender(A3RRanker(k=1, n=4, weights=None))
    with pytest.warns(FutureWarning, match="evaluate_recommender takes a PerformanceMatrix"):
        old = evaluate_recommender(tiny_kb(), rec, n_random=3)
    new = evaluate_recommender(
        PerformanceMatrix.from_kb(tiny_kb()), A3RRanker(k=1, n=4, weights=None), n_random=3
    )
    pd.testing.assert_frame_equal(old.summary, new.summary)
    pd.testing.assert_frame_equal(old.per_dataset, new.per_dataset)


def test_the_fitted_facade_names_its_datasets_algorithms_and_time_spread():
    """The fitted state is the ranker's (``ranker_``); the facade has no other attribute.
    ``time_spread`` is the factor of a ranking's interval within the KB's sizes, which
    widens beyond them."""
    kb = random_kb(seed=3)
    rec = Recommender(A3RRanker(k=3)).fit(kb)
    assert list(rec.datasets_) == list(rec.ranker_.datasets_)
    assert list(rec.algorithms_) == list(rec.ranker_.algorithms_)
    with pytest.raises(AttributeError):
        rec.accuracy_  # noqa: B018 - the ranker's, not the facade's
    spread = rec.time_spread()
    assert set(spread) == set(rec.algorithms_) and all(f >= 1.0 for f in spread.values())
    sizes = rec.ranker_.raw_metafeatures_["n_instances"].to_numpy(float)
    query = {"f1": 0.1, "f2": 0.5, "n_features": 10, "n_classes": 2}
    inside = rec.recommend(metafeatures={**query, "n_instances": float(np.median(sizes))})
    for row in inside:
        assert row.expected_time_high / row.expected_time == pytest.approx(spread[row.algorithm])
    beyond = rec.recommend(metafeatures={**query, "n_instances": 100 * float(sizes.max())})
    for row in beyond:
        assert row.expected_time_high / row.expected_time > 1.01 * spread[row.algorithm]
    with pytest.raises(NotFittedError):
        Recommender().time_spread()


def test_the_ranker_parameters_are_the_recommenders_nested_parameters():
    rec = Recommender(A3RRanker(k=5))
    params = rec.get_params(deep=True)
    assert params["ranker__k"] == 5 and params["ranker__n"] == 32
    assert {"ranker", "metric", "time", "task"} <= set(params)
    assert rec.set_params(ranker__k=3) is rec and rec.ranker.k == 3
    kb = random_kb(seed=2)
    fitted = rec.fit(kb)
    assert fitted.ranker_.k == 3  # the nested parameter reaches the fit
    assert len(fitted.recommend(metafeatures={"f1": 0.0, "f2": 0.5}).neighbours) == 3
    assert fitted.ranker_ is not rec.ranker and not hasattr(rec.ranker, "datasets_")
    with pytest.raises(ValueError, match="Invalid parameter"):
        rec.set_params(ranker__acc_d=0.2)  # a parameter A3R does not have


def test_a_recommender_clones_with_its_ranker():
    kb = random_kb(seed=2)
    rec = Recommender(A3RRanker(k=4, n=8), metric="accuracy", task="classification").fit(kb)
    copy = clone(rec)
    assert copy is not rec and copy.ranker is not rec.ranker
    assert type(copy.ranker) is A3RRanker and "ranker_" not in copy.__dict__
    without = {k: v for k, v in rec.get_params(deep=True).items() if k != "ranker"}
    assert {k: v for k, v in copy.get_params(deep=True).items() if k != "ranker"} == without
    query = {"f1": 0.3, "f2": 0.1}
    again = copy.fit(kb).recommend(metafeatures=query).to_frame()
    pd.testing.assert_frame_equal(again, rec.recommend(metafeatures=query).to_frame())
    assert clone(Recommender("ar", task="regression")).get_params()["ranker"] == "ar"


def test_a_parameter_grid_over_rankers_gives_recommenders_that_fit_and_rank():
    from sklearn.model_selection import ParameterGrid

    kb = random_kb(n_datasets=12, seed=4)
    grid = ParameterGrid({"ranker": [A3RRanker(), LearnedRanker()], "ranker__k": [2, 3]})
    base = Recommender()
    seen = set()
    for params in grid:
        rec = clone(clone(base).set_params(**params)).fit(kb)
        ranking = rec.recommend(metafeatures={"f1": 0.0, "f2": 0.5})
        seen.add((type(rec.ranker_).__name__, rec.ranker_.k, ranking.method))
        assert sorted(ranking.algorithms) == sorted(rec.algorithms_)
        assert len(ranking.neighbours) == rec.ranker_.k
    assert seen == {
        ("A3RRanker", 2, "a3r"),
        ("A3RRanker", 3, "a3r"),
        ("LearnedRanker", 2, "learned"),
        ("LearnedRanker", 3, "learned"),
    }


def test_a_strategys_name_is_its_ranker_with_the_tasks_defaults():
    from tests.recommender._fakes import FrameKB

    kb = random_kb(n_datasets=15, seed=6)
    query = {"f1": 0.2, "f2": 0.4}
    for name, ranker in (
        ("ar", AverageRankRanker(n=None)),
        ("ar*", AverageRankRanker(n=32)),
        ("a3r", A3RRanker()),
        ("arr", ARRRanker()),
    ):
        named = Recommender(name).fit(kb)
        assert named.strategy == name and named.ranker_.get_params() == ranker.get_params()
        pd.testing.assert_frame_equal(
            named.recommend(metafeatures=query).to_frame(),
            Recommender(ranker).fit(kb).recommend(metafeatures=query).to_frame(),
        )
    # "ar" and "ar*" are two strategies, not one
    assert Recommender("ar").fit(kb).rank().score_name == "average_rank"
    ar = Recommender("ar").fit(kb).recommend(metafeatures=query).to_frame()["score"]
    ar_star = Recommender("ar*").fit(kb).recommend(metafeatures=query).to_frame()["score"]
    assert not np.allclose(ar.to_numpy(), ar_star.to_numpy())
    # the learned strategy's defaults are the task's
    assert A3RRanker().k == ARRRanker().k == AverageRankRanker().k == 10
    assert LearnedRanker().run_floor == 0.3
    assert LearnedRanker.for_task("classification").get_params() == LearnedRanker().get_params()
    assert Recommender().fit(kb).ranker_.get_params() == LearnedRanker().get_params()
    regression = FrameKB(
        kb.runs(), kb.metafeatures(), tasks={d: "regression" for d in kb.runs()["dataset"]}
    )
    assert PerformanceMatrix.from_kb(regression).task == "regression"
    fitted = Recommender(task="regression").fit(regression).ranker_
    expected = LearnedRanker.for_task("regression").get_params()
    assert fitted.get_params() == expected != LearnedRanker().get_params()
    assert (expected["answer_n"], expected["answer_patience"], expected["run_floor"]) == (
        2.0,
        0.5,
        0.3,
    )
    assert expected["answer_margin"] == 0.1 and LearnedRanker().answer_margin is None
    assert (expected["n_estimators"], expected["min_samples_leaf"]) == (300, 5)
    assert fitted.task_ == "regression"
    assert Recommender("ar", task="regression").fit(regression).ranker_.task_ == "regression"


def test_unknown_strategies_and_parameters_are_refused():
    from metarec.recommender import strategy_names

    assert strategy_names() == ("learned", "a3r", "arr", "ar", "ar*")
    with pytest.raises(UnknownNameError, match="unknown strategy 'a3'"):
        make_ranker("a3")
    with pytest.raises(UnknownNameError, match="unknown strategy 'magic'"):
        Recommender("magic").fit(tiny_kb())
    with pytest.raises(InvalidInputError, match=r"strategy 'arr' \(ARRRanker\) has no param"):
        make_ranker("arr", n=3)
    with pytest.raises(InvalidInputError, match=r"'ar' does not take n=8: .* strategy 'ar\*'"):
        make_ranker("ar", n=8)  # a root makes it the other strategy
    with pytest.raises(InvalidInputError, match="task must be"):
        make_ranker("a3r", task="ranking")
    assert make_ranker("a3r", k=5).get_params() == A3RRanker(k=5).get_params()
    assert make_ranker("learned", task="regression", k=3).get_params() == (
        LearnedRanker.for_task("regression", k=3).get_params()
    )


def test_fit_like_ranks_as_a_fresh_fit_and_shares_the_runtime_model():
    matrix = PerformanceMatrix.from_kb(random_kb(n_datasets=20, seed=8))
    fitted = LearnedRanker(k=5, n_estimators=10, random_state=0).fit(matrix)
    seen = fitted.matrix()
    assert seen.datasets.tolist() == matrix.datasets.tolist() and seen.task == matrix.task
    np.testing.assert_array_equal(seen.accuracy, matrix.accuracy)
    queries = [matrix.metafeatures.iloc[i].dropna().to_dict() for i in (0, 7)]
    others = [
        A3RRanker(k=3, n=8),
        ARRRanker(k=4),
        AverageRankRanker(k=None),
        LearnedRanker(k=3, n_estimators=10, random_state=0, answer_n=None),  # the same model
        LearnedRanker(k=5, n_estimators=12, random_state=0),  # another model
    ]
    for other in others:
        like = clone(other).fit_like(fitted)
        fresh = clone(other).fit(matrix)
        assert like.runtime_ is fitted.runtime_ and fresh.runtime_ is not fitted.runtime_
        for i, query in zip((0, 7), queries, strict=True):
            exclude = [str(matrix.datasets[i])]
            pd.testing.assert_frame_equal(
                like.rank(query, exclude=exclude).to_frame(),
                fresh.rank(query, exclude=exclude).to_frame(),
            )
        pd.testing.assert_frame_equal(like.rank_stored().to_frame(), fresh.rank_stored().to_frame())
    same, another = (clone(r).fit_like(fitted) for r in others[3:])
    assert same.model_ is fitted.model_ and another.model_ is not fitted.model_
    with pytest.raises(NotFittedError):
        A3RRanker().fit_like(LearnedRanker())


def test_by_algorithm_folds_configurations_into_their_algorithm():
    from metarec.recommender._ranking import Neighbour, RankedAlgorithm

    def entry(name, rank, accuracy):
        return RankedAlgorithm(name, 1.0 / rank, rank, accuracy, 0.1 * rank, 3, basis="model")

    names = ["lightgbm_c07", "knn", "lightgbm", "knn_c02", "svc_rbf_c01", "lightgbm_c01"]
    ranking = Ranking(
        tuple(entry(n, i + 1, 0.9 - 0.01 * i) for i, n in enumerate(names)),
        (Neighbour("D1", 1.0, 1.0),),
        method="learned",
        run_order=("knn_c02", "lightgbm", "svc_rbf_c01", "knn", "lightgbm_c07", "lightgbm_c01"),
        tried=("knn_c05",),
    )
    folded = ranking.by_algorithm()
    # each algorithm keeps its configuration ranked first, under the algorithm's name
    assert folded.algorithms == ["lightgbm", "knn", "svc_rbf"]
    assert [e.configuration for e in folded] == ["lightgbm_c07", "knn", "svc_rbf_c01"]
    assert [e.rank for e in folded] == [1, 2, 3]
    assert [e.expected_accuracy for e in folded] == [0.9, 0.89, 0.86]
    # the run order keeps each algorithm at its first configuration's place
    assert folded.run_order == ("knn", "lightgbm", "svc_rbf") and folded.tried == ("knn",)
    frame = folded.to_frame()
    assert list(frame.columns[:2]) == ["algorithm", "configuration"]
    assert list(frame["run"]) == [2, 1, 3]
    assert "the first choice, lightgbm (configuration lightgbm_c07)" in folded.explain()
    # without configurations, or a budgeted plan: as it is
    assert "configuration" not in ranking.to_frame().columns
    plain = Ranking((entry("knn", 1, 0.9), entry("lda", 2, 0.8)))
    assert plain.by_algorithm() is plain
    plan = Ranking(ranking.entries, plan=tuple((1.0, 1.0) for _ in names), budget=5.0)
    assert plan.by_algorithm() is plan
