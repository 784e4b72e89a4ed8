from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import load_portfolio
from metarec.benchmark import run_benchmark
from metarec.data import load_dataset
from metarec.exceptions import BenchmarkError
from metarec.storage import KnowledgeBase

FAST = ["majority", "gaussian_nb", "decision_tree", "logistic_regression"]


@pytest.fixture
def kb(tmp_path):
    return KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")


def _frame(n=80, seed=0, name_shift=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) + name_shift > 0).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["target"] = y
    return load_dataset(frame, name=f"toy{seed}")


def test_runs_every_algorithm_on_every_fold_and_stores_metrics(kb, tmp_path):
    import time

    began = time.perf_counter()
    report = run_benchmark(
        ["sklearn:iris"], kb, algorithms=FAST, protocol="cv5", cache_dir=tmp_path / "cache"
    )
    assert 0 < report.seconds <= time.perf_counter() - began  # the call's own wall time
    assert report.jobs_run == 4 and report.failures == ()
    runs = kb.runs(aggregate=False)
    assert len(runs) == 4 * 5
    assert set(runs["algorithm"]) == set(FAST)
    assert set(runs["fold"]) == {0, 1, 2, 3, 4}
    assert (runs["status"] == "ok").all()
    assert (runs["protocol"] == "cv5").all() and (runs["source"] == "benchmark").all()
    # iris is balanced: the majority baseline is right on exactly a third of each test fold
    majority = runs[runs["algorithm"] == "majority"]
    assert np.allclose(majority["accuracy"], 1 / 3)
    for metric in (
        "balanced_accuracy",
        "tau",
        "roc_auc",
        "log_loss",
        "quadratic_loss",
        "nosimple_auc",
        "fit_wall_time",
        "predict_wall_time",
    ):
        assert metric in runs.columns, metric
    tree = runs[runs["algorithm"] == "decision_tree"]
    assert (tree["accuracy"] > 0.8).all()
    assert (runs["fit_time"] >= 0).all()
    # metafeatures and dataset records are stored with the runs
    mf = kb.metafeatures()
    assert mf.loc[mf["dataset"] == "sklearn:iris", "n_instances"].item() == 150
    ds = kb.datasets()
    assert ds.loc[ds["name"] == "sklearn:iris", "task"].item() == "multiclass"
    algos = kb.algorithms().set_index("name")
    assert algos.loc["decision_tree", "library"].startswith("scikit-learn==")


def test_rerun_skips_what_is_stored_and_adds_only_new_algorithms(kb, tmp_path):
    run_benchmark(["sklearn:iris"], kb, algorithms=FAST[:2], protocol="cv5", cache_dir=tmp_path)
    again = run_benchmark(
        ["sklearn:iris"], kb, algorithms=FAST[:3], protocol="cv5", cache_dir=tmp_path
    )
    assert again.jobs_skipped == 2 and again.jobs_run == 1
    assert len(kb.runs(aggregate=False)) == 3 * 5


def test_cached_jobs_are_not_recomputed(tmp_path):
    cache = tmp_path / "cache"
    first = KnowledgeBase(f"sqlite:///{tmp_path / 'a.sqlite'}")
    run_benchmark(["sklearn:iris"], first, algorithms=FAST[:2], protocol="cv5", cache_dir=cache)
    second = KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}")
    report = run_benchmark(
        ["sklearn:iris"], second, algorithms=FAST[:2], protocol="cv5", cache_dir=cache
    )
    assert report.jobs_run == 0 and report.jobs_cached == 2
    a = first.runs(aggregate=False).sort_values(["algorithm", "fold"])["accuracy"].to_numpy()
    b = second.runs(aggregate=False).sort_values(["algorithm", "fold"])["accuracy"].to_numpy()
    assert np.array_equal(a, b)


def test_a_cached_job_is_stored_under_the_name_the_data_has_now(kb, tmp_path):
    # the cache is keyed by the data's content: the same rows under a new file name, in
    # another knowledge base, reuse it, and the runs go under the new name, not the one they
    # were first computed for
    ds = _frame(seed=3)
    frame = ds.X.assign(target=ds.y)
    for name in ("first", "second"):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    cache = tmp_path / "cache"
    other = KnowledgeBase(f"sqlite:///{tmp_path / 'other.sqlite'}")
    run_benchmark([tmp_path / "first.csv"], other, algorithms=FAST[:2], protocol="cv5",
                  cache_dir=cache)  # fmt: skip
    report = run_benchmark(
        [tmp_path / "second.csv"], kb, algorithms=FAST[:2], protocol="cv5", cache_dir=cache
    )
    assert report.jobs_run == 0 and report.jobs_cached == 2
    runs = kb.runs(aggregate=False)
    assert runs.groupby("dataset").size().to_dict() == {"second": 10}


def test_timeouts_and_crashes_are_recorded_and_the_rest_continue(kb, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "algorithms": [
                    {"name": "sleepy", "estimator": "tests.benchmark.estimators:SleepyClassifier"},
                    {"name": "broken", "estimator": "tests.benchmark.estimators:BrokenClassifier"},
                ]
            }
        )
    )
    portfolio = load_portfolio(path)
    report = run_benchmark(
        [_frame()],
        kb,
        portfolio=portfolio,
        algorithms=["sleepy", "broken", "gaussian_nb"],
        protocol="cv5",
        timeout=1.0,
        cache_dir=tmp_path / "c",
    )
    failures = {f.algorithm: f for f in report.failures}
    assert set(failures) == {"sleepy", "broken"}
    assert failures["sleepy"].status == "timeout" and failures["sleepy"].n_failed == 5
    assert "always fails" in failures["broken"].message
    runs = kb.runs(aggregate=False)
    assert (runs.loc[runs["algorithm"] == "gaussian_nb", "status"] == "ok").all()
    sleepy = runs[runs["algorithm"] == "sleepy"]
    assert (sleepy["status"] == "timeout").all() and sleepy["accuracy"].isna().all()
    # the first fold killed once past its limit (long before its 60 s sleep would end), the
    # others not run: the time the limit allowed
    times = sleepy.sort_values("fold")["fit_time"].tolist()
    assert 1.0 <= times[0] < 30 and times[1:] == [1.0] * 4
    broken = runs[runs["algorithm"] == "broken"]
    assert (broken["status"] == "error").all()
    assert broken["error"].str.contains("always fails").all()


@pytest.mark.slow
def test_bootstrap_stores_the_632_estimate(kb, tmp_path):
    run_benchmark(
        [_frame(120)], kb, algorithms=["decision_tree"], protocol="bootstrap632", cache_dir=tmp_path
    )
    runs = kb.runs(aggregate=False)
    oob, resub = runs["oob_accuracy"].to_numpy(), runs["resubstitution_accuracy"].to_numpy()
    assert np.allclose(resub, 1.0)  # a fully grown tree memorises its training sample
    assert np.allclose(runs["accuracy"], 0.368 * resub + 0.632 * oob, atol=1e-6)


def test_bad_requests(kb, tmp_path):
    with pytest.raises(BenchmarkError, match="unknown protocol"):
        run_benchmark(["sklearn:iris"], kb, protocol="cv3")
    with pytest.raises(BenchmarkError, match="'sklearn:diabetes' skipped: no regression algo"):
        run_benchmark(["sklearn:diabetes"], kb, algorithms=["knn"], cache_dir=tmp_path)
    with pytest.raises(BenchmarkError, match="no datasets"):
        run_benchmark([], kb)


def test_a_dataset_the_protocol_cannot_split_is_skipped_and_reported(kb, tmp_path):
    frame = pd.DataFrame({"a": np.arange(8.0), "target": [0] * 4 + [1] * 4})  # 4 < 5 folds
    small = load_dataset(frame, name="tiny_class")
    report = run_benchmark(
        [small, _frame(seed=3)], kb, algorithms=["majority"], protocol="cv5", cache_dir=tmp_path
    )
    assert report.datasets == 1 and report.jobs_run == 1
    (failure,) = report.failures
    assert (failure.dataset, failure.algorithm) == ("tiny_class", "*")
    assert failure.message == (
        "dataset skipped: cv5 cannot split these data: every class has fewer than 5 rows "
        "(the largest 4, of 2 classes); a stratified split needs one class of 5 or more"
    )
    assert set(kb.runs()["dataset"]) == {"toy3"}
    assert "tiny_class" not in set(kb.datasets()["name"])


def test_an_interrupted_job_resumes_from_its_first_unfinished_fold(tmp_path):
    import pickle
    from dataclasses import replace

    first = KnowledgeBase(f"sqlite:///{tmp_path / 'a.sqlite'}")
    cache = tmp_path / "cache"
    run_benchmark(["sklearn:iris"], first, algorithms=["knn"], protocol="cv5", cache_dir=cache)
    (entry,) = cache.rglob("knn-*.pkl")
    with entry.open("rb") as handle:
        whole = pickle.load(handle)
    marked = [replace(f, fit_time=1000.0 + f.fold) for f in whole.folds[:2]]
    with entry.open("wb") as handle:  # what an interruption after two folds leaves
        pickle.dump(replace(whole, folds=tuple(marked)), handle)
    second = KnowledgeBase(f"sqlite:///{tmp_path / 'b.sqlite'}")
    report = run_benchmark(
        ["sklearn:iris"], second, algorithms=["knn"], protocol="cv5", cache_dir=cache
    )
    assert report.jobs_run == 1 and report.runs_stored == 5
    runs = second.runs(aggregate=False).sort_values("fold")
    assert runs["fit_time"].tolist()[:2] == [1000.0, 1001.0]  # kept, not refitted
    assert (runs["fit_time"].iloc[2:] < 100).all()  # fitted now
    assert runs["accuracy"].tolist() == pytest.approx(
        first.runs(aggregate=False).sort_values("fold")["accuracy"].tolist()
    )
