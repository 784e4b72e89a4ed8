"""recommend, rank, evaluate and metafeatures against a real SQLite knowledge base.

The knowledge base comes from ``tests/cli/conftest.py`` (synthetic datasets, hand-chosen
accuracies and times); nothing is faked between the command line and the database.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_recommend_on_a_stored_dataset_finds_it_and_ranks_its_results(real_kb):
    url, _, files = real_kb
    result = _run(
        "recommend", files["medium"], "--k", "1", "--method", "ar", "--format", "json", "--db", url
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    # the same file as the stored 'medium' dataset: its own neighbour, at distance 0
    assert [(nb["name"], nb["distance"]) for nb in doc["neighbours"]] == [("medium", 0.0)]
    rows = {r["algorithm"]: r for r in doc["results"]}
    # AR ranks by accuracy: slow 0.90 > mid 0.85 > fast 0.80 (means of two folds +-0.01)
    assert [r["algorithm"] for r in doc["results"]] == ["slow", "mid", "fast"]
    assert rows["slow"]["expected_accuracy"] == pytest.approx(0.90)
    # expected times are the runtime model's (scaled to the dataset's size), with intervals;
    # they keep the stored order slow 9 s > mid 0.5 s > fast 0.02 s
    times = [rows[a]["expected_time"] for a in ("slow", "mid", "fast")]
    assert times[0] > times[1] > times[2] > 0
    for r in doc["results"]:
        assert r["expected_time_low"] <= r["expected_time"] <= r["expected_time_high"]


def test_recommend_table_shows_units_and_honest_precision(real_kb):
    url, _, files = real_kb
    result = _run("--db", url, "recommend", files["medium"], "--k", "1", "--method", "ar")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "90.0 %" in out and "85.0 %" in out and "80.0 %" in out
    assert re.search(r"\d s \(", out) and re.search(r"\d ms|0\.0\d+ s", out)  # units
    assert "0.9000" not in out and "0.02" + "000" not in out  # no 4-5 digit floats
    assert "Neighbouring datasets" in out


def test_recommend_csv_and_json_keep_full_precision(real_kb):
    url, _, files = real_kb
    result = _run("recommend", files["wide"], "--k", "2", "--format", "csv", "--db", url)
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(pd.io.common.StringIO(result.stdout))
    assert "%" not in result.stdout and " s," not in result.stdout
    assert frame["expected_accuracy"].between(0, 1).all()
    assert frame["score"].map(lambda v: len(repr(v)) > 6).any()  # not rounded to 3 digits


def test_recommend_plot_file(real_kb, tmp_path):
    url, _, files = real_kb
    out = tmp_path / "plot.png"
    result = _run("recommend", files["small"], "-o", out, "--db", url, "--format", "json")
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 10_000
    bad = _run("recommend", files["small"], "-o", tmp_path / "plot.txt", "--db", url)
    assert bad.exit_code == 2 and ".png" in bad.output


def test_rank_dataset_by_accuracy(real_kb):
    url, _, _ = real_kb
    result = _run("--db", url, "rank", "--dataset", "wide", "--method", "ar", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    # on 'wide' mid (0.88) beats slow (0.86) beats fast (0.60)
    assert [r["algorithm"] for r in doc["results"]] == ["mid", "slow", "fast"]
    assert doc["datasets"] == ["wide"]
    # stored results have no interval: no _low/_high columns, no "(80 % interval)" header
    assert not any(k.endswith(("_low", "_high")) for k in doc["results"][0])
    table = _run("--db", url, "rank", "--dataset", "wide", "--method", "ar")
    assert "interval" not in table.stdout and "88.0 %" in table.stdout


def test_rank_all_covers_every_stored_dataset(real_kb):
    url, _, _ = real_kb
    result = _run("rank", "--all", "--format", "json", "--db", url)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert sorted(doc["datasets"]) == ["large", "medium", "small", "tiny", "wide"]
    assert sorted(r["algorithm"] for r in doc["results"]) == ["fast", "mid", "slow"]


def test_evaluate_leave_one_dataset_out(real_kb):
    url, _, _ = real_kb
    args = ["evaluate", "--k", "2", "--n", "32", "--weights", "none", "--distance", "l1-range"]
    result = _run(*args, "--no-normalize", "--random", "2", "--format", "json", "--db", url)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    summary = {r["method"]: r for r in doc["results"]}
    assert summary["metarec"]["n_datasets"] == 5
    # slow has the best mean accuracy over any four datasets, so the single best is slow on
    # every held-out dataset; it loses only on wide (mid .88 vs slow .86): 2 points / 5
    assert summary["single best"]["top1_loss"] == pytest.approx(0.4)
    assert summary["single best"]["top3_loss"] == 0


def test_metafeatures_save_writes_the_dataset_and_values(real_kb, tmp_path):
    from tests.cli.conftest import synthetic_frame

    url, path, _ = real_kb
    data = tmp_path / "fresh.csv"
    synthetic_frame(70, 3, seed=42).to_csv(data, index=False)
    result = _run(
        "metafeatures",
        data,
        "--groups",
        "general,imbalance",
        "--save",
        "--format",
        "json",
        "--db",
        url,
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["task"] == "binary"
    printed = {r["name"]: r["value"] for r in doc["results"]}
    assert printed["n_instances"] == 70 and printed["n_features"] == 3
    kb = KnowledgeBase(url)
    row = kb.datasets().set_index("name").loc["fresh"]
    assert (row["n_instances"], row["n_features"], row["task"]) == (70, 3, "binary")
    stored = kb.metafeatures(datasets=["fresh"]).set_index("dataset").loc["fresh"]
    for name, value in printed.items():
        if value is not None:
            assert stored[name] == pytest.approx(value), name
    kb.close()


def test_metafeatures_save_never_overwrites_another_dataset(real_kb, tmp_path):
    """A name the KB holds with other content and runs: saved beside it, not over it.

    Imported runs carry no fingerprint: the first save of the dataset's own file under its
    name fills in its metafeatures and fingerprint; other content is then kept apart."""
    from tests.cli.conftest import synthetic_frame

    url, _, files = real_kb
    first = _run("metafeatures", files["small"], "--name", "small", "--groups", "general",
                 "--save", "--db", url)  # fmt: skip
    assert first.exit_code == 0 and "stored as" not in first.stderr, first.output
    kb = KnowledgeBase(url)
    before = kb.datasets().set_index("name").loc["small"]
    runs_before = len(kb.runs(datasets=["small"]))
    kb.close()
    data = tmp_path / "other.csv"
    synthetic_frame(55, 2, seed=7).to_csv(data, index=False)
    result = _run("metafeatures", data, "--name", "small", "--groups", "general", "--save",
                  "--db", url)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "holds another 'small' (other content): stored as 'small-" in result.stderr
    kb = KnowledgeBase(url)
    stored = kb.datasets().set_index("name")
    assert stored.loc["small", "fingerprint"] == before["fingerprint"]
    assert stored.loc["small", "n_instances"] == before["n_instances"]
    assert len(kb.runs(datasets=["small"])) == runs_before
    renamed = [n for n in stored.index if n.startswith("small-")]
    assert len(renamed) == 1 and stored.loc[renamed[0], "n_instances"] == 55
    kb.close()


def test_metafeatures_of_a_continuous_target_say_regression(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=60), "y": rng.normal(size=60)})
    data = tmp_path / "reg.csv"
    frame.to_csv(data, index=False)
    result = _run("metafeatures", data, "--groups", "general", "--format", "json")
    assert result.exit_code == 0, result.output
    assert "task regression" in result.stderr
    assert json.loads(result.stdout)["task"] == "regression"


def _continuous(tmp_path, n=60, integers=False):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 30, size=n) if integers else rng.normal(size=n)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "y": y})
    path = tmp_path / "cont.csv"
    frame.to_csv(path, index=False)
    return path, int(pd.Series(y).nunique())


def test_recommend_explains_a_continuous_target_on_a_classification_kb(real_kb, tmp_path):
    url, _, _ = real_kb
    data, n_distinct = _continuous(tmp_path)
    result = _run("recommend", data, "--db", url)
    assert result.exit_code == 1, result.output
    assert f"{n_distinct} distinct values among 60 rows" in result.output
    assert "holds no regression results" in result.output and "--as-classes" in result.output


def test_recommend_as_classes_takes_integer_codes_as_labels(real_kb, tmp_path):
    url, _, _ = real_kb
    data, n_distinct = _continuous(tmp_path, integers=True)
    refused = _run("recommend", data, "--db", url)
    assert refused.exit_code == 1
    assert f"{n_distinct} distinct integer values" in refused.output
    result = _run("recommend", data, "--as-classes", "--db", url, "--format", "json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["results"]) == 3
    # --task classification says the same: the codes are labels
    told = _run("recommend", data, "--task", "classification", "--db", url, "--format", "json")
    assert told.exit_code == 0, told.output
    assert json.loads(told.stdout)["results"] == json.loads(result.stdout)["results"]
    # forced, and said: without --task it would be a regression
    assert (
        f"the target has {n_distinct} distinct values among 60 rows: taken as that many "
        "classes, as --task classification says" in told.stderr
    )
    assert "taken as that many classes" not in result.stderr  # --as-classes asks for it


def test_rank_of_a_regression_dataset_uses_regression_results_only(real_kb):
    url, _, _ = real_kb
    kb = KnowledgeBase(url)
    kb.add_dataset("house_prices", source="file", task="regression", n_instances=50, n_features=3)
    kb.close()
    result = _run("rank", "--dataset", "house_prices", "--db", url)
    assert result.exit_code == 1, result.output
    assert result.output == "Error: the knowledge base has no runs of regression datasets\n"


def test_evaluate_never_mixes_a_regression_dataset_into_classification(real_kb):
    url, _, _ = real_kb
    kb = KnowledgeBase(url)
    runs = pd.DataFrame(
        {"dataset": ["house_prices"], "algorithm": ["fast"], "accuracy": [0.5], "time": [1.0]}
    )
    kb.import_runs(runs)
    kb.add_dataset("house_prices", source="file", task="regression", n_instances=50, n_features=3)
    kb.close()
    result = _run("evaluate", "--k", "2", "--random", "1", "--db", url, "--format", "json")
    assert result.exit_code == 0, result.output
    assert {row["n_datasets"] for row in json.loads(result.stdout)["results"]} == {5}
    regression = _run("evaluate", "--task", "regression", "--random", "1", "--db", url)
    assert regression.exit_code == 1, regression.output
    assert "no dataset has results of two or more algorithms" in regression.output
