"""A subsample (``name@rows``) and the dataset it was drawn from are left out together."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metarec._names import sample_base
from metarec.recommender import A3RRanker, Recommender
from metarec.storage import KnowledgeBase


def _kb():
    rng = np.random.default_rng(0)
    names = ["a", "a@1000", "a@4000", "b", "c", "d", "e"]
    runs = pd.DataFrame(
        [
            {
                "dataset": d,
                "algorithm": alg,
                "accuracy": float(rng.uniform(0.5, 0.9)),
                "fit_time": float(rng.uniform(0.1, 2.0)),
            }
            for d in names
            for alg in ("x", "y", "z")
        ]  # fmt: skip
    )
    kb = KnowledgeBase("sqlite://")
    kb.import_runs(runs)
    # the samples are the nearest to "a" (their metafeatures nearly its own)
    values = {"a": 0.0, "a@1000": 0.01, "a@4000": 0.02, "b": 1.0, "c": 2.0, "d": 3.0, "e": 4.0}
    kb.import_metafeatures(
        pd.DataFrame(
            {
                "dataset": list(values),
                "mf1": list(values.values()),
                "mf2": [v * 2 for v in values.values()],
            }
        )  # fmt: skip
    )
    return kb


def test_leaving_a_dataset_out_leaves_its_subsamples_out():
    model = Recommender(A3RRanker(k=2)).fit(_kb())
    query = {"mf1": 0.0, "mf2": 0.0}
    together = [n.name for n in model.recommend(metafeatures=query).neighbours]
    assert together == ["a", "a@1000"]
    for held_out in ("a", "a@1000"):
        ranking = model.recommend(metafeatures=query, exclude=[held_out])
        assert [n.name for n in ranking.neighbours] == ["b", "c"], held_out
    # another dataset left out leaves the samples of "a" in
    ranking = model.recommend(metafeatures=query, exclude=["b"])
    assert [n.name for n in ranking.neighbours] == ["a", "a@1000"]


def test_the_sample_naming_rule():
    assert sample_base("a@1000") == "a" and sample_base("a") == "a"
    assert sample_base("user@example.csv") == "user@example.csv"  # not a number of rows
    assert sample_base("a@1000@2000") == "a@1000"
