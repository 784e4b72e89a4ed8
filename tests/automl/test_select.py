"""The answer's choice, against values computed by hand (see posterior_scores' docstring)."""

import numpy as np
import pytest

from metarec.automl._select import Z80, choose, posterior_scores


def test_posterior_by_hand():
    # fold scores: a = [0.8, 0.9] (mean 0.85), b = [0.7, 0.8] (mean 0.75)
    # pooled fold variance: (2 * 0.05^2 + 2 * 0.05^2) / 2 = 0.005; noise of a mean 0.0025
    # priors 0.6 and 0.8, both +-0.1 sd; centred on the data: +0.1 -> 0.7 and 0.9
    # a: (0.85 * 400 + 0.7 * 100) / 500 = 0.82;  b: (0.75 * 400 + 0.9 * 100) / 500 = 0.78
    tau = 0.1
    out = posterior_scores(
        [np.array([0.8, 0.9]), np.array([0.7, 0.8])],
        np.array([0.6, 0.8]),
        np.array([0.6, 0.8]) - tau * Z80,
        np.array([0.6, 0.8]) + tau * Z80,
    )
    np.testing.assert_allclose(out, [0.82, 0.78])


def test_a_confident_prior_overturns_a_lucky_fold_win():
    # a beats b by 0.02 on noisy folds; the KB is sure b is 0.10 better than a
    folds = [np.array([0.70, 0.90, 0.72, 0.88]), np.array([0.68, 0.88, 0.70, 0.86])]
    prior = np.array([0.70, 0.80])
    tau = 0.01
    out = posterior_scores(folds, prior, prior - tau * Z80, prior + tau * Z80)
    assert out[1] > out[0]
    assert list(choose(out, np.array([1.0, 1.0]))) == [1, 0]


def test_without_priors_or_noise_the_cv_mean_decides():
    folds = [np.array([0.8, 0.9]), np.array([0.7, 0.8])]
    nan = np.full(2, np.nan)
    np.testing.assert_allclose(posterior_scores(folds, nan, nan, nan), [0.85, 0.75])
    flat = [np.array([0.8, 0.8]), np.array([0.7, 0.7])]  # no fold variance: no shrinkage
    prior = np.array([0.1, 0.9])
    np.testing.assert_allclose(posterior_scores(flat, prior, prior - 0.1, prior + 0.1), [0.8, 0.7])


def test_an_algorithm_without_prior_keeps_its_mean():
    folds = [np.array([0.8, 0.9]), np.array([0.7, 0.8]), np.array([0.6, 0.7])]
    prior = np.array([0.6, 0.8, np.nan])
    out = posterior_scores(folds, prior, prior - 0.1, prior + 0.1)
    assert out[2] == pytest.approx(0.65)
    assert out[0] != pytest.approx(0.85) and out[1] != pytest.approx(0.75)


def test_ties_go_to_the_faster_fit_and_nan_goes_last():
    order = choose(np.array([0.9, np.nan, 0.9, 0.8]), np.array([2.0, 0.1, 0.5, 0.1]))
    assert list(order) == [2, 0, 3, 1]
