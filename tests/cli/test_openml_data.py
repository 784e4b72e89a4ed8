# ruff: noqa: F811 - fixtures imported by name are parameters of the tests
"""``openml:ID`` data in the commands that read data, downloaded through openml-python from
the local replay of OpenML's REST API (``tests/ingest/_replay.py``): the dataset's description,
then its ARFF file.  Dataset 999001 (donors) has 48 rows, one of them without a label, a row
id column and three features."""

from __future__ import annotations

import json

from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase
from tests.ingest._fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _openml_home,
    openml_config,
    replay,
)

DATA = "openml:999001"
DOWNLOADED = ["data/999001", "/data/v1/download/999001/donors.arff"]
LOADED = "openml:999001: 47 rows, 3 features, target 'class' (openml default target), task binary"


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _said(result) -> list[str]:
    assert result.exit_code == 0, result.output
    return result.stderr.splitlines()


def test_metafeatures_of_an_openml_dataset(replay):
    result = _run("metafeatures", DATA, "--groups", "general", "--format", "json")
    notes = _said(result)
    assert "Dropped 1 rows whose target is missing." in notes and LOADED in notes
    values = {row["name"]: row["value"] for row in json.loads(result.stdout)["results"]}
    assert values["n_instances"] == 47 and values["n_features"] == 3
    assert values["n_numeric_features"] == 2 and values["n_categorical_features"] == 1
    assert replay.paths() == DOWNLOADED


def test_recommend_for_an_openml_dataset(replay, real_kb):
    url, _, _ = real_kb
    result = _run("--db", url, "recommend", DATA, "--format", "json")
    assert LOADED in _said(result)
    doc = json.loads(result.stdout)
    assert doc["task"] == "classification"
    assert {row["algorithm"] for row in doc["results"]} == {"fast", "mid", "slow"}
    assert replay.paths() == DOWNLOADED


def test_run_on_an_openml_dataset_stores_it_as_openml_data(replay, seeded_kb):
    url, _ = seeded_kb
    # one holdout fold each: every algorithm in a few seconds, well within the budget
    args = ("--protocol", "holdout", "--budget", "40", "--format", "json")
    result = _run("--db", url, "run", DATA, *args)
    assert LOADED in _said(result)
    doc = json.loads(result.stdout)
    assert doc["dataset"] == DATA and doc["best"] and doc["runs_stored"] > 0
    kb = KnowledgeBase(url)
    stored = kb.datasets().set_index("name").loc[DATA]
    assert (stored["source"], stored["source_id"]) == ("openml", "999001")
    assert (stored["n_instances"], stored["n_features"]) == (47, 3)
    assert len(kb.runs(aggregate=False, datasets=[DATA])) == doc["runs_stored"]
    assert replay.paths() == DOWNLOADED
