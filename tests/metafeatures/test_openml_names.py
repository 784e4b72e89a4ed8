"""Tests of the OpenML quality-name translation."""

from __future__ import annotations

import math

import pytest

from metarec.metafeatures import (
    OPENML_QUALITY_MAP,
    extract,
    metafeature_names,
    translate_openml_qualities,
)

# Real quality names (OpenML dataset 2, "anneal", values rounded).
ANNEAL = {
    "NumberOfInstances": 898.0,
    "NumberOfFeatures": 39.0,
    "NumberOfNumericFeatures": 6.0,
    "NumberOfSymbolicFeatures": 33.0,
    "NumberOfClasses": 5.0,
    "NumberOfMissingValues": 0.0,
    "MajorityClassSize": 684.0,
    "MinorityClassSize": 8.0,
    "MajorityClassPercentage": 76.17,
    "ClassEntropy": 1.19,
    "MeanMutualInformation": 0.04,
    "MeanNoiseToSignalRatio": -1.0,
    "EquivalentNumberOfAtts": -1.0,
    "kNN1NErrRate": 0.0089,
    "kNN1NKappa": 0.98,
    "kNN1NAUC": 0.99,
    "DecisionStumpErrRate": 0.2283,
    "NaiveBayesErrRate": 0.1359,
    "RandomTreeDepth1ErrRate": 0.0223,
    "LinearDiscriminantAnalysisErrRate": 0.05,
    "J48.00001.ErrRate": 0.01,
    "AutoCorrelation": 0.9,
}


def test_renames_and_transforms():
    out = translate_openml_qualities(ANNEAL)
    assert out["n_instances"] == 898
    assert out["n_features"] == 38  # the target is not a feature
    assert out["n_categorical_features"] == 32  # nominal target removed (classification)
    assert out["n_numeric_features"] == 6
    assert out["n_classes"] == 5
    assert out["dimensionality"] == pytest.approx(38 / 898)
    assert out["log_n_instances"] == pytest.approx(math.log(898))
    assert out["log_n_features"] == pytest.approx(math.log(38))
    assert out["pct_missing_values"] == 0.0
    assert out["class_imbalance_ratio"] == pytest.approx(684 / 8)
    assert "acir" not in out  # five classes: ACIR needs every class size
    assert out["normalized_class_entropy"] == pytest.approx(1.19 / math.log2(5))
    assert out["landmark_1nn_accuracy"] == pytest.approx(1 - 0.0089)
    assert out["landmark_1nn_kappa"] == 0.98
    assert out["landmark_decision_stump_accuracy"] == pytest.approx(1 - 0.2283)
    assert out["landmark_naive_bayes_accuracy"] == pytest.approx(1 - 0.1359)
    assert out["landmark_random_node_accuracy"] == pytest.approx(1 - 0.0223)
    assert out["landmark_lda_accuracy"] == pytest.approx(0.95)
    # OpenML's -1 sentinels are dropped, unknown qualities too
    assert "noise_to_signal_ratio" not in out and "equivalent_n_attributes" not in out
    assert not any(k.startswith("openml_") for k in out)
    assert all(math.isfinite(v) for v in out.values())


def test_unknown_kept_with_prefix():
    out = translate_openml_qualities(ANNEAL, keep_unknown=True)
    assert out["openml_kNN1NAUC"] == 0.99
    assert out["openml_AutoCorrelation"] == 0.9
    assert out["openml_J48.00001.ErrRate"] == 0.01


def test_binary_acir_and_regression_counts():
    out = translate_openml_qualities(
        {"NumberOfClasses": 2, "MajorityClassSize": 80, "MinorityClassSize": 20}
    )
    assert out["acir"] == pytest.approx(0.25)
    assert 1 / out["acir"] == pytest.approx(out["class_imbalance_ratio"])
    regression = translate_openml_qualities(
        {"NumberOfClasses": 0, "NumberOfSymbolicFeatures": 3, "NumberOfFeatures": 10}
    )
    assert regression["n_categorical_features"] == 3  # numeric target: nothing to remove
    assert regression["n_features"] == 9


def test_garbage_values_ignored():
    out = translate_openml_qualities(
        {"NumberOfInstances": None, "NumberOfClasses": float("nan"), "MajorityClassSize": "x"}
    )
    assert out == {}


def test_map_targets_are_metarec_names():
    produced = set(metafeature_names())
    assert set(OPENML_QUALITY_MAP.values()) <= produced


def test_translation_agrees_with_extraction():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    mf = extract(X, y, groups="general,imbalance")
    qualities = {
        "NumberOfInstances": 150,
        "NumberOfFeatures": 5,
        "NumberOfNumericFeatures": 4,
        "NumberOfSymbolicFeatures": 1,
        "NumberOfClasses": 3,
        "MajorityClassSize": 50,
        "MinorityClassSize": 50,
        "ClassEntropy": math.log2(3),
        "NumberOfMissingValues": 0,
    }
    for name, value in translate_openml_qualities(qualities).items():
        assert mf[name] == pytest.approx(value), name
