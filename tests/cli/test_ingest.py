# ruff: noqa: F811 - fixtures imported by name are parameters of the tests
"""The ``metarec ingest openml|aslib`` commands, end to end against a replayed OpenML."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from tests.ingest._fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _openml_home,
    make_kb,
    no_retry_sleep,
    openml_config,
    replay,
)
from tests.ingest.test_aslib import QUALITY_DESCRIPTION, QUALITY_FEATURES, QUALITY_RUNS

SECRET = "fedcba9876543210fedcba9876543210"


@pytest.fixture
def db(tmp_path):
    """The real knowledge base the command writes to, in a temporary SQLite file."""
    url = f"sqlite:///{tmp_path / 'cli-kb.sqlite'}"
    return url, make_kb(url), tmp_path / "cli-kb.sqlite"


def _reopen(db):
    return make_kb(db[0])


def _invoke(args, **kwargs):
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kwargs)


def test_ingest_openml_prints_a_summary_and_stores_runs(replay, db):
    url = db[0]
    args = ["--db", url, "ingest", "openml", "--server", replay.url, "--page-size", "2"]
    result = _invoke([*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = {row["name"]: row["value"] for row in json.loads(result.stdout)["results"]}
    assert summary["runs_added"] == 3
    assert summary["runs_without_time"] == 1
    assert summary["pages"] == 2
    assert "1 run(s) have no usercpu_time_millis" in result.stderr
    assert len(_reopen(db).runs(aggregate=False)) == 3

    again = _invoke([*args, "--format", "json"])
    summary = {row["name"]: row["value"] for row in json.loads(again.stdout)["results"]}
    assert (summary["runs_added"], summary["runs_present"]) == (0, 3)


def test_ingest_openml_filters_reach_the_server(replay, db):
    result = _invoke(
        [
            "--db",
            db[0],
            "ingest",
            "openml",
            "--server",
            replay.url,
            "--tasks",
            "1,2",
            "--flows",
            "100",
            "--limit",
            "5",
            "--no-qualities",
        ]
    )
    assert result.exit_code == 0, result.output
    first = replay.paths("evaluation/list/function/predictive_accuracy/")[0]
    assert (
        first == "evaluation/list/function/predictive_accuracy/limit/5/offset/0/task/1,2/flow/100"
    )
    assert not replay.paths("data/")


def test_api_key_is_used_but_never_printed_or_stored(replay, db, monkeypatch):
    monkeypatch.setenv("OPENML_APIKEY", SECRET)
    result = _invoke(
        ["--db", db[0], "ingest", "openml", "--server", replay.url, "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert replay.requests and all(q.get("api_key") == SECRET for _, q in replay.requests)
    assert SECRET not in result.output
    from metarec.storage import KnowledgeBase
    from tests.kb_contents import stored_bytes

    assert KnowledgeBase(db[0]).count("runs") > 0  # the ingest did store runs
    stored = stored_bytes(db[2])  # every table, the WAL included
    assert b"openml:" in stored  # and the dump holds what was ingested
    assert SECRET.encode() not in stored

    replay.route(r"^evaluation/list/", (500, "Internal Server Error"))
    failed = CliRunner().invoke(cli, ["--db", db[0], "ingest", "openml", "--server", replay.url])
    assert failed.exit_code == 1
    assert failed.output.startswith("Error: OpenML server failed on the evaluations")
    assert SECRET not in failed.output


def test_server_answering_no_results_is_zero_runs(replay, db):
    from tests.ingest._replay import fixture

    replay.route(r"^evaluation/list/", (412, fixture("no_results_372.xml")))
    result = _invoke(["--db", db[0], "ingest", "openml", "--server", replay.url, "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "runs_listed,0" in result.stdout


def test_page_size_above_the_server_limit_is_a_usage_error():
    result = CliRunner().invoke(cli, ["ingest", "openml", "--page-size", "10001"])
    assert result.exit_code == 2
    assert "10001" in result.output


def test_bad_task_ids_are_a_usage_error():
    result = CliRunner().invoke(cli, ["ingest", "openml", "--tasks", "1,x"])
    assert result.exit_code == 2
    assert "'x' is not an OpenML task id" in result.output


def test_ingest_aslib_command(tmp_path, db):
    folder = tmp_path / "MINI-WEKA"
    folder.mkdir()
    (folder / "description.txt").write_text(QUALITY_DESCRIPTION)
    (folder / "algorithm_runs.arff").write_text(QUALITY_RUNS)
    (folder / "feature_values.arff").write_text(QUALITY_FEATURES)
    result = _invoke(["--db", db[0], "ingest", "aslib", str(folder), "--format", "json"])
    assert result.exit_code == 0, result.output
    summary = {row["name"]: row["value"] for row in json.loads(result.stdout)["results"]}
    assert (summary["scenario"], summary["runs_added"], summary["datasets"]) == ("MINI-WEKA", 6, 2)
    assert len(_reopen(db).runs(aggregate=False)) == 6


def test_ingest_aslib_on_a_plain_folder_names_the_missing_file(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", "aslib", str(tmp_path)])
    assert result.exit_code == 1
    assert "description.txt is missing" in result.output


@pytest.mark.parametrize("command", [["ingest"], ["ingest", "openml"], ["ingest", "aslib"]])
def test_help_has_an_example(command):
    result = CliRunner().invoke(cli, [*command, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
