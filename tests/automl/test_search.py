"""The search loop on real worker processes and a real SQLite knowledge base."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import default_portfolio
from metarec.automl import RunSettings
from metarec.automl._search import search
from metarec.data import load_dataset
from metarec.exceptions import BenchmarkError, UnknownNameError
from metarec.storage import KnowledgeBase
from tests.automl._fakes import FixedRecommender, toy_frame, toy_search


def test_order_follows_the_plan_and_an_algorithm_that_cannot_fit_is_skipped(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender(
        [("gaussian_nb", 0.8, 0.01), ("knn", 0.9, 1e4), ("majority", 0.5, 0.01)]
    )
    result = toy_search(kb, fixed)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["gaussian_nb"].order == 1 and trials["majority"].order == 2
    assert trials["knn"].status == "skipped" and trials["knn"].order is None
    assert "expected" in trials["knn"].message and "left" in trials["knn"].message
    assert result.trial("majority") is trials["majority"]
    with pytest.raises(UnknownNameError, match="'svc_rbf' was not part of the search"):
        result.trial("svc_rbf")
    # each result went back to the recommender before the next choice
    assert set(fixed.calls[-1][0]) == {"gaussian_nb", "majority"}
    assert result.best == "gaussian_nb"  # the signal is learnable; majority is far behind
    assert len(trials["gaussian_nb"].fold_scores) == result.n_folds == 5
    # every fold that ran is stored, with the dataset's metafeatures
    runs = kb.runs(aggregate=False, datasets=["toy"])
    assert len(runs) == result.runs_stored == 10
    assert set(runs["algorithm"]) == {"gaussian_nb", "majority"}
    assert len(kb.metafeatures(datasets=["toy"])) == 1
    stored = runs[runs["algorithm"] == "gaussian_nb"].sort_values("fold")["accuracy"]
    np.testing.assert_allclose(stored, trials["gaussian_nb"].fold_scores)


def test_the_plan_follows_the_recommendations_run_order(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    rows = [("knn", 0.9, 1e4), ("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)]
    # ranked knn first (the answer, too slow to fit); run order: majority, gaussian_nb, knn
    fixed = FixedRecommender(rows, run_order=("majority", "gaussian_nb", "knn"))
    trials = {t.algorithm: t for t in toy_search(kb, fixed).trials}
    assert [trials[a].planned for a in ("majority", "gaussian_nb", "knn")] == [1, 2, 3]
    assert trials["knn"].status == "skipped"
    # not everything fits: the budgeted plan first, then the rest in the run order
    planned = FixedRecommender(
        rows, run_order=("majority", "gaussian_nb", "knn"), plan=["gaussian_nb"]
    )
    trials = {t.algorithm: t for t in toy_search(KnowledgeBase(f"sqlite:///{tmp_path / 'c.sqlite'}"),
                                              planned).trials}  # fmt: skip
    assert trials["gaussian_nb"].order == 1 and trials["majority"].order == 2
    assert trials["knn"].status == "skipped"
    ranked = {t.algorithm: t for t in toy_search(KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}"),
                                              FixedRecommender(rows)).trials}  # fmt: skip
    assert [ranked[a].planned for a in ("knn", "gaussian_nb", "majority")] == [1, 2, 3]


def test_a_second_search_reuses_the_stored_folds_without_fitting(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender(
        [("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01), ("knn", 0.9, 1e4)]
    )
    first = toy_search(kb, fixed)
    again = toy_search(kb, fixed)
    before = {t.algorithm: t for t in first.trials}
    after = {t.algorithm: t for t in again.trials}
    assert after["gaussian_nb"].status == after["majority"].status == "stored"
    assert after["gaussian_nb"].fold_scores == pytest.approx(before["gaussian_nb"].fold_scores)
    assert again.runs_stored == 0 and again.best == first.best
    assert len(kb.runs(aggregate=False, datasets=["toy"])) == 10


def test_a_budget_too_small_for_anything_is_reported(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender(
        [("gaussian_nb", 0.8, 50.0), ("majority", 0.5, 50.0), ("knn", 0.9, 50.0)]
    )
    result = toy_search(kb, fixed, budget=5.0)
    assert result.best is None and result.model is None
    assert {t.status for t in result.trials} == {"skipped"}
    assert kb.count("runs") == 0

    from metarec.automl._estimator import _no_model

    assert _no_model(result, 5.0) == (
        "no algorithm finished every fold within the budget of 5 s; give a larger budget"
    )
    failed = tuple(
        replace(t, status="error", message="TypeError: boolean value of NA is ambiguous\n...")
        for t in result.trials
    )
    assert _no_model(replace(result, trials=failed, runs_stored=15), 5.0) == (
        "every algorithm failed on this data (15 fold result(s) stored); gaussian_nb: "
        "TypeError: boolean value of NA is ambiguous"
    )
    # some failed, the rest did not fit the budget: the failure is the news, not the budget
    mixed = (*failed[:2], *result.trials[2:])
    assert _no_model(replace(result, trials=mixed), 5.0) == (
        f"every algorithm that ran (2; {len(mixed) - 2} did not fit the budget) failed on this "
        "data; gaussian_nb: TypeError: boolean value of NA is ambiguous"
    )


def test_a_slow_first_choice_does_not_hold_back_time_for_its_refit_before_it_runs(tmp_path):
    """knn first, expected 50 s a fold (250 s for its folds: skipped with 60 s). Nothing is
    kept back for knn's refit (50 s x 240 / 192 rows x 1.2 = 75 s), which would leave the
    quick ones no time: they run, and the search hands back a model."""
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender(
        [("knn", 0.9, 50.0), ("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)]
    )
    result = toy_search(kb, fixed, budget=60.0)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["knn"].status == "skipped" and trials["knn"].planned == 1
    assert trials["knn"].message.startswith("expected up to 250 s for 5 folds and 75 s to refit")
    assert trials["gaussian_nb"].status == trials["majority"].status == "ok"
    assert result.model is not None and result.best == "gaussian_nb"


def test_admission_tests_the_interval_as_calibrated_on_the_knowledge_base_s_sizes(tmp_path):
    """knn's interval shown for a dataset far larger than the knowledge base's is widened to
    1,000 s a fold; within the knowledge base's sizes its top is twice the expected 0.02 s.
    The search admits it on the latter (0.2 s for its folds) and measures; on the widened
    top it would skip it (5,000 s)."""
    rows = [("gaussian_nb", 0.8, 0.01), ("knn", 0.9, 0.02), ("majority", 0.5, 0.01)]
    fixed = FixedRecommender(rows, time_high={"knn": 1000.0}, spread=2.0)
    trials = {t.algorithm: t for t in toy_search(
        KnowledgeBase(f"sqlite:///{tmp_path / 'a.sqlite'}"), fixed, budget=60.0).trials}  # fmt: skip
    assert trials["knn"].status == "ok" and len(trials["knn"].fold_scores) == 5
    assert trials["knn"].expected_time_high == pytest.approx(0.04)
    # never above the top shown (within the knowledge base's sizes the two are the same)
    assert trials["gaussian_nb"].expected_time_high == pytest.approx(0.01)
    # without a runtime model to tell the in-range interval, the top shown is the one tested
    shown = FixedRecommender(rows, time_high={"knn": 1000.0})
    trials = {t.algorithm: t for t in toy_search(
        KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}"), shown, budget=60.0).trials}  # fmt: skip
    assert trials["knn"].status == "skipped"
    # 5 folds of 1,000 s, times this dataset's calibration (at least 0.5)
    need = re.match(r"expected up to ([0-9.e+]+) s for 5 folds", trials["knn"].message)
    assert need and float(need.group(1)) >= 2500


def test_integer_column_labels_and_a_nullable_boolean_with_a_gap_are_learned(tmp_path):
    """``pd.DataFrame(array)`` (integer column labels) and a pandas ``boolean`` column with
    ``pd.NA`` are ordinary data: every fold succeeds."""
    X, y = toy_frame(120, seed=2)
    frame = pd.DataFrame(X[["a", "b"]].to_numpy())
    flags = pd.array(X["c"].eq("red").tolist(), dtype="boolean")
    flags[[3, 50]] = pd.NA
    frame["flag"] = flags
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender([("gaussian_nb", 0.8, 0.01), ("knn", 0.9, 0.01)])
    ds = load_dataset(frame.assign(target=y), target="target", name="ints")
    portfolio = default_portfolio().select(["gaussian_nb", "knn"])
    start = time.perf_counter()
    result = search(
        ds, kb, RunSettings(budget=60.0), deadline=start + 60.0, start=start,
        recommender=fixed, portfolio=portfolio,
    )  # fmt: skip
    assert {t.status for t in result.trials} == {"ok"}
    predicted = result.model.predict(frame)
    assert np.array_equal(predicted, result.model.predict(frame.to_numpy()))
    assert np.mean(predicted == y) > 0.7


@pytest.mark.slow
def test_the_search_runs_on_a_dask_cluster(tmp_path):
    pytest.importorskip(
        "distributed",
        reason="the Dask executor's extra is not installed: pip install 'metarec[dask]'",
    )
    from distributed import LocalCluster

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender(
        [("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01), ("knn", 0.9, 1e4)]
    )
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = toy_search(kb, fixed, budget=120.0, scheduler=cluster.scheduler_address)
    trials = {t.algorithm: t for t in result.trials}
    assert trials["gaussian_nb"].status == trials["majority"].status == "ok"
    assert trials["knn"].status == "skipped"
    assert len(trials["gaussian_nb"].fold_scores) == 5 and result.best == "gaussian_nb"
    assert result.runs_stored == 10


def test_the_parents_own_model_work_runs_on_one_thread(tmp_path, monkeypatch):
    """Metafeatures, the recommender and the final refits run in the parent while workers
    keep the cores busy: on one thread (an OpenMP pool of every core there is ~100x slower),
    whatever the parent's own pools hold (two threads here, on any number of cores)."""
    import sklearn.ensemble  # noqa: F401 - loads scikit-learn's OpenMP runtime
    from threadpoolctl import threadpool_info, threadpool_limits

    from metarec.automl import _search as module

    seen = {}

    def spy(*args, **kwargs):
        seen.update({p["filepath"]: p["num_threads"] for p in threadpool_info()})
        return "searched"

    monkeypatch.setattr(module, "_search", spy)
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with threadpool_limits(2):
        two = {p["filepath"] for p in threadpool_info() if p["num_threads"] == 2}
        assert two  # at least the OpenMP runtime takes two threads
        start = time.perf_counter()
        found = search(ds, kb, RunSettings(budget=10), deadline=start + 10, start=start)
        assert found == "searched"
        assert {p["num_threads"] for p in threadpool_info() if p["filepath"] in two} == {2}
    assert seen and set(seen.values()) == {1}


def test_the_name_a_run_stores_data_under():
    """Its own name; the name under which the KB holds the same content (same task); its own
    name and 8 hex digits of the fingerprint when the KB holds another dataset of that name
    from elsewhere or for the other task; refused when the same file changed."""
    from metarec.automl._search import run_name

    X, y = toy_frame(60)
    ds = load_dataset(X.assign(target=y), target="target", name="iris")
    fp = ds.fingerprint

    def stored(*rows):
        columns = ["name", "source", "source_id", "task", "fingerprint"]
        return pd.DataFrame(list(rows), columns=columns)

    assert run_name(ds, stored()) == ("iris", None)
    assert run_name(ds, stored(("iris", "file", "x", "binary", fp))) == ("iris", None)
    assert run_name(ds, stored(("iris", "file", "x", "binary", None))) == ("iris", None)
    # the same content under another name (a renamed file, the same frame given to the API)
    assert run_name(ds, stored(("flowers", "frame", None, "binary", fp))) == (
        "flowers",
        "the knowledge base holds this data as 'flowers': stored under it",
    )
    # ... but not for the other task
    assert run_name(ds, stored(("flowers", "file", "x", "regression", fp))) == ("iris", None)
    # another dataset named iris (the built-in one): a name of its own, the same every time
    builtin = ("iris", "file", "/data/pmlb/iris.tsv.gz", "multiclass", "f" * 64)
    assert run_name(ds, stored(builtin)) == (
        f"iris-{fp[:8]}",
        f"the knowledge base holds another 'iris' (other content): stored as 'iris-{fp[:8]}'",
    )
    again = stored(builtin, (f"iris-{fp[:8]}", "file", "iris.csv", "binary", fp))
    assert run_name(ds, again) == (f"iris-{fp[:8]}", None)
    regression = ("iris", "file", "iris.csv", "regression", "f" * 64)
    assert run_name(ds, stored(regression))[0] == f"iris-{fp[:8]}"
    # the same file, changed since its runs: refused

    from_file = replace(ds, source="file", source_id="data/iris.csv")
    changed = stored(("iris", "file", "data/iris.csv", "binary", "f" * 64))
    with pytest.raises(BenchmarkError, match="holds 'iris' from data/iris.csv with other"):
        run_name(from_file, changed)


def test_another_metric_is_chosen_on_its_cv_scores_alone(tmp_path):
    """The knowledge base expects accuracy: with balanced accuracy there is no prior, the
    expected_score stays NaN and the selection score is the CV mean itself."""
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender([("gaussian_nb", 0.99, 0.01), ("majority", 0.99, 0.01)])
    result = toy_search(kb, fixed, metric="balanced_accuracy")
    for trial in result.trials:
        assert np.isnan(trial.expected_score) and np.isnan(trial.expected_score_high)
        assert trial.selection_score == pytest.approx(np.mean(trial.fold_scores))
    shrunk = toy_search(KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}"), fixed)
    nb = next(t for t in shrunk.trials if t.algorithm == "gaussian_nb")
    assert nb.expected_score == 0.99
    assert nb.selection_score != pytest.approx(np.mean(nb.fold_scores))  # shrunk


def test_a_signal_keeps_the_folds_a_running_job_finished_and_leaves_it_incomplete(
    tmp_path, monkeypatch
):
    import signal

    from metarec.automl._loop import SearchLoop

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    X, y = toy_frame(n=6000)  # leave-one-out: 6,000 folds
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    jobs = []
    next_task = SearchLoop.next_task

    def spy(self):
        task = next_task(self)
        jobs.append(task)
        return task

    monkeypatch.setattr(SearchLoop, "next_task", spy)

    def check():  # Ctrl-C once the running job has finished three folds
        if jobs and jobs[0] is not None and len(jobs[0].folds) >= 3:
            raise KeyboardInterrupt

    start = time.perf_counter()
    result = search(
        ds,
        kb,
        RunSettings(budget=3600.0, protocol="loo"),
        deadline=start + 3600.0,
        start=start,
        recommender=FixedRecommender([("majority", 0.5, 0.001)]),
        portfolio=default_portfolio().select(["majority"]),
        check=check,
    )
    assert result.interrupted == signal.SIGINT
    (trial,) = result.trials
    assert trial.status == "timeout" and not np.isfinite(trial.selection_score)
    done = int(trial.message.split()[2])
    assert trial.message == f"interrupted after {done} of 6000 folds" and 3 <= done < 6000
    assert len(trial.fold_scores) == done and result.best is None and result.model is None
    # the finished folds are stored (the next call resumes from them), in order
    runs = kb.runs(aggregate=False, datasets=["toy"])
    assert len(runs) == result.runs_stored == done
    assert sorted(runs["fold"]) == list(range(done))


def test_a_signal_while_a_finished_job_is_recorded_waits_for_the_recording():
    from metarec.automl import _trials
    from metarec.automl._loop import SearchLoop
    from metarec.automl._search import _codes
    from metarec.execution import Signals
    from metarec.execution._jobs import ok_fold

    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)
    settings = RunSettings(budget=60.0, metric="balanced_accuracy")  # scored while recorded
    start = time.perf_counter()
    loop = SearchLoop(
        ds, "toy", codes, labels, settings, default_portfolio().select(["majority"]),
        FixedRecommender([("majority", 0.5, 0.001)]), {}, {}, start + 60, start,
        lambda n=1, total=None: None, 1,
    )  # fmt: skip
    signals = Signals()  # its handler called by hand below: no handler is installed
    loop.critical = signals.critical

    class Pool:  # finishes the job's 5 folds, then hands it to on_job as the worker pool does
        def run(self, tasks, *, on_job, check, more):
            task = more()
            task.started = time.perf_counter()
            for i, (_, test) in enumerate(task.splits):
                out = {"y_pred": np.zeros(len(test), int), "proba": None, "decision": None,
                       "classes": np.arange(2), "fit_time": 0.001, "fit_wall_time": 0.001,
                       "predict_time": 0.0, "predict_wall_time": 0.0}  # fmt: skip
                task.folds.append(ok_fold(task.spec, i, test, out))
            on_job(task)

    real, scored = _trials.fold_metrics, []

    def fold_metrics(*args, **kwargs):  # Ctrl-C while the third fold is scored
        scored.append(1)
        if len(scored) == 3:
            signals._handle(2, None)
        return real(*args, **kwargs)

    _trials.fold_metrics = fold_metrics
    try:
        assert loop.run(Pool(), check=signals.check) == 2
    finally:
        _trials.fold_metrics = real
    trial = loop.state.trials["majority"]
    assert trial.status == "ok" and len(trial.fold_scores) == 5  # recorded whole, once
    assert len(loop.state.results) == 1 and len(loop.state.results[0].folds) == 5
    assert loop.running == {}


def test_a_search_measures_each_job_s_wall_clock(tmp_path, monkeypatch):
    from metarec.automl._foldtime import FoldTimes

    walls = []
    record = FoldTimes.record

    def spy(self, algorithm, folds, expected, *, job_wall=None):
        walls.append(
            (algorithm, job_wall, sum(f.fit_wall_time + f.predict_wall_time for f in folds))
        )
        return record(self, algorithm, folds, expected, job_wall=job_wall)

    monkeypatch.setattr(FoldTimes, "record", spy)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    fixed = FixedRecommender([("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01)])
    toy_search(kb, fixed)
    assert {a for a, _, _ in walls} >= {"gaussian_nb", "majority"}
    # the job's wall clock, from its first fold's start to its end, holds its folds' times
    assert all(wall is not None and wall >= spent for _, wall, spent in walls)


def test_a_running_job_s_storing_is_kept_from_its_admission():
    from metarec.automl._loop import END_MARGIN, SearchLoop
    from metarec.automl._search import _codes
    from metarec.automl._storing import store_seconds

    X, y = toy_frame(n=300)
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    labels, codes = _codes(ds)
    start = time.perf_counter()
    loop = SearchLoop(
        ds, "toy", codes, labels, RunSettings(budget=60.0, protocol="loo"),
        default_portfolio().select(["majority", "gaussian_nb"]),
        FixedRecommender([("majority", 0.5, 0.001), ("gaussian_nb", 0.8, 0.001)]), {}, {}, start + 60,
        start, lambda n=1, total=None: None, 2,
    )  # fmt: skip
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN)  # nothing admitted yet
    first = loop.next_task()
    own = store_seconds(np.ones(300), 2).sum()  # 300 one-row folds: 0.15 s
    assert own == pytest.approx(0.15)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN + own)
    assert first.deadline == pytest.approx(start + 60 - 0.3 - END_MARGIN - own)
    second = loop.next_task()  # its deadline keeps both jobs' storing
    assert second.deadline == pytest.approx(start + 60 - 0.3 - END_MARGIN - 2 * own)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN + 2 * own)
    # without storing nothing is kept for it
    loop.settings = RunSettings(budget=60.0, protocol="loo", store=False)
    assert loop.reserve() == pytest.approx(0.3 + END_MARGIN)


def test_the_portfolio_chosen_for_the_dataset_comes_first_and_unknown_configurations_never(
    tmp_path,
):
    """When the knowledge base knows configurations, the portfolio the recommender chooses
    for this dataset (here knn_c03, then gaussian_nb) is planned first; a configuration the
    knowledge base has no result of (knn_c05) is not a candidate."""
    from metarec.automl._loop import PORTFOLIO_SIZE

    class Chooser(FixedRecommender):
        def portfolio(self, *, metafeatures, size, budget, n_folds, candidates):
            self.asked = {"size": size, "budget": budget, "n_folds": n_folds,
                          "candidates": sorted(candidates)}  # fmt: skip
            return ["knn_c03", "gaussian_nb"]

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    chooser = Chooser(
        [("gaussian_nb", 0.8, 0.01), ("majority", 0.5, 0.01), ("knn", 0.7, 0.01),
         ("knn_c03", 0.9, 0.01)]
    )  # fmt: skip
    X, y = toy_frame()
    ds = load_dataset(X.assign(target=y), target="target", name="toy")
    portfolio = default_portfolio(configurations=True).select(
        ["majority", "gaussian_nb", "knn", "knn_c03", "knn_c05"]
    )
    start = time.perf_counter()
    result = search(
        ds, kb, RunSettings(budget=60.0), deadline=start + 60.0, start=start,
        recommender=chooser, portfolio=portfolio,
    )  # fmt: skip
    planned = {t.algorithm: t.planned for t in result.trials}
    assert planned["knn_c03"] == 1 and planned["gaussian_nb"] == 2
    assert set(planned) == {"majority", "gaussian_nb", "knn", "knn_c03"}
    assert chooser.asked == {
        "size": PORTFOLIO_SIZE, "budget": 60.0, "n_folds": 5,
        "candidates": ["gaussian_nb", "knn", "knn_c03", "majority"],
    }  # fmt: skip
    assert result.trial("knn_c03").status == "ok"  # run, and stored under its own name
    assert "knn_c03" in set(kb.runs()["algorithm"])
