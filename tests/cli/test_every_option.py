# ruff: noqa: F811 - fixtures imported by name are parameters of the tests
"""Options that no other test drives, each once, each checked for its effect."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase
from tests.ingest._fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _openml_home,
    make_kb,
    no_retry_sleep,
    openml_config,
    replay,
)
from tests.ingest._replay import fixture


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_db_info_and_export_of_the_builtin_kb(tmp_path):
    info = {row["name"]: row["value"] for row in _json(_run("db", "info", "--builtin",
                                                           "--format", "json"))["results"]}  # fmt: skip
    assert info["builtin"] is True and info["runs"] > 0
    assert info["datasets"] == info["classification_datasets"] + info["regression_datasets"]
    out = tmp_path / "builtin"
    result = _run("db", "export", "--builtin", out, "--file-format", "csv")
    assert result.exit_code == 0, result.output
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == info["runs"]


def test_metric_and_strategy_reach_recommend_rank_and_evaluate(real_kb):
    url, _, files = real_kb
    kb = KnowledgeBase(url)
    # a second metric whose order reverses accuracy's on every dataset
    runs = kb.runs(aggregate=False)
    runs = runs[["dataset", "algorithm", "fold", "accuracy", "fit_time"]]
    runs = runs.rename(columns={"fit_time": "time"}).assign(reverse=1 - runs["accuracy"])
    kb.import_runs(runs, on_conflict="replace")
    kb.close()
    by_accuracy = _json(_run("--db", url, "rank", "--all", "--method", "ar", "--format", "json"))
    by_reverse = _json(_run("--db", url, "rank", "--all", "--method", "ar", "--metric",
                            "reverse", "--format", "json"))  # fmt: skip
    first = [r["algorithm"] for r in by_accuracy["results"]]
    assert [r["algorithm"] for r in by_reverse["results"]] == first[::-1]
    assert by_reverse["metric"] == "reverse"
    # the expected success rate is named for the metric ranked by, in columns and words
    assert {"expected_reverse", "expected_reverse_low"} <= set(by_reverse["results"][0])
    assert "expected_accuracy" not in by_reverse["results"][0]
    doc = _json(_run("--db", url, "recommend", files["tiny"], "--target", "label",
                     "--strategy", "ar*", "--metric", "reverse", "--format", "json"))  # fmt: skip
    assert doc["params"]["strategy"] == "ar*" and doc["params"]["metric"] == "reverse"
    assert doc["method"] == "ar*"
    assert "expected_reverse" in doc["results"][0]
    learned = _json(_run("--db", url, "recommend", files["tiny"], "--target", "label",
                         "--metric", "reverse", "--format", "json"))  # fmt: skip
    assert "predicted reverse " in learned["explanation"]
    evaluated = _json(_run("--db", url, "evaluate", "--method", "a3r", "--strategy", "ar",
                           "--metric", "reverse", "--seed", "3", "--random", "2",
                           "--format", "json"))  # fmt: skip
    assert evaluated["params"]["strategy"] == "a3r" and evaluated["params"]["metric"] == "reverse"
    again = _json(_run("--db", url, "evaluate", "--method", "a3r", "--metric", "reverse",
                       "--seed", "4", "--random", "2", "--format", "json"))  # fmt: skip
    random = {r["method"]: r for r in evaluated["results"]}["random"]
    other = {r["method"]: r for r in again["results"]}["random"]
    figures = ("spearman", "top1_loss", "top3_loss")
    # --seed draws other random orders
    assert [random[f] for f in figures] != [other[f] for f in figures]


def test_import_runs_source_and_protocol_are_recorded(tmp_path):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    path = tmp_path / "runs.csv"
    pd.DataFrame(
        {
            "dataset": ["iris"] * 2,
            "algorithm": ["knn", "tree"],
            "accuracy": [0.9, 0.8],
            "time": [0.1, 0.2],
        }  # fmt: skip
    ).to_csv(path, index=False)
    result = _run("--db", url, "import", "runs", path, "--source", "lab-2024", "--protocol", "cv5")
    assert result.exit_code == 0, result.output
    runs = KnowledgeBase(url).runs(aggregate=False)
    assert set(runs["source"]) == {"lab-2024"} and set(runs["protocol"]) == {"cv5"}


def test_benchmark_portfolio_limits_seed_and_a_directory(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    rows = pd.DataFrame({"a": range(60), "b": [i % 7 for i in range(60)]})
    rows.assign(label=["x", "y"] * 30).to_csv(folder / "toy.csv", index=False)
    portfolio = tmp_path / "mine.json"
    portfolio.write_text(json.dumps({"algorithms": [
        {"name": "knn_3", "estimator": "sklearn.neighbors:KNeighborsClassifier",
         "params": {"n_neighbors": 3}, "scale": True}]}))  # fmt: skip
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = _run("--db", url, "benchmark", folder, "--target", "label", "--portfolio", portfolio,
                  "--algorithm", "knn_3", "--algorithm", "majority", "--protocol", "cv5",
                  "--timeout", "60", "--memory-limit", "4000", "--seed", "7",
                  "--cache-dir", tmp_path / "cache", "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    runs = KnowledgeBase(url).runs(aggregate=False)
    assert set(runs["algorithm"]) == {"knn_3", "majority"} and set(runs["dataset"]) == {"toy"}
    assert set(runs["seed"]) == {7} and (runs["status"] == "ok").all()


def test_ingest_openml_measure_time_measure_suite_and_cache_dir(replay, tmp_path):
    replay.route(
        r"^evaluation/list/function/area_under_roc_curve/.*/task/2$",
        (200, fixture("evaluations_accuracy_page2.xml")),
    )
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    make_kb(url)
    cache = tmp_path / "openml-cache"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "openml", "--server", replay.url,
                                      "--measure", "area_under_roc_curve", "--time-measure",
                                      "none", "--suite", "99", "--cache-dir", str(cache),
                                      "--format", "json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "study/99" in replay.paths()
    pages = [p for p in replay.paths() if p.startswith("evaluation/list/")]
    assert pages and all("area_under_roc_curve" in p and p.endswith("/task/2") for p in pages)
    assert not any("usercpu_time_millis" in p for p in replay.paths())  # --time-measure none
    assert any(cache.rglob("*.xml"))  # openml's cache went where it was told
    runs = KnowledgeBase(url).runs(aggregate=False)
    assert list(runs["dataset"]) == ["openml:20"] and runs["fit_time"].isna().all()
