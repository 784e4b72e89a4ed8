"""The portfolio for a dataset from the command line: ``recommend --configurations`` and
``run`` on a knowledge base with configurations (tests/configured_kb.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase
from tests.configured_kb import ALGORITHMS, PORTFOLIO, SMALL, WIDE, build, query_frame


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def configured(tmp_path):
    url = build(tmp_path)
    query = tmp_path / "query.csv"
    query_frame().to_csv(query, index=False)
    return url, query


def test_recommend_lists_every_configuration_on_request(configured):
    url, query = configured
    args = ["--db", url, "recommend", query, "--target", "label", "--format", "json"]
    every = json.loads(_run(*args, "--configurations").stdout)["results"]
    assert sorted(r["algorithm"] for r in every) == sorted(ALGORITHMS)
    rank = {r["algorithm"]: r["rank"] for r in every}
    assert rank[SMALL] < rank[WIDE] < min(r for a, r in rank.items() if a not in (SMALL, WIDE))
    # by default one row per algorithm, named with its configuration ranked first
    folded = {r["algorithm"]: r for r in json.loads(_run(*args).stdout)["results"]}
    assert sorted(folded) == sorted(a for a in ALGORITHMS if "_c0" not in a)
    assert folded["knn"]["configuration"] == SMALL
    assert folded["logistic_regression"]["configuration"] == WIDE
    assert folded["lda"]["configuration"] == "lda"


@pytest.mark.slow
def test_run_evaluates_the_portfolio_first_and_stores_each_configuration(configured):
    """Every algorithm of the default portfolio runs (holdout, 100 rows); the 20 chosen for
    the dataset were planned first, in the greedy order; each configuration's fold is
    stored under its own name."""
    url, query = configured
    result = _run(
        "--db", url, "run", query, "--target", "label", "--protocol", "holdout",
        "--budget", "120", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    planned = [r["algorithm"] for r in sorted(rows, key=lambda r: r["planned"])]
    assert planned[:20] == PORTFOLIO
    assert set(planned[20:]) >= set(ALGORITHMS) - set(PORTFOLIO)
    stored = KnowledgeBase(url).runs(aggregate=False, datasets=["query"])
    assert set(stored["algorithm"]) >= set(ALGORITHMS)
    by_name = {r["algorithm"]: r for r in rows}
    for configuration in (a for a in ALGORITHMS if "_c0" in a):
        assert by_name[configuration]["status"] == "ok"
        folds = stored[stored["algorithm"] == configuration]
        assert len(folds) == 1 and folds["accuracy"].iloc[0] == by_name[configuration]["cv_score"]
