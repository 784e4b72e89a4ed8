import numpy as np
import pytest

from metarec.evaluation import (
    multiclass_tau_score,
    tau_from_rates,
    tau_score,
    weighted_multiclass_tau_score,
    weighted_tau_from_rates,
    weighted_tau_score,
)
from metarec.exceptions import InvalidInputError

CM = [[8, 4], [2, 6]]  # tnr = 2/3, tpr = 3/4
CM3 = [[5, 0, 0], [1, 3, 1], [0, 2, 2]]  # recalls 1, 0.6, 0.5


def test_binary_tau_hand_computed():
    # d = sqrt((1/3)^2 + (1/4)^2) = 5/12 ; tau = 1 - (5/12)/sqrt(2)
    assert tau_score(confusion=CM) == pytest.approx(1 - (5 / 12) / np.sqrt(2))
    assert tau_score(confusion=CM) == pytest.approx(0.7053722, abs=1e-7)
    yt = [1] * 8 + [0] * 12
    yp = [1] * 6 + [0] * 2 + [0] * 8 + [1] * 4
    assert tau_score(yt, yp) == pytest.approx(0.7053722, abs=1e-7)


def test_tau_extremes():
    assert tau_score([0, 1, 0, 1], [0, 1, 0, 1]) == 1.0
    assert tau_score([0, 1, 0, 1], [1, 0, 1, 0]) == pytest.approx(0.0)
    assert tau_from_rates(0.5, 0.5) == pytest.approx(0.5)  # random guess


def test_weighted_tau_hand_computed():
    # v = 2, omega = (3, 1): d = sqrt(3 (1/3)^2 + (1/4)^2); 2 - 2/sqrt(2) d
    assert weighted_tau_score(confusion=CM, v=2, omega=(3, 1)) == pytest.approx(1.1102435, abs=1e-7)
    assert weighted_tau_score(confusion=CM) == pytest.approx(tau_score(confusion=CM))
    # omega_x weighs tnr: a model missing only negatives is hurt more by larger omega_x
    assert weighted_tau_from_rates(0.5, 1.0, omega=(4, 1)) < weighted_tau_from_rates(
        1.0, 0.5, omega=(4, 1)
    )


def test_tau_vectorised():
    g = tau_from_rates(np.array([0.0, 0.5, 1.0])[:, None], np.array([0.0, 1.0])[None, :])
    assert g.shape == (3, 2)
    assert g[2, 1] == 1.0 and g[0, 0] == pytest.approx(0.0)


def test_multiclass_tau_hand_computed():
    expected = 1 - np.sqrt(0.0 + 0.16 + 0.25) / np.sqrt(3)
    assert multiclass_tau_score(confusion=CM3) == pytest.approx(expected)
    assert tau_score(confusion=CM3) == pytest.approx(0.6303154, abs=1e-7)
    yt = [0] * 5 + [1] * 5 + [2] * 4
    yp = [0] * 5 + [0, 1, 1, 1, 2] + [1, 1, 2, 2]
    assert multiclass_tau_score(yt, yp) == pytest.approx(expected)


def test_weighted_multiclass_tau_hand_computed():
    # omega = (1, 2, 0): d = sqrt(2 * 0.16)
    got = weighted_multiclass_tau_score(confusion=CM3, omega=(1, 2, 0))
    assert got == pytest.approx(1 - np.sqrt(0.32) / np.sqrt(3))
    assert weighted_multiclass_tau_score(confusion=CM3, v=3) == pytest.approx(
        3 * tau_score(confusion=CM3)
    )


def test_multiclass_with_two_classes_is_binary_tau():
    assert multiclass_tau_score(confusion=CM) == pytest.approx(tau_score(confusion=CM))
    assert weighted_multiclass_tau_score(confusion=CM, omega=(3, 1), v=2) == pytest.approx(
        weighted_tau_score(confusion=CM, omega=(3, 1), v=2)
    )


def test_tau_is_imbalance_agnostic():
    # relatively identical matrices at different ratios give the same Tau
    assert tau_score(confusion=[[8, 4], [2, 6]]) == pytest.approx(
        tau_score(confusion=[[80, 40], [2, 6]])
    )


def test_predicted_only_label_is_an_error_of_the_true_classes():
    # class 9 never occurs in y_true: recalls of 0 and 1 are 0.5 and 1
    assert tau_score([0, 0, 1, 1], [0, 9, 1, 1]) == pytest.approx(1 - 0.5 / np.sqrt(2))


def test_bad_input():
    with pytest.raises(InvalidInputError, match="two classes"):
        tau_score([1, 1, 1], [1, 0, 1])
    with pytest.raises(InvalidInputError, match="omega"):
        weighted_multiclass_tau_score(confusion=CM3, omega=(1, 1))
    with pytest.raises(InvalidInputError, match="omega"):
        weighted_tau_score(confusion=CM, omega=(1, -1))
    with pytest.raises(InvalidInputError, match="mismatched"):
        tau_score([0, 1], [0, 1, 1])


def test_listed_class_absent_from_fold_is_left_out():
    # class 2 has no true object in this fold: Tau over classes 0 and 1 only
    assert tau_score([0, 0, 1, 1], [0, 2, 1, 1], labels=[0, 1, 2]) == pytest.approx(
        1 - 0.5 / np.sqrt(2)
    )
    # its weight is ignored too: omega aligned with labels
    got = weighted_multiclass_tau_score(
        [0, 0, 1, 1], [0, 2, 1, 1], labels=[0, 1, 2], omega=(4, 1, 9)
    )
    assert got == pytest.approx(1 - np.sqrt(4 * 0.25) / np.sqrt(2))
