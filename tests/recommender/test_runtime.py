"""The runtime model: power laws recovered, conformal widths by hand, coverage where known."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.exceptions import InvalidInputError, NotFittedError
from metarec.recommender._runtime import (
    MIN_DATASETS,
    RuntimeModel,
    _conformal_width,
    size_features,
)


def test_size_features_by_hand():
    X = size_features([100, 1, np.nan], [10, 0.5, 3], [2, None, 1])
    np.testing.assert_allclose(
        X,
        [
            [1, np.log(100), np.log(10), np.log(2)],
            [1, 0, 0, 0],  # below 1 counts as 1 (adds nothing)
            [1, 0, np.log(3), 0],
        ],
    )


def test_exact_power_laws_are_recovered_and_extrapolate():
    rng = np.random.default_rng(0)
    n = rng.integers(50, 20_000, size=40)
    d = rng.integers(2, 200, size=40)
    c = rng.integers(2, 10, size=40)
    X = size_features(n, d, c)
    svm = 1e-7 * n**2.0 * d  # quadratic in rows, linear in features
    tree = 1e-5 * n * d**0.5 * c
    plain = RuntimeModel(alpha=1e-9, overhead=False, min_row_exponent=None)
    model = plain.fit(X, np.column_stack([svm, tree]))
    np.testing.assert_allclose(model.coef_[0, 1:], [2.0, 1.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(model.coef_[1, 1:], [1.0, 0.5, 1.0], atol=1e-6)
    assert model.overhead_.tolist() == [0.0, 0.0]
    # 200,000 rows: ten times beyond the largest dataset seen, 100 times the time
    big = size_features([200_000], [50], [2])
    expected = [1e-7 * 4e10 * 50, 1e-5 * 2e5 * 50**0.5 * 2]
    np.testing.assert_allclose(model.predict(big)[0], expected)
    # with a fixed cost in the model (and the row exponent's bound below both), the same
    default = RuntimeModel(alpha=1e-9).fit(X, np.column_stack([svm, tree]))
    np.testing.assert_allclose(default.coef_[:, 1:], model.coef_[:, 1:], atol=5e-3)
    np.testing.assert_allclose(default.predict(big)[0], expected, rtol=2e-2)


def test_a_further_column_gets_an_exponent_of_its_own():
    rng = np.random.default_rng(1)
    n = rng.integers(50, 20_000, size=40)
    d = rng.integers(2, 200, size=40)
    z = rng.uniform(1, 1000, size=40)  # e.g. how many leaves noisy labels grow
    X = np.column_stack([size_features(n, d, [1] * 40), np.log(z)])  # classes: none
    tree = 1e-5 * n * d**0.5 * z**0.3
    model = RuntimeModel(alpha=1e-9, overhead=False, min_row_exponent=None).fit(X, tree)
    np.testing.assert_allclose(model.coef_[0, 1:], [1.0, 0.5, 0.0, 0.3], atol=1e-6)
    query = np.array([[1.0, np.log(2e5), np.log(50), 0.0, np.log(5e4)]])
    expected = 1e-5 * 2e5 * 50**0.5 * 5e4**0.3
    np.testing.assert_allclose(model.predict(query)[0], [expected], rtol=1e-6)
    with pytest.raises(InvalidInputError, match="5 columns"):
        model.predict(query[:, :4])


def test_a_fixed_cost_and_a_power_law_are_told_apart():
    """50 ms of set-up, then time linear in the rows: the straight line through the logs of
    small datasets' times finds a shallow exponent and expects far too little of a large
    one; the model with the fixed cost recovers both parts."""
    rng = np.random.default_rng(4)
    n = rng.integers(50, 10_000, size=60)
    d = rng.integers(2, 100, size=60)
    X = size_features(n, d, [2] * 60)
    t = 0.05 + 2e-7 * n * d
    model = RuntimeModel(alpha=1e-9).fit(X, t[:, None])
    assert model.overhead_[0] == pytest.approx(0.05, rel=1e-3)
    np.testing.assert_allclose(model.coef_[0, 1:3], [1.0, 1.0], atol=1e-3)
    big = size_features([200_000], [50], [2])
    assert model.predict(big)[0, 0] == pytest.approx(0.05 + 2e-7 * 200_000 * 50, rel=1e-3)
    line = RuntimeModel(alpha=1e-9, overhead=False, min_row_exponent=None).fit(X, t[:, None])
    assert line.coef_[0, 1] < 0.6
    assert line.predict(big)[0, 0] < 0.5 * (0.05 + 2e-7 * 200_000 * 50)


def test_the_row_exponent_is_held_at_its_lower_bound():
    """Times that do not grow with the rows (a fixed cost alone): the exponent stays at the
    bound, and without a bound the model finds the flat law."""
    rng = np.random.default_rng(5)
    n = rng.integers(50, 10_000, size=40)
    X = size_features(n, [10] * 40, [2] * 40)
    t = np.exp(np.log(0.01) + rng.normal(0, 0.1, 40))
    bounded = RuntimeModel(min_row_exponent=0.5).fit(X, t[:, None])
    assert bounded.coef_[0, 1] == pytest.approx(0.5)
    free = RuntimeModel(min_row_exponent=None, overhead=False).fit(X, t[:, None])
    assert abs(free.coef_[0, 1]) < 0.05
    with pytest.raises(InvalidInputError, match="min_row_exponent"):
        RuntimeModel(min_row_exponent="one").fit(X, t[:, None])


def test_each_algorithm_has_its_own_row_exponent_bound():
    """One bound per column: each algorithm is fitted as with its bound alone (the same
    predictions; the power law's scale is nearly flat under a fixed cost, so its
    coefficients agree only as far as the iteration's stopping rule)."""
    rng = np.random.default_rng(6)
    n = rng.integers(50, 10_000, size=40)
    X = size_features(n, [10] * 40, [2] * 40)
    t = np.exp(np.log(0.01) + rng.normal(0, 0.1, (40, 2)))
    both = RuntimeModel(min_row_exponent=[0.5, 1.0]).fit(X, t)
    np.testing.assert_allclose(both.coef_[:, 1], [0.5, 1.0])
    for j, bound in enumerate((0.5, 1.0)):
        alone = RuntimeModel(min_row_exponent=bound).fit(X, t[:, [j]])
        np.testing.assert_allclose(both.coef_[j, 1], alone.coef_[0, 1])
        grid = size_features([100, 10_000, 1_000_000], [10] * 3, [2] * 3)
        np.testing.assert_allclose(both.predict(grid)[:, j], alone.predict(grid)[:, 0], rtol=1e-4)
        np.testing.assert_allclose(both.width_[j], alone.width_[0], rtol=1e-4)
    with pytest.raises(InvalidInputError, match="one per algorithm"):
        RuntimeModel(min_row_exponent=[0.5, 1.0, 1.0]).fit(X, t)
    with pytest.raises(InvalidInputError, match="finite"):
        RuntimeModel(min_row_exponent=[0.5, np.nan]).fit(X, t)


def test_conformal_width_is_the_corrected_empirical_quantile():
    residuals = np.arange(1.0, 10.0)  # m = 9
    assert _conformal_width(residuals, 0.8) == 8.0  # ceil(10 * 0.8) = 8th smallest
    assert _conformal_width(residuals, 0.5) == 5.0
    assert _conformal_width(residuals, 0.95) == 9.0  # rank 10 > m: the largest
    assert _conformal_width(np.array([np.nan, 2.0]), 0.5) == 2.0
    assert _conformal_width(np.array([np.nan]), 0.8) == np.inf


def test_leave_one_out_residuals_equal_refitting_without_the_dataset():
    rng = np.random.default_rng(1)
    X = size_features(rng.integers(50, 5000, 15), rng.integers(2, 50, 15), [2] * 15)
    t = np.exp(X @ [-8, 1.2, 0.5, 0] + rng.normal(0, 0.4, 15))
    t[3] = np.nan  # no time there
    plain = {"alpha": 0.5, "overhead": False, "min_row_exponent": None}
    model = RuntimeModel(**plain).fit(X, t[:, None])
    for i in (0, 7):
        keep = np.arange(15) != i
        refit = RuntimeModel(**plain).fit(X[keep], t[keep, None])
        expected = np.log(t[i]) - np.log(refit.predict(X[i : i + 1])[0, 0])
        assert model.loo_residuals_[i, 0] == pytest.approx(expected, rel=1e-6)
    assert np.isnan(model.loo_residuals_[3, 0])
    assert model.n_datasets_[0] == 14


def test_leave_one_out_residuals_with_the_fixed_cost_approximate_refitting():
    """The leverage of the linearised fit: close to refitting without the dataset."""
    rng = np.random.default_rng(6)
    X = size_features(rng.integers(50, 5000, 40), rng.integers(2, 50, 40), [2] * 40)
    t = (0.02 + np.exp(X @ [-11, 1.2, 0.5, 0])) * np.exp(rng.normal(0, 0.3, 40))
    model = RuntimeModel(alpha=0.5).fit(X, t[:, None])
    exact = []
    for i in range(40):
        keep = np.arange(40) != i
        refit = RuntimeModel(alpha=0.5).fit(X[keep], t[keep, None])
        exact.append(np.log(t[i]) - np.log(refit.predict(X[i : i + 1])[0, 0]))
    close = np.abs(model.loo_residuals_[:, 0] - np.array(exact)) < 0.05
    assert close.mean() >= 0.9  # a dataset of high influence can be further off
    # what the interval is made of: the 80 % quantile of the absolute residuals
    assert _conformal_width(np.abs(model.loo_residuals_[:, 0]), 0.8) == pytest.approx(
        _conformal_width(np.abs(np.array(exact)), 0.8), rel=0.1
    )


def test_intervals_cover_80_percent_of_new_datasets_when_the_truth_is_known():
    """Log-normal noise around a power law: about 80 % of fresh datasets' times inside."""
    rng = np.random.default_rng(2)

    def draw(m):
        n, d, c = rng.integers(100, 50_000, m), rng.integers(2, 100, m), rng.integers(2, 8, m)
        X = size_features(n, d, c)
        truth = X @ np.array([[-9, 1.5, 0.8, 0.2], [-6, 1.0, 0.3, 1.0]]).T
        return X, np.exp(truth + rng.normal(0, 0.7, truth.shape))

    X, T = draw(300)
    model = RuntimeModel().fit(X, T)
    assert model.width_ == pytest.approx(1.2816 * 0.7, rel=0.15)  # the normal's 80 % point
    X_new, T_new = draw(4000)
    _, low, high = model.predict(X_new, interval=True)
    covered = np.mean((T_new >= low) & (T_new <= high))
    assert 0.77 <= covered <= 0.83


def test_an_algorithm_with_few_datasets_takes_the_pooled_width():
    rng = np.random.default_rng(3)
    X = size_features(rng.integers(100, 1000, 30), [5] * 30, [2] * 30)
    T = np.exp(X @ [-5, 1.0, 0, 0] + rng.normal(0, 0.3, 30))[:, None].repeat(2, axis=1)
    T[MIN_DATASETS - 1 :, 1] = np.nan  # the second ran on 9 datasets only
    model = RuntimeModel().fit(X, T)
    pooled = _conformal_width(np.abs(model.loo_residuals_).ravel(), 0.8)
    assert model.width_[1] == pytest.approx(pooled)
    assert model.width_[0] == pytest.approx(
        _conformal_width(np.abs(model.loo_residuals_[:, 0]), 0.8)
    )


def test_bad_input_and_unfitted_use_are_refused():
    X = size_features([10, 20], [2, 2], [2, 2])
    with pytest.raises(NotFittedError):
        RuntimeModel().predict(X)
    with pytest.raises(InvalidInputError, match="coverage"):
        RuntimeModel(coverage=1.0).fit(X, [1.0, 2.0])
    with pytest.raises(InvalidInputError, match="alpha"):
        RuntimeModel(alpha=np.nan).fit(X, [1.0, 2.0])
    with pytest.raises(InvalidInputError, match="size features"):
        RuntimeModel().fit(X[:, :3], [1.0, 2.0])


def test_the_interval_widens_beyond_the_largest_fitted_dataset():
    """``kappa`` per unit of log rows past each algorithm's own largest dataset; none inside."""
    rng = np.random.default_rng(5)
    n = rng.integers(100, 900, 40).astype(float)
    n[0] = 1000.0
    X = size_features(n, [5] * 40, [2] * 40)
    T = np.exp(X @ [-5, 1.0, 0, 0] + rng.normal(0, 0.3, 40))[:, None].repeat(2, axis=1)
    T[0, 1] = np.nan  # the second algorithm has no time on the largest dataset
    model = RuntimeModel(extrapolation_width=0.5).fit(X, T)
    second_largest = n[1:].max()
    np.testing.assert_allclose(model.max_log_rows_, np.log([1000.0, second_largest]))
    query = size_features([500.0, 1000.0 * np.e**2], [5, 5], [2, 2])
    width = model.interval_width(query)
    np.testing.assert_allclose(width[0], model.width_)  # within the fitted sizes: as it was
    assert width[1, 0] == pytest.approx(model.width_[0] + 0.5 * 2.0)  # e^2 times the largest
    beyond = np.log(1000.0 * np.e**2) - np.log(second_largest)
    assert width[1, 1] == pytest.approx(model.width_[1] + 0.5 * beyond)
    expected, low, high = model.predict(query, interval=True)
    np.testing.assert_allclose(np.log(high / expected), width)
    np.testing.assert_allclose(np.log(expected / low), width)
    flat = RuntimeModel(extrapolation_width=0.0).fit(X, T)
    np.testing.assert_allclose(flat.interval_width(query), np.tile(flat.width_, (2, 1)))
    for bad in (-0.1, np.nan, "wide", True):
        with pytest.raises(InvalidInputError, match="extrapolation_width"):
            RuntimeModel(extrapolation_width=bad).fit(X, T)


def test_size_weight_is_weighted_least_squares_by_rows_past_the_pivot():
    """The plain power law with ``size_weight=0.7`` is the weighted least squares of log time
    with weights ``max(1, n / 1000) ** 0.7`` (numpy's lstsq on rows scaled by their square
    roots); its leave-one-out residuals equal refitting without the dataset, and the default
    weighs nothing (``size_weight=0``: every dataset alike)."""
    from metarec.recommender._runtime import WEIGHT_PIVOT

    assert WEIGHT_PIVOT == 1000
    rng = np.random.default_rng(3)
    n = rng.integers(100, 300_000, size=30)
    X = size_features(n, rng.integers(2, 60, 30), [2] * 30)
    t = np.exp(X @ [-9, 0.9, 0.4, 0] + rng.normal(0, 0.5, 30))
    weighted = {"alpha": 1e-9, "overhead": False, "min_row_exponent": None, "size_weight": 0.7}
    model = RuntimeModel(**weighted).fit(X, t[:, None])
    root = np.sqrt(np.maximum(1.0, n / 1000.0) ** 0.7)
    # (the class column is log 2 everywhere, as the intercept: lstsq's minimum norm splits
    # them, the predictions are the same)
    beta = np.linalg.lstsq(X * root[:, None], np.log(t) * root, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X)[:, 0], np.exp(X @ beta), rtol=1e-5)
    unweighted = RuntimeModel(**{**weighted, "size_weight": 0.0}).fit(X, t[:, None])
    assert not np.allclose(unweighted.predict(X), model.predict(X), rtol=1e-3)
    for i in (0, 11):
        keep = np.arange(30) != i
        refit = RuntimeModel(**weighted).fit(X[keep], t[keep, None])
        expected = np.log(t[i]) - np.log(refit.predict(X[i : i + 1])[0, 0])
        assert model.loo_residuals_[i, 0] == pytest.approx(expected, rel=1e-5)
    with pytest.raises(InvalidInputError, match="size_weight"):
        RuntimeModel(size_weight=-1).fit(X, t)
