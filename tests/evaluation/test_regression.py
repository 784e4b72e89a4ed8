"""Regression scores: the rankers' success rate and RMSE / MAE / R², against hand values."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.evaluation import regression_scores, regression_success_score
from metarec.exceptions import InvalidInputError


def test_success_rate_is_one_when_perfect_and_zero_at_the_mean():
    y = np.array([3.0, -1.0, 7.5, 2.0])
    assert regression_success_score(y, y) == 1.0
    assert regression_success_score(y, np.full(4, y.mean())) == 0.0


def test_success_rate_hand_value_and_clip():
    # y = 1, 2, 3 (mean 2, SST 2); predictions 1.5, 2, 2.5: SSE 0.5, R² = 0.75
    assert regression_success_score([1, 2, 3], [1.5, 2, 2.5]) == pytest.approx(0.75)
    # worse than the mean: R² = 1 - 8 / 2 = -3, clipped to 0
    assert regression_success_score([1, 2, 3], [3, 2, 1]) == 0.0
    # a training mean that is not the test mean scores below 0 before the clip
    assert regression_scores([1, 2, 3], [2.5, 2.5, 2.5])["r2"] == pytest.approx(1 - 2.75 / 2)


def test_constant_target_rows():
    assert regression_success_score([4.0, 4.0], [4.0, 4.0]) == 1.0
    assert regression_success_score([4.0, 4.0], [4.0, 5.0]) == 0.0


def test_scores_hand_values():
    # residuals -1, 0, 2, 0: RMSE sqrt(5/4), MAE 3/4; SST 6 (mean 1), SSE 5: R² = 1/6
    scores = regression_scores([0.0, 0.0, 3.0, 1.0], [1.0, 0.0, 1.0, 1.0])
    assert scores["rmse"] == pytest.approx(np.sqrt(1.25))
    assert scores["mae"] == pytest.approx(0.75)
    assert scores["r2"] == pytest.approx(1 / 6)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "message"),
    [
        ([1.0, 2.0], [1.0], "2 values but y_pred has 1"),
        ([], [], "no values"),
        ([1.0, np.nan], [1.0, 2.0], "finite"),
        ([1.0, 2.0], [np.inf, 2.0], "finite"),
    ],
)
def test_bad_input(y_true, y_pred, message):
    with pytest.raises(InvalidInputError, match=message):
        regression_success_score(y_true, y_pred)
