"""One interruption contract for every command, in real processes: Ctrl-C exits 130 and
SIGTERM 143, each with one line saying what was kept; a half-done import changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from metarec.storage import KnowledgeBase

pytestmark = pytest.mark.slow


def _start(args, home):
    env = {**os.environ, "METAREC_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "metarec.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_until(condition, process, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not condition():
        if process.poll() is not None:
            pytest.fail(
                f"the command ended before it could be interrupted: {process.stderr.read()}"
            )
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the command did not start its work in time")
        time.sleep(0.02)


def _write_locked(db) -> bool:
    """Whether another connection holds the database's write lock (an open import)."""
    import sqlite3

    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()


@pytest.fixture
def big_runs(tmp_path):
    n = 2_000_000  # an import of several seconds: the signal lands inside it
    rng = np.random.default_rng(0)
    path = tmp_path / "big.csv"
    pd.DataFrame(
        {
            "dataset": np.char.add("d", (np.arange(n) % 5000).astype(str)),
            "algorithm": np.char.add("a", (np.arange(n) // 5000).astype(str)),
            "fold": 0,
            "accuracy": rng.uniform(0.5, 1.0, n).round(6),
            "time": rng.uniform(0.1, 5.0, n).round(6),
        }
    ).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_import_keeps_the_kb_unchanged_and_says_so(signum, code, big_runs, tmp_path):
    db = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(db)
    kb.import_runs(
        pd.DataFrame({"dataset": ["x"], "algorithm": ["y"], "accuracy": [0.9], "time": [1.0]})
    )
    version = kb.data_version()
    kb.close()
    process = _start(["--db", str(db), "import", "runs", str(big_runs)], tmp_path / "home")
    # the import's transaction is open: the write lock held twice in a row, 0.2 s apart (not
    # the moment a closing connection takes it to remove the write-ahead log)
    _wait_until(lambda: _write_locked(db) and not time.sleep(0.2) and _write_locked(db), process)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert err.strip().splitlines() == [
        "interrupted: nothing was imported; the knowledge base is unchanged"
    ]
    kb = KnowledgeBase(db)
    assert kb.count("runs") == 1 and kb.count("datasets") == 1
    assert kb.data_version() == version
    kb.close()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_another_command_follows_the_same_contract(signum, code, tmp_path):
    # a fresh home: evaluate first builds the built-in KB, then evaluates 116 datasets
    process = _start(["evaluate"], tmp_path / "home")
    time.sleep(3.0)
    assert process.poll() is None, process.stderr.read()
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == (
        "interrupted: nothing was left half-written (every write to the knowledge base is "
        "one transaction)"
    )
    assert "Traceback" not in err and "Aborted" not in err
