import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from metarec.automl import LabelledClassifier
from metarec.benchmark import build_pipeline, default_portfolio


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v"], size=n)})
    y = np.where(X["a"] > 0, "yes", "no")
    return X, y


def _pipeline():
    return build_pipeline(
        default_portfolio()["logistic_regression"],
        numeric_columns=("a",),
        categorical_columns=("b",),
        random_state=0,
    )


def test_predicts_the_original_labels_and_aligns_probabilities():
    X, y = _frame()
    model = LabelledClassifier(_pipeline()).fit(X, y)
    assert list(model.classes_) == ["no", "yes"]
    assert set(model.predict(X)) <= {"no", "yes"}
    assert model.score(X, y) > 0.9
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # the column of "yes" is high exactly where "yes" is predicted
    assert np.array_equal(model.predict(X) == "yes", proba[:, 1] > 0.5)


def test_from_fitted_wraps_a_pipeline_fitted_on_codes():
    X, y = _frame()
    codes = (y == "yes").astype(int)
    model = LabelledClassifier.from_fitted(_pipeline().fit(X, codes), ["no", "yes"], X.columns)
    assert list(model.feature_names_in_) == ["a", "b"]
    assert np.array_equal(
        model.predict(X), np.where(_pipeline().fit(X, codes).predict(X), "yes", "no")
    )


def test_clone_and_unfitted_use():
    model = clone(LabelledClassifier(_pipeline()))
    with pytest.raises(Exception, match="not fitted"):
        model.predict(_frame()[0])
