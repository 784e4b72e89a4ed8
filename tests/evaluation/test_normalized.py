import numpy as np
import pytest

from metarec.evaluation import (
    dimensionality_factor,
    imbalance_factor,
    multiclass_imbalance_factor,
    normalized_binary_metric,
    normalized_clustering_metric,
    normalized_metric,
    normalized_multiclass_metric,
    normalized_regression_metric,
    regression_snr,
    snr_factor,
)
from metarec.exceptions import InvalidInputError

SIG1 = 1 / (1 + np.exp(-1))  # sigmoid(1) = 0.7310586


def test_dimensionality_factor_hand_computed():
    assert dimensionality_factor(5, 100) == pytest.approx(
        1.0
    )  # d = 5 % of N: sigmoid(0) - sigmoid(0)
    assert dimensionality_factor(1, 100) == 1.0  # below the threshold: no correction
    assert dimensionality_factor(10, 100) == pytest.approx(1 + SIG1 - 0.5)  # 20 * 0.1 - 1 = 1
    assert dimensionality_factor(1e6, 10) == pytest.approx(1.5)


def test_imbalance_factors_hand_computed():
    assert imbalance_factor(1) == 1.0
    assert imbalance_factor(np.e) == pytest.approx(2.0)
    assert multiclass_imbalance_factor(1) == 1.0
    assert multiclass_imbalance_factor(1 / np.e) == pytest.approx(2.0)


def test_snr_factor_hand_computed():
    assert snr_factor(0.5) == 1.0
    assert snr_factor(0) == 1.0
    assert snr_factor(1) == pytest.approx(1.0)
    assert snr_factor(10) == pytest.approx(1 + SIG1 - 0.5)


def test_regression_snr():
    assert regression_snr([1, 2, 3], [1, 2, 2]) == pytest.approx(14.0)
    assert regression_snr([1, 2], [1, 2]) == np.inf


def test_normalized_hand_computed():
    got = normalized_metric(
        0.9, task="binary", n_instances=100, n_features=10, imbalance_ratio=np.e
    )
    assert got == pytest.approx(0.9 * (1 + SIG1 - 0.5) / 2)
    got = normalized_metric(
        0.6, task="multiclass", n_instances=1000, n_features=3, acir=1 / np.e, snr=10
    )
    assert got == pytest.approx(0.6 * 1.0 * (1 + SIG1 - 0.5) / 2)
    assert normalized_regression_metric(0.5, n_instances=100, n_features=1) == pytest.approx(0.5)
    assert normalized_clustering_metric(0.5, n_instances=100, n_features=10) == pytest.approx(
        0.5 * (1 + SIG1 - 0.5)
    )


def test_clamped_to_unit_interval():
    assert (
        normalized_metric(0.95, task="regression", n_instances=10, n_features=100, snr=1e6) == 1.0
    )
    assert normalized_metric(-0.4, task="regression", n_instances=100, n_features=2) == 0.0


def test_broadcasting_and_nan():
    out = normalized_binary_metric(
        np.array([0.5, 0.7, np.nan]), n_instances=[100, 200, 300], n_features=5, imbalance_ratio=2
    )
    assert out.shape == (3,)
    assert np.isnan(out[2])
    np.testing.assert_allclose(out[:2], np.array([0.5, 0.7]) / (1 + np.log(2)))


def test_none_means_no_correction():
    a = normalized_metric(0.8, task="binary", n_instances=100, n_features=2)
    assert a == pytest.approx(0.8)
    b = normalized_multiclass_metric(0.8, n_instances=100, n_features=2, acir=None)
    assert b == pytest.approx(0.8)


GRID = np.linspace(0, 1, 21)


def _nondecreasing(values):
    d = np.diff(values)
    return np.all(d >= -1e-12) and np.any(d > 0)


def _nonincreasing(values):
    return _nondecreasing(-np.asarray(values))


def test_monotone_in_score():
    v = normalized_metric(GRID, task="binary", n_instances=100, n_features=10, imbalance_ratio=3)
    assert _nondecreasing(v)


def test_monotone_in_dimensionality_and_size():
    d = np.arange(0, 200)
    assert _nondecreasing(
        normalized_metric(0.5, task="binary", n_instances=100, n_features=d, imbalance_ratio=1)
    )
    n = np.arange(10, 2000)
    assert _nonincreasing(normalized_metric(0.5, task="regression", n_instances=n, n_features=10))


def test_monotone_in_imbalance():
    ci = np.linspace(1, 100, 50)
    assert _nonincreasing(
        normalized_metric(0.8, task="binary", n_instances=100, n_features=5, imbalance_ratio=ci)
    )
    acir = np.linspace(0.01, 1, 50)
    assert _nondecreasing(
        normalized_metric(0.8, task="multiclass", n_instances=100, n_features=5, acir=acir)
    )


def test_monotone_in_snr():
    snr = np.logspace(-2, 4, 60)
    for task in ("binary", "regression", "clustering"):
        assert _nondecreasing(
            normalized_metric(0.4, task=task, n_instances=1000, n_features=5, snr=snr)
        )


def test_bad_input():
    with pytest.raises(InvalidInputError, match="task"):
        normalized_metric(0.5, task="ranking", n_instances=10, n_features=1)
    with pytest.raises(InvalidInputError, match="imbalance_ratio"):
        normalized_metric(0.5, task="binary", n_instances=10, n_features=1, imbalance_ratio=0.5)
    with pytest.raises(InvalidInputError, match="acir"):
        normalized_metric(0.5, task="multiclass", n_instances=10, n_features=1, acir=3)
    with pytest.raises(InvalidInputError, match="n_instances"):
        normalized_metric(0.5, task="regression", n_instances=0, n_features=1)
    with pytest.raises(InvalidInputError, match="snr"):
        normalized_metric(0.5, task="regression", n_instances=10, n_features=1, snr=-1)
    with pytest.raises(InvalidInputError, match="n_features"):
        dimensionality_factor(-1, 10)
