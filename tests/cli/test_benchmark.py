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
    # header + the classifiers and the regressors
    assert result.output.count("\n") == 1 + len(default_portfolio(task="all"))
    assert "hist_gradient_boosting,classification," in result.output
    assert "svr_rbf,regression," in result.output


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
    assert result.output.startswith("Error: --algorithm: unknown algorithm 'xgb'")
    assert "Traceback" not in result.output


def test_missing_file_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'k.sqlite'}", "benchmark", str(tmp_path / "absent.csv")],
    )
    assert result.exit_code == 1
    assert "absent.csv" in result.output and "Traceback" not in result.output


def _kb_counts(path):
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{path}")
    return len(kb.algorithms()), len(kb.datasets()), len(kb.runs(aggregate=False))


def test_zero_jobs_is_refused_before_any_work(tmp_path):
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "kb.sqlite"), "benchmark", "sklearn:iris", "-j", "0"]
    )
    assert result.exit_code == 2
    assert "0 workers cannot run anything" in result.output
    assert "unexpected" not in result.output
    assert not (tmp_path / "kb.sqlite").exists()  # refused before the KB was opened


def test_a_benchmark_whose_only_dataset_cannot_be_split_adds_nothing(tmp_path):
    data = tmp_path / "many.csv"
    rows = ["x,label"] + [f"{i},c{i % 1000}" for i in range(2000)]  # 1000 classes of 2
    data.write_text("\n".join(rows) + "\n")
    db = tmp_path / "kb.sqlite"
    result = CliRunner().invoke(
        cli,
        ["--db", str(db), "benchmark", str(data), "--target", "label", "--protocol", "cv5"],
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: nothing to benchmark")
    assert "'many' skipped" in lines[0] and "unexpected" not in lines[0]
    assert _kb_counts(db) == (0, 0, 0)


def test_csv_prints_counts_as_integers(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            str(tmp_path / "kb.sqlite"),
            "benchmark",
            "sklearn:iris",
            "-a",
            "majority",
            "--protocol",
            "cv5",
            "--cache-dir",
            str(tmp_path / "c"),
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    values = dict(line.split(",") for line in result.output.strip().splitlines()[1:])
    for name in ("datasets", "algorithms", "jobs_run", "runs_stored", "failed_jobs"):
        assert values[name].isdigit(), (name, values[name])
    assert values["runs_stored"] == "5" and values["jobs_run"] == "1"


def test_help_says_what_the_times_mean():
    result = CliRunner().invoke(cli, ["benchmark", "--help"])
    text = " ".join(result.output.split())
    assert "CPU seconds" in text and "fit_wall_time" in text and "per fold" in text
    assert "machine column" in text and "run the same command again" in text
