"""File operations shared across the package."""

from __future__ import annotations

import errno
import gzip
import os

import pytest

from metarec._files import atomic_path, link_new, non_utf8, trailing_separator


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
    # the last byte of the file, no line end after it: a sequence the end cuts off
    path.write_bytes("a,b\n1,2\n3,caf\u00e9".encode("latin-1"))
    assert non_utf8(path) == (3, "e9", "latin1")
    path.write_bytes("a,b\n1,2\n3,caf\u00e9".encode())  # the same, UTF-8: whole
    assert non_utf8(path) is None


def test_a_backup_never_replaces_one_another_process_finished(tmp_path, monkeypatch):
    from metarec.exceptions import KnowledgeBaseError
    from metarec.storage import KnowledgeBase, _migrate

    source = tmp_path / "kb.sqlite"
    KnowledgeBase(f"sqlite:///{source}").close()
    target = tmp_path / "kb.backup.sqlite"
    real = _migrate.sqlite3.connect

    def connect(database, *args, **kwargs):  # the other process's copy lands meanwhile
        if str(database).endswith(".tmp"):
            target.write_text("their copy")
        return real(database, *args, **kwargs)

    monkeypatch.setattr(_migrate.sqlite3, "connect", connect)
    with pytest.raises(KnowledgeBaseError, match="another process wrote that copy meanwhile"):
        _migrate.backup_sqlite(source, target)
    assert target.read_text() == "their copy"
    assert [p.name for p in tmp_path.iterdir() if "backup" in p.name] == ["kb.backup.sqlite"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a,b\n1,2,\n3,4,\n", True),  # every row ends with a separator
        ("a,b\n1,2\n3,4\n", False),
        ("a,b\n", False),  # no data row
        ("a,b\n1,2,x\n", "3 fields, the header names 2 (extra: 'x')"),
        ("a,b\n1,2, ,y\n", "4 fields, the header names 2 (extra: '', 'y')"),
    ],
)
def test_trailing_separator_tells_an_empty_last_field_from_extra_values(tmp_path, text, expected):
    path = tmp_path / "data.csv"
    path.write_text(text)
    assert trailing_separator(path, 2, sep=",") == expected


def test_trailing_separator_reads_a_compressed_file_with_its_separator(tmp_path):
    path = tmp_path / "data.tsv.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("a\tb\tc\n1\t2\t3\t\n")
    assert trailing_separator(path, 3, sep="\t", compression="infer") is True
    assert trailing_separator(path, 4, sep="\t", compression="infer") is False


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [
        (".gz", gzip.compress),
        (".bz2", __import__("bz2").compress),
        (".xz", __import__("lzma").compress),
    ],
)
def test_non_utf8_reads_every_compressed_format_pandas_infers(tmp_path, suffix, pack):
    path = tmp_path / f"a.csv{suffix}"
    path.write_bytes(pack("a,b\n1,2\n3,4\n5,caf\u00e9\n".encode("latin-1")))
    assert non_utf8(path) == (4, "e9", "latin1")
    path.write_bytes(pack("a,b\n5,caf\u00e9\n".encode()))
    assert non_utf8(path) is None


def test_non_utf8_reads_the_one_file_of_a_zip_archive(tmp_path):
    import zipfile

    path = tmp_path / "a.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "a\n\u00e9\n".encode("latin-1"))
    assert non_utf8(path) == (2, "e9", "latin1")
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("b.csv", "b\n")
    with pytest.raises(OSError, match="hold one file, not 2"):
        non_utf8(path)


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_atomic_path_puts_the_finished_file_in_place(tmp_path):
    target = tmp_path / "model.joblib"
    target.write_text("old")
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".model.joblib.")
        tmp.write_text("new")
        assert target.read_text() == "old"  # not yet: only when the block ends
    assert target.read_text() == "new" and _leftovers(tmp_path) == []


def test_a_failing_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    target = tmp_path / "model.joblib"
    target.write_text("old")
    with pytest.raises(OSError, match="disk full"):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise OSError("disk full")  # the writer fails midway
    assert target.read_text() == "old" and _leftovers(tmp_path) == []
    with pytest.raises(KeyboardInterrupt):  # an interruption too
        with atomic_path(tmp_path / "new.pkl") as tmp:
            tmp.write_text("half")
            raise KeyboardInterrupt
    assert not (tmp_path / "new.pkl").exists() and _leftovers(tmp_path) == []


def test_a_failing_move_leaves_no_temporary_file(tmp_path, monkeypatch):
    def full_disk(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        with atomic_path(tmp_path / "a.json") as tmp:
            tmp.write_text("{}")
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_without_replacing_keeps_the_file_there(tmp_path):
    target = tmp_path / "kb.sqlite"
    with atomic_path(target, replace=False) as tmp:
        tmp.write_text("mine")
    assert target.read_text() == "mine"
    with pytest.raises(FileExistsError):
        with atomic_path(target, replace=False) as tmp:
            tmp.write_text("theirs")
    assert target.read_text() == "mine" and _leftovers(tmp_path) == []
