"""Metafeatures of large data: exact counts on every row, the rest on a stated subsample."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.metafeatures import _extract
from metarec.metafeatures._base import prepare
from metarec.metafeatures._extract import EXACT_GROUPS, extract, subsample


def _labels(counts) -> pd.Series:
    return pd.Series(np.repeat([f"c{i}" for i in range(len(counts))], counts))


def test_a_stratified_subsample_keeps_each_class_its_share_and_at_least_one_row():
    y = _labels([900, 99, 1])
    X = pd.DataFrame({"a": np.arange(1000.0)})
    data = prepare(X, y, task="multiclass")
    sample = subsample(data, 100)
    # round(900 * 0.1) = 90, round(99 * 0.1) = 10, and the class of one row keeps it
    assert sample.class_counts.tolist() == [90, 10, 1] and sample.n == 101
    assert np.all(np.diff(sample.numeric[:, 0]) > 0)  # rows in their order, none twice
    kept = sample.numeric[:, 0].astype(int)
    assert (y.iloc[kept].value_counts().sort_index().tolist()) == [90, 10, 1]
    assert subsample(data, 1000) is data and subsample(data, 5000) is data


def test_a_regression_subsample_is_uniform_of_the_limit():
    X = pd.DataFrame({"a": np.arange(500.0)})
    data = prepare(X, np.arange(500.0) * 2, task="regression")
    sample = subsample(data, 50)
    assert sample.n == 50 and sample.class_counts is None
    np.testing.assert_array_equal(sample.y_values, sample.numeric[:, 0] * 2)


def test_beyond_the_limit_counts_are_exact_and_the_rest_is_the_subsamples(monkeypatch):
    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n),
                      "c": rng.choice(["x", "y", "z"], n)})  # fmt: skip
    y = pd.Series(np.where(X["a"] + rng.normal(size=n) > 0, "yes", "no"))
    monkeypatch.setattr(_extract, "ESTIMATE_ABOVE", 200)
    estimated = extract(X, y, groups="general,imbalance,statistical,info")
    monkeypatch.setattr(_extract, "ESTIMATE_ABOVE", 10**9)
    exact = extract(X, y, groups="general,imbalance,statistical,info")
    rows = subsample(prepare(X, y), 200).numeric[:, 0]
    picked = X["a"].isin(rows).to_numpy()  # the rows the subsample drew (values are distinct)
    on_sample = extract(X[picked], y[picked], groups="statistical,info")
    for name, value in estimated.items():
        group = _extract.metafeature_group(name)
        expected = exact[name] if group in EXACT_GROUPS else on_sample[name]
        assert value == pytest.approx(expected, nan_ok=True), name
    assert estimated["n_instances"] == n
    assert estimated["skewness_mean"] != pytest.approx(exact["skewness_mean"])
