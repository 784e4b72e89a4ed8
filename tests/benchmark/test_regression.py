"""The benchmark runner on regression data, alone and beside classification."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import build_pipeline, default_portfolio
from metarec.benchmark import run_benchmark
from metarec.data import load_dataset
from metarec.storage import KnowledgeBase

REGRESSORS = ["mean", "linear_regression", "decision_tree_regressor", "svr_rbf"]


@pytest.fixture
def kb(tmp_path):
    return KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")


def _linear(n=60, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    frame["target"] = 100 + 40 * frame["a"] - 15 * frame["b"]  # exactly linear, far from 0
    return load_dataset(frame, name="linear")


def test_regression_runs_are_scored_by_clipped_r2(kb, tmp_path):
    report = run_benchmark(
        [_linear(), "sklearn:iris"],
        kb,
        algorithms=[*REGRESSORS, "majority", "gaussian_nb"],
        protocol="cv5",
        cache_dir=tmp_path / "cache",
    )
    assert report.failures == ()
    runs = kb.runs(aggregate=False)
    regression = runs[runs["dataset"] == "linear"]
    classification = runs[runs["dataset"] == "sklearn:iris"]
    # each dataset ran the algorithms of its task only, five folds each
    assert set(regression["algorithm"]) == set(REGRESSORS)
    assert set(classification["algorithm"]) == {"majority", "gaussian_nb"}
    assert len(regression) == 4 * 5
    by = regression.set_index(["algorithm", "fold"])
    # the training mean explains nothing of a test fold: R² <= 0, success rate exactly 0
    assert (by.loc["mean", "accuracy"] == 0).all() and (by.loc["mean", "r2"] <= 0).all()
    # least squares recovers an exactly linear target
    assert np.allclose(by.loc["linear_regression", "accuracy"], 1.0)
    assert np.allclose(by.loc["linear_regression", "rmse"], 0.0, atol=1e-9)
    assert np.allclose(by.loc["linear_regression", "mae"], 0.0, atol=1e-9)
    # the success rate is max(0, R²) of the same fold
    assert np.allclose(regression["accuracy"], regression["r2"].clip(lower=0))
    # classification folds keep their metrics; regression folds have none of them
    assert classification["tau"].notna().all()
    assert regression["tau"].isna().all() and classification["rmse"].isna().all()
    tasks = kb.datasets().set_index("name")["task"]
    assert tasks["linear"] == "regression" and tasks["sklearn:iris"] == "multiclass"
    assert kb.metafeatures(datasets=["linear"])["c1_max_feature_correlation"].iloc[0] > 0.5


def test_scale_target_standardises_the_target_and_predicts_in_its_unit():
    frame = pd.DataFrame({"a": np.linspace(0, 1, 40)})
    y = 1e6 + 1e5 * frame["a"].to_numpy()
    algorithm = default_portfolio(task="regression")["svr_rbf"]
    assert algorithm.scale_target
    pipeline = build_pipeline(algorithm, numeric_columns=["a"], categorical_columns=[])
    predicted = pipeline.fit(frame, y).predict(frame)
    # without the standardised target, epsilon = 0.1 and C = 1 leave SVR near a constant
    assert np.corrcoef(predicted, y)[0, 1] > 0.99
    assert abs(predicted.mean() - y.mean()) < 1e4


def test_default_portfolios_by_task():
    classification = default_portfolio()
    regression = default_portfolio(task="regression")
    both = default_portfolio(task="all")
    assert {a.task for a in classification} == {"classification"}
    assert {a.task for a in regression} == {"regression"}
    assert len(regression) >= 15 + 3 and len(both) == len(classification) + len(regression)
    assert not set(classification.names) & set(regression.names)


def test_one_name_never_holds_both_tasks(kb, tmp_path):
    """The same file as a regression target after its classification runs: stored under
    its name and 8 hex digits of its fingerprint, with a note; the classification runs
    under its name are untouched."""
    frame = pd.DataFrame({"a": np.arange(60.0)})
    frame["target"] = np.arange(60) % 10  # integer codes: classes unless told otherwise
    data = tmp_path / "codes.csv"
    frame.to_csv(data, index=False)
    run_benchmark([data], kb, algorithms=["majority"], protocol="cv5", cache_dir=tmp_path / "c")
    assert kb.datasets().set_index("name").loc["codes", "task"] == "multiclass"
    before = kb.runs(aggregate=False, datasets=["codes"])
    report = run_benchmark([data], kb, algorithms=["mean"], task="regression", protocol="cv5",
                           cache_dir=tmp_path / "c")  # fmt: skip
    stored = kb.datasets().set_index("name")
    other = next(n for n in stored.index if n.startswith("codes-"))
    assert report.notes == (
        f"codes: the knowledge base holds another 'codes' (a regression target now): stored "
        f"as {other!r}",
    )
    assert stored.loc["codes", "task"] == "multiclass" and stored.loc[other, "task"] == "regression"
    assert kb.runs(aggregate=False, datasets=["codes"]).equals(before)
    assert set(kb.runs(aggregate=False, datasets=[other])["algorithm"]) == {"mean"}
