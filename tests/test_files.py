"""File operations shared across the package."""

from __future__ import annotations

import errno
import gzip
import os

import pytest

from metarec._files import link_new, non_utf8


def test_link_new_puts_a_file_only_where_none_is(tmp_path, monkeypatch):
    source, target = tmp_path / "new.tmp", tmp_path / "kb.sqlite"
    source.write_text("mine")
    assert link_new(source, target) and target.read_text() == "mine"
    other = tmp_path / "other.tmp"
    other.write_text("theirs")
    assert not link_new(other, target) and target.read_text() == "mine"

    def no_hard_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_hard_links)
    assert not link_new(other, target) and target.read_text() == "mine"
    free = tmp_path / "free.sqlite"
    assert link_new(other, free) and free.read_text() == "theirs"


def test_non_utf8_names_the_line_the_byte_and_a_likely_encoding(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes("a,b\n\ufeffok,\u00e9\n".encode())
    assert non_utf8(path) is None  # UTF-8 throughout, a byte-order mark among it
    path.write_bytes("a,b\n1,2\n3,caf\u00e9\n".encode("latin-1"))
    assert non_utf8(path) == (3, "e9", "latin1")
    packed = tmp_path / "a.csv.gz"
    packed.write_bytes(gzip.compress("a,b\n1,2\n3,caf\u00e9\n".encode("latin-1")))
    assert non_utf8(packed) == (3, "e9", "latin1")  # read decompressed
    path.write_bytes("a,b\n".encode("utf-16"))
    assert non_utf8(path) == (1, "ff", "utf-16")


def test_a_backup_never_replaces_one_another_process_finished(tmp_path, monkeypatch):
    from metarec.exceptions import KnowledgeBaseError
    from metarec.storage import KnowledgeBase, _migrate

    source = tmp_path / "kb.sqlite"
    KnowledgeBase(f"sqlite:///{source}").close()
    target = tmp_path / "kb.backup.sqlite"
    real = _migrate.sqlite3.connect

    def connect(database, *args, **kwargs):  # the other process's copy lands meanwhile
        if str(database).endswith(".partial"):
            target.write_text("their copy")
        return real(database, *args, **kwargs)

    monkeypatch.setattr(_migrate.sqlite3, "connect", connect)
    with pytest.raises(KnowledgeBaseError, match="another process wrote that copy meanwhile"):
        _migrate.backup_sqlite(source, target)
    assert target.read_text() == "their copy"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
