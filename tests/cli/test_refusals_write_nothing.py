"""A reading command refused a database changes nothing: no byte of the file, no file beside it.

``: > results.csv; metarec --db results.csv rank --all`` once refused the empty file and left
a 4 KB SQLite database in its place (opening it switched it to WAL mode first).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from metarec.cli import cli

OLD_KB = Path(__file__).parents[1] / "storage" / "old_kbs" / "kb-0001.sqlite"

READING_COMMANDS = [
    ["rank", "--all"],
    ["db", "info"],
    ["db", "check"],
    ["db", "export", "{folder}/exported"],
    ["recommend", "sklearn:iris"],
    ["evaluate"],
]


def _empty_data_file(folder: Path) -> tuple[Path, str]:
    path = folder / "results.csv"
    path.write_bytes(b"")
    return path, "results.csv is empty and is not a knowledge base: --db names"


def _empty_database_file(folder: Path) -> tuple[Path, str]:
    path = folder / "kb.sqlite"
    path.write_bytes(b"")
    return path, "is empty: it is not a knowledge base yet"


def _old_revision(folder: Path) -> tuple[Path, str]:
    path = folder / "old.sqlite"
    shutil.copy(OLD_KB, path)
    return path, "upgrade it first with 'metarec db upgrade'"


def _old_revision_in_wal_mode(folder: Path) -> tuple[Path, str]:
    """As a release that set WAL mode leaves its knowledge base (no -wal / -shm beside it
    once closed): a read-only connection would create both."""
    path = folder / "old.sqlite"
    shutil.copy(OLD_KB, path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    conn.close()
    assert sorted(p.name for p in folder.iterdir()) == ["old.sqlite"]
    return path, "upgrade it first with 'metarec db upgrade'"


def _foreign_database(folder: Path) -> tuple[Path, str]:
    path = folder / "shop.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO orders VALUES (1, 9.5)")
    conn.commit()
    conn.close()
    return path, "is not a metarec knowledge base: it holds other tables (orders)"


@pytest.mark.parametrize(
    "make",
    [
        _empty_data_file,
        _empty_database_file,
        _old_revision,
        _old_revision_in_wal_mode,
        _foreign_database,
    ],
)
@pytest.mark.parametrize("command", READING_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_refused_database_keeps_every_byte(make, command, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    path, said = make(folder)
    content = path.read_bytes()
    args = [a.format(folder=tmp_path) for a in command]
    result = CliRunner().invoke(cli, ["--db", str(path), *args])
    assert result.exit_code == 1, result.output
    assert said in result.output
    assert "Traceback" not in result.output and "KnowledgeBase" not in result.output
    assert path.read_bytes() == content
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


def test_a_missing_folder_that_is_a_file_gets_no_hint_that_cannot_work(tmp_path):
    (tmp_path / "results.csv").write_text("a,b\n1,2\n")
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "results.csv" / "kb.sqlite"), "rank", "--all"]
    )
    assert result.exit_code == 1
    assert "results.csv is a file, not a folder" in result.output
    assert "db upgrade" not in result.output


def test_python_callers_get_python_hints(tmp_path):
    from metarec.exceptions import KnowledgeBaseError
    from metarec.storage import KnowledgeBase

    path = tmp_path / "old.sqlite"
    shutil.copy(OLD_KB, path)
    with pytest.raises(KnowledgeBaseError, match=r"KnowledgeBase.open_for_upgrade\(url\)") as err:
        KnowledgeBase(path, create=False)
    assert "metarec db upgrade" in err.value.cli_message
    assert "db upgrade" not in str(err.value)


@pytest.mark.parametrize(
    "command",
    [
        ["benchmark", "{folder}/nofile.csv"],
        ["run", "{folder}/nofile.csv", "--budget", "5"],
        ["import", "runs", "{folder}/nofile.csv"],
    ],
    ids=lambda c: c[0],
)
def test_a_writing_command_refused_before_work_makes_no_database(command, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "kb.sqlite"
    args = [a.format(folder=folder) for a in command]
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code in (1, 2), result.output
    assert "nofile.csv" in result.output and "Traceback" not in result.output
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "command", [["run", "{data}", "--budget", "5"], ["import", "runs", "{data}"]]
)
def test_a_writing_command_does_not_take_over_an_empty_data_file(command, tmp_path):
    from tests.cli.conftest import synthetic_frame

    data = tmp_path / "small.csv"
    synthetic_frame(40, 2, seed=0).to_csv(data, index=False)
    empty = tmp_path / "results.csv"
    empty.write_bytes(b"")
    args = [a.format(data=data) for a in command]
    result = CliRunner().invoke(cli, ["--db", str(empty), *args])
    assert result.exit_code == 1, result.output
    assert "results.csv looks like a data file, not a knowledge base" in result.output
    assert empty.read_bytes() == b""
