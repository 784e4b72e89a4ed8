import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from metarec.evaluation import (
    local_simple_objects,
    nosimple_roc_auc_score,
    nosimple_score,
    roc_auc_columns,
    standard_simple_objects,
)
from metarec.exceptions import InvalidInputError

# the paper's Fig. 1 example
LABELS = np.array([0, 0, 0, 1, 1])
SCORES = np.array([[1, 100], [2, 150], [110, 2], [6, 130], [120, 3]], dtype=float)


def _with_simple(m):
    return np.r_[LABELS, np.zeros(m, int)], np.r_[SCORES, np.zeros((m, 2))]


def test_local_and_standard_simple_objects_of_fig1():
    # classifier 1: negatives 1, 2 below the lowest positive 6; positive 120 above the top
    # negative 110.  classifier 2: negative 2 below the lowest positive 3.
    expected = np.array([[1, 0], [1, 0], [0, 1], [0, 0], [1, 0]], dtype=bool)
    np.testing.assert_array_equal(local_simple_objects(LABELS, SCORES), expected)
    assert not standard_simple_objects(LABELS, SCORES).any()  # intersection is empty


def test_fig1_plain_auc_converges_nosimple_keeps_classifiers_apart():
    plain_gap, nosimple_gap = [], []
    for m in (0, 1, 5, 20, 100, 1000):
        y, s = _with_simple(m)
        plain = roc_auc_columns(y == 1, s)
        # Eq. (6): 1 - (pq - sum I) / ((p + w)(q + m)) with p = 2, q = 3, w = 0
        np.testing.assert_allclose(plain, [1 - 1 / (2 * (3 + m)), 1 - 3 / (2 * (3 + m))])
        np.testing.assert_allclose(nosimple_roc_auc_score(y, s), [5 / 6, 1 / 2])
        assert standard_simple_objects(y, s).sum() == m  # the added zeros are simple
        plain_gap.append(plain[0] - plain[1])
        nosimple_gap.append(5 / 6 - 1 / 2)
    assert np.all(np.diff(plain_gap) < 0) and plain_gap[-1] < 0.001
    assert min(nosimple_gap) == pytest.approx(1 / 3)


def test_roc_auc_columns_matches_sklearn_with_ties():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 60)
    s = rng.integers(0, 5, (60, 4)).astype(float)  # many ties
    expected = [roc_auc_score(y, s[:, j]) for j in range(4)]
    np.testing.assert_allclose(roc_auc_columns(y == 1, s), expected)


def test_every_classifier_perfect_gives_one():
    y = np.array([0, 0, 1, 1])
    s = np.array([[0.1, 1], [0.2, 2], [0.8, 3], [0.9, 4]])
    assert standard_simple_objects(y, s).all()
    np.testing.assert_array_equal(nosimple_roc_auc_score(y, s), [1.0, 1.0])


def test_failed_classifier_is_nan_and_ignored():
    s = np.c_[SCORES, [np.nan, 1, 2, 3, 4]]
    y, _ = _with_simple(0)
    out = nosimple_roc_auc_score(y, s)
    assert np.isnan(out[2])
    np.testing.assert_allclose(out[:2], [5 / 6, 1 / 2])


def test_nosimple_score_any_metric():
    y, s = _with_simple(7)
    out = nosimple_score(y, s, roc_auc_score)
    np.testing.assert_allclose(out, nosimple_roc_auc_score(y, s))

    def count(yk, sk):
        return len(yk)

    np.testing.assert_array_equal(nosimple_score(y, s, count), [5, 5])


def test_multiclass_is_macro_one_vs_rest():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 40)
    s = rng.dirichlet(np.ones(3), size=(40, 4))  # (objects, classifiers, classes)
    got = nosimple_roc_auc_score(y, s)
    assert got.shape == (4,)
    per_class = [nosimple_roc_auc_score((y == c).astype(int), s[:, :, c]) for c in range(3)]
    np.testing.assert_allclose(got, np.mean(per_class, axis=0))


def test_multiclass_hand_example():
    # one classifier, three classes, object order 0, 1, 2, 0
    y = np.array([0, 1, 2, 0])
    s = np.array([[[0.8, 0.1, 0.1]], [[0.1, 0.8, 0.1]], [[0.1, 0.1, 0.8]], [[0.2, 0.3, 0.5]]])
    # class 0: positives 0.8, 0.2; negatives 0.1, 0.1 -> all simple -> 1
    # class 1: positive 0.8; negatives 0.1, 0.1, 0.3 -> all simple -> 1
    # class 2: positive 0.8; negatives 0.1, 0.1, 0.5 -> all simple -> 1
    assert nosimple_roc_auc_score(y, s)[0] == 1.0
    s[3, 0] = [0.05, 0.15, 0.8]  # object 3 (class 0) now looks like class 2
    # class 0: positives .8,.05; negatives .1,.1: object 1,2 not simple (above .05), obj 0
    #   simple -> kept {1, 2, 3}: positive .05 below both negatives -> AUC 0
    # class 2: positive .8 (obj 2); negatives .1,.1,.8 -> kept {2, 3}: tie -> AUC 0.5
    # class 1: positive .8; negatives .1, .1, .15 -> all simple -> 1
    assert nosimple_roc_auc_score(y, s)[0] == pytest.approx((0 + 1 + 0.5) / 3)


def test_bad_input():
    with pytest.raises(InvalidInputError, match="two classes"):
        nosimple_roc_auc_score([1, 1, 1], np.ones((3, 2)))
    with pytest.raises(InvalidInputError, match="mismatched"):
        nosimple_roc_auc_score([0, 1, 1], np.ones((4, 2)))
    with pytest.raises(InvalidInputError, match="class columns"):
        nosimple_roc_auc_score([0, 1, 2], np.ones((3, 2, 2)))
    with pytest.raises(InvalidInputError, match="shape"):
        nosimple_roc_auc_score([0, 1], np.ones((2, 2, 2, 2)))
    with pytest.raises(InvalidInputError, match="empty"):
        nosimple_roc_auc_score([], np.ones((0, 2)))


def test_multiclass_class_absent_from_fold_is_left_out():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 30)  # class 2 never occurs
    s = rng.dirichlet(np.ones(3), size=(30, 2))
    got = nosimple_roc_auc_score(y, s, labels=[0, 1, 2])
    per_class = [nosimple_roc_auc_score((y == c).astype(int), s[:, :, c]) for c in (0, 1)]
    np.testing.assert_allclose(got, np.mean(per_class, axis=0))
    with pytest.raises(InvalidInputError, match="two classes"):
        nosimple_roc_auc_score(np.zeros(30, int), s, labels=[0, 1, 2])


def test_simple_objects_effect_reproduces_fig1():
    from metarec.evaluation import simple_objects_effect

    effect = simple_objects_effect(LABELS, SCORES, [0, 3, 30])
    np.testing.assert_array_equal(effect.n_added, [0, 3, 30])
    np.testing.assert_allclose(effect.plain_auc[:, 0], [5 / 6, 1 - 1 / 12, 1 - 1 / 66])
    np.testing.assert_allclose(effect.plain_auc[:, 1], [1 / 2, 1 - 3 / 12, 1 - 3 / 66])
    np.testing.assert_allclose(effect.nosimple_auc, [[5 / 6, 1 / 2]] * 3)
    # positive simple objects scored above every negative behave the same way (Eq. 6, w)
    up = simple_objects_effect(LABELS, SCORES, [4], simple_label=1, simple_score=1000)
    np.testing.assert_allclose(up.plain_auc[0], [1 - 1 / (6 * 3), 1 - 3 / (6 * 3)])
    np.testing.assert_allclose(up.nosimple_auc[0], [5 / 6, 1 / 2])
    with pytest.raises(InvalidInputError, match="n_added"):
        simple_objects_effect(LABELS, SCORES, [-1])
