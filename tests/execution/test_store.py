"""The result cache on disk: a write that fails leaves no entry and no temporary file."""

from __future__ import annotations

import pickle

import pytest

from metarec.algorithms import Algorithm
from metarec.execution import ResultCache


def test_a_result_that_cannot_be_written_leaves_nothing_behind(tmp_path):
    cache = ResultCache(tmp_path)
    algorithm = Algorithm(name="tree", estimator="sklearn.tree:DecisionTreeClassifier")
    unpicklable = {"predict": lambda x: x}  # pickle refuses a lambda, midway through
    with pytest.raises((pickle.PicklingError, AttributeError), match="lambda"):
        cache.save("ab" * 32, algorithm, "cv5", 0, unpicklable)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert cache.load("ab" * 32, algorithm, "cv5", 0) is None
