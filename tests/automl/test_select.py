"""The answer's choice, against values computed by hand (see posterior_scores' docstring)."""

import numpy as np
import pytest

from metarec.automl._select import Z80, posterior_scores, selection_order, tied_with


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
    assert list(selection_order(out, np.array([1.0, 1.0]))) == [1, 0]


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
    order = selection_order(np.array([0.9, np.nan, 0.9, 0.8]), np.array([2.0, 0.1, 0.5, 0.1]))
    assert list(order) == [2, 0, 3, 1]
    # equal scores and times (or no time): the first name, whatever the input order
    names = ["svc", "knn", "lda"]
    assert list(selection_order(np.array([0.9, 0.9, 0.9]), np.full(3, np.nan), names)) == [1, 2, 0]


def _calibrated(expected_and_walls):
    from metarec.automl._foldtime import FoldTimes
    from metarec.execution import FoldRecord

    times = FoldTimes()
    for i, (expected, wall) in enumerate(expected_and_walls):
        # two folds of fit + predict taking ``wall`` each
        folds = [
            FoldRecord(0, "ok", None, wall - 0.01, 0.01, wall - 0.01, 0.01),
            FoldRecord(1, "ok", None, wall - 0.004, 0.004, wall - 0.004, 0.004),
            FoldRecord(2, "error", "boom", 99.0, 0.0, 99.0, 0.0),  # ignored
        ]
        times.record(f"a{i}", folds, expected)
    return times


def test_the_overhead_per_fold_is_measured_on_finished_jobs():
    from metarec.automl._foldtime import FOLD_OVERHEAD, MAX_OVERHEAD, FoldTimes
    from metarec.execution import FoldRecord

    def folds(*walls):  # fit + predict wall of each fold (0.75 + 0.25 of it)
        return [
            FoldRecord(i, "ok", None, w * 0.75, w * 0.25, w * 0.75, w * 0.25)
            for i, w in enumerate(walls)
        ]

    times = FoldTimes()
    assert times.overhead == FOLD_OVERHEAD  # nothing measured yet: the prior
    times.record("a", folds(0.1, 0.3), 0.2)  # no wall clock (a cluster's job): no measurement
    assert times.overheads == [] and times.job_seconds(0.0, 10) == pytest.approx(
        10 * (times.cost + FOLD_OVERHEAD)
    )
    times.record("b", folds(0.1, 0.3), 0.2, job_wall=0.42)  # 0.02 s between 2 folds
    assert times.overhead == pytest.approx(0.01)
    times.record("c", folds(0.2, 0.2, 0.2), 0.2, job_wall=0.63)  # 0.01 s a fold
    times.record("d", folds(0.5), 0.5, job_wall=0.6)  # 0.1 s: the median is 0.01
    assert times.overheads == pytest.approx([0.01, 0.01, 0.1])
    assert times.overhead == pytest.approx(0.01)
    expected = 150 * (times.fold_seconds(0.05) + 0.01)  # leave-one-out on 150 rows
    assert times.job_seconds(0.05, 150) == pytest.approx(expected)
    # a failed fold's wall says nothing of the overhead; a clock below the folds' is 0
    failed = [*folds(0.1), FoldRecord(1, "error", "boom", 0.0, 0.0, 0.0, 0.0)]
    times.record("e", failed, 0.1, job_wall=5.0)
    times.record("f", folds(0.4), 0.4, job_wall=0.3)
    assert times.overheads == pytest.approx([0.01, 0.01, 0.1, 0.0])
    slow = FoldTimes(overheads=[5.0])  # a stalled machine: at most MAX_OVERHEAD
    assert slow.overhead == MAX_OVERHEAD


def test_expected_times_are_rescaled_by_the_measured_folds():
    from metarec.automl._foldtime import FOLD_OVERHEAD, FoldTimes

    assert FoldTimes().fold_seconds(2.0) == 2.0  # nothing measured yet
    # one algorithm: its measured over its expected time, no fixed cost
    one = _calibrated([(0.5, 1.5)])
    assert one.cost == 0.0 and one.factor == pytest.approx(3.0)
    # folds exactly 0.05 s + 2 x the expected fit: both recovered, whatever the order
    exact = [(0.01, 0.07), (1.0, 2.05), (0.5, 1.05)]
    for points in (exact, exact[::-1]):
        times = _calibrated(points)
        assert times.cost == pytest.approx(0.05)
        assert times.factor == pytest.approx(2.0)
        assert times.fold_seconds(3.0) == pytest.approx(6.05)
        assert times.fold_seconds(float("nan")) == pytest.approx(0.05)
        assert times.job_seconds(3.0, 4) == pytest.approx(4 * (6.05 + FOLD_OVERHEAD))  # prior
    # the cheap algorithms' fixed cost does not inflate an expensive one's expectation:
    # folds of 30 ms where 10 ms were expected, fits otherwise as expected
    cheap = _calibrated([(0.01, 0.03), (0.012, 0.032), (0.2, 0.22), (0.5, 0.52)])
    assert cheap.factor == pytest.approx(1.0) and cheap.cost == pytest.approx(0.02)
    assert cheap.fold_seconds(10.0) == pytest.approx(10.02)  # a single factor: 30 s
    # the line's fixed cost below 0: through the origin, sum(r) / sum(r^2) with r = e / wall
    negative = _calibrated([(1.0, 1.5), (2.0, 4.0)])  # the line: 2.5 e - 1
    r = np.array([1 / 1.5, 2 / 4.0])
    assert negative.cost == 0.0
    assert negative.factor == pytest.approx(r.sum() / (r**2).sum())  # 1.68
    # clipped to [0.5, 100]; an unknown expectation is not recorded
    assert _calibrated([(10.0, 0.01)]).factor == 0.5
    assert _calibrated([(0.1, 500.0)]).factor == 100.0
    assert _calibrated([(float("nan"), 5.0)]).walls == {}


def test_tied_with_by_hand():
    """Paired: d = [0.10, -0.05, 0.05], mean 1/30, sd 0.0764, se 0.0441: tied at z = 2 (0.088)
    and not at z = 0.5 (0.022).  Constant differences have no noise: any gap is clear, none
    is a tie.  Unequal fold counts: Welch's error; one fold each: always tied."""
    best, other = [0.80, 0.70, 0.90], [0.70, 0.75, 0.85]
    assert tied_with(best, other)
    assert not tied_with(best, other, z=0.5)
    assert not tied_with([0.9, 0.8], [0.89, 0.79])
    assert tied_with([0.9, 0.8], [0.9, 0.8])
    # Welch: means 0.85 and 0.80, variances 0.005 and 0.01 -> error sqrt(0.0025 + 0.0033) = 0.076
    assert tied_with([0.8, 0.9], [0.7, 0.8, 0.9])
    assert not tied_with([0.8, 0.9], [0.7, 0.8, 0.9], z=0.5)
    assert tied_with([0.9], [0.1])


def test_tied_with_at_its_boundaries():
    """Paired: d = [1, 3], mean 2 = 2 x sd sqrt(2) / sqrt(2): a tie, exactly at the bound.
    Welch: [0, 2] against four folds of -1, a difference of 2 = 2 x sqrt(2 / 2 + 0): a tie
    exactly at the bound.  [1, 2, 3] against [0, 1]: 1.5 within 2 x sqrt(1/3 + 0.5/2) =
    1.528 (each variance with one degree of freedom less: 1.354 and 1.374 without), and
    against [-0.1, 0.9] 1.6 is beyond it.  A single fold on either side: no noise to
    measure, a tie."""
    assert tied_with([3.0, 5.0], [2.0, 2.0])
    assert not tied_with([3.0, 5.0], [1.9, 1.9])  # the same spread, 0.1 further
    assert tied_with([0.0, 2.0], [-1.0] * 4)
    assert not tied_with([0.0, 2.0], [-1.01] * 4)
    assert tied_with([1.0, 2.0, 3.0], [0.0, 1.0])
    assert not tied_with([1.0, 2.0, 3.0], [-0.1, 0.9])
    assert tied_with([0.9], [0.5, 0.6]) and tied_with([0.9, 0.8], [0.1])


def test_the_time_kept_for_storing_grows_with_a_fold_s_rows_and_classes():
    from metarec.automl._storing import (
        STORE_CELL,
        STORE_CLASS,
        STORE_ONE_ROW,
        STORE_SECONDS,
        store_seconds,
    )

    # 0.001 + c * (0.001 + 5e-7 * rows) with 10 classes: digits' cv10 folds (180 rows), a
    # fold of 40,000 rows, one of 100, and leave-one-out's one row
    got = store_seconds([180, 40000, 100, 1], 10)
    assert got == pytest.approx([0.001 + 10 * (0.001 + 5e-7 * 180), 0.211, 0.0115, 0.0005])
    assert store_seconds([40000], 2)[0] == pytest.approx(0.001 + 2 * (0.001 + 0.02))
    # regression (no classes) counts one
    assert store_seconds([100], 0)[0] == pytest.approx(
        STORE_SECONDS + STORE_CLASS + 100 * STORE_CELL
    )
    assert store_seconds([1, 1], 3).tolist() == [STORE_ONE_ROW, STORE_ONE_ROW]
