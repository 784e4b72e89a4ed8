"""Upgrading knowledge bases written by earlier metarec releases: every row kept, or nothing.

The fixtures in ``old_kbs/`` were written by the releases that made each past schema revision
(see its README); each holds rows in every table.  They are upgraded through the real CLI, on
SQLite and (rows copied into a PostgreSQL database built at the same revision by the shipped
scripts) on PostgreSQL, and every row and value is compared.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.exceptions import KnowledgeBaseError
from metarec.storage import KnowledgeBase, open_builtin
from metarec.storage import _migrate as migrate
from metarec.storage._models import ALL_TABLES

OLD_KBS = Path(__file__).parent / "old_kbs"
REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006")
#: A run's name as revisions before 0006 stored it: the machine after " | " in source_run_id.
JOINED_RUN_ID = (
    "CASE WHEN machine IS NULL THEN source_run_id ELSE source_run_id || ' | ' || machine END"
)
#: Table -> the columns compared (every column; a run's key changes form between revisions).
COLUMNS = {
    "datasets": "id, name, source, source_id, task, n_instances, n_features, fingerprint",
    "algorithms": "id, name, family, library, parameters",
    "metafeatures": "id, dataset_id, name, value",
    "runs": "id, dataset_id, algorithm_id, protocol, seed, fold, status, accuracy, fit_time, "
    "predict_time, source, {run_id}, error",
    "run_metrics": "run_id, metric, value",
}
#: Rows each fixture holds (5 knn folds and 5 imported runs, 45 + 8 metric values...).
EXPECTED_ROWS = {
    "datasets": 4,
    "algorithms": 4,
    "metafeatures": 113,
    "runs": 10,
    "run_metrics": 53,
}


def _rows(connect, *, machine_column: bool) -> dict[str, list[tuple]]:
    """Every row of every kept table, sorted, read through a DBAPI-style ``execute``; a run's
    ``source_run_id`` as revisions before 0006 stored it (its machine joined)."""
    run_id = JOINED_RUN_ID if machine_column else "source_run_id"
    return {
        table: sorted(
            (tuple(row) for row in connect(f"SELECT {columns} FROM {table}".format(run_id=run_id))),
            key=repr,
        )
        for table, columns in COLUMNS.items()
    }


def _sqlite_rows(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
        return _rows(lambda sql: conn.execute(sql).fetchall(), machine_column="machine" in columns)
    finally:
        conn.close()


def _benchmark_runs(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT source_run_id, machine FROM runs WHERE source = 'benchmark' ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def _copy_fixture(revision: str, folder: Path) -> Path:
    target = folder / "kb.sqlite"
    shutil.copy(OLD_KBS / f"kb-{revision}.sqlite", target)
    return target


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_every_fixture_is_at_its_revision_with_rows_in_every_table():
    for revision in REVISIONS:
        conn = sqlite3.connect(OLD_KBS / f"kb-{revision}.sqlite")
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(revision,)]
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COLUMNS}
        named = conn.execute("SELECT count(*) FROM runs WHERE source_run_id IS NOT NULL")
        assert named.fetchone()[0] == 7  # 5 benchmark folds, 2 imported named runs
        conn.close()
        assert counts == EXPECTED_ROWS, revision


@pytest.mark.parametrize("revision", REVISIONS)
def test_db_upgrade_keeps_every_row_and_value_and_writes_a_copy_first(revision, tmp_path):
    path = _copy_fixture(revision, tmp_path)
    before = _sqlite_rows(path)
    result = _cli("--db", str(path), "db", "upgrade")
    assert result.exit_code == 0, result.output
    backup = tmp_path / f"kb.backup-rev{revision}.sqlite"
    assert f"to {backup}." in result.output
    assert f"from schema revision {revision} to {migrate.HEAD}; every row kept" in result.output
    assert _sqlite_rows(path) == before
    # the machine of a benchmark run in its own column, the fold's id alone in source_run_id
    # (revision 0001 stored no machine)
    folds = [f"sklearn:iris/knn/cv5/0/{fold}" for fold in range(5)]
    machines = {machine for _, machine in _benchmark_runs(path)}
    assert [run_id for run_id, _ in _benchmark_runs(path)] == folds
    if revision == "0001":
        assert machines == {None}
    else:
        assert len(machines) == 1 and " cores; " in machines.pop()
    # the copy is the knowledge base as it was: same revision, same rows
    assert _sqlite_rows(backup) == before
    copy = sqlite3.connect(backup)
    assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == (revision,)
    copy.close()
    # the upgraded KB knows its runs: importing the same file again and re-running the same
    # benchmark add nothing, and every check passes
    again = _cli("--db", str(path), "import", "runs", str(OLD_KBS / "named_runs.csv"))
    assert again.exit_code == 0, again.output
    kb = KnowledgeBase(path)
    assert kb.count("runs") == EXPECTED_ROWS["runs"]
    assert kb.count("run_metrics") == EXPECTED_ROWS["run_metrics"]
    kb.close()
    checked = _cli("--db", str(path), "db", "check")
    assert checked.exit_code == 0, checked.output


def _user_runs(path: Path) -> list[tuple]:
    """The runs of the user's datasets (not the three built-in ones), by content."""
    conn = sqlite3.connect(path)
    try:
        return sorted(
            conn.execute(
                "SELECT d.name, a.name, r.protocol, r.seed, r.fold, r.status, r.accuracy, r.fit_time, "
                "r.predict_time, r.source, r.source_run_id, r.machine FROM runs r "
                "JOIN datasets d ON d.id = r.dataset_id JOIN algorithms a ON a.id = r.algorithm_id "
                "WHERE d.name IN ('sklearn:iris', 'iris', 'wine')"
            ).fetchall(),
            key=repr,
        )
    finally:
        conn.close()


def test_upgrade_removes_the_built_in_copy_and_keeps_every_user_row(tmp_path):
    """A knowledge base the last copying release's ``run`` created: the built-in rows it
    copied (three datasets here) leave the file, the user's rows stay, and every read sees
    the same runs as before, each once, the built-in ones read from the package."""
    path = tmp_path / "kb.sqlite"
    shutil.copy(OLD_KBS / "kb-0006-seeded.sqlite", path)
    user_before = _user_runs(path)
    assert len(user_before) == EXPECTED_ROWS["runs"]
    conn = sqlite3.connect(path)
    copied = conn.execute("SELECT count(*) FROM runs").fetchone()[0] - len(user_before)
    conn.close()
    assert copied == 3 * 23 * 10  # three datasets, the classifiers, ten folds
    result = _cli("--db", str(path), "db", "upgrade")
    assert result.exit_code == 0, result.output
    assert f"({copied:,} runs, 3 datasets, 38 algorithms)" in result.output
    assert _user_runs(path) == user_before
    kb = KnowledgeBase(path)
    assert kb.builds_on == "builtin"
    assert kb.count("runs", part="own") == EXPECTED_ROWS["runs"]
    # the user's "iris" (imported runs, no fingerprint) hides every run of the built-in iris:
    # the classifiers' 230 folds that were copied, and the configurations' folds beside them
    builtin = open_builtin()
    hidden = len(builtin.runs(aggregate=False, datasets=["iris"]))
    assert hidden > 23 * 10
    assert kb.count("runs") == kb.count("runs", part="builtin") - hidden + EXPECTED_ROWS["runs"]
    # the copied datasets' runs are the built-in ones, once
    runs = kb.runs(aggregate=False, datasets=["irish"])
    assert len(runs) == len(builtin.runs(aggregate=False, datasets=["irish"]))
    assert set(runs["origin"]) == {"builtin"} and (runs["protocol"] == "cv10").sum() == 23 * 10
    # the user's knn folds of iris and named runs are read back as stored
    mine = kb.runs(aggregate=False, datasets=["sklearn:iris", "iris", "wine"])
    assert len(mine) == EXPECTED_ROWS["runs"] and set(mine["origin"]) == {"user"}
    kb.close()
    assert _cli("--db", str(path), "db", "check").exit_code == 0
    # a second upgrade finds nothing more to remove
    again = _cli("--db", str(path), "db", "upgrade")
    assert again.exit_code == 0 and "Removed" not in again.output
    assert _user_runs(path) == user_before


def test_upgrade_of_a_knowledge_base_without_a_copy_leaves_it_alone(tmp_path):
    path = _copy_fixture("0006", tmp_path)
    before = _sqlite_rows(path)
    assert _cli("--db", str(path), "db", "upgrade").exit_code == 0
    assert _sqlite_rows(path) == before
    assert KnowledgeBase(path).builds_on is None


def test_benchmark_after_upgrade_finds_its_folds_stored(tmp_path):
    path = _copy_fixture("0001", tmp_path)
    assert _cli("--db", str(path), "db", "upgrade").exit_code == 0
    result = _cli(
        "--db", str(path), "--format", "json", "benchmark", "sklearn:iris", "-a", "knn",
        "--protocol", "cv5", "--seed", "0",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = {row["name"]: row["value"] for row in json.loads(result.output)["results"]}
    assert summary["runs_stored"] == 0 and summary["failed_jobs"] == 0
    assert (
        _sqlite_rows(path)["run_metrics"] == _sqlite_rows(OLD_KBS / "kb-0001.sqlite")["run_metrics"]
    )


def test_backup_goes_where_asked_and_never_over_an_earlier_copy(tmp_path):
    path = _copy_fixture("0002", tmp_path)
    (tmp_path / "kb.backup-rev0002.sqlite").write_bytes(b"an earlier copy")
    assert migrate.default_backup_path(path, "0002").name == "kb.backup-rev0002-2.sqlite"
    chosen = tmp_path / "copies" / "before.sqlite"
    missing = _cli("--db", str(path), "db", "upgrade", "--backup", str(chosen))
    assert missing.exit_code != 0
    assert "before.sqlite" in missing.output and "Traceback" not in missing.output
    assert KnowledgeBase.revision_of(path) == "0002"  # refused before migrating
    chosen.parent.mkdir()
    result = _cli("--db", str(path), "db", "upgrade", "--backup", str(chosen))
    assert result.exit_code == 0, result.output
    assert str(chosen) in result.output
    assert (tmp_path / "kb.backup-rev0002.sqlite").read_bytes() == b"an earlier copy"
    assert _sqlite_rows(chosen) == _sqlite_rows(OLD_KBS / "kb-0002.sqlite")


def test_no_backup_migrates_without_a_copy(tmp_path):
    path = _copy_fixture("0003", tmp_path)
    result = _cli("--db", str(path), "db", "upgrade", "--no-backup")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == ["kb.sqlite"]
    assert KnowledgeBase.revision_of(path) == migrate.HEAD


def _real_scripts(conn) -> None:
    from alembic import command

    command.upgrade(migrate._config(conn), "head")


def _lose_rows(conn) -> None:
    _real_scripts(conn)
    conn.exec_driver_sql("DELETE FROM run_metrics WHERE metric = 'f1_macro'")


def _orphan_a_row(conn) -> None:
    _real_scripts(conn)
    conn.exec_driver_sql(
        "UPDATE run_metrics SET run_id = 999 WHERE metric = 'kappa' AND run_id = 6"
    )


@pytest.mark.parametrize(
    ("breaking", "said"),
    [(_lose_rows, "run_metrics 53 -> 49 rows"), (_orphan_a_row, "refer to missing rows")],
)
def test_a_migration_that_loses_or_orphans_rows_is_rolled_back(
    breaking, said, tmp_path, monkeypatch
):
    """The guard itself: a (broken) migration step is refused and leaves every row."""
    path = _copy_fixture("0001", tmp_path)
    before = _sqlite_rows(path)
    monkeypatch.setattr(migrate, "run_scripts", breaking)
    with pytest.raises(KnowledgeBaseError, match=said):
        KnowledgeBase.open_for_upgrade(path, backup=False)
    assert _sqlite_rows(path) == before
    assert KnowledgeBase.revision_of(path) == "0001"


def test_foreign_keys_are_enforced_again_after_an_upgrade(tmp_path):
    path = _copy_fixture("0001", tmp_path)
    kb = KnowledgeBase.open_for_upgrade(path, backup=False)
    with kb.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    kb.close()


@pytest.mark.postgres
@pytest.mark.parametrize("revision", REVISIONS)
def test_postgresql_upgrade_keeps_every_row(revision, postgres_server):
    """The fixture's rows in a PostgreSQL database built at its revision by the scripts."""
    import sqlalchemy as sa

    from tests.storage.conftest import _create_database

    url = _create_database(postgres_server)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        migrate.run_scripts(conn, revision)
    source = sqlite3.connect(OLD_KBS / f"kb-{revision}.sqlite")
    present = {n for (n,) in source.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    # the kept tables, then the matrix and the data version from 0002 on, parents first
    tables = [t for t in ALL_TABLES if t in present]
    with engine.begin() as conn:
        for table in tables:
            cursor = source.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            reflected = sa.Table(table, sa.MetaData(), autoload_with=conn)
            conn.execute(reflected.delete())  # the scripts' first data version
            conn.execute(reflected.insert(), rows)
            if "id" in names:
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT max(id) FROM {table}))"
                )
    source.close()
    before = _sqlite_rows(OLD_KBS / f"kb-{revision}.sqlite")

    def pg_rows():
        with engine.connect() as conn:
            machine = KnowledgeBase.revision_of(url) >= "0006"  # the column's revision
            return _rows(lambda sql: conn.exec_driver_sql(sql).all(), machine_column=machine)

    assert pg_rows() == before
    refused = _cli("--db", url, "db", "upgrade")
    assert refused.exit_code == 1
    assert "pg_dump" in refused.output and "--no-backup" in refused.output
    assert KnowledgeBase.revision_of(url) == revision
    result = _cli("--db", url, "db", "upgrade", "--no-backup")
    assert result.exit_code == 0, result.output
    assert pg_rows() == before
    assert KnowledgeBase.revision_of(url) == migrate.HEAD
    assert _cli("--db", url, "db", "check").exit_code == 0
    again = _cli("--db", url, "import", "runs", str(OLD_KBS / "named_runs.csv"))
    assert again.exit_code == 0, again.output
    assert pg_rows() == before
    engine.dispose()
