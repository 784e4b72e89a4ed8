"""Large data: the validation part, the nested samples, promotion and the order of a rung."""

from __future__ import annotations

import math
import time
from types import SimpleNamespace

import numpy as np
import pytest

from metarec.automl._loop import TIED_EXPECTATION, best_first_order
from metarec.automl._rungs import (
    FIRST_RUNG,
    GROWTH,
    LARGE_ROWS,
    VALIDATION_ROWS,
    later_candidates,
    promoted,
    rung_metafeatures,
    rung_plan,
)
from metarec.automl._trials import Trial


def test_the_plan_of_262000_rows():
    codes = (np.arange(262_000) % 10 == 0).astype(int)  # 10 % positives
    plan = rung_plan(codes, classification=True, random_state=0)
    assert plan.sizes == (10_000, 40_000, 160_000, 252_000)
    assert plan.validation.size == VALIDATION_ROWS
    previous = set()
    for (train, validation), size in zip(plan.splits, plan.sizes, strict=True):
        assert train.size == size and np.array_equal(validation, plan.validation)
        assert not np.intersect1d(train, validation).size
        assert previous <= set(train.tolist())  # nested: each rung holds the one before
        previous = set(train.tolist())
        # stratified: every sample has the positives' share within a tenth of a point
        assert abs(codes[train].mean() - 0.1) < 0.001
    assert abs(codes[plan.validation].mean() - 0.1) < 0.001
    # every row is used: the last rung's training rows and the validation part
    assert plan.sizes[-1] + plan.validation.size == codes.size


def test_a_dataset_just_large_has_two_rungs_and_a_fifth_held_out_at_most():
    n = LARGE_ROWS
    plan = rung_plan(np.zeros(n), classification=False)
    assert plan.validation.size == VALIDATION_ROWS == n // 5
    assert plan.sizes == (FIRST_RUNG, n - VALIDATION_ROWS)
    assert plan.sizes[0] * GROWTH >= plan.sizes[-1]  # the next would reach every row


def test_a_rare_class_is_in_every_sample_in_proportion():
    codes = np.zeros(100_000, dtype=int)
    codes[:200] = 1  # 0.2 %
    plan = rung_plan(codes, classification=True, random_state=3)
    first = plan.splits[0][0]
    assert codes[first].sum() == pytest.approx(200 * 10_000 / 100_000, abs=2)
    assert codes[plan.validation].sum() == pytest.approx(200 * 10_000 / 100_000, abs=2)


def test_a_rung_is_read_as_a_dataset_of_its_size():
    metafeatures = {"n_instances": 262_000.0, "log_n_instances": math.log(262_000),
                    "n_features": 10.0, "dimensionality": 10 / 262_000, "snr": 1.5}  # fmt: skip
    rung = rung_metafeatures(metafeatures, 12_000)
    assert rung["n_instances"] == 12_000 and rung["log_n_instances"] == math.log(12_000)
    assert rung["dimensionality"] == 10 / 12_000 and rung["snr"] == 1.5
    assert metafeatures["n_instances"] == 262_000  # the dataset's own are left as they were


def _trial(name, scores, planned, status="ok"):
    return Trial(name, planned, status=status, fold_scores=tuple(scores))


def test_promotion_takes_the_best_complete_trials():
    trials = [
        _trial("a", [0.70], 1),
        _trial("b", [0.80], 2),
        _trial("c", [0.80], 3),  # tied with b: the first planned goes first
        _trial("d", [0.90], 4, status="timeout"),  # not complete
        _trial("e", [], 5, status="skipped"),
        _trial("f", [0.75], 6),
    ]
    assert promoted(trials, 3) == ["b", "c", "f"]
    assert promoted(trials, 10) == ["b", "c", "f", "a"]
    assert promoted([_trial("x", [], 1, status="skipped")]) == []


def test_the_last_rung_goes_on_with_what_every_earlier_rung_completed():
    """Three rungs: the first completed a-e, the middle ran only the promoted c and b (and
    d timed out there).  After the middle rung the last runs, beyond the promoted, b (the
    middle rung's other complete trial), then the first rung's by their order there, none
    twice and not the promoted one: the budget's time left has candidates to run."""
    first = [_trial(n, [s], i) for i, (n, s) in
             enumerate([("a", 0.70), ("b", 0.80), ("c", 0.82), ("d", 0.60), ("e", 0.75)])]  # fmt: skip
    before = later_candidates(first, ["c", "b"])
    assert before == ["e", "a", "d"]
    middle = [_trial("c", [0.84], 1), _trial("b", [0.83], 2),
              _trial("d", [0.9], 3, status="timeout")]  # fmt: skip
    assert later_candidates(middle, ["c"], before) == ["b", "e", "a", "d"]
    assert later_candidates(middle, ["c", "b"], before) == ["e", "a", "d"]


def test_a_configuration_is_expected_to_grow_with_the_rows_as_its_family_does():
    """A rung of a quarter of the rows: the default RBF SVM is expected 1 s there and 64 s
    on every row (16 times the rows' growth); its configuration, whose own times come from
    small samples only, 1 s and 5 s.  Its refit is expected to grow as the default's (16),
    not 1.25; a configuration of a family whose default grows with the rows alone keeps its
    own, larger, growth; an algorithm without both expectations has none."""
    from metarec.automl._rungs import _growth

    at_rung = {"svc_rbf": 1.0, "svc_rbf_c01": 1.0, "ridge": 1.0, "ridge_c01": 1.0, "knn": 1.0}
    at_all = {"svc_rbf": 64.0, "svc_rbf_c01": 5.0, "ridge": 4.0, "ridge_c01": 8.0}
    growth = _growth(at_rung, at_all, 4.0)
    assert growth == {"svc_rbf": 16.0, "svc_rbf_c01": 16.0, "ridge": 1.0, "ridge_c01": 2.0}


def test_a_refit_on_every_row_is_expected_as_a_fit_on_every_row_not_on_a_fold_of_them():
    """The knowledge base's times are of folds (about 85 % of a dataset's rows).  With an
    algorithm whose time is quadratic in the rows a fit trains on, the refit on all 42,015
    rows after a rung of 33,612 grows by (42,015 / 33,612)² = 1.5625: 1.25 over the rows'
    own growth.  Read from the recommendation for a dataset of 42,015 rows (folds of
    35,713), it would be 0.9, i.e. none, and the refit 20 % short."""
    from metarec.automl._rungs import FOLD_SHARE, _growth, fit_times

    class Quadratic:
        def recommend(self, metafeatures):
            trains = metafeatures["n_instances"] * FOLD_SHARE  # a fold's training rows
            return [_row("svc_rbf", 0.7, (trains / 10_000) ** 2)]

    metafeatures = {"n_instances": 42_015.0, "n_features": 4.0}
    at_rung = fit_times(Quadratic(), metafeatures, 33_612)
    at_all = fit_times(Quadratic(), metafeatures, 42_015)
    assert at_rung["svc_rbf"] == pytest.approx(3.3612**2, rel=1e-4)
    assert at_all["svc_rbf"] == pytest.approx(4.2015**2, rel=1e-4)
    growth = _growth(at_rung, at_all, 42_015 / 33_612)
    assert growth["svc_rbf"] == pytest.approx(42_015 / 33_612, rel=1e-4)


def _row(name, accuracy, seconds):
    return SimpleNamespace(algorithm=name, expected_accuracy=accuracy, expected_time=seconds)


def test_a_rung_tries_the_expected_best_first_the_quickest_of_those_tied():
    rows = [
        _row("forest", 0.801, 2.0),
        _row("boosting", 0.801 - TIED_EXPECTATION, 0.5),  # tied (half a point): quicker
        _row("slow_boosting", 0.799, 9.0),
        _row("linear", 0.70, 0.01),
        _row("unknown", float("nan"), 0.1),
    ]
    order = [r.algorithm for r in best_first_order(rows)]
    assert order == ["boosting", "forest", "slow_boosting", "linear", "unknown"]
    # beyond the tie, the better expectation first however slow
    rows = [_row("fast", 0.79, 0.1), _row("best", 0.80, 50.0)]
    assert [r.algorithm for r in best_first_order(rows)] == ["best", "fast"]


@pytest.mark.slow
def test_a_large_dataset_is_searched_on_samples_within_its_budget(tmp_path):
    """60,000 rows: one validation part, the first rung on 10,000 rows, the answer refitted
    on every row; only the last rung's folds are stored (the wall time against the budget
    is measured by the large-data benchmark, not here)."""
    import pandas as pd
    from sklearn.datasets import make_classification

    from metarec import AutoClassifier
    from metarec.automl._rungs import LARGE_PROTOCOL
    from metarec.storage import KnowledgeBase

    X, y = make_classification(n_samples=60_000, n_features=6, n_informative=4, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    model = AutoClassifier(budget=25, kb=url, random_state=0).fit(frame, y)
    result = model.search_
    assert result.n_folds == 1 and result.settings.protocol.startswith(LARGE_PROTOCOL)
    evaluated = [t for t in result.trials if t.fold_scores]
    assert evaluated, "no candidate was evaluated on a sample"
    assert model.predict(frame.iloc[:100]).shape == (100,)
    assert (model.predict(frame) == y).mean() > 0.8  # refitted on every row: it learned
    stored = KnowledgeBase(url).runs(aggregate=False)
    mine = stored[stored["origin"] == "user"]  # not the built-in part's
    assert set(mine["protocol"]) <= {LARGE_PROTOCOL}


def test_a_later_rung_runs_the_promoted_then_the_waiting_then_the_rest_by_score():
    """A rung after the first: the promoted in their given order (their scores on the rung
    before), then the waiting ones by expected accuracy, then (the last rung) the others
    the rung before completed, in their given order; an algorithm outside the rung's
    portfolio is not planned."""
    from metarec.algorithms import default_portfolio
    from metarec.automl import RunSettings
    from metarec.automl._loop import SearchLoop
    from metarec.automl._search import _codes
    from metarec.data import load_dataset
    from tests.automl._fakes import FixedRecommender, toy_frame

    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)
    names = ["lda", "knn", "gaussian_nb", "majority", "decision_tree", "ridge"]
    recommender = FixedRecommender(
        [("lda", 0.70, 0.1), ("knn", 0.90, 0.1), ("gaussian_nb", 0.60, 0.1),
         ("majority", 0.50, 0.1), ("decision_tree", 0.80, 0.1), ("ridge", 0.85, 0.1)]
    )  # fmt: skip
    start = time.perf_counter()
    train, test = np.arange(0, 200), np.arange(200, 240)
    loop = SearchLoop(
        ds, "toy", codes, labels, RunSettings(budget=60.0), default_portfolio().select(names[:5]),
        recommender, {}, {}, start + 60, start, lambda n=1, total=None: None, 1,
        splits=[(train, test)], best_first=True, first=("gaussian_nb", "lda"),
        last=("majority", "ridge"),
    )  # fmt: skip
    order = [row.algorithm for row in loop.plan({})]
    # ridge is not in the rung's portfolio; knn (0.90) before decision_tree (0.80)
    assert order == ["gaussian_nb", "lda", "knn", "decision_tree", "majority"]


def test_a_fold_measured_on_a_smaller_rung_sets_the_least_time_on_this_one():
    """k nearest neighbours took 20 s a fold (fit and predict) on a rung of a quarter of
    the rows: 80 s at least here, which a 60 s budget cannot hold; it is skipped and says
    so, and the next algorithm starts.  Without the floor its expected 0.1 s fits."""
    from metarec.algorithms import default_portfolio
    from metarec.automl import RunSettings
    from metarec.automl._loop import SearchLoop
    from metarec.automl._search import _codes
    from metarec.data import load_dataset
    from tests.automl._fakes import FixedRecommender, toy_frame

    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)

    def loop(floors):
        start = time.perf_counter()
        return SearchLoop(
            ds, "toy", codes, labels, RunSettings(budget=60.0),
            default_portfolio().select(["knn", "majority"]),
            FixedRecommender([("knn", 0.9, 0.1), ("majority", 0.5, 0.1)]), {}, {},
            start + 60, start, lambda n=1, total=None: None, 1,
            splits=[(np.arange(200), np.arange(200, 240))], best_first=True, floors=floors,
        )  # fmt: skip

    floored = loop({"knn": 20.0 * 4})
    task = floored.next_task()
    assert task.spec.algorithm.name == "majority"
    knn = floored.state.trials["knn"]
    assert knn.status == "skipped" and knn.message.startswith("expected up to 8")
    assert loop({}).next_task().spec.algorithm.name == "knn"


def test_holdout_is_wanted_when_five_folds_of_the_three_expected_best_exceed_half_the_budget():
    """The three best expected among the portfolio's: 5 x (8 + 4 + 0.3) = 61.5 s against half
    of 60 s on two workers (60 worker-seconds): a holdout; catboost, not in the portfolio,
    and an unknown time (NaN) count nothing; on one worker and a budget of 130 s it is
    61.5 against 65: five folds."""
    from metarec.automl._rungs import HOLDOUT_SHARE, holdout_wanted

    assert HOLDOUT_SHARE == 0.5
    ranking = [
        _row("catboost", 0.99, 500.0),
        _row("boosting", 0.72, 8.0),
        _row("forest", 0.71, 4.0),
        _row("linear", 0.69, 0.3),
        _row("mystery", 0.50, float("nan")),
    ]
    names = {"boosting", "forest", "linear", "mystery"}
    assert holdout_wanted(ranking, names, budget=60, n_workers=2)
    assert not holdout_wanted(ranking, names, budget=130, n_workers=1)
    assert holdout_wanted(ranking, names, budget=122, n_workers=1)  # 61.5 > 61
    # an unknown time among the three best counts nothing
    unknown = [_row("mystery", 0.99, float("nan")), *ranking[1:3]]
    assert not holdout_wanted(unknown, names, budget=130, n_workers=1)  # 5 x 12 s < 65 s


def test_the_answer_comes_from_the_rung_whose_best_scored_highest():
    """Rung 1 (10,000 rows): lightgbm 0.72; the last rung (every row) ran out of time with
    only bernoulli_nb (0.69) and ridge (0.68) complete: the answer comes from rung 1, and
    the leaderboard keeps ridge's result on every row.  A tie goes to the larger rung; no
    complete trial anywhere: the first rung."""
    from metarec.automl import Trial
    from metarec.automl._rungs import _best_rung, _earlier_trials

    def loop(rows, trials):
        state = SimpleNamespace(trials={t.algorithm: t for t in trials})
        return SimpleNamespace(state=state, splits=[(np.arange(rows), np.arange(10))])

    ok = lambda a, s: Trial(a, planned=1, status="ok", fold_scores=(s,), fit_time=1.0)  # noqa: E731
    small = loop(10_000, [ok("lightgbm", 0.72), ok("bernoulli_nb", 0.60)])
    skipped = Trial("lightgbm", planned=1, status="skipped", message="expected up to 90 s")
    full = loop(160_000, [ok("bernoulli_nb", 0.69), ok("ridge", 0.68), skipped])
    assert _best_rung([small, full]) is small
    earlier = _earlier_trials([small, full], small, last_reached=True)
    # complete on the chosen rung: its record there; ridge only on every row: that one
    assert set(earlier) == {"ridge"} and earlier["ridge"].fold_scores == (0.68,)
    assert earlier["ridge"].message == "validated on all 160,000 training rows, below the answer's"
    tie = loop(160_000, [ok("lightgbm", 0.72)])
    assert _best_rung([small, tie]) is tie
    nothing = [loop(10_000, [skipped]), loop(160_000, [skipped])]
    assert _best_rung(nothing) is nothing[0]
