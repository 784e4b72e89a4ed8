import numpy as np
import pytest

from metarec.evaluation import (
    CONFUSION_METRICS,
    accuracy_confidence_interval,
    accuracy_score,
    balanced_accuracy_score,
    doolittle_skill_score,
    f1_score,
    geometric_mean_score,
    gilbert_skill_score,
    heidke_skill_score,
    precision_score,
    recall_score,
    true_skill_statistic,
    youden_j_score,
)
from metarec.exceptions import InvalidInputError

# tp=6, fn=2, tn=8, fp=4  (p=8, n=12, N=20, predicted positive 10)
Y_TRUE = np.array([1] * 8 + [0] * 12)
Y_PRED = np.array([1] * 6 + [0] * 2 + [0] * 8 + [1] * 4)
CM = [[8, 4], [2, 6]]

EXPECTED = {
    accuracy_score: 14 / 20,
    balanced_accuracy_score: (0.75 + 8 / 12) / 2,
    geometric_mean_score: np.sqrt(0.75 * 8 / 12),
    precision_score: 0.6,
    recall_score: 0.75,
    f1_score: 12 / 18,
    gilbert_skill_score: 0.25,  # random hits 8*10/20 = 4 -> (6-4)/(6+4+2-4)
    doolittle_skill_score: 1600 / 9600,  # (48-8)^2 / (10*10*8*12)
    heidke_skill_score: 0.4,  # 2*40 / (8*10 + 12*10)
    true_skill_statistic: 0.75 - 4 / 12,
    youden_j_score: 0.75 + 8 / 12 - 1,
}


@pytest.mark.parametrize(
    "func,value", list(EXPECTED.items()), ids=lambda x: getattr(x, "__name__", "")
)
def test_hand_computed_from_labels_and_matrix(func, value):
    assert func(Y_TRUE, Y_PRED) == pytest.approx(value)
    assert func(confusion=CM) == pytest.approx(value)


def test_string_labels_and_pos_label():
    yt = np.where(Y_TRUE == 1, "flare", "quiet")
    yp = np.where(Y_PRED == 1, "flare", "quiet")
    assert recall_score(yt, yp, pos_label="flare") == pytest.approx(0.75)
    assert recall_score(yt, yp, pos_label="quiet") == pytest.approx(8 / 12)


def test_zero_division_precision_and_f1():
    yt = [1, 0, 0, 1]
    yp = [0, 0, 0, 0]
    assert precision_score(yt, yp) == 0.0
    assert np.isnan(precision_score(yt, yp, zero_division=np.nan))
    assert f1_score(yt, yp) == 0.0


def test_kernels_vectorised_match_scalar():
    tp = np.array([6.0, 1.0])
    fn = np.array([2.0, 3.0])
    tn = np.array([8.0, 5.0])
    fp = np.array([4.0, 0.0])
    from metarec.evaluation._validation import ConfusionCounts

    c = ConfusionCounts(tp, fn, tn, fp)
    for name, info in CONFUSION_METRICS.items():
        values = info.kernel(c, 0.0)
        assert values.shape == (2,)
        assert info.low - 1e-12 <= values.min() and values.max() <= info.high + 1e-12, name


def test_tss_equals_youden_everywhere():
    rng = np.random.default_rng(0)
    for _ in range(20):
        yt = rng.integers(0, 2, 30)
        yt[:2] = [0, 1]
        yp = rng.integers(0, 2, 30)
        assert true_skill_statistic(yt, yp) == pytest.approx(youden_j_score(yt, yp))


def test_perfect_classifier():
    yt = [0, 1, 1, 0]
    for func in EXPECTED:
        assert func(yt, yt) == pytest.approx(1.0), func.__name__


def test_doolittle_measures_association_not_its_sign():
    yt, inverted = [0, 1, 1, 0], [1, 0, 0, 1]
    assert doolittle_skill_score(yt, inverted) == pytest.approx(1.0)
    assert heidke_skill_score(yt, inverted) == pytest.approx(-1.0)


def test_multiclass_accuracy_and_balanced_accuracy():
    yt = [0, 0, 0, 0, 1, 1, 2, 2]
    yp = [0, 0, 0, 1, 1, 0, 2, 2]
    assert accuracy_score(yt, yp) == pytest.approx(6 / 8)
    assert balanced_accuracy_score(yt, yp) == pytest.approx((0.75 + 0.5 + 1.0) / 3)
    cm = [[3, 1, 0], [1, 1, 0], [0, 0, 2]]
    assert accuracy_score(confusion=cm) == pytest.approx(6 / 8)


def test_accuracy_interval_textbook_values():
    # Witten, Frank & Hall: f = 75 %, 80 % confidence -> [73.2, 76.7] (N=1000), [69.1, 80.1] (N=100)
    ci = accuracy_confidence_interval(accuracy=0.75, n=1000, confidence=0.8)
    assert (round(ci.low, 3), round(ci.high, 3)) == (0.732, 0.767)
    ci = accuracy_confidence_interval(accuracy=0.75, n=100, confidence=0.8)
    assert (round(ci.low, 3), round(ci.high, 3)) == (0.691, 0.801)
    ci = accuracy_confidence_interval(Y_TRUE, Y_PRED)
    assert ci.accuracy == pytest.approx(0.7) and ci.n == 20
    assert ci.low < 0.7 < ci.high


def test_bad_input():
    with pytest.raises(InvalidInputError, match="empty"):
        accuracy_score([], [])
    with pytest.raises(InvalidInputError, match="mismatched"):
        recall_score([0, 1, 1], [0, 1])
    with pytest.raises(InvalidInputError, match="one class"):
        recall_score([1, 1, 1], [1, 0, 1])
    with pytest.raises(InvalidInputError, match="positive class"):
        recall_score([0, 0, 2], [0, 1, 2])
    with pytest.raises(InvalidInputError, match="2 x 2"):
        precision_score(confusion=np.eye(3))
    with pytest.raises(InvalidInputError, match="row of zeros"):
        recall_score(confusion=[[0, 0], [3, 4]])
    with pytest.raises(InvalidInputError, match="non-negative"):
        precision_score(confusion=[[1, -1], [0, 2]])
    with pytest.raises(InvalidInputError, match="confidence"):
        accuracy_confidence_interval(accuracy=0.5, n=10, confidence=1.5)


def test_confusion_matrix_label_order():
    from metarec.evaluation._validation import confusion_matrix

    cm, labels = confusion_matrix(
        ["b", "a", "c", "a"], ["a", "a", "c", "b"], labels=["c", "b", "a"]
    )
    assert labels.tolist() == ["c", "b", "a"]
    np.testing.assert_array_equal(cm, [[1, 0, 0], [0, 0, 1], [0, 1, 1]])
    with pytest.raises(InvalidInputError, match="not listed"):
        confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1])
