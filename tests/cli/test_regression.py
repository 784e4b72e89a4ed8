"""Regression through the CLI on a KB that holds both tasks: rankings never mix them.

Regression part (R² clipped at 0, seconds) of ``mixed_kb``: prices ols .60 / forest .80,
doses .70 / .75, yields .90 / .85.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from metarec.cli import cli


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_recommend_ranks_regressors_only_and_names_r2(mixed_kb):
    url, files = mixed_kb
    result = _run("--db", url, "recommend", files["prices"], "--target", "price",
                  "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["task"] == "regression"
    assert {row["algorithm"] for row in doc["results"]} == {"ols", "forest"}
    assert "expected_r2" in doc["results"][0] and "expected_accuracy" not in doc["results"][0]
    assert {nb["name"] for nb in doc["neighbours"]} <= {"prices", "doses", "yields"}
    table = _run("--db", url, "recommend", files["prices"], "--target", "price")
    assert table.exit_code == 0 and "expected_r2" in table.stdout
    assert "predicted R² " in table.stderr and "predicted accuracy" not in table.stderr


def test_classification_ranking_unchanged_by_the_regression_part(mixed_kb, real_kb):
    mixed_url, files = mixed_kb
    args = ("recommend", files["tiny"], "--target", "label", "--format", "json")
    mixed = json.loads(_run("--db", mixed_url, *args).stdout)
    # the same classification KB without any regression dataset
    plain = json.loads(_run("--db", real_kb[0], *args).stdout)
    assert mixed["task"] == plain["task"] == "classification"
    assert [r["algorithm"] for r in mixed["results"]] == [r["algorithm"] for r in plain["results"]]
    assert [r["expected_accuracy"] for r in mixed["results"]] == [
        r["expected_accuracy"] for r in plain["results"]
    ]


def test_rank_takes_the_stored_task_of_the_dataset(mixed_kb):
    url, _ = mixed_kb
    result = _run("--db", url, "rank", "--dataset", "yields", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["task"] == "regression"
    assert [row["algorithm"] for row in doc["results"]][0] == "ols"  # .90 at 0.02 s
    refused = _run("--db", url, "rank", "--dataset", "yields", "--task", "classification")
    assert refused.exit_code == 2
    assert "stored as a regression dataset, not classification" in refused.output
    everything = json.loads(
        _run("--db", url, "rank", "--all", "--task", "regression", "--format", "json").stdout
    )
    assert set(everything["datasets"]) == {"prices", "doses", "yields"}


def test_evaluate_regression_single_best_by_hand(mixed_kb):
    # leave out prices: others' means ols (.70+.90)/2 = .80, forest (.75+.85)/2 = .80: a tie,
    # broken by position (forest before ols, sorted names): forest, loss 0 on prices;
    # leave out doses: ols .75, forest .825 -> forest, loss 0; leave out yields: ols .65,
    # forest .775 -> forest, loss .90 - .85 = 5 points.  Mean top-1 loss 5 / 3 points.
    url, _ = mixed_kb
    result = _run("--db", url, "evaluate", "--task", "regression", "--random", "2",
                  "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["task"] == "regression"
    summary = {row["method"]: row for row in doc["results"]}
    assert summary["metarec"]["n_datasets"] == 3
    assert abs(summary["single best"]["top1_loss"] - 5 / 3) < 1e-6
    classification = json.loads(
        _run("--db", url, "evaluate", "--random", "2", "--format", "json").stdout
    )
    assert {row["n_datasets"] for row in classification["results"]} == {5}


def test_run_chooses_a_regressor_and_saves_it(mixed_kb, tmp_path):
    """The saved model predicts rows it never saw (price = 50 + 10 x0 + noise of sd 1: at
    best R² 100 / 101) far better than the training mean does (R² about 0)."""
    import joblib
    import numpy as np
    import pandas as pd
    from sklearn.metrics import r2_score

    from tests.cli.conftest import regression_frame

    url, files = mixed_kb
    model = tmp_path / "model.joblib"
    result = _run("--db", url, "run", files["doses"], "--target", "price", "--budget", "2m",
                  "--output", model, "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["task"] == "regression"
    from metarec.algorithms import default_portfolio

    regressors = set(default_portfolio(task="regression").names)
    assert doc["best"] in regressors
    assert {row["algorithm"] for row in doc["results"]} <= regressors
    train = pd.read_csv(files["doses"])
    held_out = regression_frame(200, 3, seed=7)  # the same rule, other rows
    truth = held_out.pop("price").to_numpy()
    predicted = joblib.load(model).predict(held_out)
    assert predicted.dtype.kind == "f" and len(predicted) == len(held_out)
    mean = np.full(len(truth), train["price"].mean())
    assert r2_score(truth, predicted) > 0.9 and r2_score(truth, mean) < 0.05
    sidecar = json.loads(model.with_suffix(".json").read_text())
    assert sidecar["task"] == "regression" and sidecar["metric_meaning"] == "R² clipped at 0"


def test_an_exported_knowledge_base_imported_in_order_keeps_its_regression_tasks(
    mixed_kb, tmp_path
):
    url, files = mixed_kb
    out = tmp_path / "export"
    assert _run("--db", url, "db", "export", out, "--file-format", "csv").exit_code == 0
    copy = f"sqlite:///{tmp_path / 'copy.sqlite'}"
    for table in ("datasets", "algorithms", "runs", "metafeatures"):
        result = _run("--db", copy, "import", table, out / f"{table}.csv")
        assert result.exit_code == 0, result.output

    def info(db):
        result = _run("--db", db, "db", "info", "--format", "json")
        return {row["name"]: row["value"] for row in json.loads(result.stdout)["results"]}

    before, after = info(url), info(copy)
    for key in ("datasets", "regression_datasets", "classification_datasets", "runs"):
        assert after[key] == before[key], key
    assert before["regression_datasets"] == 3
    result = _run("--db", copy, "recommend", files["prices"], "--target", "price",
                  "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert {row["algorithm"] for row in json.loads(result.stdout)["results"]} == {"ols", "forest"}
