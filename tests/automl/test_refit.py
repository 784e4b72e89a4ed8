"""The answer's refit: which members are refitted in the time left and averaged."""

from __future__ import annotations

import time

import numpy as np

from metarec.algorithms import default_portfolio
from metarec.automl import AveragedClassifier, LabelledClassifier, Trial
from metarec.automl._answer import AnswerPolicy
from metarec.automl._refit import RefitData, refit_answer
from metarec.data import load_dataset
from tests.automl._fakes import toy_frame

PORTFOLIO = default_portfolio()


def _data() -> RefitData:
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    return RefitData(ds, np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int))


def _refit(order, trials, data, size, deadline, scale, notes, anchor=None):
    answer = AnswerPolicy(method="average", ensemble_size=size, anchor=anchor).choose(
        order, {a: trials[a].fold_scores for a in order}, n_rows=len(data.codes)
    )
    return refit_answer(
        answer, trials, data, portfolio=PORTFOLIO, random_state=0, deadline=deadline,
        refit_scale=scale, notes=notes,
    )  # fmt: skip


def test_the_answer_refits_only_the_members_that_fit_the_time_left():
    """Three wanted, 60 s left: the best (0.1 s expected) and the third (0.1 s) are refitted,
    the second (500 s expected) is skipped and said; with one wanted, or after a signal, the
    best alone."""
    data = _data()
    trials = {
        name: Trial(name, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
        for i, (name, t) in enumerate([("gaussian_nb", 0.1), ("knn", 500.0), ("majority", 0.1)])
    }
    order = list(trials)
    notes = []
    deadline = time.perf_counter() + 60
    model, members, weights, _ = _refit(order, trials, data, 3, deadline, 1.0, notes)
    assert members == ("gaussian_nb", "majority") and weights == (0.5, 0.5)
    assert any(note.startswith("knn not refitted: expected 500 s") for note in notes)
    assert isinstance(model, AveragedClassifier)
    later = time.perf_counter() + 60
    single, alone, _, _ = _refit(order, trials, data, 1, later, 1.0, [])
    assert alone == ("gaussian_nb",) and isinstance(single, LabelledClassifier)
    # stopped by a signal (no deadline): the best alone, however many were wanted
    stopped, members, _, _ = _refit(order, trials, data, 3, None, 1.0, [])
    assert members == ("gaussian_nb",) and isinstance(stopped, LabelledClassifier)


def test_with_no_time_left_the_best_quick_refit_is_the_answer_not_the_last():
    """The deadline has passed: nothing fits, and the answer is the best algorithm whose refit
    is expected within a second (here the second of the order: the first expects 5 s), not
    the last of the order (majority); with no quick refit at all, the quickest.  One note
    says so instead of one per algorithm."""
    data = _data()

    def trials_of(times):
        names = ["knn", "gaussian_nb", "lda", "majority"]
        return {
            n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
            for i, (n, t) in enumerate(zip(names, times, strict=True))
        }

    past = time.perf_counter() - 1.0
    notes = []
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    model, members, _, _ = _refit(list(trials), trials, data, 3, past, 1.0, notes)
    assert members == ("gaussian_nb",) and isinstance(model, LabelledClassifier)
    assert notes == [
        "no refit fitted the time left: gaussian_nb refitted anyway (the best whose refit is "
        "expected within 1 s, else the quickest)"
    ]
    # refit_scale 10: only majority (0.01 s) and lda (0.1 s) are quick; lda ranks higher
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    assert _refit(list(trials), trials, data, 3, past, 10.0, [])[1] == ("lda",)
    # nothing quick: the quickest (lda at 2 s, ahead of knn and gaussian_nb)
    trials = trials_of([50.0, 3.0, 2.0, 2.5])
    assert _refit(list(trials), trials, data, 3, past, 1.0, [])[1] == ("lda",)


def test_the_anchor_joins_a_refitted_average_and_is_said():
    data = _data()
    names = ["gaussian_nb", "majority", "knn"]
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=0.01)
        for i, n in enumerate(names)
    }
    notes = []
    model, chosen, weights, _ = _refit(
        names, trials, data, 2, time.perf_counter() + 60, 1.0, notes, "knn"
    )
    assert chosen == ("gaussian_nb", "majority", "knn")
    assert notes == ["knn joins the average as the knowledge base's single best"]
    assert isinstance(model, AveragedClassifier)
    np.testing.assert_allclose(model.weights, [1 / 3] * 3)
    np.testing.assert_allclose(weights, [1 / 3] * 3)


def test_a_weighted_answer_predicts_the_weighted_mean_of_its_members():
    """Weights 3:1 of a member that says 'yes' everywhere and one that says 'no': the
    probabilities are 0.75 / 0.25 on every row."""
    from sklearn.dummy import DummyClassifier

    data = _data()
    X = data.ds.X
    yes = DummyClassifier(strategy="constant", constant=1).fit(X, data.codes)
    no = DummyClassifier(strategy="constant", constant=0).fit(X, data.codes)
    model = AveragedClassifier.from_fitted(
        [("yes", yes), ("no", no)], data.labels, X.columns, weights=[3, 1]
    )
    np.testing.assert_allclose(model.predict_proba(X), [[0.25, 0.75]] * len(X))
    assert (model.predict(X) == "yes").all()


def test_a_refit_that_does_not_fit_every_row_takes_the_largest_sample_that_fits():
    """240 rows, samples of 24 and 120: expected 20 s on every row (1 s a fold, scale 20),
    so 2 s on 24 rows and 10 s on 120.  With 5 s left the member is fitted on the 24 rows
    and says so; with 60 s left on every row; past the deadline, the last resort takes the
    smallest sample rather than every row."""
    from dataclasses import replace

    data = _data()
    small, half = np.arange(0, 240, 10), np.arange(0, 240, 2)
    data = replace(data, samples=(small, half))
    trials = {"gaussian_nb": Trial("gaussian_nb", planned=1, status="ok", fold_scores=(0.8,),
                                   fit_time=1.0)}  # fmt: skip
    notes = []
    refit = _refit(["gaussian_nb"], trials, data, 1, time.perf_counter() + 5, 20.0, notes)
    assert refit.members == ("gaussian_nb",) and refit.rows == (24,)
    assert len(notes) == 1 and notes[0].startswith(
        "gaussian_nb refitted on a sample of 24 of the 240 rows (every row expected 20 s, "
    )
    assert len(refit.model.classes_) == 2
    assert _refit(["gaussian_nb"], trials, data, 1, time.perf_counter() + 60, 20.0, []).rows == (
        240,
    )
    # with 11 s left, the half (10 s) fits
    assert _refit(["gaussian_nb"], trials, data, 1, time.perf_counter() + 11, 20.0, []).rows == (
        120,
    )
    notes = []
    past = _refit(["gaussian_nb"], trials, data, 1, time.perf_counter() - 1, 20.0, notes)
    assert past.rows == (24,)
    assert notes == [
        "no refit fitted the time left: gaussian_nb refitted anyway on a sample of 24 rows "
        "(the best whose refit is expected within 1 s, else the quickest)"
    ]


def test_a_fit_that_grows_faster_than_the_rows_is_expected_to_take_longer_to_refit():
    """1 s a fold, four times the rows: 4 s expected, 4 x 4 = 16 s with a growth of 4 (an
    SVM's quadratic cost).  With 10 s left it is refitted without the growth; with it, the
    next one (lda, 2 s) takes its place and a note gives the expectation with the growth."""
    from dataclasses import replace

    trials = {"gaussian_nb": Trial("gaussian_nb", planned=1, status="ok", fold_scores=(0.8,),
                                   fit_time=1.0)}  # fmt: skip
    data = _data()
    plain = _refit(["gaussian_nb"], trials, data, 1, time.perf_counter() + 10, 4.0, [])
    assert plain.members == ("gaussian_nb",)
    notes = []
    grown = replace(data, growth={"gaussian_nb": 4.0, "knn": 0.5})
    assert grown.refit_seconds("gaussian_nb", 1.0, 4.0) == 16.0
    assert grown.refit_seconds("knn", 1.0, 4.0) == 4.0  # never below the rows' growth
    assert grown.refit_seconds("lda", 1.0, 4.0) == 4.0
    later = time.perf_counter() + 10
    # lda (0.5 s a fold, 2 s expected) is refitted in its place
    trials["lda"] = Trial("lda", planned=2, status="ok", fold_scores=(0.8,), fit_time=0.5)
    refit = _refit(["gaussian_nb", "lda"], trials, grown, 1, later, 4.0, notes)
    assert refit.members == ("lda",)
    assert notes[0].startswith("gaussian_nb not refitted: expected 16 s")


def test_a_spare_takes_the_weight_of_the_member_whose_place_it_takes():
    """Selected weights 0.75 (gaussian_nb) and 0.25 (knn, 500 s expected: not refitted):
    the spare majority is refitted in knn's place with knn's 0.25, not a weight of its own
    (which would make it 1 / 1.75 of the answer)."""
    from metarec.automl._answer import Answer

    data = _data()
    trials = {
        name: Trial(name, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
        for i, (name, t) in enumerate([("gaussian_nb", 0.1), ("knn", 500.0), ("majority", 0.1)])
    }
    answer = Answer(("gaussian_nb", "knn"), (0.75, 0.25), spares=("majority",), method="selection")
    refit = refit_answer(
        answer, trials, data, portfolio=PORTFOLIO, random_state=0,
        deadline=time.perf_counter() + 60, refit_scale=1.0, notes=[],
    )  # fmt: skip
    assert refit.members == ("gaussian_nb", "majority")
    np.testing.assert_allclose(refit.weights, [0.75, 0.25])
    np.testing.assert_allclose(refit.model.weights, [0.75, 0.25])


def test_a_later_member_is_not_fitted_on_fewer_rows_than_the_first():
    """240 rows, samples of 24 and 120, 11 s left.  The best (0.01 s a fold) is refitted on
    every row; the second (1 s a fold, 20 s on every row, 10 s on 120 rows) would fit only
    on the half: it stays out (said), and neither it nor a sample's spare is averaged in.
    When the best itself is on the half, the second joins on the half too."""
    from dataclasses import replace

    data = replace(_data(), samples=(np.arange(0, 240, 10), np.arange(0, 240, 2)))
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
        for i, (n, t) in enumerate([("gaussian_nb", 0.01), ("lda", 1.0), ("majority", 1.0)])
    }
    notes = []
    refit = _refit(list(trials), trials, data, 3, time.perf_counter() + 11, 20.0, notes)
    assert refit.members == ("gaussian_nb",) and refit.rows == (240,)
    assert any(note.startswith("lda not refitted: expected 20 s") for note in notes)
    # the best on the half: the others may join on the half (one of them fits the time)
    trials["gaussian_nb"] = replace(trials["gaussian_nb"], fit_time=1.0)
    refit = _refit(list(trials), trials, data, 3, time.perf_counter() + 11, 20.0, [])
    assert refit.members[:2] == ("gaussian_nb", "lda") and refit.rows[:2] == (120, 120)
