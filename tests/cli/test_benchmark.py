from __future__ import annotations

import json

from click.testing import CliRunner

from metarec.algorithms import default_portfolio
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
    result = CliRunner().invoke(cli, ["benchmark", "--list", "--format", "csv"])
    assert result.exit_code == 0
    # header + the classifiers and the regressors
    assert result.output.count("\n") == 1 + len(default_portfolio(task="all"))
    assert "hist_gradient_boosting,classification," in result.output
    assert "svr_rbf,regression," in result.output


def test_without_data_is_a_one_line_usage_error():
    result = CliRunner().invoke(cli, ["benchmark"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: Missing argument 'DATA...'. (see 'cli benchmark --help')"
    ]


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
    assert result.exit_code == 2  # a bad DATA argument, refused while parsing
    assert "no such file or folder" in result.output and "absent.csv" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "k.sqlite").exists()


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


def test_a_benchmark_whose_only_dataset_cannot_be_split_adds_nothing(tmp_path, monkeypatch):
    import sys

    for library in ("lightgbm", "xgboost", "catboost"):  # the same note wherever it runs
        monkeypatch.setitem(sys.modules, library, None)
    data = tmp_path / "many.csv"
    rows = ["x,label"] + [f"{i},c{i % 1000}" for i in range(2000)]  # 1000 classes of 2
    data.write_text("\n".join(rows) + "\n")
    db = tmp_path / "kb.sqlite"
    result = CliRunner().invoke(
        cli,
        ["--db", str(db), "benchmark", str(data), "--target", "label", "--protocol", "cv5"],
    )
    assert result.exit_code == 1
    note, *lines = result.output.strip().splitlines()
    assert note.startswith("skipping lightgbm, xgboost, catboost") and "not installed" in note
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


def _toy(path, n=60):
    rows = ["x,y,label"] + [f"{i},{(i * 7) % 5},{int(i % 10 < 5)}" for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def _bench(*args):
    return CliRunner().invoke(
        cli, [*args, "--target", "label", "-a", "majority", "--protocol", "cv5"]
    )


def test_an_empty_default_kb_starts_from_the_built_in_one():
    """Without --db the benchmark stores into the default KB; an empty one builds on the
    built-in KB, so that recommendations do not shrink to the benchmarked data."""
    import tempfile
    from pathlib import Path

    from metarec._config import resolve_db_url
    from metarec.storage import KnowledgeBase

    with tempfile.TemporaryDirectory() as folder:
        result = _bench("benchmark", _toy(Path(folder) / "toy.csv"))
    assert result.exit_code == 0, result.output
    assert "your knowledge base was empty: it builds on the built-in one" in result.output
    kb = KnowledgeBase(resolve_db_url(None))
    assert kb.count("runs") > 38000 and "toy" in set(kb.datasets()["name"])
    assert kb.count("runs", part="own") == 5  # the file holds the benchmark's folds only


def test_a_namesake_from_elsewhere_gets_a_name_of_its_own_a_changed_file_is_refused(tmp_path):
    from metarec.storage import KnowledgeBase

    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    kb = KnowledgeBase(db)
    kb.add_dataset("toy", source="file", source_id="/elsewhere/toy.csv", fingerprint="f" * 64)
    data = _toy(tmp_path / "toy.csv")
    result = _bench("--db", db, "benchmark", data)
    assert result.exit_code == 0, result.output
    stored = KnowledgeBase(db).datasets().set_index("name")
    renamed = next(n for n in stored.index if n.startswith("toy-"))
    assert len(renamed) == 12 and stored.loc["toy", "fingerprint"] == "f" * 64
    said = f"toy: the knowledge base holds another 'toy' (other content): stored as {renamed!r}"
    assert said in result.output
    assert len(KnowledgeBase(db).runs(aggregate=False, datasets=[renamed])) == 5
    # the same file, changed after its runs were stored: refused, nothing stored
    other = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert _bench("--db", other, "benchmark", data).exit_code == 0
    _toy(tmp_path / "toy.csv", n=70)
    before = KnowledgeBase(other).count("runs")
    refused = _bench("--db", other, "benchmark", data)
    assert refused.exit_code != 0
    assert f"holds 'toy' from {data} with other content (the file changed" in refused.output
    assert KnowledgeBase(other).count("runs") == before
