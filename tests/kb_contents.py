"""What a SQLite knowledge base holds, for tests that check what was (not) stored.

Reading ``kb.sqlite`` alone misses every write still waiting in ``kb.sqlite-wal`` (WAL mode):
a check on those bytes cannot fail.  :func:`stored_bytes` reads the database through SQLite
(a dump of every table, the WAL included) and adds the raw bytes of the file and its WAL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def stored_bytes(path) -> bytes:
    """Every row of every table of the SQLite file ``path`` (dumped as SQL) and its raw files."""
    path = Path(path)
    if not path.exists():
        return b""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        dump = "\n".join(conn.iterdump()).encode("utf8")
    raw = b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    return dump + b"\n" + raw
