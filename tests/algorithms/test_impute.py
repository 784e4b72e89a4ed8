import numpy as np
import pandas as pd
import pytest
from sklearn.impute import SimpleImputer

from metarec.algorithms import MedianImputer, build_pipeline, default_portfolio


def test_medians_by_hand():
    X = np.array([[1.0, 10.0], [np.nan, 30.0], [3.0, np.nan], [8.0, 20.0]])
    imputer = MedianImputer().fit(X)
    # column 0: median of 1, 3, 8 = 3; column 1: median of 10, 30, 20 = 20
    assert imputer.statistics_.tolist() == [3.0, 20.0]
    out = imputer.transform(np.array([[np.nan, np.nan], [5.0, 6.0]]))
    assert out.tolist() == [[3.0, 20.0], [5.0, 6.0]]


def test_even_count_takes_the_mean_of_the_middle_two():
    imputer = MedianImputer().fit(np.array([[1.0], [2.0], [np.nan], [7.0], [10.0]]))
    assert imputer.statistics_.tolist() == [4.5]


def test_same_values_as_scikit_learn_median_imputer():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(301, 6))
    X[rng.random(X.shape) < 0.3] = np.nan
    test = rng.normal(size=(50, 6))
    test[rng.random(test.shape) < 0.3] = np.nan
    ours = MedianImputer().fit(X)
    theirs = SimpleImputer(strategy="median").fit(X)
    np.testing.assert_array_equal(ours.statistics_, theirs.statistics_)
    np.testing.assert_array_equal(ours.transform(test), theirs.transform(test))


def test_an_empty_column_is_kept_and_filled_with_zero():
    X = np.array([[1.0, np.nan], [2.0, np.nan]])
    out = MedianImputer().fit_transform(X)
    assert out.shape == (2, 2)
    assert out[:, 1].tolist() == [0.0, 0.0]


def test_frame_in_names_out_and_input_untouched():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [1, 2, 3]})
    imputer = MedianImputer().fit(frame)
    assert imputer.get_feature_names_out().tolist() == ["a", "b"]
    assert imputer.transform(frame)[1].tolist() == [2.0, 2.0]
    assert np.isnan(frame.loc[1, "a"])


def test_bad_input_is_refused():
    imputer = MedianImputer().fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="features"):
        imputer.transform(np.zeros((3, 3)))


def test_infinite_values_are_missing():
    X = np.array([[np.inf, 1.0], [1.0, -np.inf], [3.0, 5.0], [-np.inf, 7.0]])
    imputer = MedianImputer().fit(X)
    # column 0: median of 1, 3 = 2; column 1: median of 1, 5, 7 = 5
    assert imputer.statistics_.tolist() == [2.0, 5.0]
    out = imputer.transform(np.array([[-np.inf, np.inf], [4.0, np.nan]]))
    assert out.tolist() == [[2.0, 5.0], [4.0, 5.0]]
    assert np.isinf(X[0, 0])  # the input is not changed


def test_a_pipeline_fits_and_predicts_data_with_infinite_values():
    algorithm = default_portfolio()["logistic_regression"]
    pipeline = build_pipeline(algorithm, numeric_columns=("x", "z"), categorical_columns=())
    frame = pd.DataFrame({"x": [0.0, np.inf, 1.0, 1.2, -np.inf, -0.1], "z": [1.0] * 6})
    pipeline.fit(frame, [0, 1, 1, 1, 0, 0])
    assert pipeline.predict(frame.iloc[[1, 4]]).shape == (2,)


def test_pipelines_impute_numeric_columns_with_it():
    algorithm = default_portfolio()["gaussian_nb"]
    pipeline = build_pipeline(algorithm, numeric_columns=("x",), categorical_columns=())
    frame = pd.DataFrame({"x": [0.0, np.nan, 1.0, 1.2, np.nan, -0.1]})
    pipeline.fit(frame, [0, 1, 1, 1, 0, 0])
    numeric = pipeline.named_steps["prepare"].named_transformers_["numeric"]
    assert isinstance(numeric.named_steps["impute"], MedianImputer)
    assert numeric.named_steps["impute"].statistics_.tolist() == [0.5]


def test_other_column_names_are_refused():
    imputer = MedianImputer().fit(pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, np.nan]}))
    assert imputer.n_features_in_ == 2
    with pytest.raises(ValueError, match="feature names"):
        imputer.transform(pd.DataFrame({"b": [1.0], "a": [2.0]}))
    # an array carries no names: only the count is checked
    assert imputer.transform(np.array([[np.nan, np.nan]])).tolist() == [[1.5, 3.0]]


def test_an_array_fit_has_no_feature_names():
    imputer = MedianImputer().fit(pd.DataFrame({"a": [1.0, 2.0]}))
    imputer.fit(np.array([[1.0], [3.0]]))
    assert not hasattr(imputer, "feature_names_in_")
    assert imputer.get_feature_names_out().tolist() == ["x0"]
