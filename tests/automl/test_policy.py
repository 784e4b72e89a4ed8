"""The answer's policy: which evaluated algorithms make the answer (pure, no fitting)."""

from __future__ import annotations

import numpy as np
import pytest

from metarec.automl._answer import Answer, AnswerPolicy
from metarec.exceptions import InvalidInputError

FLAT = {name: (0.8,) for name in ("gaussian_nb", "majority", "knn", "lda")}
#: Five folds each: lda trails the best by 6 points on every fold (clearly below), knn by 1
#: point on average with folds that disagree (a tie), majority far below.
FOLDS = {
    "gaussian_nb": (0.90, 0.80, 0.85, 0.95, 0.90),
    "lda": (0.84, 0.74, 0.79, 0.89, 0.84),
    "knn": (0.95, 0.75, 0.80, 0.90, 0.95),
    "majority": (0.60, 0.60, 0.60, 0.60, 0.60),
}


def test_one_wanted_is_the_best_the_rest_in_order_replace_it():
    answer = AnswerPolicy(method="average", ensemble_size=1, anchor="knn").choose(
        ["gaussian_nb", "majority", "knn"], FLAT, n_rows=60
    )
    assert answer == Answer(("gaussian_nb",), (1.0,), spares=("majority", "knn"))


def test_an_average_takes_the_best_ones_and_the_anchor_with_equal_weights():
    order = ["gaussian_nb", "majority", "knn"]
    answer = AnswerPolicy(method="average", ensemble_size=2, anchor="knn").choose(
        order, FLAT, n_rows=60
    )
    assert answer.members == ("gaussian_nb", "majority") and answer.anchor == "knn"
    assert answer.weights == (1 / 3, 1 / 3) and answer.spares == ()
    # an anchor already a member joins once; none, or one that did not complete, not at all
    assert (
        AnswerPolicy(method="average", ensemble_size=2, anchor="majority")
        .choose(order, FLAT, 60)
        .anchor
        is None
    )
    assert (
        AnswerPolicy(method="average", ensemble_size=2, anchor="svc_rbf")
        .choose(order, FLAT, 60)
        .anchor
        is None
    )
    again = AnswerPolicy(method="average", ensemble_size=2, anchor="majority").choose(
        order, FLAT, 60
    )
    assert again.members == ("gaussian_nb", "majority") and again.weights == (0.5, 0.5)
    assert again.spares == ("knn",) and again.method == "average"


def test_on_large_data_members_clearly_below_the_best_are_left_out_and_keep_their_place():
    order = list(FOLDS)
    policy = AnswerPolicy(method="average", ensemble_size=3, anchor="majority", tie_min_rows=3000)
    # below the size every member joins
    small = policy.choose(order, FOLDS, n_rows=2999)
    assert small.members == ("gaussian_nb", "lda", "knn") and small.anchor == "majority"
    large = policy.choose(order, FOLDS, n_rows=3000)
    assert large.members == ("gaussian_nb", "knn") and large.anchor is None
    assert large.left_out == ("lda", "majority")
    assert large.notes("gaussian_nb") == [
        "lda, majority not averaged: clearly below gaussian_nb's fold scores (more than 2 "
        "standard errors of the paired difference)"
    ]
    # two wanted: lda, left out, keeps its place; knn (third) does not replace it
    two = AnswerPolicy(method="average", ensemble_size=2, tie_min_rows=3000).choose(
        order, FOLDS, n_rows=3000
    )
    assert two.members == ("gaussian_nb",) and two.left_out == ("lda",) and two.method == "best"
    assert two.spares == ("knn",)  # only when gaussian_nb's refit does not fit the time


def test_nothing_complete_is_no_answer():
    assert AnswerPolicy(method="average", ensemble_size=3).choose([], {}, n_rows=100) == Answer(
        (), ()
    )


def test_selection_chooses_members_and_weights_from_out_of_fold_predictions():
    """The ensemble of tests/automl/test_ensemble.py: 2 x A + B; the members by weight,
    the rest spares; a capped selection and one wanted take the best."""

    def binary(p1):
        return np.column_stack([1 - np.asarray(p1), np.asarray(p1)])

    y = np.array([0, 1, 1, 0, 1, 0])
    predictions = {
        "a": binary([0.2, 0.9, 0.6, 0.7, 0.4, 0.3]),
        "b": binary([0.6, 0.8, 0.4, 0.2, 0.9, 0.1]),
        "c": binary([0.5] * 6),
    }
    scores = {name: (0.8,) for name in ("a", "b", "c", "stored")}
    order = ["a", "b", "c", "stored"]  # "stored": folds reused, no predictions at hand
    answer = AnswerPolicy(method="selection", rounds=2).choose(
        order, scores, 6, predictions=predictions, y=y
    )
    assert answer.members == ("a", "b") and answer.method == "selection"
    assert answer.weights == (2 / 3, 1 / 3) and answer.oof_score == 5 / 6
    assert answer.spares == ("c", "stored")
    capped = AnswerPolicy(method="selection", ensemble_size=2, rounds=2)
    assert capped.choose(order, scores, 6, predictions=predictions, y=y).members == ("a", "b")
    one = AnswerPolicy(method="selection", ensemble_size=1).choose(
        order, scores, 6, predictions=predictions, y=y
    )
    assert one == Answer(("a",), (1.0,), spares=("b", "c", "stored"))  # not selected
    # no predictions at all (every fold reused): the best alone
    assert AnswerPolicy(method="selection").choose(order, scores, 6) == Answer(
        ("a",), (1.0,), spares=("b", "c", "stored")
    )
    # the default is the average: the best three, equal weights
    default = AnswerPolicy().choose(order, scores, 6, predictions=predictions, y=y)
    assert default.method == "average" and default.members == ("a", "b", "c")
    assert default.weights == (1 / 3, 1 / 3, 1 / 3)


def test_from_three_thousand_rows_by_default_members_below_the_best_are_left_out():
    order = list(FOLDS)
    policy = AnswerPolicy(method="average", ensemble_size=3, anchor="majority")
    small = policy.choose(order, FOLDS, n_rows=2999)
    assert small.members == ("gaussian_nb", "lda", "knn") and small.left_out == ()
    assert small.notes("gaussian_nb") == []
    assert small.anchor == "majority" and small.anchor_weight == 0.25
    large = policy.choose(order, FOLDS, n_rows=3000)
    assert large.members == ("gaussian_nb", "knn") and large.left_out == ("lda", "majority")
    assert large.weights == (0.5, 0.5) and large.anchor_weight == 0.0
    # an anchor among the members left out is named once
    lda = AnswerPolicy(method="average", ensemble_size=3, anchor="lda").choose(order, FOLDS, 3000)
    assert lda.left_out == ("lda",) and lda.anchor is None


def test_what_an_average_is_called_by_its_number_of_members():
    order = list(FOLDS)
    # two members, no anchor: an average
    pair = AnswerPolicy(method="average", ensemble_size=2).choose(order, FOLDS, n_rows=60)
    assert pair == Answer(
        ("gaussian_nb", "lda"), (0.5, 0.5), spares=("knn", "majority"), method="average"
    )
    # one left after the tie test, no anchor: the best alone
    one = AnswerPolicy(method="average", ensemble_size=2).choose(order, FOLDS, n_rows=3000)
    assert one.members == ("gaussian_nb",) and one.method == "best" and one.weights == (1.0,)
    # the best alone, asked for: no anchor, no weight for one
    alone = AnswerPolicy(method="average", ensemble_size=1, anchor="lda").choose(order, FOLDS, 60)
    assert alone.anchor is None and alone.anchor_weight == 0.0 and alone.method == "best"


def test_a_size_below_one_is_the_best_alone():
    order = list(FOLDS)
    for rows in (60, 3000):
        answer = AnswerPolicy(method="average", ensemble_size=0, anchor="knn").choose(
            order, FOLDS, n_rows=rows
        )
        assert answer == Answer(("gaussian_nb",), (1.0,), spares=("lda", "knn", "majority"))


def test_an_unknown_method_is_refused():
    with pytest.raises(InvalidInputError, match="'average', 'selection'; got 'vote'"):
        AnswerPolicy(method="vote").choose(list(FOLDS), FOLDS, n_rows=60)


def test_selection_without_a_target_or_its_rows_is_the_best_alone():
    predictions = {name: np.full((6, 2), 0.5) for name in FOLDS}
    order = list(FOLDS)
    best = Answer(("gaussian_nb",), (1.0,), spares=("lda", "knn", "majority"))
    policy = AnswerPolicy(method="selection")
    assert policy.choose(order, FOLDS, 6, predictions=predictions) == best  # no y
    assert policy.choose(order, FOLDS, 6, predictions=predictions, y=np.array([])) == best
    assert policy.choose(order, FOLDS, 6, y=np.zeros(6, dtype=int)) == best  # no predictions


def test_on_a_holdout_the_validation_rows_tell_a_tie_from_a_worse_member():
    """One fold each (a large dataset's holdout): 2,000 validation rows.  xgboost differs
    from lightgbm on 40 rows, right on 20 of them and wrong on 20 (a tie); ridge is wrong on
    200 more rows than lightgbm (10 points: clearly below, left out, said).  Without the
    predictions every one-fold member is tied, as before."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2000)
    right = np.eye(2)[y]
    xgboost, ridge = right.copy(), right.copy()
    xgboost[:20] = 1 - xgboost[:20]  # wrong where lightgbm is right
    lightgbm = right.copy()
    lightgbm[20:40] = 1 - lightgbm[20:40]  # lightgbm wrong on 20 others
    ridge[40:260] = 1 - ridge[40:260]  # 220 wrong: 200 more than lightgbm
    order = ["lightgbm", "xgboost", "ridge"]
    scores = {"lightgbm": (0.99,), "xgboost": (0.99,), "ridge": (0.89,)}
    predictions = {"lightgbm": lightgbm, "xgboost": xgboost, "ridge": ridge}
    policy = AnswerPolicy(method="average", ensemble_size=3, tie_min_rows=3000)
    answer = policy.choose(order, scores, n_rows=12_000, predictions=predictions, y=y)
    assert answer.members == ("lightgbm", "xgboost") and answer.left_out == ("ridge",)
    blind = policy.choose(order, scores, n_rows=12_000)
    assert blind.members == ("lightgbm", "xgboost", "ridge")
