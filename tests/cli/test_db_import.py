"""``metarec import`` and ``metarec db`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import SCHEMA_REVISION, KnowledgeBase

RUNS = (
    "dataset,algorithm,fold,accuracy,time,roc_auc\n"
    "iris,knn,0,0.9,1.0,0.95\n"
    "iris,knn,1,0.8,3.0,0.85\n"
    "wine,tree,0,0.7,0.5,\n"
)


def _invoke(db, *args):
    runner = CliRunner()
    return runner.invoke(cli, ["--db", db, *args])


def test_import_runs_then_again_adds_nothing(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    path = tmp_path / "runs.csv"
    path.write_text(RUNS)
    first = _invoke(db, "import", "runs", str(path), "--format", "json")
    assert first.exit_code == 0, first.output
    row = json.loads(first.output)["results"][0]
    assert (row["added"], row["present"], row["rejected"]) == (3, 0, 0)
    again = _invoke(db, "import", "runs", str(path), "--format", "json")
    assert json.loads(again.output)["results"][0]["present"] == 3


def test_bad_row_is_one_error_line_naming_file_line_and_column(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    good = tmp_path / "good.csv"
    good.write_text(RUNS)
    assert _invoke(db, "import", "runs", str(good)).exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(RUNS.replace("wine,tree,0,0.7", "wine,tree,0,abc").replace("iris", "rose"))
    result = _invoke(db, "import", "runs", str(bad))
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "Traceback" not in result.output
    assert "bad.csv, line 4, column 'accuracy': 'abc' is not a number" in result.output
    assert KnowledgeBase(db).count("runs") == 3  # nothing of bad.csv


def test_skip_invalid_reports_the_rejected_rows(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    bad = tmp_path / "bad.tsv"
    bad.write_text(RUNS.replace(",", "\t").replace("0.7\t", "1.7\t"))
    result = _invoke(db, "import", "runs", str(bad), "--skip-invalid", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "rejected: " in result.output and "line 4" in result.output
    assert "2,0,0,1" in result.output  # added, present, updated, rejected


def test_import_metafeatures_and_db_info_and_export(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    runs = tmp_path / "runs.csv"
    runs.write_text(RUNS)
    mf = tmp_path / "mf.csv"
    mf.write_text("dataset,NumberOfInstances,snr\niris,150,2.5\nwine,178,\n")
    assert _invoke(db, "import", "runs", str(runs)).exit_code == 0
    result = _invoke(db, "import", "metafeatures", str(mf), "--format", "json")
    added = json.loads(result.output)["results"][0]["added"]
    stored = KnowledgeBase(db).metafeatures().set_index("dataset")
    assert stored.loc["wine", "n_instances"] == 178 and stored.loc["iris", "snr"] == 2.5
    assert added == stored.notna().sum().sum()  # derived names (log sizes) count too
    info = _invoke(db, "db", "info", "--format", "json")
    values = {r["name"]: r["value"] for r in json.loads(info.output)["results"]}
    assert (values["runs"], values["datasets"], values["metafeatures"]) == (3, 2, added)
    assert values["revision"] == SCHEMA_REVISION == "0007"
    out = tmp_path / "export"
    assert _invoke(db, "db", "export", str(out), "--file-format", "csv").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "algorithms.csv", "datasets.csv", "metafeatures.csv", "runs.csv",
    ]  # fmt: skip
    other = f"sqlite:///{tmp_path / 'copy.sqlite'}"
    assert _invoke(other, "import", "runs", str(out / "runs.csv")).exit_code == 0
    assert KnowledgeBase(other).runs().equals(KnowledgeBase(db).runs())


def test_db_info_hides_the_password():
    """Whether the server cannot be reached or its driver is not installed, the error
    names the URL without its password."""
    result = _invoke("postgresql+psycopg://me:s3cret@127.0.0.1:1/kb", "db", "info")
    assert result.exit_code == 1 and "s3cret" not in result.output
    assert "postgresql+psycopg://me:***@127.0.0.1:1/kb" in result.output


def test_db_info_reports_unreachable_servers():
    pytest.importorskip(
        "psycopg", reason="the PostgreSQL driver is not installed: pip install 'metarec[postgres]'"
    )
    result = _invoke("postgresql+psycopg://me:s3cret@127.0.0.1:1/kb", "db", "info")
    assert result.exit_code == 1 and result.output.startswith("Error: cannot open")


def test_not_a_kb_file_is_one_error_line(tmp_path):
    path = tmp_path / "x.sqlite"
    path.write_text("hello")
    result = _invoke(f"sqlite:///{path}", "db", "info")
    assert result.exit_code == 1 and "not a metarec knowledge base" in result.output


def test_db_upgrade_creates_the_schema(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = _invoke(db, "db", "upgrade")
    assert result.exit_code == 0 and f"revision {SCHEMA_REVISION}" in result.output


def test_console_script_version_and_missing_file(tmp_path):
    version = subprocess.run(
        [sys.executable, "-m", "metarec.cli", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and "metarec" in version.stdout
    result = _invoke(f"sqlite:///{tmp_path / 'kb.sqlite'}", "import", "runs", "nope.csv")
    # a missing input file is a problem with the input (1), as for a dataset file
    assert result.exit_code == 1 and "Error: file not found: nope.csv" in result.output
    assert not (tmp_path / "kb.sqlite").exists()  # refused before the database is made
    folder = _invoke(f"sqlite:///{tmp_path / 'kb.sqlite'}", "import", "metafeatures", ".")
    assert folder.exit_code == 1 and "Error: . is a folder; give a file" in folder.output
    assert not (tmp_path / "kb.sqlite").exists()


def test_a_rejected_import_names_the_option_and_python_the_parameter(tmp_path):
    from metarec.exceptions import ImportRejectedError
    from metarec.storage import KnowledgeBase

    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,algorithm,accuracy,time\niris,knn,1.5,0.1\n")
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "import", "runs", str(bad)])
    assert result.exit_code == 1
    assert "use --skip-invalid to import the valid rows" in result.output
    assert "skip_invalid" not in result.output
    with pytest.raises(ImportRejectedError, match="pass skip_invalid=True to import"):
        KnowledgeBase(url).import_runs(bad)


def test_an_interrupted_upgrade_names_the_copy_it_may_have_written(tmp_path, monkeypatch):
    import shutil
    from pathlib import Path

    old = Path(__file__).parents[1] / "storage" / "old_kbs" / "kb-0001.sqlite"
    path = tmp_path / "kb.sqlite"
    shutil.copy(old, path)
    before = path.read_bytes()

    def interrupted(*args, **kwargs):  # after its copy, before any migration
        (tmp_path / "kb.backup-rev0001.sqlite").write_bytes(before)
        raise KeyboardInterrupt

    monkeypatch.setattr(KnowledgeBase, "open_for_upgrade", interrupted)
    result = _invoke(f"sqlite:///{path}", "db", "upgrade")
    assert result.exit_code == 130, result.output
    assert (
        "interrupted: nothing was migrated; the knowledge base is unchanged (its copy "
        f"{tmp_path / 'kb.backup-rev0001.sqlite'} may be written already" in result.output
    )
    assert path.read_bytes() == before
