import math

import numpy as np
import pytest

from metarec.evaluation import a3r, arr, arr_pole, pairwise_a3r, pairwise_arr
from metarec.exceptions import InvalidInputError


def _truncate2(x):
    return math.floor(float(x) * 100) / 100


def test_paper_numbers_ten_times_slower():
    # the time term of a 10x slower algorithm: 8th root 1.33, square root 3.16
    assert 1 / a3r(1, 1, 10, 1, n=8) == pytest.approx(1.3335, abs=1e-4)
    assert 1 / a3r(1, 1, 10, 1, n=2) == pytest.approx(3.1623, abs=1e-4)


def test_paper_numbers_ratio_one_tenth():
    # the paper prints 0.74 and 0.31: the values 0.7499 and 0.3162 truncated to 2 decimals
    assert 1 / a3r(1, 1, 0.1, 1, n=8) == pytest.approx(0.74989, abs=1e-5)
    assert _truncate2(1 / a3r(1, 1, 0.1, 1, n=8)) == 0.74
    assert _truncate2(1 / a3r(1, 1, 0.1, 1, n=2)) == 0.31


def test_hand_computed_values():
    assert a3r(0.9, 0.8, 2, 1, n=1) == pytest.approx(1.125 / 2)
    assert a3r(0.9, 0.8, 16, 1, n=4) == pytest.approx(1.125 / 2)
    assert arr(0.9, 0.8, 10, 1, acc_d=0.1) == pytest.approx(1.125 / 1.1)
    assert arr(0.9, 0.8, 0.1, 1, acc_d=0.1) == pytest.approx(1.125 / 0.9)
    assert arr(0.5, 0.5, 3, 3) == pytest.approx(1.0)


def test_broadcasting_over_pairs():
    sr = np.array([0.9, 0.8, 0.7])
    t = np.array([1.0, 10.0, 100.0])
    m = a3r(sr[:, None], sr[None, :], t[:, None], t[None, :], n=2)
    assert m.shape == (3, 3)
    np.testing.assert_allclose(np.diag(m), 1.0)
    assert m[0, 1] == pytest.approx((0.9 / 0.8) / np.sqrt(0.1))
    np.testing.assert_allclose(m * m.T, 1.0)  # A3R(p, q) * A3R(q, p) = 1
    assert arr(sr[:, None], sr[None, :], t[:, None], t[None, :]).shape == (3, 3)


def test_a3r_monotonic_arr_not():
    ratios = 2.0 ** np.linspace(-20, 20, 401)
    for n in (4, 8, 16):
        values = a3r(1.0, 1.0, ratios, 1.0, n=n)
        assert np.all(np.isfinite(values))
        assert np.all(np.diff(values) < 0)  # strictly decreasing in the time ratio
    for acc_d in (0.2, 0.3, 0.7):
        values = arr(1.0, 1.0, ratios, 1.0, acc_d=acc_d)
        pole = arr_pole(acc_d)
        assert 2.0**-20 < pole < 1  # the pole lies inside the paper's range
        steps = np.diff(values)
        assert np.any(steps > 0) and np.any(steps < 0)  # not monotonic
        # just above the pole ARR explodes, just below it turns negative
        assert arr(1.0, 1.0, pole * 1.001, 1.0, acc_d=acc_d) > 100
        assert arr(1.0, 1.0, pole / 1.001, 1.0, acc_d=acc_d) < -100


def test_arr_pole_value():
    assert arr_pole(0.2) == pytest.approx(1e-5)
    assert arr_pole(0.5) == pytest.approx(1e-2)
    assert arr_pole(0.0) == 0.0
    assert 1 + 0.2 * np.log10(arr_pole(0.2)) == pytest.approx(0.0, abs=1e-12)


def test_zero_times_and_min_time():
    assert np.isinf(a3r(1, 1, 0, 1))
    assert a3r(1, 1, 0, 1, min_time=0.01, n=2) == pytest.approx(10.0)


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((1, 1, -1, 1), {}),
        ((1, 1, 1, -0.5), {}),
        ((-0.1, 1, 1, 1), {}),
        ((1, 1, 1, 1), {"n": 0}),
        (([], 1, 1, 1), {}),
        (([1, 2], [1, 2, 3], 1, 1), {}),
    ],
)
def test_bad_input_a3r(args, kwargs):
    with pytest.raises(InvalidInputError):
        a3r(*args, **kwargs)


def test_bad_input_arr():
    with pytest.raises(InvalidInputError, match="t_p"):
        arr(1, 1, -2, 1)
    with pytest.raises(InvalidInputError, match="acc_d"):
        arr(1, 1, 2, 1, acc_d=-0.1)


def test_pairwise_matrices():
    sr = [0.9, 0.6]
    t = [4.0, 1.0]
    m = pairwise_a3r(sr, t, n=2)
    np.testing.assert_allclose(m, [[1.0, 1.5 / 2], [2 / 1.5, 1.0]])
    a = pairwise_arr(sr, t, acc_d=0.1)
    assert a[0, 1] == pytest.approx(1.5 / (1 + 0.1 * np.log10(4)))
    stacked = pairwise_a3r([[0.9, 0.6, 0.3], [0.5, 0.5, 0.5]], np.ones((2, 3)))
    assert stacked.shape == (2, 3, 3)
    np.testing.assert_allclose(stacked[1], 1.0)
    with pytest.raises(InvalidInputError, match="same shape"):
        pairwise_a3r([0.9, 0.6], [1.0])
