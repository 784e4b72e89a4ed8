"""The answer's refit: which members are refitted in the time left and averaged."""

from __future__ import annotations

import time

import numpy as np

from metarec.automl import AveragedClassifier, LabelledClassifier
from metarec.automl._refit import refit_answer
from metarec.automl._search import Trial
from metarec.data import load_dataset
from tests.automl._fakes import toy_frame


def test_the_answer_refits_only_the_members_that_fit_the_time_left():
    """Three wanted, 5 s left: the best (0.1 s expected) and the third (0.1 s) are refitted,
    the second (50 s expected) is skipped and said; with one wanted, or after a signal, the
    best alone."""
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    trials = {
        name: Trial(name, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
        for i, (name, t) in enumerate([("gaussian_nb", 0.1), ("knn", 50.0), ("majority", 0.1)])
    }
    order = list(trials)
    notes = []
    deadline = time.perf_counter() + 5
    model, members = refit_answer(order, trials, ds, labels, codes, 3, 0, deadline, 1.0, notes)
    assert members == ("gaussian_nb", "majority")
    assert any(note.startswith("knn not refitted: expected 50 s") for note in notes)
    assert isinstance(model, AveragedClassifier)
    later = time.perf_counter() + 60
    single, alone = refit_answer(order, trials, ds, labels, codes, 1, 0, later, 1.0, [])
    assert alone == ("gaussian_nb",) and isinstance(single, LabelledClassifier)
    # stopped by a signal (no deadline): the best alone, however many were wanted
    stopped, members = refit_answer(order, trials, ds, labels, codes, 3, 0, None, 1.0, [])
    assert members == ("gaussian_nb",) and isinstance(stopped, LabelledClassifier)


def test_with_no_time_left_the_best_quick_refit_is_the_answer_not_the_last():
    """The deadline has passed: nothing fits, and the answer is the best algorithm whose refit
    is expected within a second (here the second of the order: the first expects 5 s), not
    the last of the order (majority); with no quick refit at all, the quickest.  One note
    says so instead of one per algorithm."""
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)

    def trials_of(times):
        names = ["knn", "gaussian_nb", "lda", "majority"]
        return {
            n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=t)
            for i, (n, t) in enumerate(zip(names, times, strict=True))
        }

    past = time.perf_counter() - 1.0
    notes = []
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    model, members = refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 1.0, notes)
    assert members == ("gaussian_nb",) and isinstance(model, LabelledClassifier)
    assert notes == [
        "no refit fitted the time left: gaussian_nb refitted anyway (the best whose refit is "
        "expected within 1 s, else the quickest)"
    ]
    # refit_scale 10: only majority (0.01 s) and lda (0.1 s) are quick; lda ranks higher
    trials = trials_of([5.0, 0.5, 0.01, 0.001])
    assert refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 10.0, [])[1] == (
        "lda",
    )
    # nothing quick: the quickest (lda at 2 s, ahead of knn and gaussian_nb)
    trials = trials_of([50.0, 3.0, 2.0, 2.5])
    assert refit_answer(list(trials), trials, ds, labels, codes, 3, 0, past, 1.0, [])[1] == ("lda",)


def test_an_average_also_takes_the_single_best_algorithm():
    """The knowledge base's single best joins an average it is not part of (one member more),
    never a single answer, never twice, and only when it completed."""
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    names = ["gaussian_nb", "majority", "knn"]
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=(0.8,), fit_time=0.01)
        for i, n in enumerate(names)
    }
    later = time.perf_counter() + 60

    def members(size, anchor, order=names):
        notes = []
        model, chosen = refit_answer(
            order, trials, ds, labels, codes, size, 0, later, 1.0, notes, anchor=anchor
        )
        return chosen, notes

    chosen, notes = members(2, "knn")
    assert chosen == ("gaussian_nb", "majority", "knn")
    assert notes == ["knn joins the average as the knowledge base's single best"]
    assert members(2, "majority") == (("gaussian_nb", "majority"), [])
    assert members(1, "knn") == (("gaussian_nb",), [])
    assert members(2, "knn", order=names[:2]) == (("gaussian_nb", "majority"), [])
    assert members(2, None) == (("gaussian_nb", "majority"), [])


def test_an_average_leaves_out_members_clearly_below_the_best(monkeypatch):
    """Five folds each: lda trails the best by 6 points on every fold (clearly below),
    knn by 1 point on average with folds that disagree (a tie); lda and the single best
    (majority, as clearly below) are left out and said once, knn joins.  lda keeps its
    place: with two wanted, knn (third) does not replace it.  Below TIE_MIN_ROWS rows
    (these 60) every member joins."""
    from metarec.automl import _refit

    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = np.array(["no", "yes"]), (np.asarray(ds.y) == "yes").astype(int)
    folds = {
        "gaussian_nb": (0.90, 0.80, 0.85, 0.95, 0.90),
        "lda": (0.84, 0.74, 0.79, 0.89, 0.84),
        "knn": (0.95, 0.75, 0.80, 0.90, 0.95),
        "majority": (0.60, 0.60, 0.60, 0.60, 0.60),
    }
    trials = {
        n: Trial(n, planned=i + 1, status="ok", fold_scores=f, fit_time=0.01)
        for i, (n, f) in enumerate(folds.items())
    }
    later = time.perf_counter() + 60
    order = list(trials)
    _, chosen = refit_answer(
        order, trials, ds, labels, codes, 3, 0, later, 1.0, [], anchor="majority"
    )
    assert chosen == ("gaussian_nb", "lda", "knn", "majority")
    monkeypatch.setattr(_refit, "TIE_MIN_ROWS", len(codes))
    notes = []
    _, chosen = refit_answer(
        order, trials, ds, labels, codes, 3, 0, later, 1.0, notes, anchor="majority"
    )
    assert chosen == ("gaussian_nb", "knn")
    assert notes == [
        "lda, majority not averaged: clearly below gaussian_nb's fold scores (more than 2 "
        "standard errors of the paired difference)"
    ]
    _, chosen = refit_answer(order, trials, ds, labels, codes, 2, 0, later, 1.0, [])
    assert chosen == ("gaussian_nb",)
