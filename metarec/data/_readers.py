"""Readers turning a file, an OpenML id or a scikit-learn dataset name into a DataFrame."""

from __future__ import annotations

import csv
import gzip
import os
import re
from pathlib import Path

import pandas as pd

from metarec._files import exact_floats, open_decompressed, trailing_separator
from metarec.exceptions import DataError

__all__ = [
    "read_file",
    "check_unique_columns",
    "fetch_openml_frame",
    "load_sklearn_frame",
    "SKLEARN_DATASETS",
]

#: Missing-value spellings accepted in text files besides pandas' defaults (UCI / ARFF "?").
NA_VALUES = ["?"]

#: scikit-learn bundled datasets (no network needed) -> loader function name.
SKLEARN_DATASETS = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
    "diabetes": "load_diabetes",
}


def _suffixes(path: Path) -> tuple[str, bool]:
    """The format suffix of ``path`` (".csv", ".tsv", ...) and whether it is gzip-compressed."""
    suffixes = [s.lower() for s in path.suffixes]
    compressed = bool(suffixes) and suffixes[-1] in (".gz", ".gzip")
    if compressed:
        suffixes = suffixes[:-1]
    return (suffixes[-1] if suffixes else ""), compressed


#: Suffixes read by :func:`read_file` (each text format also as ``.gz``).
TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".data", ".dat")
SUPPORTED = (
    "CSV (.csv), TSV (.tsv), text with a sniffed separator (.txt, .data, .dat), ARFF (.arff), "
    "each optionally .gz; Parquet (.parquet)"
)


def check_unique_columns(names, where: str) -> None:
    """Raise :class:`DataError` when a column name occurs more than once, naming it.

    pandas would rename the second ``label`` to ``label.1`` and carry on; a duplicated name
    is ambiguous (which one is the target?), so it is refused.
    """
    names = [str(n) for n in names]
    seen: dict[str, list[int]] = {}
    for position, name in enumerate(names, start=1):
        seen.setdefault(name, []).append(position)
    repeated = {name: where_ for name, where_ in seen.items() if len(where_) > 1}
    if repeated:
        parts = "; ".join(
            f"{name!r} at columns {', '.join(str(p) for p in positions)}"
            for name, positions in repeated.items()
        )
        raise DataError(
            f"{where}: duplicated column name(s): {parts}; rename them so that each column "
            "has its own name"
        )


#: An ARFF ``date`` attribute (not read by liac-arff): read as a string attribute.
_ARFF_DATE = re.compile(
    r"""^(\s*@attribute\s+(?:'[^']*'|"[^"]*"|\S+)\s+)date\b.*$""", re.IGNORECASE | re.MULTILINE
)


def _read_arff(path: Path, compressed: bool) -> pd.DataFrame:
    import arff  # liac-arff

    opener = gzip.open if compressed else open
    _check_utf8(path)
    with opener(path, "rt", encoding="utf-8-sig") as handle:  # a byte-order mark is skipped
        text = handle.read()
    # dates are kept as their text (a categorical feature), as liac-arff has no date type
    decoded = arff.loads(_ARFF_DATE.sub(r"\1string", text))
    names = [name for name, _ in decoded["attributes"]]
    check_unique_columns(names, str(path))
    frame = pd.DataFrame(decoded["data"], columns=names)
    for name, kind in decoded["attributes"]:
        if isinstance(kind, str) and kind.upper() in ("NUMERIC", "REAL", "INTEGER"):
            frame[name] = pd.to_numeric(frame[name], errors="coerce")
    return frame


def _read_text(path: Path, fmt: str) -> pd.DataFrame:
    if fmt == ".tsv":
        sep: str | None = "\t"
    elif fmt == ".csv":
        sep = ","
    else:  # .txt, .data, no suffix: sniffed from the first line
        sep = _sniffed_separator(path)
    kwargs = {"sep": sep, "na_values": NA_VALUES, "compression": "infer"}
    if sep is None:
        kwargs["engine"] = "python"  # pandas sniffs again, and says what it cannot tell
    else:  # floats exactly as written (the frame's own fingerprint)
        kwargs.update(exact_floats())
    # the header as written: pandas renames a repeated name ("label" -> "label.1")
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **kwargs)
    if sep == "," and header.shape[1] == 1 and ";" in str(header.iloc[0, 0]):
        # a spreadsheet's "CSV" in a locale whose decimal mark is the comma: ";" separates
        kwargs.update(_semicolon_dialect(path))
        header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **kwargs)
    elif sep == "," and header.shape[1] == 1 and "\t" in str(header.iloc[0, 0]):
        # a tab-separated file named .csv (as many tools export it): tabs separate
        kwargs["sep"] = "\t"
        header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, **kwargs)
    check_unique_columns(header.iloc[0].tolist() if len(header) else [], str(path))
    trailing = trailing_separator(path, header.shape[1], **kwargs)
    if isinstance(trailing, str):
        raise DataError(f"{path}, line 2: {trailing}")
    if trailing:
        _check_trailing_empty(path, header.shape[1], kwargs)
        kwargs["index_col"] = False
    return pd.read_csv(path, **kwargs)


def _sniffed_separator(path: Path) -> str | None:
    """The separator of a text file whose suffix names none, or None when it cannot be told.

    Sniffed from the first line as pandas' Python parser does (``sep=None``: the delimiter
    of :class:`csv.Sniffer`, the ``excel`` dialect otherwise), so that the file is read by
    the C parser, which (unlike the Python one before pandas 3) reads floats exactly.
    """
    with open_decompressed(path) as handle:
        first = handle.readline().decode("utf-8-sig", errors="replace")
    try:
        return csv.Sniffer().sniff(first).delimiter
    except csv.Error:
        return None


def _check_trailing_empty(path: Path, n_header: int, kwargs: dict) -> None:
    """Refuse a value after the separator that ends every data row, naming its line: read
    as the header names the columns, pandas would drop it."""
    options = {k: v for k, v in kwargs.items() if k != "na_values"}
    # (a row with more fields still is refused by the read itself, which names its line);
    # blank lines are kept as rows, so that a row's position is its line (but for line
    # breaks inside quoted fields)
    last = pd.read_csv(
        path, header=None, skiprows=1, names=list(range(n_header + 1)), usecols=[n_header],
        dtype=str, keep_default_na=False, skip_blank_lines=False, **options,
    )[n_header]  # fmt: skip
    filled = last.fillna("").str.strip().to_numpy() != ""
    if filled.any():
        at = int(filled.argmax())
        raise DataError(
            f"{path}, line {at + 2}: {n_header + 1} fields, the header names {n_header} "
            f"(extra: {last.iloc[at]!r})"
        )


def _check_utf8(path: Path) -> None:
    """Refuse a file that is not UTF-8 text, naming the line of its first foreign byte."""
    from metarec._files import NOT_UTF8, non_utf8

    found = non_utf8(path)
    if found is not None:
        line, byte, encoding = found
        raise DataError(f"{path}, line {line}: " + NOT_UTF8.format(byte=byte, encoding=encoding))


def _semicolon_dialect(path: Path) -> dict:
    """``sep=";"``, and ``decimal=","`` when the first rows write numbers as ``1,5``."""
    sample = pd.read_csv(
        path, sep=";", nrows=50, dtype=str, keep_default_na=False, compression="infer"
    )
    values = pd.Series(sample.to_numpy().ravel().astype(str))
    comma_decimal = bool(values.str.fullmatch(r"-?\d+,\d+").any())
    return {"sep": ";", "decimal": "," if comma_decimal else "."}


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    check_unique_columns(schema.names, str(path))
    nested = [f for f in schema if pa.types.is_nested(f.type)]
    if nested:
        raise DataError(
            f"{path}: column {nested[0].name!r} holds {nested[0].type} (lists or records); "
            "a data column holds numbers, text, booleans or categories, one value a cell"
        )
    return pd.read_parquet(path)


def read_file(path: str | os.PathLike) -> pd.DataFrame:
    """Read CSV, TSV, ARFF (each optionally ``.gz``) or Parquet into a DataFrame.

    The format is chosen by the suffix; ``.txt``, ``.data``, ``.dat`` and no suffix are text
    whose separator is sniffed.  Any other suffix (``.json``, ``.xlsx``, ...) is refused.

    Raises
    ------
    DataError
        The file does not exist, is a directory, has an unsupported suffix, repeats a column
        name in its header, or cannot be parsed (the message names the path and the parser's
        complaint).
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a data file")
    fmt, compressed = _suffixes(path)
    if fmt not in (*TEXT_SUFFIXES, ".arff", ".parquet", ".pq", "") or (
        compressed and fmt in (".parquet", ".pq")
    ):
        shown = fmt + (".gz" if compressed else "")
        raise DataError(f"{path}: unsupported format {shown!r} (supported: {SUPPORTED})")
    try:
        if fmt in (".parquet", ".pq"):
            return _read_parquet(path)
        if fmt == ".arff":
            return _read_arff(path, compressed)
        _check_utf8(path)
        return _read_text(path, fmt)
    except pd.errors.EmptyDataError as exc:
        raise DataError(f"{path} has no rows (empty file)") from exc
    except DataError:  # already names the file and the problem
        raise
    except (
        pd.errors.ParserError,
        UnicodeDecodeError,
        gzip.BadGzipFile,
        EOFError,
        OSError,
        ValueError,
        ImportError,
    ) as exc:
        raise DataError(f"cannot read {path}: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # liac-arff's own errors do not share a useful base class
        if type(exc).__module__.startswith("arff"):
            raise DataError(f"cannot read {path}: invalid ARFF: {exc}") from exc
        raise


def fetch_openml_frame(dataset_id: int) -> tuple[pd.DataFrame, str | None, str]:
    """Download an OpenML dataset: ``(frame with the target column, default target, name)``.

    The only function of the loader that touches the network, through the OpenML adapter
    (:class:`metarec.ingest.OpenMLClient`, the one module that imports ``openml``).
    """
    from metarec._openml import OpenMLClient
    from metarec.exceptions import OpenMLError

    try:
        return OpenMLClient().dataset_frame(dataset_id)
    except OpenMLError as exc:
        raise DataError(f"cannot fetch openml:{dataset_id}: {exc}") from exc


def load_sklearn_frame(name: str) -> pd.DataFrame:
    """One of scikit-learn's bundled datasets as a frame whose label column is ``target``.

    Class labels are replaced by the class names scikit-learn ships (``setosa``, ...).
    """
    loader_name = SKLEARN_DATASETS.get(name)
    if loader_name is None:
        known = ", ".join(sorted(SKLEARN_DATASETS))
        raise DataError(f"unknown scikit-learn dataset {name!r}; available: {known}")
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, loader_name)(as_frame=True)
    frame = bunch.frame.copy()
    target_names = getattr(bunch, "target_names", None)
    if target_names is not None and loader_name != "load_diabetes":
        labels = pd.Series(list(target_names), dtype="object")
        frame["target"] = labels.iloc[frame["target"].to_numpy()].to_numpy()
    return frame
