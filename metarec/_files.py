"""File operations shared across the package: text files' encoding, new files put in place."""

from __future__ import annotations

import bz2
import codecs
import errno
import gzip
import lzma
import os
import secrets
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = [
    "non_utf8",
    "NOT_UTF8",
    "link_new",
    "atomic_path",
    "trailing_separator",
    "exact_floats",
    "open_decompressed",
]

#: What a reader says after the file and line: ``.format(byte=..., encoding=...)``.
NOT_UTF8 = (
    "the file is not UTF-8 text (byte 0x{byte}); save it as UTF-8 "
    "(e.g. iconv -f {encoding} -t utf-8)"
)


def non_utf8(path: Path) -> tuple[int, str, str] | None:
    """The first byte of ``path`` that is not UTF-8: ``(line, byte in hex, likely encoding)``.

    Compressed files (by their suffix) are read decompressed.  ``None`` when the whole file
    is UTF-8 (a byte-order mark included).  The likely encoding is UTF-16 when the file
    starts with its byte-order mark, else Latin-1 (what spreadsheets and R write in Western
    locales).
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    line, head = 1, b""
    with open_decompressed(path) as handle:
        while block := handle.read(1 << 20):
            head = head or block[:2]
            if block.isascii() and not decoder.getstate()[0]:
                line += block.count(b"\n")  # ASCII is UTF-8: nothing to decode
                continue
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                at = max(exc.start, 0)
                line += block.count(b"\n", 0, at)
                guess = "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "latin1"
                return line, block[at : at + 1].hex(), guess
            line += block.count(b"\n")
    pending = decoder.getstate()[0]  # a sequence begun but cut off by the end of the file
    if pending:
        guess = "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "latin1"
        return line, pending[:1].hex(), guess
    return None


#: The compressed formats pandas reads by the suffix (``compression="infer"``), and their openers.
_DECOMPRESSORS = {".gz": gzip.open, ".gzip": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


@contextmanager
def open_decompressed(path: Path) -> Iterator[IO[bytes]]:
    """The bytes of ``path``, decompressed as its suffix says (as ``pandas.read_csv`` infers).

    ``.gz`` (or ``.gzip``), ``.bz2``, ``.xz``, ``.zip`` (an archive of one file) and ``.zst`` (with the
    ``zstandard`` package, which pandas needs for it too); any other suffix is read as is.

    Parameters
    ----------
    path : Path
        The file.

    Yields
    ------
    binary file object
        Open for reading; closed when the block ends.

    Raises
    ------
    OSError
        The file cannot be opened or is not in the format its suffix names.
    """
    suffix = Path(path).suffix.lower()
    if suffix in _DECOMPRESSORS:
        with _DECOMPRESSORS[suffix](path, "rb") as handle:
            yield handle
    elif suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) != 1:
                raise OSError(
                    f"{path}: a .zip file to read should hold one file, not {len(members)}"
                )
            with archive.open(members[0]) as handle:
                yield handle
    elif suffix == ".zst":
        import zstandard

        with zstandard.open(path, "rb") as handle:
            yield handle
    else:
        with open(path, "rb") as handle:
            yield handle


def exact_floats() -> dict:
    """The options of ``pandas.read_csv`` that read every float exactly (round-trip).

    pandas before 3 parses floats with a fast routine that is off by one unit in the last
    place for about a third of 17-digit values unless ``float_precision="round_trip"`` is
    given; pandas 3 reads them exactly by default and deprecates the option.  Exact floats
    make a table read from a CSV file equal to the frame that wrote it (one fingerprint,
    the same stored runs).

    Returns
    -------
    dict
        ``{"float_precision": "round_trip"}`` before pandas 3, else empty.
    """
    import pandas as pd

    major = int(pd.__version__.split(".")[0])
    return {"float_precision": "round_trip"} if major < 3 else {}


def trailing_separator(path: Path, n_header: int, **read_csv) -> bool | str:
    """Whether the first data row ends with one separator more than the header.

    Some exporters end every data row with a separator, an empty last field: such a file
    is read as its header names the columns (pandas would take the first column for the
    index).

    Parameters
    ----------
    path : Path
        A delimited text file, its first line the header.
    n_header : int
        The fields of the header.
    **read_csv
        The separator and the other options the caller reads the file with.

    Returns
    -------
    bool or str
        True: the first data row has more fields than the header, all the extra ones
        empty; False: no more fields than the header (or no data row, or one pandas cannot
        parse, which the caller's own read reports); a str: the extra fields are not empty,
        and the str says so (``"N fields, the header names M (extra: ...)"``), for the
        caller's error after the file and line.
    """
    import pandas as pd

    try:
        row = pd.read_csv(
            path, header=None, skiprows=1, nrows=1, dtype=str, keep_default_na=False, **read_csv
        )
    except (pd.errors.EmptyDataError, pd.errors.ParserError):
        return False
    if row.empty or row.shape[1] <= n_header:
        return False
    extra = [str(v).strip() for v in row.iloc[0, n_header:]]
    if any(extra):
        return (
            f"{row.shape[1]} fields, the header names {n_header} "
            f"(extra: {', '.join(repr(v) for v in extra)})"
        )
    return True


def link_new(source: Path, target: Path) -> bool:
    """Put the finished file ``source`` at ``target`` unless a file is there already.

    A hard link is atomic and never replaces: a file another process put at ``target``
    meanwhile (and may have opened) stays.  On a file system without hard links the file
    is renamed into place if ``target`` is still free (a narrower window).  ``source`` is
    left as it is.

    Returns
    -------
    bool
        Whether ``source`` was put at ``target`` (False: a file was there).
    """
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if target.exists():
            return False
        os.replace(source, target)
    return True


@contextmanager
def atomic_path(target: Path, *, replace: bool = True) -> Iterator[Path]:
    """A temporary path to write ``target`` at, put in place whole when the block succeeds.

    The caller writes the file at the yielded path (any writer that takes a path:
    ``joblib.dump``, ``DataFrame.to_csv``, ``sqlite3.connect``, ``open``); when the block
    ends without an exception, the file is moved to ``target`` in one step, so a reader
    never sees a half-written ``target``, and a crash leaves the old one (or none).  The
    temporary file is in ``target``'s folder (a rename never crosses file systems), hidden
    (``.NAME.PID.RANDOM.tmp``: two processes or threads never share one), and removed on
    every way out: an exception in the block, a failed move, or a target that is taken.

    Parameters
    ----------
    target : Path
        Where the finished file goes; its folder must exist.
    replace : bool, default=True
        True: a file at ``target`` is replaced (:func:`os.replace`).  False: it is kept, and
        the finished file is put in place only where none is (:func:`link_new`).

    Yields
    ------
    Path
        The temporary path (not created: the writer creates it).

    Raises
    ------
    FileExistsError
        With ``replace=False``, a file was at ``target`` (the new one is discarded).
    OSError
        The move failed.
    """
    target = Path(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield tmp
        if replace:
            os.replace(tmp, target)
        elif not link_new(tmp, target):
            raise FileExistsError(errno.EEXIST, "a file is there already", str(target))
    finally:
        tmp.unlink(missing_ok=True)
