"""File operations shared across the package: text files' encoding, new files put in place."""

from __future__ import annotations

import codecs
import errno
import os
from pathlib import Path

__all__ = ["non_utf8", "NOT_UTF8", "link_new", "trailing_separator"]

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
    from pandas.io.common import get_handle

    decoder = codecs.getincrementaldecoder("utf-8")()
    line, head = 1, b""
    with get_handle(path, "rb", compression="infer", is_text=False) as handles:
        while block := handles.handle.read(1 << 20):
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
