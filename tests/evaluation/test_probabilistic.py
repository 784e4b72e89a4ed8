import numpy as np
import pytest

from metarec.evaluation import informational_loss, quadratic_loss
from metarec.exceptions import InvalidInputError

Y = [0, 1, 2]
P = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]


def test_quadratic_loss_hand_computed():
    # rows: .09+.04+.01, .01+.04+.01, .09+.09+.36
    assert quadratic_loss(Y, P) == pytest.approx(0.74 / 3)
    assert quadratic_loss(Y, P, normalize=False) == pytest.approx(0.74)


def test_informational_loss_hand_computed():
    bits = -np.log2([0.7, 0.8, 0.4])
    assert informational_loss(Y, P, normalize=False) == pytest.approx(bits.sum())
    assert informational_loss(Y, P) == pytest.approx(0.7194765, abs=1e-7)


def test_labels_give_column_order():
    y = ["b", "a"]
    p = [[0.25, 0.75], [0.5, 0.5]]  # columns: b, a
    assert informational_loss(y, p, labels=["b", "a"]) == pytest.approx((2 + 1) / 2)


def test_binary_one_dimensional_proba():
    assert quadratic_loss([0, 1], [0.2, 0.6]) == pytest.approx((0.08 + 0.32) / 2)
    assert informational_loss([0, 1], [0.5, 0.5]) == pytest.approx(1.0)


def test_perfect_and_zero_probability():
    assert quadratic_loss([0, 1], [[1, 0], [0, 1]]) == 0.0
    assert informational_loss([0, 1], [[1, 0], [0, 1]]) == 0.0
    assert informational_loss([0], [[0.0, 1.0]], labels=[0, 1], eps=0) == np.inf
    assert informational_loss([0], [[0.0, 1.0]], labels=[0, 1]) == pytest.approx(-np.log2(1e-15))


def test_bad_input():
    with pytest.raises(InvalidInputError, match="sums to"):
        quadratic_loss([0, 1], [[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(InvalidInputError, match="mismatched"):
        informational_loss([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(InvalidInputError, match="labels="):
        quadratic_loss([0, 0], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(InvalidInputError, match="outside"):
        quadratic_loss([0, 1], [[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(InvalidInputError, match="empty"):
        quadratic_loss([], np.zeros((0, 2)))
    with pytest.raises(InvalidInputError, match="not among"):
        quadratic_loss([0, 5], [[0.5, 0.5], [0.5, 0.5]], labels=[0, 1])
