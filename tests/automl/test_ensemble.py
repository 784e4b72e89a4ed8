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
    # 50 rounds by default (auto-sklearn's): 51 members counted, a score after each
    default = ensemble_selection([a, b, c], y)
    assert len(default.trajectory) == 51 and default.counts.sum() == 51


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


def test_the_auc_of_more_classes_is_the_mean_over_the_classes_present():
    """Three classes, class 1 absent from y (left out: no AUC without a positive).  Class
    0: rows 0, 1 (.6, .3) against rows 2, 3 (.2, .5): 3 of 4 pairs; class 2: rows 2, 3
    (.6, .4) against rows 0, 1 (.1, .4): 3 pairs and a tie of 4.  The mean: 0.8125."""
    y = np.array([0, 0, 2, 2])
    p = np.array([[0.6, 0.3, 0.1], [0.3, 0.3, 0.4], [0.2, 0.2, 0.6], [0.5, 0.1, 0.4]])
    assert ensemble_score(y, p, "roc_auc") == 0.8125
    # two rows: class 0 ranked wrong (0), class 2 right (1); never class 1's column alone
    y = np.array([0, 2])
    p = np.array([[0.2, 0.7, 0.1], [0.5, 0.1, 0.4]])
    assert ensemble_score(y, p, "roc_auc") == 0.5
    # four classes, each ranked first where it is true: 1
    y = np.array([0, 1, 2, 3, 3])
    assert ensemble_score(y, np.eye(4)[y] * 0.7 + 0.075, "roc_auc") == 1.0


def test_bad_candidates_are_refused():
    with pytest.raises(InvalidInputError, match="at least one"):
        ensemble_selection([], np.array([0, 1]))
    with pytest.raises(InvalidInputError, match="3 rows for a target of 2"):
        ensemble_selection([np.zeros((3, 2))], np.array([0, 1]))


def test_when_every_step_hurt_the_answer_is_the_best_single_model_alone():
    """y = 1 1 0 1 0 0.  A is right on 2 rows, B on 3 (the best single).  Round one: A + B
    (class-1 probabilities .55 .55 .65 .35 .45 .45) is right on 4; round two: 2A + B and
    A + 2B are right on 2 each, below B alone: the answer is B alone, with B's score."""
    y = np.array([1, 1, 0, 1, 0, 0])
    a = _binary([1.0, 0.2, 0.9, 0.3, 0.1, 0.8])
    b = _binary([0.1, 0.9, 0.4, 0.4, 0.8, 0.1])
    assert [ensemble_score(y, p, "accuracy") for p in (a, b)] == [2 / 6, 3 / 6]
    hurt = ensemble_selection([a, b], y, rounds=2)
    assert hurt.trajectory == pytest.approx((3 / 6, 4 / 6, 2 / 6))
    assert hurt.counts.tolist() == [0, 1] and hurt.weights.tolist() == [0.0, 1.0]
    assert hurt.score == 3 / 6 and hurt.best_single == 3 / 6
    # after one round the ensemble is better than B: it stays
    better = ensemble_selection([a, b], y, rounds=1)
    assert better.counts.tolist() == [1, 1] and better.score == pytest.approx(4 / 6)
    # no round at all: the best single
    assert ensemble_selection([a, b], y, rounds=0).counts.tolist() == [0, 1]


def test_an_ensemble_that_ends_level_with_the_best_single_model_stays():
    """y = 0 1 0 1.  A and B are each right on 2 rows (A first on the tie); A + B is right
    on 3; in round two 2A + B and A + 2B are right on 2 each (the tie to A, the first):
    the ensemble 2A + B scores as A alone, and stays (only a loss falls back)."""
    y = np.array([0, 1, 0, 1])
    a = _binary([0.8, 0.2, 0.0, 0.9])
    b = _binary([0.6, 0.9, 0.3, 0.2])
    level = ensemble_selection([a, b], y, rounds=2)
    assert level.trajectory == (0.5, 0.75, 0.5)
    assert level.counts.tolist() == [2, 1] and level.score == 0.5


def _fold(fold, index, *, pred=None, proba=None, status="ok"):
    from metarec.execution import FoldRecord

    return FoldRecord(
        fold, status, None if status == "ok" else "failed", 0.1, 0.01, 0.1, 0.01,
        test_index=None if index is None else np.array(index),
        y_pred=None if pred is None else np.array(pred),
        proba=None if proba is None else np.array(proba, dtype=float),
    )  # fmt: skip


def _job(algorithm, *folds):
    from metarec.execution import JobResult

    return JobResult("toy", algorithm, "cv2", 0, tuple(folds))


def test_out_of_fold_predictions_by_hand():
    """Four rows, two folds ({0, 1} and {2, 3}): a model's probabilities, a vote where a
    model gives none, a job resumed in two parts, a row tested twice averaged; a model
    that missed a fold is no candidate."""
    from metarec.automl._ensemble import out_of_fold

    results = [
        _job("proba", _fold(0, [0, 1], pred=[0, 1], proba=[[0.8, 0.2], [0.3, 0.7]]),
             _fold(1, [2, 3], pred=[0, 1], proba=[[0.6, 0.4], [0.1, 0.9]])),
        _job("vote", _fold(0, [0, 1], pred=[1, 0]), _fold(1, [2, 3], pred=[0, 1])),
        _job("resumed", _fold(0, [0, 1], pred=[0, 0], proba=[[1.0, 0.0], [0.5, 0.5]])),
        _job("resumed", _fold(1, [2, 3], pred=[1, 1], proba=[[0.0, 1.0], [0.2, 0.8]])),
        _job("twice", _fold(0, [0, 1, 2, 3], pred=[0, 0, 0, 0], proba=[[1.0, 0.0]] * 4),
             _fold(1, [0, 1], pred=[1, 1], proba=[[0.0, 1.0]] * 2)),
        _job("missed", _fold(0, [0, 1], pred=[0, 1], proba=[[0.9, 0.1], [0.1, 0.9]]),
             _fold(1, [2, 3], status="error")),
        _job("no rows", _fold(0, None, pred=[0, 1]), _fold(1, [2, 3], pred=[0, 1])),
    ]  # fmt: skip
    rows, predictions = out_of_fold(results, n_rows=4, n_classes=2)
    assert rows.tolist() == [0, 1, 2, 3]
    assert sorted(predictions) == ["proba", "resumed", "twice", "vote"]
    np.testing.assert_array_equal(
        predictions["proba"], [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.1, 0.9]]
    )
    np.testing.assert_array_equal(predictions["vote"], [[0, 1], [1, 0], [1, 0], [0, 1]])
    np.testing.assert_array_equal(predictions["resumed"], [[1, 0], [0.5, 0.5], [0, 1], [0.2, 0.8]])
    np.testing.assert_array_equal(predictions["twice"], [[0.5, 0.5], [0.5, 0.5], [1, 0], [1, 0]])


def test_out_of_fold_rows_are_the_widest_coverage_and_values_for_regression():
    from metarec.automl._ensemble import out_of_fold

    # a holdout: only the test rows 1 and 3 were predicted, by both
    results = [
        _job("mean", _fold(0, [1, 3], pred=[2.0, 4.0])),
        _job("ols", _fold(0, [3, 1], pred=[5.0, 1.5])),
    ]
    rows, predictions = out_of_fold(results, n_rows=5, n_classes=0)
    assert rows.tolist() == [1, 3]
    np.testing.assert_array_equal(predictions["mean"], [2.0, 4.0])
    np.testing.assert_array_equal(predictions["ols"], [1.5, 5.0])  # in the order of the rows
    # one that covers fewer rows than the others is left out, not the rows
    narrow = [*results, _job("narrow", _fold(0, [1], pred=[9.0]))]
    rows, predictions = out_of_fold(narrow, n_rows=5, n_classes=0)
    assert rows.tolist() == [1, 3] and sorted(predictions) == ["mean", "ols"]
    # nothing that ran: no rows, no predictions
    rows, predictions = out_of_fold([], n_rows=5, n_classes=2)
    assert rows.size == 0 and predictions == {}
    failed = [_job("mean", _fold(0, [1, 3], status="timeout"))]
    rows, predictions = out_of_fold(failed, n_rows=5, n_classes=0)
    assert rows.size == 0 and predictions["mean"].shape == (0,)  # no rows to select on
