"""Hand-computed expected values for every metafeature group on small datasets."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import InvalidInputError, UnknownNameError
from metarec.metafeatures import GROUPS, describe, extract, metafeature_names
from metarec.metafeatures._info import discretize, n_bins
from metarec.metafeatures._landmarkers import cohen_kappa
from metarec.metafeatures._snr import classification_snr, regression_snr


# ---------------------------------------------------------------- general
def test_general_counts_and_missing():
    X = pd.DataFrame(
        {
            "a": [1.0, 2.0, np.nan, 4.0],
            "b": ["x", "y", "x", None],
            "c": [0, 1, 0, 1],
        }
    )
    y = pd.Series(["p", "q", "p", "q"])
    mf = extract(X, y, groups="general")
    assert mf["n_instances"] == 4
    assert mf["n_features"] == 3
    assert mf["dimensionality"] == pytest.approx(3 / 4)
    assert mf["log_n_instances"] == pytest.approx(math.log(4))
    assert mf["log_n_features"] == pytest.approx(math.log(3))
    assert mf["n_numeric_features"] == 2
    assert mf["n_categorical_features"] == 1
    assert mf["n_binary_features"] == 2  # c (0/1) and b (x/y)
    assert mf["pct_binary_features"] == pytest.approx(200 / 3)
    assert mf["n_missing_values"] == 2
    assert mf["pct_missing_values"] == pytest.approx(100 * 2 / 12)
    assert mf["n_instances_with_missing"] == 2
    assert mf["pct_instances_with_missing"] == 50.0
    assert mf["n_classes"] == 2
    assert mf["categorical_cardinality_mean"] == 2
    assert math.isnan(mf["categorical_cardinality_sd"])  # one categorical attribute
    assert "two attributes" in mf.reasons["categorical_cardinality_sd"]
    assert set(mf.timings) == {"general"}


# ---------------------------------------------------------------- imbalance
def test_imbalance_multiclass():
    y = pd.Series(["a"] * 6 + ["b"] * 3 + ["c"])
    X = pd.DataFrame({"x": np.arange(10.0)})
    mf = extract(X, y, groups="imbalance")
    assert mf["majority_class_size"] == 6
    assert mf["minority_class_size"] == 1
    assert mf["majority_class_pct"] == pytest.approx(60)
    assert mf["minority_class_pct"] == pytest.approx(10)
    assert mf["class_imbalance_ratio"] == 6
    assert mf["acir"] == pytest.approx((3 / 6 + 1 / 6) / 2)
    entropy = -(0.6 * math.log2(0.6) + 0.3 * math.log2(0.3) + 0.1 * math.log2(0.1))
    assert mf["class_entropy"] == pytest.approx(entropy)
    assert mf["normalized_class_entropy"] == pytest.approx(entropy / math.log2(3))


def test_binary_acir_is_inverse_ci():
    y = np.array([0] * 8 + [1] * 2)
    mf = extract(np.arange(10.0), y, groups="imbalance")
    assert mf["class_imbalance_ratio"] == 4
    assert 1 / mf["acir"] == pytest.approx(mf["class_imbalance_ratio"])
    assert mf["class_entropy"] == pytest.approx(-(0.8 * math.log2(0.8) + 0.2 * math.log2(0.2)))


def test_imbalance_undefined_for_regression():
    mf = extract(np.arange(50.0), np.linspace(0, 1, 50) ** 2, groups="imbalance")
    assert all(math.isnan(v) for v in mf.values())
    assert set(mf.reasons) == set(mf)


# ---------------------------------------------------------------- snr
def test_classification_snr_from_confusion():
    # confusion [[2, 1], [0, 2]]: signal 2^2 + 2^2 = 8, noise 1^2 = 1
    assert classification_snr(np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1]), 2) == 8
    # perfect: noise floored at 1 -> 3^2 + 2^2
    assert classification_snr(np.array([0, 0, 0, 1, 1]), np.array([0, 0, 0, 1, 1]), 2) == 13
    # three classes, [[1,1,0],[0,2,0],[1,0,1]]: signal 1+4+1, noise 1+1
    t = np.array([0, 0, 1, 1, 2, 2])
    p = np.array([0, 1, 1, 1, 2, 0])
    assert classification_snr(t, p, 3) == 3


def test_regression_snr_from_residuals():
    assert regression_snr(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0])) == 14
    assert regression_snr(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == 1e12
    assert regression_snr(np.zeros(3), np.zeros(3)) is None


def test_model_snr_end_to_end_separable():
    y = np.array([0] * 6 + [1] * 6)
    X = pd.DataFrame({"x": y * 10.0 + np.linspace(0, 0.5, 12)})
    mf = extract(X, y, groups="snr")
    assert mf["snr"] == 6**2 + 6**2  # perfect naive Bayes, noise floored at one count


def test_noise_to_signal_ratio_categorical():
    y = pd.Series([0, 0, 1, 1])
    X = pd.DataFrame({"copy": ["a", "a", "b", "b"], "noise": ["u", "v", "u", "v"]})
    mf = extract(X, y, groups="snr,info")
    # H = 1 and 1; MI = 1 and 0 -> (1 - 0.5) / 0.5
    assert mf["noise_to_signal_ratio"] == pytest.approx(1.0)
    assert mf["equivalent_n_attributes"] == pytest.approx(2.0)
    assert mf["attr_entropy_mean"] == pytest.approx(1.0)
    assert mf["mutual_info_max"] == pytest.approx(1.0)
    assert mf["mutual_info_min"] == pytest.approx(0.0)


def test_nsr_nan_when_attributes_carry_no_information():
    y = pd.Series([0, 1, 0, 1])
    X = pd.DataFrame({"noise": ["u", "u", "v", "v"]})
    mf = extract(X, y, groups="snr")
    assert math.isnan(mf["noise_to_signal_ratio"])
    assert "mutual information" in mf.reasons["noise_to_signal_ratio"]


# ---------------------------------------------------------------- info
def test_discretisation_sturges_equal_width():
    assert n_bins(4) == 3 and n_bins(1000) == 10
    x = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan]])
    assert discretize(x, 3)[:, 0].tolist() == [0, 1, 2, 2, -1]


def test_numeric_attribute_entropy():
    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})  # 3 bins: counts 1, 1, 2
    y = pd.Series([0, 0, 1, 1])
    mf = extract(X, y, groups="info")
    assert mf["attr_entropy_mean"] == pytest.approx(1.5)
    # bins {0: class 0, 1: class 0, 2: class 1 twice}: H(X|C)... MI = H(C) = 1
    assert mf["mutual_info_mean"] == pytest.approx(1.0)
    assert mf["equivalent_n_attributes"] == pytest.approx(1.0)


# ---------------------------------------------------------------- statistical
def test_skewness_kurtosis_hand_computed():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 10.0], "const": [5.0] * 4})
    y = [0, 1, 0, 1]
    mf = extract(X, y, groups="statistical")
    # deviations -3, -2, -1, 6: m2 = 12.5, m3 = 45, m4 = 348.5; the constant is left out
    assert mf["skewness_mean"] == pytest.approx(45 / 12.5**1.5)
    assert mf["kurtosis_mean"] == pytest.approx(348.5 / 12.5**2 - 3)
    assert math.isnan(mf["skewness_sd"])
    assert mf["numeric_mean_mean"] == pytest.approx((4 + 5) / 2)
    assert mf["numeric_sd_max"] == pytest.approx(math.sqrt(50 / 3))


def test_correlation_and_pca():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    X = pd.DataFrame({"a": a, "b": [1.0, -1.0, 1.0, -1.0], "const": 7.0})
    mf = extract(X, [0, 0, 1, 1], groups="statistical")
    assert mf["mean_abs_correlation"] == pytest.approx(2 / (2 * math.sqrt(5)))
    X2 = pd.DataFrame({"a": a, "b": 2 * a, "c": -a, "const": 1.0})
    mf2 = extract(X2, [0, 0, 1, 1], groups="statistical")
    assert mf2["mean_abs_correlation"] == pytest.approx(1.0)
    assert mf2["n_pca_components_95"] == 1
    assert mf2["pca_components_95_ratio"] == pytest.approx(1 / 3)


def test_outlier_percentage():
    X = pd.DataFrame(
        {
            "far": [1, 2, 3, 4, 5, 6, 7, 100.0],  # Q1 2.75, Q3 6.25, fence 16.75
            "near": np.arange(8.0),
            "flat": [0, 0, 0, 0, 0, 0, 0, 1.0],  # IQR 0: left out
        }
    )
    mf = extract(X, [0, 1] * 4, groups="statistical")
    assert mf["pct_attributes_with_outliers"] == 50.0


def test_canonical_correlation_single_attribute_equals_abs_pearson():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    y = np.array([0, 0, 1, 0, 1, 1])
    mf = extract(pd.DataFrame({"x": x}), y, groups="statistical")
    assert mf["canonical_correlation"] == pytest.approx(abs(np.corrcoef(x, y)[0, 1]))
    target = np.array([0.3, 1.1, 1.9, 3.2, 3.9, 5.5, 7.1])  # regression: multiple R
    x2 = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    mf = extract(pd.DataFrame({"x": x2}), target, groups="statistical", task="regression")
    assert mf["canonical_correlation"] == pytest.approx(abs(np.corrcoef(x2, target)[0, 1]))


def test_statistical_without_numeric_attributes():
    mf = extract(pd.DataFrame({"c": list("abab")}), [0, 1, 0, 1], groups="statistical")
    assert all(math.isnan(v) for v in mf.values())
    assert set(mf.reasons) == set(mf)


# ---------------------------------------------------------------- landmarkers
def test_cohen_kappa_hand_computed():
    # po = 0.75, pe = (2*1 + 2*3) / 16 = 0.5
    assert cohen_kappa(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]), 2) == pytest.approx(0.5)
    assert cohen_kappa(np.array([0, 0]), np.array([0, 0]), 1) is None


def test_landmarkers_perfect_on_threshold_problem():
    x = np.r_[np.arange(10.0), np.arange(20.0, 30.0)]  # a wide gap between the classes
    y = (x >= 15).astype(int)
    mf = extract(pd.DataFrame({"x": x}), y, groups="landmarkers")
    for learner in ("1nn", "decision_stump", "naive_bayes", "lda", "random_node"):
        assert mf[f"landmark_{learner}_accuracy"] == 1.0, learner
        assert mf[f"landmark_{learner}_kappa"] == 1.0, learner
        assert mf[f"landmark_{learner}_fit_time"] >= 0.0


def test_stump_beats_random_node_when_only_one_attribute_matters():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(rng.normal(size=(n, 10)), columns=[f"n{i}" for i in range(10)])
    y = (X["n3"] > 0).astype(int)
    accuracies = [
        extract(X, y, groups="landmarkers", random_state=s)["landmark_random_node_accuracy"]
        for s in range(3)
    ]
    best = extract(X, y, groups="landmarkers")["landmark_decision_stump_accuracy"]
    assert best > 0.95
    assert min(accuracies) < 0.8  # some random attribute is useless


def test_landmarkers_nan_for_regression_and_single_rows():
    mf = extract(np.arange(40.0), np.linspace(0, 3, 40) ** 2, groups="landmarkers")
    assert all(math.isnan(v) for v in mf.values())
    assert all("regression" in r for r in mf.reasons.values())
    mf = extract(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), ["a", "b", "c"], groups="landmarkers")
    assert all(math.isnan(v) for v in mf.values()) and set(mf.reasons) == set(mf)


def test_landmarkers_reproducible_with_random_state():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 5))
    y = rng.integers(0, 3, size=120)
    a = extract(X, y, groups="landmarkers", random_state=7)
    b = extract(X, y, groups="landmarkers", random_state=7)
    keys = [k for k in a if k.endswith(("accuracy", "kappa"))]
    assert [a[k] for k in keys] == [b[k] for k in keys]


# ---------------------------------------------------------------- extract API
def test_extract_api_contract():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.choice(list("xyz"), 60)})
    y = rng.integers(0, 2, 60)
    mf = extract(X, y)
    assert mf.groups == GROUPS
    assert list(mf) == metafeature_names()
    assert set(mf.timings) == set(GROUPS)
    assert all(t >= 0 for t in mf.timings.values())
    fixed = [
        "n_instances", "n_features", "n_numeric_features", "n_categorical_features",
        "n_classes", "pct_missing_values", "dimensionality", "log_n_instances",
        "log_n_features", "majority_class_size", "minority_class_size", "majority_class_pct",
        "minority_class_pct", "class_imbalance_ratio", "acir", "class_entropy",
        "normalized_class_entropy", "snr", "noise_to_signal_ratio",
    ]  # fmt: skip
    assert all(name in mf for name in fixed)
    series = mf.to_series()
    assert series.dtype == "float64" and len(series) == len(mf)
    frame = mf.to_frame("ds")
    assert frame.columns[0] == "dataset" and frame.shape == (1, len(mf) + 1)
    assert "Rivolli" in describe("acir") or "2412.07244" in describe("acir")


def test_every_feature_documented_with_references():
    for name in metafeature_names():
        assert "References" in describe(name), name


def test_extract_errors():
    with pytest.raises(UnknownNameError, match="'nope'"):
        extract(np.zeros((3, 1)), [0, 1, 0], groups="nope")
    with pytest.raises(InvalidInputError, match="3 rows but y has 2"):
        extract(np.zeros((3, 1)), [0, 1])
    with pytest.raises(InvalidInputError, match="entirely missing"):
        extract(np.zeros((2, 1)), [np.nan, np.nan])
    with pytest.raises(InvalidInputError, match="no rows"):
        extract(np.zeros((0, 1)), [])


def test_missing_target_rows_dropped():
    mf = extract(np.arange(5.0), [0, 1, None, 0, 1], groups="general")
    assert mf["n_instances"] == 4 and mf.n_dropped_target == 1


def test_quartiles_match_numpy_linear_method():
    from metarec.metafeatures._statistical import quartiles

    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 5, 10, 101):
        x = rng.normal(size=(n, 4))
        q1, q3 = quartiles(x)
        np.testing.assert_allclose(q1, np.quantile(x, 0.25, axis=0))
        np.testing.assert_allclose(q3, np.quantile(x, 0.75, axis=0))
    # by hand: 1..5 -> q1 = 2, q3 = 4; 1..4 -> positions 0.75 and 2.25: 1.75 and 3.25
    assert quartiles(np.arange(1.0, 6.0)[:, None]) == (2.0, 4.0)
    q1, q3 = quartiles(np.arange(1.0, 5.0)[:, None])
    assert (q1[0], q3[0]) == (1.75, 3.25)


def test_count_binary_numeric_by_hand():
    from metarec.metafeatures._general import _count_binary_numeric

    n = 1500
    x = np.zeros((n, 5))
    x[::2, 0] = 1.0  # 0/1: binary
    x[::3, 1] = 5.0
    x[-1, 1] = 7.0  # a third value only after the first 1000 rows: not binary
    x[:, 2] = np.nan
    x[::2, 3] = np.nan  # one value and NaN: not binary
    x[1::2, 4] = -2.0
    x[::4, 4] = np.nan  # two values and NaN: binary
    assert _count_binary_numeric(x) == 2


def test_lda_landmarker_survives_between_class_directions_of_rank_zero():
    """Found by the property test: one attribute varying in one row of one class only."""
    values = [0] * 30
    values[13] = 1
    labels = ["yes"] * 16 + ["no"] * 14
    result = extract(pd.DataFrame({"f": values}), np.array(labels), groups="landmarkers")
    # folds where the one varying row is left out: the nearest class mean, as LDA's limit
    assert 0.0 <= result["landmark_lda_accuracy"] <= 1.0


def test_a_metafeature_set_is_immutable_and_pickles():
    import pickle

    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0.0, 1.0, 0.0, 1.0]})
    mf = extract(X, [0, 1, 0, 1], groups="general")
    with pytest.raises(AttributeError, match="immutable"):
        mf.groups = ("info",)
    with pytest.raises(TypeError):
        mf.timings["general"] = 0.0  # a read-only view
    with pytest.raises(TypeError):
        mf["n_instances"] = 5.0
    back = pickle.loads(pickle.dumps(mf))
    assert dict(back) == pytest.approx(dict(mf), nan_ok=True)
    assert back.groups == mf.groups and dict(back.timings) == dict(mf.timings)
    assert dict(back.reasons) == dict(mf.reasons) and back.n_dropped_target == 0
