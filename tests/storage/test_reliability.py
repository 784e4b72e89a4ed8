"""Concurrency, crashes, foreign and corrupt databases, schema revisions (SQLite files)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import KnowledgeBaseError
from metarec.storage import KnowledgeBase
from metarec.storage._migrate import HEAD, KNOWN_REVISIONS, revisions


def _write_runs(path, dataset: str, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {
            "dataset": [f"{dataset}{i % 50}" for i in range(n)],
            "algorithm": [f"algo{i % 7}" for i in range(n)],
            "fold": np.arange(n),
            "accuracy": rng.random(n),
            "time": rng.random(n) + 0.01,
        }
    ).to_csv(path, index=False)


_IMPORT = textwrap.dedent(
    """
    import sys
    from metarec.storage import KnowledgeBase
    kb = KnowledgeBase(sys.argv[1])
    print(kb.import_runs(sys.argv[2], chunksize=int(sys.argv[3])).added, flush=True)
    """
)


@pytest.mark.slow
def test_two_processes_import_at_once_and_lose_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    files = []
    for k in range(2):
        path = tmp_path / f"runs{k}.csv"
        _write_runs(path, f"set{k}_", 20_000, k)
        files.append(path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _IMPORT, url, str(f), "2000"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for f in files
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == "20000"
    kb = KnowledgeBase(url)
    assert kb.count("runs") == 40_000
    assert kb.count("datasets") == 100


class _RacingCursor:
    """A cursor whose switch to WAL finds the file locked ``busy`` times (as when another
    process is creating the same new file), then sees the mode the other process set."""

    def __init__(self, busy: int, error: str = "database is locked") -> None:
        self.busy, self.error, self.statements = busy, error, []
        self.mode = "delete"

    def execute(self, sql):
        self.statements.append(sql)
        if sql == "PRAGMA journal_mode = WAL":
            if self.busy:
                self.busy -= 1
                raise sqlite3.OperationalError(self.error)
            self.mode = "wal"
        outer = self

        class _Result:
            def fetchone(self):
                return (outer.mode,)

        return _Result()


def test_switching_a_new_file_to_wal_waits_for_a_racing_process(monkeypatch):
    """SQLite does not call the busy handler for the lock of the switch to WAL, so two
    processes opening one new file at once could fail with "database is locked" (measured
    about 1 in 25 races); the switch is tried again until the busy timeout."""
    from metarec.storage import _engine

    racing = _RacingCursor(busy=3)
    _engine._use_wal(racing)
    assert racing.mode == "wal"
    assert racing.statements.count("PRAGMA journal_mode = WAL") == 4
    done = _RacingCursor(busy=0)
    done.mode = "wal"  # a file already in WAL mode: nothing is switched
    _engine._use_wal(done)
    assert done.statements == ["PRAGMA journal_mode"]
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        _engine._use_wal(_RacingCursor(busy=1, error="disk I/O error"))
    # a racer that holds the file longer than the busy timeout: given up, not waited for
    # (its 200 tries would take 10 s at the longest pause, 0.05 s)
    monkeypatch.setattr(_engine, "BUSY_TIMEOUT_S", 0.05)
    held = _RacingCursor(busy=200)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _engine._use_wal(held)
    assert held.mode == "delete" and held.busy > 100


def test_opening_a_new_file_waits_for_another_writer_instead_of_failing(tmp_path):
    """A real race, made deterministic: another connection holds the write lock of a new
    file (as a process creating it does); switching to WAL fails at once without waiting,
    so KnowledgeBase(url) must retry it until that connection lets go."""
    import threading

    path = tmp_path / "kb.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    bare = sqlite3.connect(path, isolation_level=None, timeout=30)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        bare.execute("PRAGMA journal_mode = WAL")  # no busy wait: SQLite fails at once
    bare.close()
    released = []

    def release():
        released.append(True)
        holder.execute("ROLLBACK")

    threading.Timer(0.5, release).start()
    kb = KnowledgeBase(f"sqlite:///{path}")
    assert released  # it waited for the holder
    assert kb.revision == HEAD
    with kb.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    kb.close()
    holder.close()


_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from metarec.storage import KnowledgeBase
    kb = KnowledgeBase(sys.argv[1])
    seen = [0]
    def progress(n=0, total=None):
        seen[0] += n
        if seen[0] >= 6000:  # half-way: several chunks are written, nothing committed
            print("killing", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
    kb.import_runs(sys.argv[2], chunksize=2000, progress=progress)
    print("not killed", flush=True)
    """
)


@pytest.mark.slow
def test_a_process_killed_mid_import_leaves_the_kb_as_before(tmp_path):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    kb = KnowledgeBase(url)
    _write_runs(tmp_path / "before.csv", "old", 1000, 1)
    kb.import_runs(tmp_path / "before.csv")
    before = kb.runs(aggregate=False)
    _write_runs(tmp_path / "big.csv", "new", 12_000, 2)
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED, url, str(tmp_path / "big.csv")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "killing" in proc.stdout
    kb.close()
    reopened = KnowledgeBase(url)
    pd.testing.assert_frame_equal(reopened.runs(aggregate=False), before)
    check = sqlite3.connect(tmp_path / "kb.sqlite").execute("PRAGMA integrity_check").fetchone()
    assert check == ("ok",)
    assert reopened.import_runs(tmp_path / "big.csv").added == 12_000  # the import can be redone


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 10)
    with pytest.raises(KnowledgeBaseError, match="not a metarec knowledge base"):
        KnowledgeBase(f"sqlite:///{path}")
    assert path.read_text().startswith("these are my notes")


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    with pytest.raises(KnowledgeBaseError, match="holds other tables \\(customers\\)"):
        KnowledgeBase(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"customers"}


def test_a_corrupt_knowledge_base_is_a_clear_error(tmp_path):
    path = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(f"sqlite:///{path}")
    _write_runs(tmp_path / "r.csv", "d", 2000, 0)
    kb.import_runs(tmp_path / "r.csv")
    kb.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[100:] = os.urandom(len(data) - 100)  # keep the header, scramble every page
    path.write_bytes(bytes(data))
    with pytest.raises(KnowledgeBaseError, match="not a metarec knowledge base or is corrupt"):
        KnowledgeBase(f"sqlite:///{path}").runs()


def test_a_newer_schema_revision_is_refused(tmp_path):
    path = tmp_path / "kb.sqlite"
    KnowledgeBase(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(KnowledgeBaseError, match="revision 9999.*newer metarec"):
        KnowledgeBase(f"sqlite:///{path}")


def test_sqlite_runs_with_wal_foreign_keys_and_busy_timeout(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with kb.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000


def test_imports_skip_per_row_reference_checks_and_leave_them_enforced(tmp_path):
    """The run import writes ids it resolved under the write lock, so SQLite's foreign-key
    check is off for that transaction only: on again afterwards, even after a rejected import,
    and nothing written breaks a reference."""
    import sqlalchemy as sa

    from metarec.exceptions import ImportRejectedError
    from metarec.storage._engine import write_transaction

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with write_transaction(kb.engine, check_references=False) as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 0
    _write_runs(tmp_path / "runs.csv", "d", 500, 0)
    assert kb.import_runs(tmp_path / "runs.csv").added == 500
    bad = pd.DataFrame({"dataset": ["x"], "algorithm": ["a"], "accuracy": [2.0], "time": [1.0]})
    with pytest.raises(ImportRejectedError):
        kb.import_runs(bad)
    with kb.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
    # every pooled connection checks references again: a run of an unknown dataset fails
    with pytest.raises(sa.exc.IntegrityError, match="FOREIGN KEY"):
        with write_transaction(kb.engine) as conn:
            conn.exec_driver_sql(
                "INSERT INTO runs (dataset_id, algorithm_id, status, run_key) "
                "VALUES (999999, 1, 'ok', x'00')"
            )
    assert kb.count("runs") == 500


def test_migration_scripts_match_the_models(tmp_path):
    """The shipped migrations end at HEAD and build exactly the tables the models declare."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from metarec.storage._models import metadata

    assert revisions() == list(KNOWN_REVISIONS) and revisions()[-1] == HEAD
    engine = _scripted(tmp_path / "kb.sqlite")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def _scripted(path):
    """A new SQLite database brought to HEAD by the migration scripts, revision by revision."""
    from metarec.storage._engine import make_engine, write_transaction
    from metarec.storage._migrate import run_scripts

    engine = make_engine(f"sqlite:///{path}", create_dirs=True)
    with write_transaction(engine) as conn:
        run_scripts(conn)
    return engine


def _physical_schema(engine) -> dict:
    """Every table's columns, indexes (with their WHERE) and foreign keys, as SQLite has them."""
    out = {}
    with engine.connect() as conn:
        sql = conn.exec_driver_sql
        names = [r[0] for r in sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in sorted(names):
            indexes = {}
            for _, name, unique, origin, partial in sql(f"PRAGMA index_list('{table}')"):
                where = sql("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).scalar()
                columns = [tuple(r) for r in sql(f"PRAGMA index_xinfo('{name}')")]
                key = name if origin == "c" else (origin, tuple(c[2] for c in columns))
                indexes[key] = (unique, partial, where and where.split(" WHERE ")[-1], columns)
            out[table] = {
                "columns": [tuple(r) for r in sql(f"PRAGMA table_xinfo('{table}')")],
                "indexes": indexes,
                "foreign_keys": sorted(
                    tuple(r[2:]) for r in sql(f"PRAGMA foreign_key_list('{table}')")
                ),
            }
    return out


def test_a_new_kb_has_exactly_the_schema_the_scripts_build(tmp_path):
    """A new knowledge base is created from the models in one go; a database migrated from
    nothing by every script holds the same tables, columns, keys and (partial) indexes."""
    scripted = _scripted(tmp_path / "scripted.sqlite")
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'new.sqlite'}")
    assert kb.revision == HEAD
    fresh, migrated = _physical_schema(kb.engine), _physical_schema(scripted)
    assert fresh == migrated
    assert "uq_runs_named_key" in fresh["runs"]["indexes"]
    assert fresh["runs"]["indexes"]["uq_runs_named_key"][:3] == (1, 1, "source_run_id IS NOT NULL")
    with kb.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [(HEAD,)]
    assert kb.data_version()  # a first data version, as the scripts record


def test_default_url_is_a_file_in_the_data_directory(_isolated_home):
    kb = KnowledgeBase()
    assert kb.url == f"sqlite:///{_isolated_home / 'kb.sqlite'}"
    assert (_isolated_home / "kb.sqlite").exists()


def test_metarec_db_environment_variable_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("METAREC_DB", f"sqlite:///{tmp_path / 'env.sqlite'}")
    assert KnowledgeBase().url.endswith("env.sqlite")


def test_password_never_shown(tmp_path):
    from metarec._config import redact_url

    shown = redact_url("postgresql+psycopg://me:s3cret@db.example/kb")
    assert "s3cret" not in shown and "***" in shown


def test_unreachable_server_is_a_clear_error():
    pytest.importorskip(
        "psycopg", reason="the PostgreSQL driver is not installed: pip install 'metarec[postgres]'"
    )
    start = time.perf_counter()
    with pytest.raises(KnowledgeBaseError, match="cannot open"):
        KnowledgeBase("postgresql+psycopg://nobody:pw@127.0.0.1:1/kb")
    assert time.perf_counter() - start < 30


_OPEN_AND_IMPORT = textwrap.dedent(
    """
    import sys
    import pandas as pd
    from metarec.storage import KnowledgeBase
    kb = KnowledgeBase(sys.argv[1])
    names = ["x", "y"] if sys.argv[2] == "0" else ["y", "x"]
    frame = pd.DataFrame({"dataset": names * 50, "algorithm": [f"a{sys.argv[2]}"] * 100,
                          "fold": range(100), "accuracy": 0.5, "time": 1.0})
    print(kb.import_runs(frame, chunksize=1).added, flush=True)
    """
)


@pytest.mark.slow
def test_concurrent_creation_and_imports_on_one_database(kb_url):
    """Three processes open one new database at once and import rows whose new names come
    in opposite orders: no duplicate schema, no deadlock, no row lost (both backends)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AND_IMPORT, kb_url, str(k % 2)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    added = sorted(int(out) for out, _ in outputs)
    assert sum(added) == 200  # the two processes with the same rows: one adds 100, one 0
    assert KnowledgeBase(kb_url).count("runs") == 200


def test_problems_carry_their_row_column_and_message(tmp_path):
    import pandas as pd

    from metarec.storage import Problem

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    frame = pd.DataFrame(
        {
            "dataset": ["a", "b", "c"],
            "algorithm": ["x", "x", "x"],
            "accuracy": [0.5, 1.5, "abc"],
            "time": [1.0, 1.0, 1.0],
        }  # fmt: skip
    )
    report = kb.import_runs(frame, skip_invalid=True)
    assert report.added == 1 and report.rejected == 2
    first, second = report.problems
    assert isinstance(first, Problem) and first.source == "<DataFrame>"
    assert (first.row, first.column) == (1, "accuracy")  # the second data row, from 0
    assert first.message in first and first.startswith("<DataFrame>, row 2, column 'accuracy'")
    assert (second.row, second.column, second.message) == (2, "accuracy", "'abc' is not a number")
    assert report.to_dict()["problems"] == [str(first), str(second)]


def test_opening_a_knowledge_base_again_keeps_the_locks_of_this_process(tmp_path):
    """Opening a KB checks its file header.  Read with open() and close(), that dropped the
    POSIX locks of this process's open connections to the file: another process closing its
    own connection then took itself for the last one, checkpointed and deleted the WAL
    under them, and the next open here failed with "database disk image is malformed"."""
    path = tmp_path / "kb.sqlite"
    url = f"sqlite:///{path}"
    kb = KnowledgeBase(url)
    kb.add_algorithm("first")
    with kb.engine.connect() as held:  # a connection this process keeps open
        held.exec_driver_sql("SELECT count(*) FROM algorithms").fetchone()
        KnowledgeBase(url).count("algorithms")  # opened again: the header is checked
        code = f"from metarec.storage import KnowledgeBase; KnowledgeBase({url!r}).add_algorithm('second')"
        subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
        # the other process saw this one's connection: it left the WAL in place
        assert path.with_name("kb.sqlite-wal").exists()
        names = set(KnowledgeBase(url).algorithms()["name"])
    assert names == {"first", "second"}
    kb.engine.dispose()
    # a file that is not SQLite is still refused by its header, before any other work
    (tmp_path / "notes.sqlite").write_text("not a database at all, just text\n")
    with pytest.raises(KnowledgeBaseError, match="not a SQLite database"):
        KnowledgeBase(f"sqlite:///{tmp_path / 'notes.sqlite'}")
