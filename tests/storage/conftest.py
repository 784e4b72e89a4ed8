"""Knowledge-base fixtures: every store test runs on SQLite and on a real PostgreSQL server.

The PostgreSQL server is started by the tests themselves (``initdb`` + ``pg_ctl`` from the
Debian ``postgresql`` package, in a temporary directory, listening on 127.0.0.1 only) and
stopped at the end of the session; each test gets a database of its own.  Without the server
binaries the PostgreSQL cases are skipped with the reason, unless ``METAREC_REQUIRE_POSTGRES``
is set (as ``.ci/run`` does), in which case they fail.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

_counter = itertools.count()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres_user(cmd: list[str]) -> list[str]:
    """Run server commands as the 'postgres' user when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError("running as root and 'runuser' is missing")
    return [runuser, "-u", "postgres", "--", *cmd]


def _unavailable(reason: str):
    if os.environ.get("METAREC_REQUIRE_POSTGRES"):
        pytest.fail(f"PostgreSQL is required (METAREC_REQUIRE_POSTGRES is set): {reason}")
    pytest.skip(f"PostgreSQL server unavailable: {reason}")


@pytest.fixture(scope="session")
def postgres_server():
    """Start a throw-away PostgreSQL server; yield its base URL (without a database)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        _unavailable("no initdb in /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the psycopg driver is not installed (pip install 'psycopg[binary]')")
    bindir = Path(found[-1]).parent
    root = Path(tempfile.mkdtemp(prefix="metarec-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    port = _free_port()
    try:
        subprocess.run(
            _as_postgres_user(
                [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
            ),
            check=True,
            capture_output=True,
        )
        subprocess.run(
            _as_postgres_user(
                [
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(root / "log"),
                    "-w",
                    "-o",
                    f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off",
                    "start",
                ]
            ),  # fmt: skip
            check=True,
            capture_output=True,
        )
    except (subprocess.CalledProcessError, RuntimeError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        shutil.rmtree(root, ignore_errors=True)
        _unavailable(f"cannot start a server: {exc} {detail.decode(errors='replace')[-300:]}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            _as_postgres_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


def _create_database(base_url: str) -> str:
    import sqlalchemy

    name = f"metarec_test_{os.getpid()}_{next(_counter)}"
    engine = sqlalchemy.create_engine(f"{base_url}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return f"{base_url}/{name}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def kb_url(request, tmp_path):
    """A fresh, empty knowledge-base URL on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'kb.sqlite'}"
    return _create_database(request.getfixturevalue("postgres_server"))


@pytest.fixture
def kb(kb_url):
    from metarec.storage import KnowledgeBase

    store = KnowledgeBase(kb_url)
    yield store
    store.close()
