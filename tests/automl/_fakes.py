"""Shared test data and a stand-in recommender of the automl tests."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from metarec.algorithms import default_portfolio
from metarec.automl import RunSettings
from metarec.automl._search import search
from metarec.data import load_dataset
from metarec.recommender import RankedAlgorithm, Ranking


def toy_frame(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": rng.choice(["red", "green", "blue"], size=n),
        }
    )
    y = np.where(X["a"] + 0.5 * X["b"] + rng.normal(scale=0.5, size=n) > 0, "yes", "no")
    return X, y


class FixedRecommender:
    """A stand-in recommender with a fixed ranking (expected time per fold in seconds)."""

    def __init__(self, rows, run_order=(), plan=None, time_high=None, spread=None):
        # run_order: of an unbudgeted ranking; plan: the algorithms of a budgeted one;
        # time_high: {algorithm: top of the interval shown} (default: the expected time);
        # spread: the runtime model's in-range top over the expectation, one for every
        # algorithm (default: no runtime model)
        self.rows, self.run_order, self.budget_plan = rows, tuple(run_order), plan
        self.time_high = dict(time_high or {})
        self.spread = spread
        self.algorithms_ = np.array([r[0] for r in rows])
        self.calls = []

    def time_spread(self):
        return {} if self.spread is None else {r[0]: float(self.spread) for r in self.rows}

    def single_best(self, *, exclude=()):
        """As if one other dataset held each algorithm at its expected accuracy."""
        return max(self.rows, key=lambda r: r[1])[0] if self.rows else None

    def recommend(self, *, metafeatures, tried=None, budget=None):
        self.calls.append((dict(tried or {}), budget))
        rows = self.rows
        if budget is not None and self.budget_plan is not None:
            rows = [r for name in self.budget_plan for r in rows if r[0] == name]
        return Ranking(
            tuple(
                RankedAlgorithm(
                    name,
                    1.0,
                    i + 1,
                    acc,
                    t,
                    5,
                    0,
                    acc - 0.1,
                    acc + 0.1,
                    "planner",
                    t,
                    self.time_high.get(name, t),
                )
                for i, (name, acc, t) in enumerate(rows)
            ),
            run_order=self.run_order if budget is None else (),
        )


def toy_search(kb, recommender, budget=60.0, **settings):
    X, y = toy_frame()
    frame = X.assign(target=y)
    ds = load_dataset(frame, target="target", name="toy")
    portfolio = default_portfolio().select(["majority", "gaussian_nb", "knn"])
    start = time.perf_counter()
    return search(
        ds,
        kb,
        RunSettings(budget=budget, **settings),
        deadline=start + budget,
        start=start,
        recommender=recommender,
        portfolio=portfolio,
    )


def regression_dataset(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = 30 + 12 * X["a"] - 4 * X["b"] + rng.normal(scale=0.5, size=n)
    return X, y.to_numpy()
