import numpy as np
import pytest

from metarec.evaluation import (
    imbalance_sensitivity,
    learning_path,
    learning_path_length,
    metric_surface,
    surface_metric_names,
)
from metarec.exceptions import InvalidInputError, UnknownNameError

AGNOSTIC = ("tau", "recall", "tss", "youden_j", "balanced_accuracy", "geometric_mean")
SENSITIVE = ("precision", "f1", "accuracy", "heidke", "gilbert")


def test_surface_grid_and_hand_values():
    s = metric_surface("accuracy", ratio=3, resolution=4)
    np.testing.assert_allclose(s.tnr, [0.125, 0.375, 0.625, 0.875])
    assert s.values.shape == (4, 4)
    # row i = tpr[i], column j = tnr[j]; accuracy = (tpr + r tnr) / (1 + r)
    assert s.values[1, 2] == pytest.approx((0.375 + 3 * 0.625) / 4)
    p = metric_surface("precision", ratio=2, resolution=4)
    # tp = tpr, fp = r (1 - tnr)
    assert p.values[3, 0] == pytest.approx(0.875 / (0.875 + 2 * 0.875))
    t = metric_surface("tau", resolution=2)
    assert t.values[1, 1] == pytest.approx(1 - np.sqrt(2 * 0.25**2) / np.sqrt(2))


def test_rescaled_surface_is_in_unit_interval():
    for name in surface_metric_names():
        s = metric_surface(name, ratio=7, resolution=30)
        r = s.rescaled()
        assert np.nanmin(r) >= -1e-12 and np.nanmax(r) <= 1 + 1e-12, name


@pytest.mark.parametrize("name", AGNOSTIC)
def test_imbalance_agnostic_metrics_have_zero_sensitivity(name):
    values = imbalance_sensitivity(name, [2, 5, 32, 100], resolution=50)
    np.testing.assert_allclose(values, 0.0, atol=1e-12)


@pytest.mark.parametrize("name", SENSITIVE)
def test_sensitive_metrics_grow_with_ratio(name):
    values = imbalance_sensitivity(name, [1, 2, 5, 10, 32], resolution=50)
    assert values[0] == 0.0
    assert np.all(values[1:] > 0.005)
    assert np.all(np.diff(values) > 0)
    assert values[-1] <= 1.0


def test_accuracy_sensitivity_hand_computed():
    # rescaled accuracy at r: (y + r x)/(1+r); |S1 - Sr| = |y - x| |1/2 - 1/(1+r)|
    # mean of |y - x| over the unit square is 1/3 -> IS(3) = 1/3 * 1/4 = 1/12
    assert imbalance_sensitivity("accuracy", 3, resolution=400) == pytest.approx(1 / 12, abs=1e-4)


def test_learning_path_points_and_length():
    cms = [[[5, 5], [8, 2]], [[8, 2], [5, 5]], [[8, 2], [1, 9]]]  # [[tn, fp], [fn, tp]]
    path = learning_path(cms, metric="recall")
    np.testing.assert_allclose(path.points, [[0.5, 0.2], [0.8, 0.5], [0.8, 0.9]])
    np.testing.assert_allclose(path.values, [0.2, 0.5, 0.9])
    np.testing.assert_allclose(path.ratios, [1.0, 1.0, 1.0])
    expected = np.hypot(0.3, 0.3) + 0.4
    assert path.length == pytest.approx(expected)
    assert learning_path_length(path.points) == pytest.approx(expected)
    assert learning_path_length([[0.1, 0.2]]) == 0.0


def test_learning_path_multiclass_and_ratio():
    cms = [np.diag([2, 4, 8]) + 0.0, [[1, 1, 0], [0, 4, 0], [0, 0, 8]]]
    path = learning_path(cms)
    np.testing.assert_allclose(path.points[1], [0.5, 1, 1])
    assert path.ratios[0] == pytest.approx(4.0)
    assert path.length == pytest.approx(0.5)
    binary = learning_path([[[20, 0], [0, 5]]], metric="precision")
    assert binary.ratios[0] == pytest.approx(4.0)  # 20 negatives per 5 positives


def test_bad_input():
    with pytest.raises(UnknownNameError, match="mcc"):
        metric_surface("mcc")
    with pytest.raises(InvalidInputError, match="ratio"):
        imbalance_sensitivity("f1", [2, -1])
    with pytest.raises(InvalidInputError, match="resolution"):
        metric_surface("f1", resolution=1)
    with pytest.raises(InvalidInputError, match="shape"):
        learning_path([[1, 2], [3, 4]])
    with pytest.raises(InvalidInputError, match="empty"):
        learning_path(np.zeros((0, 2, 2)))
    with pytest.raises(InvalidInputError, match="no true object"):
        learning_path([[[0, 0], [1, 1]]])
    with pytest.raises(InvalidInputError, match="2 x 2"):
        learning_path([np.eye(3)], metric="f1")
