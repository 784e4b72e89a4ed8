"""One kernel per metric: R² and balanced accuracy, their edge cases (a constant target, one
class, an empty fold) pinned by hand, and every caller giving the kernel's value."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.automl._ensemble import ensemble_score
from metarec.evaluation import (
    balanced_accuracy_score,
    r2_score,
    regression_scores,
    regression_success_score,
)
from metarec.evaluation._regression import CONSTANT_TARGET_RTOL
from metarec.exceptions import InvalidInputError
from metarec.execution._jobs import score_predictions

# --------------------------------------------------------------------------- R²


def test_r2_by_hand():
    # y = 1, 2, 3: mean 2, SST 2; predictions 1.5, 2, 2.5: SSE 0.5, R² = 0.75
    assert r2_score([1.0, 2.0, 3.0], [1.5, 2.0, 2.5]) == 0.75
    # all 3: SSE 4 + 1 + 0 = 5, R² = 1 - 5/2 = -1.5 (unbounded below, not clipped)
    assert r2_score([1.0, 2.0, 3.0], [3.0, 3.0, 3.0]) == -1.5
    assert r2_score([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]) == 0.0  # the mean explains nothing


def test_r2_of_a_constant_target():
    # predicted exactly: 1, on any constant, zero included
    assert r2_score([4.0, 4.0, 4.0], [4.0, 4.0, 4.0]) == 1.0
    assert r2_score([0.0, 0.0], [0.0, 0.0]) == 1.0
    # an average of exact predictions is exact: (0.1 + 0.1 + 0.1) / 3 != 0.1 in floats
    average = (0.1 + 0.1 + 0.1) / 3
    assert average != 0.1 and r2_score([0.1, 0.1], [average, average]) == 1.0
    # not exactly: 0 (explains none of a variance that is not there), however close or far
    assert r2_score([4.0, 4.0], [4.0, 4.5]) == 0.0
    assert r2_score([4.0, 4.0], [400.0, -400.0]) == 0.0
    assert r2_score([0.0, 0.0], [0.0, 1e-300]) == 0.0


def test_r2_exactness_on_each_side_of_the_tolerance():
    c = 1000.0
    inside = c * (1 + 0.5 * CONSTANT_TARGET_RTOL)
    outside = c * (1 + 2 * CONSTANT_TARGET_RTOL)
    assert r2_score([c, c], [c, inside]) == 1.0
    assert r2_score([c, c], [c, outside]) == 0.0


@pytest.mark.parametrize(
    ("y_true", "y_pred", "message"),
    [([], [], "no values"), ([1.0, 2.0], [1.0], "2 values"), ([1.0, 2.0], [1.0, np.nan], "finite")],
)
def test_r2_refuses_an_empty_fold_and_bad_values(y_true, y_pred, message):
    with pytest.raises(InvalidInputError, match=message):
        r2_score(y_true, y_pred)


@pytest.mark.parametrize(
    ("y", "prediction", "expected"),
    [
        ([1.0, 2.0, 3.0], [1.5, 2.0, 2.5], 0.75),
        ([1.0, 2.0, 3.0], [3.0, 3.0, 3.0], -1.5),
        ([5.0, 5.0], [5.0, 5.0], 1.0),  # the ensemble said 0 here before
        ([5.0, 5.0], [5.0, 6.0], 0.0),
    ],
)
def test_every_r2_caller_gives_the_kernels_value(y, prediction, expected):
    y, prediction = np.array(y), np.array(prediction)
    assert r2_score(y, prediction) == expected
    assert regression_scores(y, prediction)["r2"] == expected
    assert ensemble_score(y, prediction, "r2") == expected
    assert regression_success_score(y, prediction) == max(expected, 0.0)
    assert ensemble_score(y, prediction, "success") == max(expected, 0.0)


# --------------------------------------------------------------------------- balanced accuracy


def test_balanced_accuracy_by_hand():
    # recalls: class 0 3/4, class 1 1/2, class 2 2/2 -> (0.75 + 0.5 + 1) / 3
    y_true, y_pred = [0, 0, 0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 0, 2, 2]
    assert balanced_accuracy_score(y_true, y_pred) == pytest.approx(2.25 / 3)
    # the same labels as text (counted through the confusion matrix): the same value
    names = np.array(["a", "b", "c"])
    assert balanced_accuracy_score(names[y_true], names[y_pred]) == pytest.approx(2.25 / 3)
    # a class only predicted (2) has no recall: left out, (1/2 + 2/2) / 2
    assert balanced_accuracy_score([0, 0, 1, 1], [0, 2, 1, 1]) == 0.75


def test_balanced_accuracy_of_one_class_is_its_recall():
    assert balanced_accuracy_score([2, 2, 2, 2], [2, 0, 2, 1]) == 0.5
    assert balanced_accuracy_score([1], [0]) == 0.0  # a leave-one-out fold, wrong
    assert balanced_accuracy_score([1], [1]) == 1.0
    assert balanced_accuracy_score(["x", "x"], ["x", "y"]) == 0.5
    assert balanced_accuracy_score(confusion=[[0, 0], [1, 3]]) == 0.75


def test_balanced_accuracy_refuses_an_empty_fold():
    with pytest.raises(InvalidInputError, match="empty"):
        balanced_accuracy_score([], [])
    with pytest.raises(InvalidInputError, match="mismatched"):
        balanced_accuracy_score([0, 1], [0])
    with pytest.raises(InvalidInputError, match="all zeros"):
        balanced_accuracy_score(confusion=[[0, 0], [0, 0]])


@pytest.mark.parametrize(
    ("y", "predicted", "expected"),
    [
        ([0, 0, 0, 1], [0, 0, 1, 1], (2 / 3 + 1) / 2),
        ([1, 1, 1], [1, 0, 1], 2 / 3),  # one true class: its recall
        ([0, 0, 1, 1], [0, 2, 1, 1], 0.75),  # class 2 only predicted
        ([2], [1], 0.0),  # leave-one-out
    ],
)
def test_every_balanced_accuracy_caller_gives_the_kernels_value(y, predicted, expected):
    y, predicted = np.array(y), np.array(predicted)
    n_classes = 3
    assert balanced_accuracy_score(y, predicted) == pytest.approx(expected, abs=1e-15)
    fold = score_predictions(y, predicted, None, None, n_classes=n_classes)
    assert fold["balanced_accuracy"] == pytest.approx(expected, abs=1e-15)
    votes = np.eye(n_classes)[predicted]  # a classifier's vote as probabilities
    assert ensemble_score(y, votes, "balanced_accuracy") == pytest.approx(expected, abs=1e-15)
