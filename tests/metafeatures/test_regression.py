"""Regression metafeatures against values computed by hand on tiny datasets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.metafeatures import extract
from metarec.metafeatures._base import Collector, prepare
from metarec.metafeatures._regression import (
    correlation,
    linearity,
    smoothness,
    target_distribution,
)


def _values(function, X, y):
    data = prepare(pd.DataFrame(X), np.asarray(y, dtype=float), task="regression")
    out = Collector()
    function(data, out)
    return out.values


def test_target_distribution_hand_values():
    # y = 1, 2, 3, 10: centred -3, -2, -1, 6; m2 = 12.5, m3 = 45, m4 = 348.5;
    # quartiles 1.75 and 4.75, upper fence 4.75 + 4.5 = 9.25: one outlier of four
    values = _values(target_distribution, {"x": [0, 1, 2, 3]}, [1, 2, 3, 10])
    assert values["target_skewness"] == pytest.approx(45 / 12.5**1.5)
    assert values["target_kurtosis"] == pytest.approx(348.5 / 12.5**2 - 3)
    assert values["target_outlier_share"] == 0.25


def test_smoothness_and_linearity_hand_values():
    # x = 0, 1, 3, 6 -> 0, 1/6, 1/2, 1; y = 0, 1, 4, 9 -> 0, 1/9, 4/9, 1
    # MST in one dimension joins neighbours: |dy| = 1/9, 3/9, 5/9 -> S1 = 1/3
    # sorted by y the same order: distances 1/6, 1/3, 1/2 -> S2 = 1/3
    # leave-one-out nearest neighbours 1, 0, 1, 2: errors 1/81, 1/81, 9/81, 25/81 -> S3 = 1/9
    values = _values(smoothness, {"x": [0, 1, 3, 6]}, [0, 1, 4, 9])
    assert values["s1_output_distribution"] == pytest.approx(1 / 3)
    assert values["s2_input_distribution"] == pytest.approx(1 / 3)
    assert values["s3_nn_error"] == pytest.approx(1 / 9)


def test_linear_fit_residuals_hand_values():
    # x = 0, 1/3, 2/3, 1 and y = 0, 1/9, 4/9, 1: least squares slope 1, intercept -1/9,
    # residuals 1/9, -1/9, -1/9, 1/9 -> L1 = 1/9, L2 = 1/81
    values = _values(linearity, {"x": [0, 1, 2, 3]}, [0, 1, 4, 9])
    assert values["l1_mean_abs_residual"] == pytest.approx(1 / 9)
    assert values["l2_mean_squared_residual"] == pytest.approx(1 / 81)
    # every residual exceeds 0.1 and there is one feature: no row explained, C4 = 1
    assert (
        _values(correlation, {"x": [0, 1, 2, 3]}, [0, 1, 4, 9])["c4_collective_feature_efficiency"]
        == 1.0
    )


def test_linear_target_is_simple_everywhere():
    rng = np.random.default_rng(0)
    x = rng.random((50, 2))
    y = 3 * x[:, 0] - x[:, 1]
    frame = {"a": x[:, 0], "b": x[:, 1]}
    lin = _values(linearity, frame, y)
    assert lin["l1_mean_abs_residual"] == pytest.approx(0, abs=1e-12)
    assert lin["l3_linear_nonlinearity"] == pytest.approx(0, abs=1e-12)
    # C4 fits one feature at a time: a target linear in one feature is explained at once
    one = _values(correlation, {"a": x[:, 0]}, 2 * x[:, 0] + 1)
    assert one["c4_collective_feature_efficiency"] == 0.0


def test_correlation_hand_values():
    # x = 1..6, y = 1, 2, 3, 4, 5, 0: rank differences -1 x 5 and 5, rho = 1 - 6*30/210 = 1/7;
    # removing the last row (the largest disagreement) leaves rho = 1: C3 = 1/6
    values = _values(correlation, {"x": [1, 2, 3, 4, 5, 6]}, [1, 2, 3, 4, 5, 0])
    assert values["c1_max_feature_correlation"] == pytest.approx(1 / 7)
    assert values["c2_mean_feature_correlation"] == pytest.approx(1 / 7)
    assert values["c3_individual_feature_efficiency"] == pytest.approx(1 / 6)
    # two features: |rho| = 1 and 1/7 -> C1 = 1, C2 = 4/7, C3 = 0 (the first needs no removal)
    two = _values(
        correlation, {"a": [1, 2, 3, 4, 5, 6], "b": [10, 20, 30, 40, 50, 0]}, [1, 2, 3, 4, 5, 0]
    )
    assert two["c1_max_feature_correlation"] == pytest.approx(1.0)
    assert two["c3_individual_feature_efficiency"] == 0.0


def test_classification_targets_get_nan_with_a_reason():
    values = extract(pd.DataFrame({"x": range(20)}), np.array(["a", "b"] * 10))
    assert np.isnan(values["s3_nn_error"])
    assert "continuous target" in values.reasons["s3_nn_error"]


def test_large_data_uses_a_seeded_subsample():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.random((3000, 3)), columns=["a", "b", "c"])
    y = X["a"] * 2 + rng.normal(scale=0.1, size=3000)
    first = extract(X, y, groups="regression", random_state=3)
    again = extract(X, y, groups="regression", random_state=3)
    assert dict(first) == dict(again)
    assert first["c1_max_feature_correlation"] > 0.9


def test_the_cli_knows_every_group():
    from metarec._commands._metafeatures import GROUP_NAMES
    from metarec.metafeatures import GROUPS

    assert GROUP_NAMES == GROUPS


def test_smoothness_when_every_row_has_the_same_inputs():
    """Found by the property test: duplicated rows are still joined by the spanning tree."""
    values = _values(smoothness, {"x": [0.0] * 30}, np.arange(30.0))
    assert all(np.isfinite(v) for v in values.values())
    # the tree joins 29 pairs of the 30 targets (scaled to [0, 1]): at least 1/29 apart
    assert values["s1_output_distribution"] >= 1 / 29 - 1e-12
    assert values["s2_input_distribution"] == 0.0  # every input is the same point


def test_a_target_near_the_float_limit_gives_the_metafeatures_of_its_scaled_copy():
    """Min-max scaling and the uncentred SNR do not change when the target is scaled: a
    target of 1e308 and -1e308 gives the same values as the same target divided by 1e300."""
    from metarec.metafeatures import extract

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    y = X["a"] * 2 + rng.normal(scale=0.5, size=60)
    y = y / y.abs().max()
    huge = extract(X, y * 1e308, task="regression")
    plain = extract(X, y * 1e8, task="regression")
    for name in ("l1_mean_abs_residual", "l2_mean_squared_residual", "snr"):
        assert np.isfinite(huge[name]) and huge[name] == pytest.approx(plain[name], rel=1e-9)
