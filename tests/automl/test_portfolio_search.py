"""The portfolio for a dataset in a real search: a knowledge base with configurations, the
default recommender fitted on it, real worker processes (tests/configured_kb.py)."""

from __future__ import annotations

import shutil
import time

import pytest

from metarec.automl import RunSettings
from metarec.automl._search import search
from metarec.benchmark import default_portfolio
from metarec.data import load_dataset
from metarec.metafeatures import extract
from metarec.recommender import Recommender
from metarec.storage import KnowledgeBase
from tests.configured_kb import ALGORITHMS, PORTFOLIO, SMALL, WIDE, build, query_frame


@pytest.fixture(scope="module")
def configured(tmp_path_factory):
    folder = tmp_path_factory.mktemp("configured")
    return folder, build(folder)


def test_the_search_plans_the_portfolio_for_the_dataset_first_and_stores_each_configuration(
    configured, tmp_path
):
    """The first 20 of the plan are the greedy portfolio by hand (knn_c03, then
    logistic_regression_c02, then the rest by name), the rest the recommendation's run
    order, and an algorithm the knowledge base does not know last (a configuration it does
    not know not at all); every configuration evaluated is stored under its own name."""
    folder, _ = configured
    shutil.copyfile(folder / "kb.sqlite", tmp_path / "kb.sqlite")
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    recommender = Recommender().fit(kb)
    ds = load_dataset(query_frame(), target="label", name="query")
    portfolio = default_portfolio(configurations=True).select(
        [*ALGORITHMS, "qda", "random_forest_c01"]
    )
    start = time.perf_counter()
    result = search(
        ds, kb, RunSettings(budget=120.0, protocol="holdout"), deadline=start + 120.0,
        start=start, recommender=recommender, portfolio=portfolio,
    )  # fmt: skip
    planned = [t.algorithm for t in sorted(result.trials, key=lambda t: t.planned)]
    metafeatures = dict(extract(ds.X, ds.y, task=ds.task, random_state=0))
    run_order = recommender.recommend(metafeatures=metafeatures).run_sequence
    assert planned[:20] == PORTFOLIO
    assert planned[20:] == [a for a in run_order if a not in PORTFOLIO] + ["qda"]
    # another size of the portfolio would plan otherwise (the data can tell them apart)
    greedy = [SMALL, WIDE] + [a for a in ALGORITHMS if a not in (SMALL, WIDE)]
    for size in (10, 19, 21, 40):
        head = greedy[:size]
        assert head + [a for a in run_order if a not in head] + ["qda"] != planned
    # what the search asked the recommender for, asked again
    again = recommender.portfolio(
        metafeatures=metafeatures, size=20, budget=120.0, n_folds=1, candidates=ALGORITHMS
    )
    assert again == PORTFOLIO
    # every algorithm ran; the configurations are stored under their own names
    assert {t.algorithm for t in result.trials} == {*ALGORITHMS, "qda"}
    assert {t.status for t in result.trials} == {"ok"}
    stored = kb.runs(aggregate=False, datasets=["query"])
    assert set(stored["algorithm"]) == {*ALGORITHMS, "qda"}
    assert (stored.groupby("algorithm").size() == 1).all()  # one holdout fold each
    kb.close()


def test_without_configurations_known_the_plan_is_the_recommendations(configured, tmp_path):
    """A knowledge base that knows no configuration: no portfolio is chosen, the plan is the
    recommendation's run order."""
    folder, _ = configured
    shutil.copyfile(folder / "kb.sqlite", tmp_path / "kb.sqlite")
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    defaults = [a for a in ALGORITHMS if "_c0" not in a]
    recommender = Recommender().fit(kb)
    ds = load_dataset(query_frame(), target="label", name="query")
    start = time.perf_counter()
    result = search(
        ds, kb, RunSettings(budget=120.0, protocol="holdout", store=False),
        deadline=start + 120.0, start=start, recommender=recommender,
        portfolio=default_portfolio().select(defaults),
    )  # fmt: skip
    planned = [t.algorithm for t in sorted(result.trials, key=lambda t: t.planned)]
    metafeatures = dict(extract(ds.X, ds.y, task=ds.task, random_state=0))
    run_order = recommender.recommend(metafeatures=metafeatures).run_sequence
    assert planned == [a for a in run_order if a in defaults]
    assert planned != sorted(defaults)  # (the greedy tie order would differ)
    kb.close()
