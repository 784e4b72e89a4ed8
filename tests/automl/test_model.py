import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError as ScikitLearnNotFittedError

from metarec.algorithms import build_pipeline, default_portfolio
from metarec.automl import AveragedClassifier, AveragedRegressor, LabelledClassifier
from metarec.exceptions import NotFittedError


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


def test_a_classifier_without_probabilities_has_its_decision_function():
    """ridge estimates no probabilities: no predict_proba, and its confidence scores (for
    ROC curves and thresholds) through decision_function, of the label classes_[1]."""
    X, y = _frame()
    ridge = build_pipeline(
        default_portfolio()["ridge"], numeric_columns=("a",), categorical_columns=("b",),
        random_state=0,
    )  # fmt: skip
    model = LabelledClassifier(ridge).fit(X, y)
    assert not hasattr(model, "predict_proba")
    scores = model.decision_function(X)
    assert scores.shape == (len(X),)
    assert np.array_equal(scores > 0, model.predict(X) == "yes")
    assert np.array_equal(model.decision_function(X.to_numpy()), scores)  # an array too
    assert hasattr(LabelledClassifier(_pipeline()).fit(X, y), "decision_function")
    naive = build_pipeline(
        default_portfolio()["gaussian_nb"], numeric_columns=("a",), categorical_columns=("b",),
        random_state=0,
    )  # fmt: skip
    assert not hasattr(LabelledClassifier(naive).fit(X, y), "decision_function")


def test_clone_and_unfitted_use():
    model = clone(LabelledClassifier(_pipeline()))
    with pytest.raises(NotFittedError, match="not fitted"):
        model.predict(_frame()[0])


class _Member:
    """A fitted member with fixed outputs (class codes 0..2 or a subset of them)."""

    def __init__(self, classes, proba=None, codes=None, values=None):
        self.classes_ = np.asarray(classes)
        self._proba, self._codes, self._values = proba, codes, values

    def __getattr__(self, name):  # predict_proba only for a member given probabilities
        if name == "predict_proba" and self.__dict__.get("_proba") is not None:
            return lambda X: np.asarray(self._proba, dtype=float)
        raise AttributeError(name)

    def predict(self, X):
        return np.asarray(self._values if self._values is not None else self._codes)


def test_averaged_probabilities_by_hand():
    """Labels a, b, c.  Member 1: probabilities over all three; member 2 saw only codes 0
    and 2 (its columns go to a and c); member 3 has no probabilities and votes.

    Row 1: (0.2, 0.5, 0.3), (0.9, 0, 0.1), vote b -> mean (1.1/3, 1.5/3, 0.4/3): b.
    Row 2: (0.4, 0.2, 0.4), (0.5, 0, 0.5), vote c -> mean (0.9/3, 0.2/3, 1.9/3): c.
    Row 3: (0.5, 0.5, 0), (0, 0, 1), vote a -> (1.5/3, 0.5/3, 1/3): a.
    """
    members = [
        ("m1", _Member([0, 1, 2], proba=[[0.2, 0.5, 0.3], [0.4, 0.2, 0.4], [0.5, 0.5, 0.0]])),
        ("m2", _Member([0, 2], proba=[[0.9, 0.1], [0.5, 0.5], [0.0, 1.0]])),
        ("m3", _Member([0, 1, 2], codes=[1, 2, 0])),
    ]
    model = AveragedClassifier.from_fitted(members, ["a", "b", "c"], ["x"])
    expected = np.array([[1.1, 1.5, 0.4], [0.9, 0.2, 1.9], [1.5, 0.5, 1.0]]) / 3
    rows = pd.DataFrame({"x": [0.0, 0.0, 0.0]})  # the stand-in members ignore the rows
    np.testing.assert_allclose(model.predict_proba(rows), expected)
    assert list(model.predict(rows)) == ["b", "c", "a"]
    # a tie goes to the class of the smaller code
    tied = AveragedClassifier.from_fitted(
        [("v", _Member([0, 1], codes=[1])), ("w", _Member([0, 1], codes=[0]))], ["p", "q"], ["x"]
    )
    assert list(tied.predict(rows.iloc[:1])) == ["p"]


def test_averaged_regressor_by_hand():
    members = [("r1", _Member([], values=[1.0, 2.0])), ("r2", _Member([], values=[3.0, 6.0]))]
    model = AveragedRegressor.from_fitted(members, ["x"])
    np.testing.assert_allclose(model.predict(pd.DataFrame({"x": [0.0, 0.0]})), [2.0, 4.0])


def test_averaged_classifier_fits_clones_and_speaks_labels():
    X, y = _frame()
    members = [("lr", _pipeline()), ("nb", _pipeline().set_params(model__C=0.01))]
    model = AveragedClassifier(members).fit(X, y)
    assert list(model.classes_) == ["no", "yes"] and model.score(X, y) > 0.9
    assert list(model.feature_names_in_) == ["a", "b"]
    assert all(not hasattr(pipeline, "classes_") for _, pipeline in members)  # clones fitted
    with pytest.raises(ScikitLearnNotFittedError, match="not fitted"):
        clone(model).predict(X)


def test_auto_classifier_offers_what_its_answer_offers():
    from metarec import AutoClassifier

    X, y = _frame()
    auto = AutoClassifier()
    assert not hasattr(auto, "decision_function")  # unfitted: nothing to say yet
    ridge = build_pipeline(
        default_portfolio()["ridge"], numeric_columns=("a",), categorical_columns=("b",),
        random_state=0,
    )  # fmt: skip
    auto.best_estimator_ = LabelledClassifier(ridge).fit(X, y)  # as a search leaves it
    assert not hasattr(auto, "predict_proba")
    np.testing.assert_array_equal(
        auto.decision_function(X), auto.best_estimator_.decision_function(X)
    )
    auto.best_estimator_ = AveragedClassifier([("r", ridge), ("l", _pipeline())]).fit(X, y)
    assert hasattr(auto, "predict_proba") and not hasattr(auto, "decision_function")
