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


class CrashOnceClassifier(ClassifierMixin, BaseEstimator):
    """Kills its own process in the first fit (no ``marker`` file yet), fits normally after."""

    def __init__(self, marker="crash-once.marker"):
        self.marker = marker

    def fit(self, X, y):
        import os
        import signal
        from pathlib import Path

        if not Path(self.marker).exists():
            Path(self.marker).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


class GreedyClassifier(ClassifierMixin, BaseEstimator):
    """Allocates ``megabytes`` of memory in fit."""

    def __init__(self, megabytes=4000):
        self.megabytes = megabytes

    def fit(self, X, y):
        block = np.ones(int(self.megabytes * 1024 * 1024 // 8))
        self.classes_ = np.unique(y)
        self.total_ = float(block.sum())
        return self

    def predict(self, X):  # pragma: no cover
        return np.full(len(X), self.classes_[0])


class NappingClassifier(ClassifierMixin, BaseEstimator):
    """Creates ``folder/started`` as its fit begins, sleeps ``seconds``, then creates
    ``folder/finished``: a fit ended from outside leaves the first file only."""

    def __init__(self, folder=".", seconds=4.0):
        self.folder = folder
        self.seconds = seconds

    def fit(self, X, y):
        from pathlib import Path

        Path(self.folder, "started").touch()
        time.sleep(self.seconds)
        Path(self.folder, "finished").touch()
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])
