"""The recommend and rank commands' options, on the real SQLite knowledge base of the CLI tests.

The knowledge base (``tests/cli/conftest.py``): five synthetic datasets, three algorithms
with hand-chosen accuracies and times (fast 0.01-0.5 s, mid 0.2-3 s, slow 5-90 s).
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def data_file(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    path = tmp_path / "new.csv"
    frame.to_csv(path, index=False)
    return path


def test_recommend_json_lists_ranking_and_neighbours(real_kb, data_file):
    url, _, _ = real_kb
    result = _run("--db", url, "recommend", data_file, "--target", "label", "--k", "2",
                  "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert sorted(r["algorithm"] for r in doc["results"]) == ["fast", "mid", "slow"]
    assert [r["rank"] for r in doc["results"]] == [1, 2, 3]
    assert {"score", "expected_accuracy", "expected_time", "n_datasets"} <= set(doc["results"][0])
    # every row's position in the run order, each position once
    assert sorted(r["run"] for r in doc["results"]) == [1, 2, 3]
    # 50 rows x 2 features: 'tiny' (40 x 2) is the closest stored dataset
    assert len(doc["neighbours"]) == 2 and doc["neighbours"][0]["name"] == "tiny"
    distances = [nb["distance"] for nb in doc["neighbours"]]
    assert distances == sorted(distances)
    assert doc["params"]["k"] == 2


def test_recommend_tried_and_budget(real_kb, data_file):
    url, _, _ = real_kb
    args = ["--db", url, "recommend", data_file, "--target", "label", "--format", "csv"]
    result = _run(*args, "--tried", "fast=0.7:0.01")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sorted(line.split(",")[0] for line in lines[1:]) == ["mid", "slow"]
    assert not any(line.startswith("fast,") for line in lines)  # tried: not recommended again
    result = _run(*args, "--budget", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "cumulative_time" in lines[0]
    kept = [line.split(",")[0] for line in lines[1:]]
    assert "slow" not in kept and "fast" in kept  # slow's 5-90 s does not fit in 1 s
    # a duration as run takes it: 2m is 120 s, where slow fits too
    minutes = _run(*args, "--budget", "2m")
    assert minutes.exit_code == 0, minutes.output
    assert "slow" in [line.split(",")[0] for line in minutes.stdout.splitlines()[1:]]


@pytest.mark.parametrize("bad", ["fast", "fast=0.7", "fast=x:1", "fast=1.5:1", "=0.5:1"])
def test_recommend_rejects_bad_tried(real_kb, data_file, bad):
    url, path, _ = real_kb
    before = path.read_bytes()
    result = _run("--db", url, "recommend", data_file, "--tried", bad)
    assert result.exit_code == 2
    assert "--tried" in result.output
    assert path.read_bytes() == before


def test_recommend_missing_file_is_an_error(real_kb, tmp_path):
    url, _, _ = real_kb
    result = _run("--db", url, "recommend", tmp_path / "nope.csv")
    assert result.exit_code == 1
    assert result.output.startswith("Error:") and "nope.csv" in result.output


def test_rank_dataset_and_all(real_kb):
    url, _, _ = real_kb
    result = _run("--db", url, "rank", "--dataset", "large", "--method", "ar", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    # on 'large': slow 0.99 > fast 0.85 > mid 0.70
    assert [r["algorithm"] for r in doc["results"]] == ["slow", "fast", "mid"]
    assert doc["datasets"] == ["large"]
    result = _run("--db", url, "rank", "--all", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("algorithm,score,rank")
    result = _run("--db", url, "rank", "--dataset", "nope")
    assert result.exit_code == 1 and "nope" in result.output
    result = _run("--db", url, "rank", "--dataset", "large", "--all")
    assert result.exit_code == 2


def test_recommend_shows_the_library_and_the_extra_a_missing_one_needs(
    real_kb, data_file, monkeypatch
):
    url, _, _ = real_kb
    kb = KnowledgeBase(url)
    names = ["tiny", "small", "medium", "wide", "large"]
    kb.import_runs(
        pd.DataFrame({"dataset": names, "algorithm": "lightgbm", "accuracy": 0.8, "fit_time": 0.3})
    )
    kb.add_algorithms(
        pd.DataFrame({"name": ["lightgbm", "fast"], "library": ["lightgbm==4.3.0", "sk==1.0"]})
    )
    kb.close()
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # as if the extra were not installed
    result = _run("--db", url, "recommend", data_file, "--target", "label", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    libraries = {r["algorithm"]: r["library"] for r in doc["results"]}
    assert libraries["lightgbm"] == "lightgbm==4.3.0" and libraries["fast"] == "sk==1.0"
    assert doc["not_installed"] == {"lightgbm": 'pip install "metarec[boosting]"'}
    result = _run("--db", url, "recommend", data_file, "--target", "label")
    assert result.exit_code == 0, result.output
    assert "lightgbm==4.3.0" in result.stdout
    assert 'pip install "metarec[boosting]"' in result.output  # the hint, on standard error


def test_budget_plan_as_a_table(real_kb):
    """A budget plan has its own expected_loss column: the table must not name two columns so."""
    url, _, files = real_kb
    result = _run("--db", url, "recommend", files["tiny"], "--target", "label", "--budget", "1")
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if "algorithm" in line)
    assert header.count("expected_loss") == 1 and "budget plan" in result.stdout


def test_recommend_shows_one_row_per_algorithm_and_lists_configurations_on_request(
    real_kb, data_file
):
    from tests.cli.conftest import REAL_KB_DATASETS

    url, _, _ = real_kb
    # a configuration of "fast", better than it everywhere at the same time
    runs = [
        {"dataset": name, "algorithm": "fast_c01", "fold": fold,
         "accuracy": results["fast"][0] + 0.05, "time": results["fast"][1]}
        for name, (_, _, results) in REAL_KB_DATASETS.items()
        for fold in range(2)
    ]  # fmt: skip
    kb = KnowledgeBase(url)
    kb.import_runs(pd.DataFrame(runs))
    kb.close()
    args = ["--db", url, "recommend", data_file, "--target", "label", "--format", "json"]
    folded = json.loads(_run(*args).stdout)["results"]
    assert sorted(r["algorithm"] for r in folded) == ["fast", "mid", "slow"]
    by_name = {r["algorithm"]: r for r in folded}
    assert by_name["fast"]["configuration"] == "fast_c01"  # the better one ranks first
    assert by_name["mid"]["configuration"] == "mid"
    assert sorted(r["rank"] for r in folded) == sorted(r["run"] for r in folded) == [1, 2, 3]
    every = json.loads(_run(*args, "--configurations").stdout)["results"]
    assert sorted(r["algorithm"] for r in every) == ["fast", "fast_c01", "mid", "slow"]
    assert "configuration" not in every[0]
    table = _run(*args[:-2], "--format", "table").stdout
    assert "configuration" in table and "fast_c01" in table
