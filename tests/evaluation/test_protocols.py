import numpy as np
import pytest

from metarec.evaluation import PROTOCOLS, bootstrap632_estimate, get_protocol, summarize
from metarec.exceptions import InvalidInputError, UnknownNameError

Y = np.array([0] * 30 + [1] * 20)
X = np.zeros((50, 3))


def test_cv10x10_counts_and_stratification():
    p = get_protocol("cv10x10", random_state=0)
    folds = list(p.split(X, Y))
    assert p.name == "cv10x10" and p.n_splits == 100 == len(folds)
    times_tested = np.zeros(50, int)
    for train, test in folds:
        assert len(np.intersect1d(train, test)) == 0
        assert len(train) + len(test) == 50
        assert np.sum(Y[test] == 1) == 2  # 20 positives over 10 folds
        times_tested[test] += 1
    assert np.all(times_tested == 10)


@pytest.mark.parametrize("name,k", [("cv10", 10), ("cv5", 5)])
def test_kfold_reproducible(name, k):
    a = [t.tolist() for _, t in get_protocol(name, random_state=3).split(X, Y)]
    b = [t.tolist() for _, t in get_protocol(name, random_state=3).split(X, Y)]
    assert a == b and len(a) == k
    assert sorted(sum(a, [])) == list(range(50))


def test_regression_target_is_not_stratified():
    y = np.linspace(0, 1, 50)
    folds = list(get_protocol("cv5", random_state=0).split(X, y))
    assert len(folds) == 5


def test_loo():
    p = get_protocol("loo")
    assert p.n_splits is None and p.get_n_splits(X[:7]) == 7
    folds = list(p.split(X[:7], Y[:7]))
    assert len(folds) == 7 and all(len(t) == 1 for _, t in folds)


def test_bootstrap632_out_of_bag():
    p = get_protocol("bootstrap632", random_state=0, n_splits=20)
    assert p.n_splits == 20
    rounds = list(p.split(X, Y))
    assert len(rounds) == 20
    for train, oob in rounds:
        assert len(train) == 50  # drawn with replacement, same size
        assert len(np.unique(train)) < 50
        assert len(np.intersect1d(train, oob)) == 0
        assert len(np.union1d(train, oob)) == 50
        assert np.sum(Y[train] == 1) == 20  # stratified resampling
    mean_oob = np.mean([len(o) for _, o in rounds]) / 50
    assert 0.25 < mean_oob < 0.5  # about 0.368


def test_bootstrap632_estimate_hand_computed():
    assert bootstrap632_estimate(0.8, 1.0) == pytest.approx(0.632 * 0.8 + 0.368)
    np.testing.assert_allclose(bootstrap632_estimate([0.5, 0.7], 0.9), [0.6472, 0.7736])


def test_holdout_three_way():
    p = get_protocol("holdout", random_state=0)
    train, val, test = p.split_three(X, Y)
    assert (len(train), len(val), len(test)) == (30, 10, 10)
    assert len(np.union1d(np.union1d(train, val), test)) == 50
    assert np.sum(Y[test] == 1) == 4 and np.sum(Y[val] == 1) == 4
    ((tr, te),) = list(p.split(X, Y))
    np.testing.assert_array_equal(tr, train)
    np.testing.assert_array_equal(te, test)
    train2, val2, _ = get_protocol("holdout", validation_size=0).split_three(X, Y)
    assert len(val2) == 0 and len(train2) == 40


def test_every_name_and_unknown():
    for name in PROTOCOLS:
        p = get_protocol(name, random_state=1)
        assert p.name == name
        assert len(list(p.split(X, Y))) == p.get_n_splits(X, Y)
    with pytest.raises(UnknownNameError, match="cv3"):
        get_protocol("cv3")


def test_split_errors():
    with pytest.raises(InvalidInputError, match="mismatched"):
        list(get_protocol("cv5").split(X, Y[:10]))
    with pytest.raises(InvalidInputError, match="at least"):
        list(get_protocol("cv10").split(X[:5], Y[:5]))
    with pytest.raises(InvalidInputError, match="empty"):
        list(get_protocol("loo").split(np.zeros((0, 2))))


def test_summarize_hand_computed():
    s = summarize([0.8, 0.9, 0.85])
    assert s.mean == pytest.approx(0.85) and s.sd == pytest.approx(0.05) and s.n == 3
    half = 4.302653 * 0.05 / np.sqrt(3)  # t(0.975, 2) = 4.302653
    assert s.ci_low == pytest.approx(0.85 - half, abs=1e-6)
    assert s.ci_high == pytest.approx(0.85 + half, abs=1e-6)


def test_summarize_nan_corrected_and_errors():
    s = summarize([0.8, np.nan, 0.9, 0.85])
    assert s.n == 3 and s.mean == pytest.approx(0.85)
    wide = summarize([0.8, 0.9, 0.85], test_train_ratio=1 / 9)
    assert wide.ci_high - wide.ci_low > s.ci_high - s.ci_low
    one = summarize([0.7])
    assert one.mean == 0.7 and np.isnan(one.sd) and one.n == 1
    with pytest.raises(InvalidInputError, match="empty"):
        summarize([])
    with pytest.raises(InvalidInputError, match="finite"):
        summarize([np.nan])


def test_run_protocol_per_fold_and_summary():
    from metarec.evaluation import run_protocol

    def share_positive(train, test):  # a "score" that is easy to compute by hand
        return float(np.mean(Y[test] == 1))

    result = run_protocol("cv10", X, Y, share_positive)
    assert result.protocol == "cv10" and result.fold_scores.shape == (10,)
    np.testing.assert_allclose(result.fold_scores, 0.4)  # stratified folds: 2 of 5 positive
    assert result.summary.mean == pytest.approx(0.4) and result.summary.sd == pytest.approx(0)

    calls = []

    def constant(train, test):
        calls.append(len(test))
        return 1.0 if len(test) == len(train) else 0.5  # resubstitution 1, out-of-bag 0.5

    boot = run_protocol(get_protocol("bootstrap632", n_splits=4, random_state=0), X, Y, constant)
    np.testing.assert_allclose(boot.fold_scores, 0.632 * 0.5 + 0.368)
    assert len(calls) == 8


def test_a_split_no_class_allows_says_why_in_the_data_s_words():
    cv5 = get_protocol("cv5", random_state=0)
    many = (np.arange(40) / 3).round(2).astype(str)  # a continuous target taken for labels
    with pytest.raises(
        InvalidInputError,
        match=r"every class has fewer than 5 rows \(the largest 1, of 40 classes\).*continuous",
    ):
        list(cv5.split(np.zeros((40, 1)), many))
    few = np.repeat(np.arange(10), 3).astype(str)  # 10 small classes: no word of continuity
    with pytest.raises(InvalidInputError, match=r"the largest 3, of 10 classes\); a strat") as e:
        list(cv5.split(np.zeros((30, 1)), few))
    assert "continuous" not in str(e.value)
    gaps = np.array(["a", "a", "b", "b", "c", "c", np.nan, np.nan, np.nan, "d"], dtype=object)
    with pytest.raises(InvalidInputError, match="cv5 cannot split these data") as e:
        list(cv5.split(np.zeros((10, 1)), gaps))
    assert "every class" not in str(e.value)  # a missing label is not a class of 3 rows


def test_a_holdout_no_class_allows_says_why_in_the_datas_words():
    holdout = get_protocol("holdout", random_state=0)
    many = (np.arange(40) / 3).round(2).astype(str)  # a continuous target taken for labels
    with pytest.raises(
        InvalidInputError,
        match=r"on 40 objects: 40 of the 40 classes have a single row, .*continuous target",
    ):
        list(holdout.split(np.zeros((40, 1)), many))
    one_alone = np.array(["a"] * 10 + ["b"] * 10 + ["c"])
    with pytest.raises(InvalidInputError, match=r"1 of the 3 classes have a single row") as e:
        list(holdout.split(np.zeros((21, 1)), one_alone))
    assert "continuous" not in str(e.value)
