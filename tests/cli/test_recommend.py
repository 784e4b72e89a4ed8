"""The recommend and rank commands, on a small knowledge base held in memory."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from tests.recommender._fakes import FrameKB


def _kb() -> FrameKB:
    rows = []
    for name, _n_inst, _maj, accs in [
        ("small", 60, 50.0, {"fast": (0.70, 0.01), "slow": (0.80, 5.0), "mid": (0.75, 0.2)}),
        ("medium", 200, 60.0, {"fast": (0.80, 0.02), "slow": (0.90, 9.0), "mid": (0.85, 0.5)}),
        ("large", 5000, 70.0, {"fast": (0.85, 0.5), "slow": (0.99, 90.0), "mid": (0.70, 3.0)}),
    ]:
        for algorithm, (acc, t) in accs.items():
            rows.append((name, algorithm, acc, t, "ok", 1, 0))
    runs = pd.DataFrame(
        rows,
        columns=["dataset", "algorithm", "accuracy", "fit_time", "status", "n_runs", "n_failed"],
    )
    meta = pd.DataFrame(
        {
            "dataset": ["small", "medium", "large"],
            "n_instances": [60, 200, 5000],
            "log_n_instances": np.log([60, 200, 5000]),
            "n_features": [2, 3, 20],
            "n_classes": [2, 2, 2],
            "majority_class_pct": [50.0, 60.0, 70.0],
        }
    )
    return FrameKB(runs, meta)


@pytest.fixture
def kb(monkeypatch):
    fake = _kb()
    monkeypatch.setattr("metarec._commands._recommend.open_kb", lambda ctx, **kw: fake)
    return fake


@pytest.fixture
def data_file(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    frame["label"] = np.where(frame["a"] > 0, "yes", "no")
    path = tmp_path / "new.csv"
    frame.to_csv(path, index=False)
    return path


def test_recommend_json_lists_ranking_and_neighbours(kb, data_file):
    result = CliRunner().invoke(
        cli, ["recommend", str(data_file), "--target", "label", "--k", "2", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {r["algorithm"] for r in doc["results"]} == {"fast", "slow", "mid"}
    assert [r["rank"] for r in doc["results"]] == [1, 2, 3]
    assert {"score", "expected_accuracy", "expected_time", "n_datasets"} <= set(doc["results"][0])
    # 50 rows, 2 features: the nearest datasets are the small and medium ones
    assert [nb["name"] for nb in doc["neighbours"]] == ["small", "medium"]
    assert doc["params"]["k"] == 2


def test_recommend_table_prints_neighbours(kb, data_file):
    result = CliRunner().invoke(
        cli, ["recommend", str(data_file), "--target", "label", "--k", "all"]
    )
    assert result.exit_code == 0, result.output
    assert "Neighbouring datasets" in result.stdout
    assert "large" in result.stdout


def test_recommend_tried_and_budget(kb, data_file):
    args = ["recommend", str(data_file), "--target", "label", "--format", "csv"]
    result = CliRunner().invoke(cli, [*args, "--tried", "fast=0.7:0.01"])
    assert result.exit_code == 0, result.output
    assert "fast" not in result.stdout.splitlines()[1:][0]
    assert not any(line.startswith("fast,") for line in result.stdout.splitlines())
    result = CliRunner().invoke(cli, [*args, "--budget", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "cumulative_time" in lines[0]
    assert not any(line.startswith("slow,") for line in lines)  # 5-90 s does not fit


@pytest.mark.parametrize("bad", ["fast", "fast=0.7", "fast=x:1", "fast=1.5:1", "=0.5:1"])
def test_recommend_rejects_bad_tried(kb, data_file, bad):
    result = CliRunner().invoke(cli, ["recommend", str(data_file), "--tried", bad])
    assert result.exit_code == 2
    assert "--tried" in result.output


def test_recommend_missing_file_is_an_error(kb, tmp_path):
    result = CliRunner().invoke(cli, ["recommend", str(tmp_path / "nope.csv")])
    assert result.exit_code == 1
    assert "Error" in result.output


def test_rank_dataset_and_all(kb):
    result = CliRunner().invoke(
        cli, ["rank", "--dataset", "large", "--method", "ar", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [r["algorithm"] for r in doc["results"]] == ["slow", "fast", "mid"]
    assert doc["datasets"] == ["large"]
    result = CliRunner().invoke(cli, ["rank", "--all", "--format", "csv"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("algorithm,score,rank")
    result = CliRunner().invoke(cli, ["rank", "--dataset", "nope"])
    assert result.exit_code == 1 and "nope" in result.output
    result = CliRunner().invoke(cli, ["rank", "--dataset", "large", "--all"])
    assert result.exit_code == 2


def test_recommend_shows_the_library_and_the_extra_a_missing_one_needs(kb, data_file, monkeypatch):
    import sys

    runs = kb._runs
    kb._runs = runs.assign(algorithm=runs["algorithm"].replace({"slow": "lightgbm"}))
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # as if the extra were not installed
    result = CliRunner().invoke(
        cli, ["recommend", str(data_file), "--target", "label", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {r["library"] for r in doc["results"]} == {"fake==1.0"}
    assert doc["not_installed"] == {"lightgbm": 'pip install "metarec[boosting]"'}
    result = CliRunner().invoke(cli, ["recommend", str(data_file), "--target", "label"])
    assert result.exit_code == 0, result.output
    assert "library" in result.stdout and "fake==1.0" in result.stdout
    assert (
        'not installed here: lightgbm; to run them: pip install "metarec[boosting]"'
        in result.stderr
    )
