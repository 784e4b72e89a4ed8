from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from metarec.benchmark import build_pipeline, default_portfolio, load_portfolio
from metarec.exceptions import BenchmarkError, UnknownNameError

EXPECTED = {
    "majority",
    "logistic_regression",
    "ridge",
    "lda",
    "qda",
    "gaussian_nb",
    "bernoulli_nb",
    "knn",
    "svc_linear",
    "svc_rbf",
    "svc_poly",
    "decision_tree",
    "extra_tree",
    "random_forest",
    "extra_trees",
    "gradient_boosting",
    "hist_gradient_boosting",
    "adaboost",
    "mlp",
    "sgd",
}


def test_default_portfolio_has_the_documented_twenty():
    portfolio = default_portfolio()
    assert set(portfolio.names) == EXPECTED
    assert len(portfolio) == 20


@pytest.mark.slow
def test_every_default_algorithm_fits_mixed_data_with_missing_values():
    rng = np.random.default_rng(0)
    n = 60
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            "colour": rng.choice(["red", "green", None], size=n),
        }
    )
    y = (X["a"] > 0).astype(int).to_numpy()
    for algorithm in default_portfolio():
        pipe = build_pipeline(
            algorithm, numeric_columns=["a", "b"], categorical_columns=["colour"], random_state=0
        )
        pipe.fit(X, y)
        assert pipe.predict(X).shape == (n,), algorithm.name
    # the baseline really is the majority class
    pipe = build_pipeline(
        default_portfolio()["majority"], numeric_columns=["a", "b"], categorical_columns=["colour"]
    )
    pipe.fit(X, y)
    assert set(pipe.predict(X)) == {np.bincount(y).argmax()}


def test_random_state_reaches_the_estimator():
    est = default_portfolio()["random_forest"].make_estimator(random_state=42)
    assert est.random_state == 42
    # estimators without the parameter are left alone
    assert (
        "random_state" not in default_portfolio()["knn"].make_estimator(random_state=1).get_params()
    )


def test_user_portfolio_is_added_to_the_default(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(
        json.dumps(
            {
                "algorithms": [
                    {
                        "name": "knn_15",
                        "estimator": "sklearn.neighbors:KNeighborsClassifier",
                        "params": {"n_neighbors": 15},
                        "family": "neighbours",
                        "scale": True,
                    }
                ]
            }
        )
    )
    portfolio = load_portfolio(path)
    assert len(portfolio) == 21
    assert portfolio["knn_15"].make_estimator().n_neighbors == 15
    assert load_portfolio(path, include_default=False).names == ["knn_15"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"algos": []}, "list 'algorithms'"),
        ({"algorithms": [{"name": "x"}]}, "lacks estimator"),
        ({"algorithms": [{"name": "Bad Name", "estimator": "a:b"}]}, "must be lower case"),
        ({"algorithms": [{"name": "x", "estimator": "sklearn.svm.SVC"}]}, "module:ClassName"),
        ({"algorithms": [{"name": "x", "estimator": "a:b", "colour": 1}]}, "unknown keys"),
        ({"algorithms": [{"name": "knn", "estimator": "a:b"}]}, "repeated: knn"),
    ],
)
def test_invalid_portfolio_files_are_rejected(tmp_path, document, message):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    with pytest.raises(BenchmarkError, match=message):
        load_portfolio(path)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(BenchmarkError, match="not found"):
        load_portfolio(tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(BenchmarkError, match="cannot read"):
        load_portfolio(broken)


def test_unimportable_estimator_names_the_algorithm(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"algorithms": [{"name": "ghost", "estimator": "nowhere:Nothing"}]}))
    algorithm = load_portfolio(path, include_default=False)["ghost"]
    with pytest.raises(BenchmarkError, match="ghost"):
        algorithm.make_estimator()


def test_unknown_name_lists_the_portfolio():
    with pytest.raises(UnknownNameError, match="unknown algorithm 'xgb'"):
        default_portfolio().select(["xgb"])
