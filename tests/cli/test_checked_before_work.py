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
    ],
)
def test_refused_while_parsing(args, said, tmp_path, no_work):
    result = _run(*[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_an_unwritable_folder_is_refused(tmp_path, no_work, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access  # root may write anywhere: the permission is what os.access answers
    monkeypatch.setattr(os, "access", lambda p, mode: False if p == folder else real(p, mode))
    result = _run("recommend", "x.csv", "-o", str(folder / "plot.png"))
    assert result.exit_code == 2 and "permission denied" in result.output
