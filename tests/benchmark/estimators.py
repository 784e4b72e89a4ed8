"""Misbehaving estimators for the runner's failure tests (imported by path from portfolios)."""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class SleepyClassifier(ClassifierMixin, BaseEstimator):
    """Sleeps in fit, longer than any test's time limit."""

    def __init__(self, seconds=60):
        self.seconds = seconds

    def fit(self, X, y):
        time.sleep(self.seconds)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


class BrokenClassifier(ClassifierMixin, BaseEstimator):
    """Fails in fit with a recognisable message."""

    def fit(self, X, y):
        raise ValueError("this estimator always fails")

    def predict(self, X):  # pragma: no cover
        raise AssertionError
