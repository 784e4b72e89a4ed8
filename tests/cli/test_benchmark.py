from __future__ import annotations

import json

from click.testing import CliRunner

from metarec.benchmark import default_portfolio
from metarec.cli import cli


def test_benchmark_command_stores_runs_and_reports(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    data = tmp_path / "toy.csv"
    rows = ["x,y,label"] + [f"{i},{(i * 7) % 5},{int(i % 10 < 5)}" for i in range(60)]
    data.write_text("\n".join(rows) + "\n")
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "--db",
            db,
            "benchmark",
            str(data),
            "--target",
            "label",
            "-a",
            "majority,decision_tree",
            "--protocol",
            "cv5",
            "--cache-dir",
            str(tmp_path / "c"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    values = {r["name"]: r["value"] for r in document["results"]}
    assert values["jobs_run"] == 2 and values["runs_stored"] == 10
    assert document["failures"] == []
    again = runner.invoke(
        cli,
        [
            "--db",
            db,
            "benchmark",
            str(data),
            "--target",
            "label",
            "-a",
            "majority,decision_tree",
            "--protocol",
            "cv5",
            "--cache-dir",
            str(tmp_path / "c"),
            "--format",
            "csv",
        ],
    )
    assert again.exit_code == 0
    assert "jobs_already_stored,2" in again.output


def test_list_shows_the_portfolio():
    result = CliRunner().invoke(cli, ["benchmark", "--list", "x", "--format", "csv"])
    assert result.exit_code == 0
    assert result.output.count("\n") == 1 + len(default_portfolio())  # header + algorithms
    assert "hist_gradient_boosting" in result.output


def test_unknown_algorithm_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            f"sqlite:///{tmp_path / 'k.sqlite'}",
            "benchmark",
            "sklearn:iris",
            "-a",
            "xgb",
        ],
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: unknown algorithm 'xgb'")
    assert "Traceback" not in result.output


def test_missing_file_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'k.sqlite'}", "benchmark", str(tmp_path / "absent.csv")],
    )
    assert result.exit_code == 1
    assert "absent.csv" in result.output and "Traceback" not in result.output
