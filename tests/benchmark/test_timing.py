"""Benchmark-style check: a stored fit time is the fit's own cost, not the worker's overhead."""

from __future__ import annotations

import time

import numpy as np
import pytest

from metarec.algorithms import build_pipeline, default_portfolio
from metarec.benchmark import run_benchmark
from metarec.data import load_dataset
from metarec.evaluation import get_protocol
from metarec.storage import KnowledgeBase


def _in_process_fit_cpu(algorithm_name: str) -> np.ndarray:
    """CPU seconds of each cv5 fold's fit on iris in this process, after one warm-up fit."""
    from sklearn.base import clone

    ds = load_dataset("sklearn:iris")
    _, y = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
    pipeline = build_pipeline(
        default_portfolio()[algorithm_name],
        numeric_columns=tuple(ds.numeric_columns),
        categorical_columns=tuple(ds.categorical_columns),
        random_state=0,
    )
    folds = list(get_protocol("cv5", random_state=0).split(ds.X, y))
    clone(pipeline).fit(ds.X.iloc[folds[0][0]], y[folds[0][0]])  # warm-up
    times = []
    for train, _ in folds:
        model = clone(pipeline)
        start = time.process_time()
        model.fit(ds.X.iloc[train], y[train])
        times.append(time.process_time() - start)
    return np.array(times)


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_stored_cpu_time_of_a_trivial_fit_matches_its_in_process_time(tmp_path, n_jobs):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    run_benchmark(
        ["sklearn:iris"],
        kb,
        algorithms=["majority", "gaussian_nb"],
        protocol="cv5",
        n_jobs=n_jobs,
        cache_dir=tmp_path / "cache",
    )
    runs = kb.runs(aggregate=False)
    for name in ("majority", "gaussian_nb"):
        stored = runs.loc[runs["algorithm"] == name, "fit_time"].to_numpy()
        here = _in_process_fit_cpu(name)
        # the old forked-child runner stored 4-10x the in-process time for these fits
        margin = 1.5 * np.median(here) + 0.004
        assert np.median(stored) <= margin, (name, stored, here)
