"""Ensemble selection over out-of-fold predictions, by hand."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.automl._ensemble import ensemble_score, ensemble_selection
from metarec.exceptions import InvalidInputError


def _binary(p1):
    p1 = np.asarray(p1, dtype=float)
    return np.column_stack([1 - p1, p1])


def test_selection_by_hand_finds_the_pair_no_single_model_reaches():
    """y = 0 1 1 0 1 0.  A and B are each right on 4 of 6 rows, the constant C on 3.  The
    best single is A (the first of the two); in round one A + B is right on 5 (probabilities
    of class 1: .4 .85 .5 .45 .65 .2, the .5 tie going to class 0); in round two adding A,
    B or C scores 5/6 alike and the tie goes to the best single model among them: A."""
    y = np.array([0, 1, 1, 0, 1, 0])
    a = _binary([0.2, 0.9, 0.6, 0.7, 0.4, 0.3])
    b = _binary([0.6, 0.8, 0.4, 0.2, 0.9, 0.1])
    c = _binary([0.5] * 6)
    assert [ensemble_score(y, p, "accuracy") for p in (a, b, c)] == [4 / 6, 4 / 6, 3 / 6]
    selection = ensemble_selection([a, b, c], y, rounds=2)
    assert selection.counts.tolist() == [2, 1, 0]
    np.testing.assert_allclose(selection.weights, [2 / 3, 1 / 3, 0])
    assert selection.best_single == 4 / 6 and selection.score == 5 / 6
    assert selection.trajectory == (4 / 6, 5 / 6, 5 / 6)
    # at most one distinct member: A again and again
    alone = ensemble_selection([a, b, c], y, rounds=2, max_members=1)
    assert alone.counts.tolist() == [3, 0, 0] and alone.score == 4 / 6


def test_a_constant_model_never_wins_a_tie_of_auc():
    """Adding a constant predictor leaves the AUC as it is: the tie goes to the informative
    model, so the constant one gets no weight (it would pull the answer's labels)."""
    y = np.array([0, 1, 1, 0, 1, 0])
    informative = _binary([0.2, 0.9, 0.6, 0.7, 0.4, 0.3])
    constant = _binary([0.5] * 6)
    selection = ensemble_selection([constant, informative], y, metric="roc_auc", rounds=3)
    assert selection.counts.tolist() == [0, 4]


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
