"""Options as people type them: --db/--format on either side, checks before work, status."""

from __future__ import annotations

import json

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import COMMANDS, cli

RUNS = "dataset,algorithm,fold,accuracy,time\niris,knn,0,0.9,1.0\nwine,tree,0,0.7,0.5\n"


def _run(*args, **kwargs):
    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def _every_command(group=cli, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _every_command(command, (*prefix, name))
        else:
            yield (*prefix, name)


def test_every_command_accepts_db_after_its_name_and_help_says_which_wins():
    commands = list(_every_command())
    assert {c[0] for c in commands} == set(COMMANDS)
    assert ("import", "runs") in commands and ("db", "info") in commands
    for command in commands:
        result = _run(*command, "--help")
        assert result.exit_code == 0, (command, result.output)
        text = " ".join(result.output.split())
        assert "--db URL" in text, command
        assert "if both are given, the one after wins" in text, command
    root = " ".join(_run("--help").output.split())
    assert "--db URL" in root and "--format" in root and "the one after wins" in root


def test_import_runs_with_db_after_the_command(tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text(RUNS)
    db = tmp_path / "kb.sqlite"
    result = _run("import", "runs", runs, "--db", f"sqlite:///{db}", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"][0]["added"] == 2
    info = _run("db", "info", "--db", db, "--format", "json")
    assert info.exit_code == 0, info.output
    values = {r["name"]: r["value"] for r in json.loads(info.stdout)["results"]}
    assert values["runs"] == 2 and str(db) in values["url"]


def test_db_after_the_command_wins_over_db_before_and_env(real_kb, tmp_path, monkeypatch):
    url, _, _ = real_kb
    other = tmp_path / "other.sqlite"
    runs = tmp_path / "runs.csv"
    runs.write_text(RUNS)
    assert _run("--db", other, "import", "runs", runs).exit_code == 0
    both = _run("--db", other, "rank", "--all", "--db", url, "--format", "json")
    assert both.exit_code == 0, both.output
    assert sorted(json.loads(both.stdout)["datasets"]) == [
        "large",
        "medium",
        "small",
        "tiny",
        "wide",
    ]
    monkeypatch.setenv("METAREC_DB", url)
    before = _run("--db", other, "rank", "--all", "--format", "json")
    assert sorted(json.loads(before.stdout)["datasets"]) == ["iris", "wine"]  # --db beats env
    env_only = _run("rank", "--all", "--format", "json")
    assert len(json.loads(env_only.stdout)["datasets"]) == 5


def test_format_before_or_after_the_command(real_kb):
    url, _, _ = real_kb
    before = _run("--format", "json", "--db", url, "rank", "--all")
    assert before.exit_code == 0, before.output
    assert json.loads(before.stdout)["n"]
    both = _run("--format", "json", "rank", "--all", "--format", "csv", "--db", url)
    assert both.stdout.splitlines()[0].startswith("algorithm,score,rank")
    default = _run("rank", "--all", "--db", url)
    assert "┃" in default.stdout  # a table


def test_db_info_on_a_fresh_install_describes_the_builtin_kb(tmp_path, monkeypatch):
    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "fresh-home"))
    result = _run("db", "info", "--format", "json")
    assert result.exit_code == 0, result.output
    assert "your KB" in result.stderr.replace("Your KB", "your KB")
    assert "does not exist yet; recommendations use the built-in KB" in result.stderr
    assert (
        "203 classification and 191 regression datasets (138 of them samples of larger ones) × "
        "42 algorithms and 156 configurations (run on 296 datasets and samples of at most 372,864 "
        "rows, covering 256 of the 256 datasets)" in result.stderr
    )
    values = {r["name"]: r["value"] for r in json.loads(result.stdout)["results"]}
    assert values["note"].startswith("Your KB")
    assert values["builtin"] is True and values["used_by_recommend"] is True
    assert values["datasets"] == 394 and values["algorithms"] == 42 + 156
    assert not (tmp_path / "fresh-home" / "kb.sqlite").exists()  # nothing created


def test_db_check_and_export_on_a_fresh_install_read_the_builtin_kb(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "fresh-home"))
    checked = _run("db", "check", "--format", "json")
    assert checked.exit_code == 0, checked.output
    assert "does not exist yet; this is the built-in KB" in checked.stderr
    rows = {r["check"]: r for r in json.loads(checked.stdout)["results"]}
    assert {r["status"] for r in rows.values()} == {"ok"}
    exported = _run("db", "export", str(tmp_path / "out"), "--file-format", "csv")
    assert exported.exit_code == 0, exported.output
    assert "does not exist yet; this is the built-in KB" in exported.stderr
    datasets = pd.read_csv(tmp_path / "out" / "datasets.csv")
    # the check looks at the (empty) database and at the built-in part read from the package
    assert len(datasets) == 394 and rows["rows: datasets"]["detail"] == "0"
    assert rows["built-in part"]["detail"].startswith("394 datasets, 198 algorithms")
    assert not (tmp_path / "fresh-home" / "kb.sqlite").exists()  # nothing created


def test_db_info_of_an_own_kb_with_runs(real_kb, monkeypatch, tmp_path):
    import shutil

    _, path, _ = real_kb
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(path, home / "kb.sqlite")
    monkeypatch.setenv("METAREC_HOME", str(home))
    result = _run("db", "info", "--format", "json")
    assert result.exit_code == 0, result.output
    values = {r["name"]: r["value"] for r in json.loads(result.stdout)["results"]}
    assert values["builtin"] is False and values["datasets"] == 5
    assert "built-in" not in result.stderr


@pytest.mark.parametrize(
    "args, option",
    [
        (["recommend", "X", "--n", "0"], "--n"),
        (["recommend", "X", "--budget", "-5"], "--budget"),
        (["recommend", "X", "--k", "0"], "--k"),
        (["recommend", "X", "--k", "two"], "--k"),
        (["rank", "--all", "--n", "-1"], "--n"),
        (["evaluate", "--k", "0"], "--k"),
        (["evaluate", "--n", "0"], "--n"),
        (["evaluate", "--random", "0"], "--random"),
        (["metafeatures", "X", "--groups", "general,nope"], "--groups"),
    ],
)
def test_options_are_checked_before_any_work(args, option, tmp_path, monkeypatch):
    def no_work(*a, **k):
        raise AssertionError("data loaded or KB opened before the options were checked")

    monkeypatch.setattr("metarec.data.load_dataset", no_work)
    monkeypatch.setattr("metarec._commands._recommend.open_kb", no_work)
    monkeypatch.setattr("metarec._commands._evaluate.open_kb", no_work)
    args = [str(tmp_path / "missing.csv") if a == "X" else a for a in args]
    result = _run(*args)
    assert result.exit_code == 2, result.output
    assert option in result.output


def test_status_is_shown_on_a_terminal_only(monkeypatch):
    import threading

    from rich.status import Status

    from metarec._commands import _output

    assert _output.STATUS_DELAY == 1.0  # by default a step under a second shows nothing
    shown = threading.Event()
    start = Status.start

    def spy(self):
        start(self)
        shown.set()

    monkeypatch.setattr(Status, "start", spy)

    @click.command()
    @click.option("--terminal", is_flag=True)
    def slow(terminal):
        with _output.status("Loading the data", delay=0):
            if terminal:
                shown.wait(30)  # the step lasts until its status is on the screen
        with _output.status("A quick step"):  # shorter than the delay: never shown
            pass
        click.echo("done")

    piped = CliRunner().invoke(slow, [])
    assert piped.stdout == "done\n" and piped.stderr == ""
    assert not shown.is_set()
    monkeypatch.setattr(_output, "_interactive", lambda: True)
    monkeypatch.setattr(_output, "STATUS_DELAY", 60.0)  # the quick step ends long before
    terminal = CliRunner().invoke(slow, ["--terminal"])
    assert shown.is_set() and "Loading the data" in terminal.stderr
    assert "A quick step" not in terminal.stderr
    assert terminal.stdout == "done\n"


def test_table_formats_by_column_name_and_shows_intervals():
    from metarec._commands._output import emit, format_percent, format_seconds

    assert format_seconds(0.02986) == "0.030 s"
    assert format_seconds(0.0042) == "4.2 ms"
    assert format_seconds(12.345) == "12 s"
    assert format_seconds(300) == "5.0 min"
    assert format_seconds(float("nan")) == "-"
    assert format_percent(0.92345) == "92.3 %"
    from metarec._commands._output import _cell_formatter, _significant

    assert _significant(1.11e-16, 3) == "0"  # a rounding error of 0 (a mean regressor's R²)
    assert _significant(0.0001234, 3) == "0.000123" and _significant(-2.5e-7, 3) == "0"
    assert _significant(1234.5, 3) == "1234"
    assert _cell_formatter("time_ratio") is None  # a ratio of times has no unit
    assert _cell_formatter("time_s") is format_seconds
    assert _cell_formatter("expected_roc_auc")(0.98051) == "0.981"  # another success rate
    assert _cell_formatter("expected_loss")(1.04) == "1.0 pts"
    frame = pd.DataFrame(
        {
            "algorithm": ["svc[rbf]"],  # brackets are text, not markup
            "score": [1.07834],
            "expected_accuracy": [0.9234],
            "expected_accuracy_low": [0.901],
            "expected_accuracy_high": [0.9401],
            "expected_time": [0.02986],
            "basis": ["5 neighbours"],
            "distance": [4.8721],
        }
    )
    runner = CliRunner()

    @click.command()
    @click.option("--format", "fmt", default="table")
    def show(fmt):
        emit(frame, fmt)

    table = runner.invoke(show, []).stdout
    assert "92.3 % (90.1–94.0 %)" in table
    assert "svc[rbf]" in table
    assert "expected_accuracy_low" not in table  # folded into the interval
    assert "0.030 s" in table and "1.08" in table and "4.87" in table
    assert "5 neighbours" in table
    doc = json.loads(runner.invoke(show, ["--format", "json"]).stdout)["results"]
    assert doc[0]["expected_accuracy_low"] == 0.901 and doc[0]["expected_time"] == 0.02986
    csv = runner.invoke(show, ["--format", "csv"]).stdout
    assert "0.9234" in csv and "0.02986" in csv


def test_unexpected_errors_exit_2_and_metarec_debug_shows_them(monkeypatch, tmp_path):
    def boom(*args, **kwargs):
        raise RuntimeError("boom at 3")

    monkeypatch.setattr("metarec.data.load_dataset", boom)
    result = _run("recommend", tmp_path / "x.csv")
    assert result.exit_code == 2
    assert "Error: unexpected RuntimeError: boom at 3" in result.output
    assert "METAREC_DEBUG=1" in result.output and "Traceback" not in result.output
    monkeypatch.setenv("METAREC_DEBUG", "1")
    debug = _run("recommend", tmp_path / "x.csv")
    assert isinstance(debug.exception, RuntimeError)  # propagated: python prints the traceback


def test_unexpected_error_traceback_in_a_real_process(tmp_path):
    import os
    import subprocess
    import sys

    code = (
        "import metarec.data\n"
        "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
        "metarec.data.load_dataset = boom\n"
        "from metarec.cli import main\nmain(['recommend', 'x.csv'])\n"
    )
    env = {**os.environ, "METAREC_HOME": str(tmp_path)}
    env.pop("METAREC_DEBUG", None)
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert plain.returncode == 2
    assert plain.stderr.strip() == (
        "Error: unexpected RuntimeError: boom (set METAREC_DEBUG=1 to see the traceback)"
    )
    env["METAREC_DEBUG"] = "1"
    debug = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert (
        debug.returncode == 1
        and "Traceback" in debug.stderr
        and "RuntimeError: boom" in debug.stderr
    )


def test_progress_bar_never_writes_to_stdout(monkeypatch):
    from metarec._commands import _output

    monkeypatch.setattr(_output, "_interactive", lambda: True)

    @click.command()
    def work():
        with _output.progress("Importing", total=3) as advance:
            for _ in range(3):
                advance()
        click.echo("result")

    assert CliRunner().invoke(work, []).stdout == "result\n"


def test_db_on_the_group_level_too(tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text(RUNS)
    db = tmp_path / "kb.sqlite"
    assert _run("import", "--db", db, "runs", runs).exit_code == 0
    info = _run("db", "--db", db, "info", "--format", "json")
    assert info.exit_code == 0, info.output
    assert {r["name"]: r["value"] for r in json.loads(info.stdout)["results"]}["runs"] == 2


def test_a_narrow_terminal_wraps_text_and_never_cuts_names_or_numbers(monkeypatch, capsys):
    """On an 80-column terminal the message wraps over lines; the algorithm names and the
    numbers stay whole (rich would cut them to fit)."""
    import re
    import sys

    import pandas as pd

    from metarec._commands._output import emit

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    frame = pd.DataFrame(
        {
            "algorithm": ["hist_gradient_boosting", "logistic_regression"],
            "cv_score": [0.9123, 0.8765],
            "selection_score": [0.9101, 0.8772],
            "planned": [12, 3],
            "status": ["skipped", "ok"],
            "message": ["expected up to 201 s for 5 folds and 20 s to refit, 4 s left", ""],
        }
    )
    emit(frame, "table")
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    lines = out.splitlines()
    assert any(line.startswith(" hist_gradient_boosting ") for line in lines)
    assert any(line.startswith(" logistic_regression ") for line in lines)
    assert all(v in out for v in ("0.912", "0.876", "0.910", "0.877", "skipped"))
    assert sum("│" in line for line in lines) >= 4  # the message took several lines


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_reader_that_goes_away_ends_the_output_not_the_command(fmt):
    """`metarec ... | head`: what is left of the output goes nowhere; exit code 0 and the
    notes on standard error are kept (rich and click would exit with 1 at once)."""
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "metarec", "recommend", "sklearn:iris", "--format", fmt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdout.close()  # gone before the first line is written
    err = process.stderr.read()
    assert process.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Ranked by the learned performance model" in err
