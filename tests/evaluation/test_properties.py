"""Property tests: invariances the papers state, checked on random inputs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metarec.evaluation import (
    CONFUSION_METRICS,
    a3r,
    nosimple_roc_auc_score,
    roc_auc_columns,
    tau_score,
)
from metarec.evaluation._validation import ConfusionCounts

counts = st.integers(min_value=1, max_value=50)


@settings(max_examples=60, deadline=None)
@given(tp=counts, fn=counts, tn=counts, fp=counts, scale=st.integers(min_value=2, max_value=40))
def test_agnostic_metrics_ignore_the_negative_class_size(tp, fn, tn, fp, scale):
    # relatively identical matrices (Def. 3.3): same rates, `scale` times more negatives
    a = ConfusionCounts(tp, fn, tn, fp)
    b = ConfusionCounts(tp, fn, tn * scale, fp * scale)
    for name in ("balanced_accuracy", "geometric_mean", "recall", "tss", "youden_j"):
        kernel = CONFUSION_METRICS[name].kernel
        assert np.isclose(kernel(a, 0.0), kernel(b, 0.0)), name
    assert np.isclose(
        tau_score(confusion=[[tn, fp], [fn, tp]]),
        tau_score(confusion=[[tn * scale, fp * scale], [fn, tp]]),
    )


@settings(max_examples=60, deadline=None)
@given(
    sr=st.lists(st.floats(0.05, 1.0), min_size=2, max_size=2),
    t=st.lists(st.floats(1e-3, 1e3), min_size=2, max_size=2),
    n=st.floats(0.5, 64),
)
def test_a3r_is_reciprocal(sr, t, n):
    forward = a3r(sr[0], sr[1], t[0], t[1], n=n)
    backward = a3r(sr[1], sr[0], t[1], t[0], n=n)
    assert np.isclose(forward * backward, 1.0)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_simple=st.integers(0, 30))
def test_nosimple_auc_unchanged_by_added_simple_objects(seed, n_simple):
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, 18)]
    scores = rng.normal(size=(20, 3))
    base = nosimple_roc_auc_score(y, scores)
    low = scores.min() - 1.0  # below every score: simple negatives for every classifier
    y2 = np.r_[y, np.zeros(n_simple, int)]
    s2 = np.r_[scores, np.full((n_simple, 3), low)]
    np.testing.assert_allclose(nosimple_roc_auc_score(y2, s2), base)
    assert np.all(roc_auc_columns(y2 == 1, s2) >= roc_auc_columns(y == 1, scores) - 1e-12)
