"""What can be checked is checked while parsing, before any data, KB or metafeature work:
output files (every -o and --backup) and numbers (one type for every float option)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from metarec.cli import cli


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command loads data or opens a knowledge base."""
    import metarec.data
    import metarec.storage

    def refused(*args, **kwargs):
        raise AssertionError("work started before the options were checked")

    monkeypatch.setattr(metarec.data, "load_dataset", refused)
    monkeypatch.setattr(metarec.storage.KnowledgeBase, "__init__", refused)


def _run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["recommend", "x.csv", "-o", "nosuchdir/plot.png"], "folder nosuchdir does not exist"),
        (["recommend", "x.csv", "-o", "{tmp}"], "it is a folder"),
        (["recommend", "x.csv", "-o", "plot.txt"], "must end in .png, .svg, .pdf"),
        (["evaluate", "-o", "nosuchdir/curves.png"], "folder nosuchdir does not exist"),
        (["metric", "surface", "-o", "nosuchdir/s.png"], "folder nosuchdir does not exist"),
        (["db", "upgrade", "--backup", "nosuchdir/copy.sqlite"], "folder nosuchdir does not"),
        (["recommend", "x.csv", "--budget", "nan"], "not a duration: 'nan'"),
        (["recommend", "x.csv", "--budget", "inf"], "not a duration: 'inf'"),
        (["recommend", "x.csv", "--budget", "0s"], "a duration must be positive"),
        (["recommend", "x.csv", "--n", "nan"], "'nan' is not a number"),
        (["evaluate", "--n", "nan"], "'nan' is not a number"),
        (["benchmark", "x.csv", "--timeout", "nan"], "'nan' is not a number"),
        (["benchmark", "x.csv", "--memory-limit", "nan"], "'nan' is not a number"),
        (["benchmark", "x.csv", "--timeout", "-1"], "-1"),
        (["metric", "surface", "--ratio", "nan"], "'nan' is not a number"),
        (["metric", "a3r-vs-arr", "--n", "inf"], "'inf' is not a finite number"),
        (["recommend", "x.csv", "--strategy", "lerned"], "(did you mean 'learned'?)"),
        (["import", "runs", "x.csv", "--on-conflict", "replce"], "(did you mean 'replace'?)"),
        (["benchmark", "x.csv", "--cache-dir", "{tmp}/f.txt/c"], "/f.txt is a file"),
        (["benchmark", "x.csv", "--cache-dir", "/proc/metarec-c"], "no such file or directory"),
        (["db", "export", "{tmp}/f.txt"], "cannot write into {tmp}/f.txt: it is a file"),
        (["benchmark", "x.csv", "--scheduler", "nonsense"], "'nonsense' is not a scheduler"),
        (["run", "x.csv", "--scheduler", "tcp://host"], "'tcp://host' is not a scheduler"),
    ],
)
def test_refused_while_parsing(args, said, tmp_path, no_work):
    (tmp_path / "f.txt").write_text("a file\n")
    before = sorted(tmp_path.rglob("*"))
    result = _run(*[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert said.format(tmp=tmp_path) in result.output
    assert "Traceback" not in result.output
    assert sorted(tmp_path.rglob("*")) == before  # nothing made, nothing left behind


def test_a_folder_to_write_into_is_made_only_by_the_command(tmp_path):
    from metarec._commands._types import OutputFolder

    target = tmp_path / "a" / "b"
    assert OutputFolder().convert(str(target), None, None) == str(target)
    assert not (tmp_path / "a").exists()  # tried, then removed again
    assert OutputFolder().convert(str(tmp_path), None, None) == str(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "localhost:8786", "inproc://x/1/2"]
)
def test_scheduler_addresses_that_are_accepted(address):
    from metarec._commands._types import SchedulerAddress

    assert SchedulerAddress().convert(address, None, None) == address


def test_a_file_operation_the_system_refuses_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "f.txt" / "home"))
    (tmp_path / "f.txt").write_text("a file\n")
    result = _run("db", "upgrade")  # creates the default knowledge base there
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: cannot create the folder")
    assert str(tmp_path / "f.txt") in result.output and result.output.count("\n") == 1
    assert "Traceback" not in result.output and "unexpected" not in result.output


def test_an_unwritable_folder_is_refused(tmp_path, no_work, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access  # root may write anywhere: the permission is what os.access answers
    monkeypatch.setattr(os, "access", lambda p, mode: False if p == folder else real(p, mode))
    result = _run("recommend", "x.csv", "-o", str(folder / "plot.png"))
    assert result.exit_code == 2 and "permission denied" in result.output
