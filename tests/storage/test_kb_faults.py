"""Fault tests of the knowledge base: each input below once gave a wrong or confusing
result; each test fails on the code as it was and passes now.

Every ambiguous input is refused with the knowledge base byte-identical (a dump of every
table through SQL, so writes waiting in the -wal file count too); a mistyped --db is an
error, not the built-in KB; a KB the user can read but not write can be read.
"""

from __future__ import annotations

from tests.storage._kbs import kb_with_runs as _kb_with_runs


def _kb_dump(path) -> str:
    """Every row of every table of the SQLite KB at ``path``, read through SQL."""
    import sqlite3

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return "\n".join(conn.iterdump())


def _metarec(*args, env=None):
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "metarec.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def _import_refused(tmp_path, kind: str, text: str, name: str = "bad.csv", *options):
    path = _kb_with_runs(tmp_path)
    before = _kb_dump(path)
    data = tmp_path / name
    if isinstance(text, bytes):
        data.write_bytes(text)
    else:
        data.write_text(text)
    result = _metarec("--db", str(path), "import", kind, str(data), *options)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr and "unexpected" not in result.stderr
    assert _kb_dump(path) == before
    return lines[0]


def test_kb_conflicting_run_already_stored_is_refused(tmp_path):
    line = _import_refused(
        tmp_path,
        "runs",
        "dataset,algorithm,accuracy,time,source,source_run_id\niris,knn,0.5,1.0,openml,1\n",
    )
    assert "line 2" in line and "'openml:1'" in line and "already stored from" in line
    assert "accuracy 0.9 -> 0.5" in line and "--on-conflict" in line


def test_kb_conflicting_run_repeated_in_the_file_is_refused(tmp_path):
    line = _import_refused(
        tmp_path,
        "runs",
        "dataset,algorithm,accuracy,time,source,source_run_id\n"
        "iris,svc,0.5,1.0,lab,7\niris,svc,0.6,1.0,lab,7\n",
    )
    assert "line 3" in line and "first at line 2" in line


def test_kb_conflicts_keep_and_replace(tmp_path):
    import json

    from metarec.storage import KnowledgeBase

    path = _kb_with_runs(tmp_path)
    data = tmp_path / "new.csv"
    data.write_text(
        "dataset,algorithm,accuracy,time,source,source_run_id\niris,knn,0.5,1.0,openml,1\n"
    )
    kept = _metarec("--db", str(path), "import", "runs", str(data), "--on-conflict", "keep")
    assert kept.returncode == 0, kept.stderr
    kb = KnowledgeBase(f"sqlite:///{path}")
    assert kb.runs().set_index("algorithm").loc["knn", "accuracy"] == 0.9
    version = kb.data_version()
    replaced = _metarec(
        "--db", str(path), "import", "runs", str(data), "--on-conflict", "replace",
        "--format", "json",
    )  # fmt: skip
    assert replaced.returncode == 0, replaced.stderr
    assert json.loads(replaced.stdout)["results"][0]["replaced"] == 1
    assert "accuracy 0.9 -> 0.5" in replaced.stderr
    assert kb.runs().set_index("algorithm").loc["knn", "accuracy"] == 0.5  # matrix follows
    assert kb.count("runs") == 2 and kb.data_version() != version


def test_kb_identical_reimport_adds_nothing_without_a_choice(tmp_path):
    path = _kb_with_runs(tmp_path)
    data = tmp_path / "same.csv"
    data.write_text(
        "dataset,algorithm,accuracy,time,source,source_run_id\niris,knn,0.9,1.0,openml,1\n"
    )
    before = _kb_dump(path)
    result = _metarec("--db", str(path), "import", "runs", str(data), "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert _kb_dump(path) == before


def test_kb_duplicate_column_names_are_refused(tmp_path):
    line = _import_refused(
        tmp_path, "runs", "dataset,algorithm,accuracy,time,accuracy\niris,svc,0.5,1.0,0.7\n"
    )
    assert "duplicate column name(s) 'accuracy'" in line and "line 1" in line
    line = _import_refused(
        tmp_path / "..", "metafeatures", "dataset,n_instances,n_instances\niris,1,2\n", "mf.csv"
    )
    assert "'n_instances'" in line


def test_kb_infinite_metafeature_is_refused(tmp_path):
    line = _import_refused(tmp_path, "metafeatures", "dataset,n_instances\niris,inf\n", "mf.csv")
    assert "line 2" in line and "'n_instances'" in line and "inf is not a finite number" in line


def test_kb_infinite_run_time_is_refused(tmp_path):
    line = _import_refused(tmp_path, "runs", "dataset,algorithm,accuracy,time\niris,svc,0.5,inf\n")
    assert "line 2" in line and "'time'" in line


def test_kb_truncated_gzip_is_one_clear_line(tmp_path):
    import gzip

    rows = "dataset,algorithm,accuracy,time\n" + "iris,svc,0.5,1.0\n" * 20000
    whole = gzip.compress(rows.encode())
    line = _import_refused(tmp_path, "runs", whole[: len(whole) // 2], "runs.csv.gz")
    assert "runs.csv.gz" in line and "truncated or corrupt" in line


def test_kb_mistyped_db_is_an_error_for_reading_commands(tmp_path):
    typo = tmp_path / "tpyo.sqlite"
    for args in (("rank", "--all"), ("db", "info")):
        result = _metarec("--db", str(typo), *args)
        assert result.returncode != 0, result.stdout
        assert f"no knowledge base at {typo}" in result.stderr
        assert "db upgrade` creates one" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    result = _metarec("rank", "--all", env={"METAREC_DB": str(typo)})
    assert "no knowledge base at" in result.stderr
    assert not typo.exists()


def test_kb_writing_commands_still_create_the_kb(tmp_path):
    data = tmp_path / "runs.csv"
    data.write_text("dataset,algorithm,accuracy,time\niris,svc,0.5,1.0\n")
    db = tmp_path / "new" / "kb.sqlite"
    result = _metarec("--db", str(db), "import", "runs", str(data))
    assert result.returncode == 0, result.stderr
    assert db.exists()


def _drop_file_permission_override():
    """In the child: lose root's permission to ignore file modes (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH), so chmod protects files from it as from any user."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl")


def _as_unprivileged(*args):
    import os
    import subprocess
    import sys

    import pytest

    if os.geteuid() == 0:
        try:
            probe = subprocess.run(
                [sys.executable, "-c", "open('/proc/self/status').read()"],
                preexec_fn=_drop_file_permission_override,
                capture_output=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            pytest.skip(f"cannot drop root's file-permission override here: {exc}")
        if probe.returncode != 0:
            pytest.skip("cannot drop root's file-permission override here")
        hook = _drop_file_permission_override
    else:
        hook = None
    return subprocess.run(
        [sys.executable, "-m", "metarec.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=hook,
    )


def test_kb_read_only_kb_can_be_read(tmp_path):
    """A KB on a read-only mount (file and folder not writable, no -wal/-shm there yet) and a
    KB file that is merely not writable: reading commands work, writing ones fail cleanly."""
    import os
    import stat

    import pandas as pd

    folder = tmp_path / "shared"
    folder.mkdir()
    path = _kb_with_runs(folder)
    before = _kb_dump(path)
    # a valid runs file: the import can only fail because the knowledge base is read-only
    new_runs = tmp_path / "new_runs.csv"
    pd.DataFrame(
        {"dataset": ["wine"], "algorithm": ["knn"], "accuracy": [0.8], "time": [0.2]}
    ).to_csv(new_runs, index=False)
    wal = folder / "kb.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # everything is in the file
    for extra in ("-wal", "-shm"):  # left by the read-only dump: not there on a mount
        (folder / f"kb.sqlite{extra}").unlink(missing_ok=True)
    os.chmod(path, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        for read_only_folder in (True, False):  # the mount first: nothing may be created
            os.chmod(folder, 0o555 if read_only_folder else 0o755)
            for args in (("rank", "--all", "--format", "csv"), ("db", "info", "--format", "csv")):
                result = _as_unprivileged("--db", str(path), *args)
                assert result.returncode == 0, (args, result.stderr)
                assert "readonly" not in result.stderr
            assert "knn" in _as_unprivileged("--db", str(path), "rank", "--all").stdout
            if read_only_folder:
                assert sorted(p.name for p in folder.iterdir()) == ["kb.sqlite"]
            importing = _as_unprivileged("--db", str(path), "import", "runs", str(new_runs))
            assert importing.returncode == 1 and "Traceback" not in importing.stderr
            assert "attempt to write a readonly database" in importing.stderr, importing.stderr
    finally:
        os.chmod(folder, 0o755)
        os.chmod(path, 0o644)
    assert _kb_dump(path) == before


def test_kb_db_in_missing_folder_under_a_read_only_folder(tmp_path):
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    data = tmp_path / "runs.csv"
    data.write_text("dataset,algorithm,accuracy,time\niris,svc,0.5,1.0\n")
    os.chmod(locked, 0o555)
    try:
        result = _as_unprivileged(
            "--db", str(locked / "sub" / "kb.sqlite"), "import", "runs", str(data)
        )
    finally:
        os.chmod(locked, 0o755)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot create the folder" in lines[0], result.stderr
    assert "unexpected" not in result.stderr
