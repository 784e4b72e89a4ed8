"""Ensemble selection over out-of-fold predictions, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.automl._ensemble import ensemble_score, ensemble_selection
from metarec.exceptions import InvalidInputError


def _binary(p1):
    p1 = np.asarray(p1, dtype=float)
    return np.column_stack([1 - p1, p1])


def test_selection_by_hand_finds_the_weighted_pair_no_single_model_reaches():
    """y = 0 1 1 0 1.  A (3/5 right) and B (4/5, the best single) tie with everything in
    round one (0.8); the first candidate, A, is taken; in round two 2A + B is right on every
    row (probabilities of class 1: .267 .733 .533 .433 .567)."""
    y = np.array([0, 1, 1, 0, 1])
    a = _binary([0.2, 0.8, 0.7, 0.6, 0.4])
    b = _binary([0.4, 0.6, 0.2, 0.1, 0.9])
    c = _binary([0.9, 0.9, 0.9, 0.9, 0.9])
    assert [ensemble_score(y, p, "accuracy") for p in (a, b, c)] == [0.6, 0.8, 0.6]
    selection = ensemble_selection([a, b, c], y, rounds=2)
    assert selection.counts.tolist() == [2, 1, 0]
    np.testing.assert_allclose(selection.weights, [2 / 3, 1 / 3, 0])
    assert selection.best_single == 0.8 and selection.score == 1.0
    assert selection.trajectory == (0.8, 0.8, 1.0)
    # at most one distinct member: B again and again
    alone = ensemble_selection([a, b, c], y, rounds=2, max_members=1)
    assert alone.counts.tolist() == [0, 3, 0] and alone.score == 0.8


def test_selection_of_regressors_averages_their_errors_away():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    high, low = np.array([1.0, 2.0, 3.0, 5.0]), np.array([1.0, 2.0, 3.0, 3.0])
    # R² of each alone: 1 - 1 / 5
    assert ensemble_score(y, high, "r2") == pytest.approx(0.8)
    selection = ensemble_selection([high, low], y, metric="r2", rounds=1)
    assert selection.counts.tolist() == [1, 1] and selection.score == pytest.approx(1.0)


def test_the_metrics_of_an_averaged_prediction_by_hand():
    y = np.array([0, 0, 0, 1])
    p = _binary([0.1, 0.2, 0.6, 0.7])  # predicts 0 0 1 1
    assert ensemble_score(y, p, "accuracy") == 0.75
    assert ensemble_score(y, p, "balanced_accuracy") == pytest.approx((2 / 3 + 1) / 2)
    assert ensemble_score(y, p, "roc_auc") == 1.0  # the positive row scores highest
    assert ensemble_score(np.array([1.0, 2.0, 3.0]), np.array([3.0, 3.0, 3.0]), "r2") == -1.5
    assert ensemble_score(np.array([1.0, 2.0, 3.0]), np.array([3.0, 3.0, 3.0]), "success") == 0


def test_bad_candidates_are_refused():
    with pytest.raises(InvalidInputError, match="at least one"):
        ensemble_selection([], np.array([0, 1]))
    with pytest.raises(InvalidInputError, match="3 rows for a target of 2"):
        ensemble_selection([np.zeros((3, 2))], np.array([0, 1]))
