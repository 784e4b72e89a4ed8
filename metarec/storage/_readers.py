"""Stream import files and frames in chunks, remembering where each row came from.

An import never holds a whole file in memory: CSV / TSV (optionally gzip-compressed) are
read with ``pandas.read_csv(chunksize=...)``, Parquet with ``pyarrow``'s ``iter_batches`` and
DataFrames are sliced.  Every chunk comes with the position of its first row, so that a
problem can be reported by location:

* text files (CSV, TSV): ``line N``, the 1-based line in the file with the header as line 1
  (so the first data row is line 2; a file with quoted multi-line fields or blank lines
  would shift the count, which metarec does not try to correct);
* Parquet files and DataFrames: ``row N``, the 1-based position of the data row.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metarec._files import exact_floats, trailing_separator
from metarec.exceptions import ImportRejectedError

__all__ = ["ChunkSource", "open_source", "DEFAULT_CHUNKSIZE", "SUPPORTED_SUFFIXES"]

#: Rows per chunk: large enough for fast executemany, small enough to bound memory.
DEFAULT_CHUNKSIZE = 100_000

_TEXT_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": ","}
SUPPORTED_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq", "(+ .gz for text)")


@dataclass
class ChunkSource:
    """A chunked view of one file or frame.

    Attributes
    ----------
    label : str
        How problems name the input: the file path, or ``"<DataFrame>"``.
    kind : {"text", "parquet", "frame"}
        Decides whether locations are lines (text) or rows.
    columns : list of str
        The header.
    n_rows : int or None
        Number of data rows when known without reading the data (Parquet, frames).
    duplicates : list of str
        Column names that occur more than once in the header, as written (pandas would
        rename the copies ``x.1``, ``x.2``...).
    notes : list of str
        What reading the file left out, for the import's report.
    """

    label: str
    kind: str
    columns: list[str]
    n_rows: int | None
    _factory: Any
    duplicates: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> str:
        """The columns found, for a refusal of a header: with the unnamed first column left
        out as row names said, in case it held what the file lacks."""
        found = ", ".join(self.columns) or "none"
        if any(ROW_NAMES_NOTE in note for note in self.notes):
            found += "; the unnamed first column was left out as row names: if it holds the "
            found += "names, give it its column name"
        return found

    def check_duplicates(self) -> None:
        """Raise :class:`ImportRejectedError` naming the duplicated column names, if any."""
        if self.duplicates:
            names = ", ".join(repr(c) for c in self.duplicates)
            raise ImportRejectedError(
                f"{self.label}, {self.header_where}: duplicate column name(s) {names}; "
                "every column must have its own name (rename or remove the copies)",
                [f"{self.label}: column {c!r} appears more than once" for c in self.duplicates],
            )

    def chunks(self) -> Iterator[tuple[int, Any]]:
        """Yield ``(start, frame)``: ``start`` is the 0-based position of the chunk's first row."""
        start = 0
        for frame in self._factory():
            frame = frame.reset_index(drop=True)
            frame.columns = [str(c).strip() for c in frame.columns]
            yield start, frame
            start += len(frame)

    def where(self, position: int) -> str:
        """Return the location of the data row at 0-based ``position``."""
        if self.kind == "text":
            return f"line {position + 2}"
        return f"row {position + 1}"

    @property
    def header_where(self) -> str:
        return "line 1 (header)" if self.kind == "text" else "columns"


def _plain_columns(frame, label: str):
    """A Parquet chunk with durations in seconds; dates refused (times are seconds)."""
    import pandas as pd

    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_timedelta64_dtype(column.dtype):
            frame[name] = column.dt.total_seconds()
        elif pd.api.types.is_datetime64_any_dtype(column.dtype):
            raise ImportRejectedError(
                f"{label}: column {str(name)!r} holds dates and times; metarec's columns hold "
                "numbers (times in seconds) and names"
            )
    return frame


def _duplicated(names) -> list[str]:
    """Names occurring more than once (after stripping blanks), in order of first repeat."""
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        name = str(name).strip()
        if name in seen and name not in out:
            out.append(name)
        seen.add(name)
    return out


#: What reading a damaged file raises (a truncated .gz ends in EOFError or zlib.error).
_READ_ERRORS: tuple[type[BaseException], ...] = (ValueError, UnicodeDecodeError, OSError, EOFError)


def _read_errors() -> tuple[type[BaseException], ...]:
    import zlib

    return (*_READ_ERRORS, zlib.error)


def _unreadable(label: str, exc: BaseException) -> ImportRejectedError:
    """The one-line error of a file that cannot be read (truncated archives said so)."""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    damaged = (
        isinstance(exc, EOFError)
        or type(exc).__name__ in ("error", "BadGzipFile")
        or "ended before the end-of-stream" in detail
        or "CRC check failed" in detail
    )
    if damaged:
        return ImportRejectedError(f"{label}: the file is truncated or corrupt ({detail})")
    return ImportRejectedError(f"{label}: cannot read the file ({detail})")


def _split_suffix(path: Path) -> tuple[str, str | None]:
    suffixes = [s.lower() for s in path.suffixes]
    compression = None
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst", ".zip"):
        compression = suffixes.pop()
    return (suffixes[-1] if suffixes else ""), compression


def open_source(
    path_or_frame: Any,
    *,
    string_columns: tuple[str, ...] = (),
    chunksize: int = DEFAULT_CHUNKSIZE,
) -> ChunkSource:
    """Open a file (CSV, TSV, their ``.gz``, Parquet) or a DataFrame for chunked reading.

    Parameters
    ----------
    path_or_frame : str, path-like or DataFrame
        What to import.
    string_columns : tuple of str
        Columns read as text whatever they look like (dataset and algorithm names...), so that
        a dataset called ``"061"`` is not read as the number 61.
    chunksize : int
        Rows per chunk.

    Raises
    ------
    ImportRejectedError
        The file is missing, unreadable or of an unsupported type.
    """
    import pandas as pd

    if isinstance(path_or_frame, pd.DataFrame):
        frame = path_or_frame

        def frames():
            for start in range(0, max(len(frame), 1), chunksize):
                yield frame.iloc[start : start + chunksize]

        columns = [str(c).strip() for c in frame.columns]
        return ChunkSource(
            "<DataFrame>", "frame", columns, len(frame), frames, _duplicated(columns)
        )

    if not isinstance(path_or_frame, (str, os.PathLike)):
        raise ImportRejectedError(
            f"cannot import a {type(path_or_frame).__name__}: give a file path or a pandas DataFrame"
        )
    path = Path(path_or_frame)
    label = str(path)
    if not path.is_file():
        raise ImportRejectedError(f"{label}: no such file")
    suffix, compression = _split_suffix(path)
    try:
        if suffix in (".parquet", ".pq") and compression is None:
            return _parquet_source(path, label, chunksize)
        if suffix in _TEXT_SEPARATORS:
            return _text_source(path, label, _TEXT_SEPARATORS[suffix], string_columns, chunksize)
    except ImportRejectedError:
        raise
    except Exception as exc:
        raise _unreadable(label, exc) from None
    raise ImportRejectedError(
        f"{label}: unsupported file type {''.join(path.suffixes) or '(none)'}; "
        f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
    )


#: pandas' default missing-value strings (documented with ``read_csv``'s ``na_values``):
#: missing in every column but the name columns (a dataset may be called "NA").
#: Columns whose values name a dataset or an algorithm: only an empty cell is missing there.
_NAME_COLUMNS = frozenset({"dataset", "algorithm", "name"})
_DEFAULT_NA = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip


#: What an import's report says of a first column without a name, left out.
ROW_NAMES_NOTE = "left out the unnamed first column (row names, as R's write.csv writes them)"
#: The column of the empty field after a separator ending every data row.
_TRAILING = "\x00trailing"


def _text_source(path, label, sep, string_columns, chunksize) -> ChunkSource:
    import pandas as pd

    _check_utf8(path, label)
    header = pd.read_csv(path, sep=sep, nrows=0, compression="infer")
    columns = [str(c).strip() for c in header.columns]
    if sep == "," and len(columns) == 1 and ";" in columns[0]:
        raise ImportRejectedError(
            f"{label}, line 1: the header is one field holding ';' ({columns[0][:60]!r}): the "
            "file looks separated by semicolons, as spreadsheets write CSV where the decimal "
            "mark is a comma; save it with ',' between fields and '.' in numbers, or as TSV"
        )
    raw_names = {str(c).strip(): c for c in header.columns}
    # the header as written: pandas renames repeated names (x, x.1), so read it as data
    first = pd.read_csv(path, sep=sep, nrows=1, header=None, dtype=str, compression="infer")
    written = [] if first.empty else first.iloc[0].fillna("").tolist()
    # a first column without a name holds row names (R's write.csv, pandas' to_csv with its
    # index): left out, not imported as a metric
    row_names = bool(written) and not str(written[0]).strip()
    notes = []
    if row_names:
        notes.append(ROW_NAMES_NOTE)
        columns = columns[1:]
    dtype = {raw_names[c]: str for c in string_columns if c in raw_names}
    # names are text, "NA" and "None" included; only an empty cell is missing there (in
    # other text columns, such as an error or a source, "NA" is missing as R writes it)
    na_values = {
        raw: [""] if str(raw).strip() in _NAME_COLUMNS & set(string_columns) else list(_DEFAULT_NA)
        for raw in header.columns
    }
    trailing = trailing_separator(path, len(header.columns), sep=sep, compression="infer")
    if isinstance(trailing, str):
        raise ImportRejectedError(f"{label}, line 2: {trailing}")
    _check_last_line(path, label, sep, len(header.columns))

    _PRECISION = exact_floats()  # exact floats keep run keys, and re-imports, identical

    names = None
    if trailing:  # the empty last field gets a column of its own, checked empty, dropped
        names = [*header.columns, _TRAILING]
        dtype[_TRAILING] = str
        na_values[_TRAILING] = [""]

    def frames():
        try:
            reader = pd.read_csv(
                path,
                sep=sep,
                chunksize=chunksize,
                compression="infer",
                dtype=dtype,
                keep_default_na=False,
                na_values=na_values,
                header=0,
                names=names,
                **_PRECISION,
                skipinitialspace=True,
            )
            with reader:
                for chunk in reader:
                    if trailing:
                        filled = chunk[_TRAILING].notna().to_numpy()
                        if filled.any():
                            at = int(filled.argmax())
                            raise ImportRejectedError(
                                f"{label}, line {int(chunk.index[at]) + 2}: "
                                f"{len(header.columns) + 1} fields, the header names "
                                f"{len(header.columns)} (extra: {chunk[_TRAILING].iloc[at]!r})"
                            )
                        chunk = chunk.drop(columns=_TRAILING)
                    yield chunk.iloc[:, 1:] if row_names else chunk
        except _read_errors() as exc:
            raise _unreadable(label, exc) from None

    return ChunkSource(
        label, "text", columns, None, frames, _duplicated(written[row_names:]), notes
    )


def _check_utf8(path: Path, label: str) -> None:
    """Refuse a file that is not UTF-8 text, naming the line of its first foreign byte."""
    from metarec._files import NOT_UTF8, non_utf8

    found = non_utf8(path)
    if found is not None:
        line, byte, encoding = found
        raise ImportRejectedError(
            f"{label}, line {line}: " + NOT_UTF8.format(byte=byte, encoding=encoding)
        )


def _check_last_line(path: Path, label: str, sep: str, n_header: int) -> None:
    """Refuse an uncompressed file cut off in its last row (fewer fields, no final newline)."""
    import csv

    if _split_suffix(path)[1] is not None:
        return  # compressed: a cut-off archive fails to decompress instead
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(max(0, size - (1 << 16)))
        tail = handle.read()
    if not tail or tail.endswith((b"\n", b"\r")) or b"\n" not in tail:
        return
    last = tail.rsplit(b"\n", 1)[1].decode("utf-8", errors="replace")
    fields = next(csv.reader([last], delimiter=sep), [])
    if 0 < len(fields) < n_header:
        raise ImportRejectedError(
            f"{label}: the last line has {len(fields)} of the header's {n_header} fields and "
            "no line end: the file looks cut off"
        )


def _parquet_source(path, label, chunksize) -> ChunkSource:
    import pyarrow.parquet as pq

    handle = pq.ParquetFile(path)
    columns = [str(c).strip() for c in handle.schema_arrow.names]

    def frames():
        for batch in handle.iter_batches(batch_size=chunksize):
            yield _plain_columns(batch.to_pandas(), label)

    return ChunkSource(
        label, "parquet", columns, handle.metadata.num_rows, frames, _duplicated(columns)
    )
