"""The natural key of a run, computed for a whole chunk of rows at once.

See :mod:`metarec.storage._models` for the rule.  Keys are computed from the *normalised*
row (status inferred, ``fit_time`` folded into ``time``, defaults applied), so the same run
read from a CSV file, a Parquet file, a DataFrame or an export of the knowledge base gets the
same key:

* strings are compared as text, a missing string and an empty string are the same;
* numbers are compared as float64 (``1`` and ``1.0`` are the same seed);
* metric columns enter with their name and only where they have a value, so a file with an
  extra, empty metric column gives the same keys.

The content hash is 128 bits (two 64-bit ``pandas.util.hash_array`` hashes with different
keys), so two different runs share a key with probability about ``n**2 / 2**129``.  The
occurrence index counts earlier identical rows of the same import; the counter keeps 16
bytes per distinct row (a sorted numpy array), the only per-row state an import holds
across chunks.
"""

from __future__ import annotations

import binascii
import hashlib

import numpy as np

__all__ = ["STRING_FIELDS", "NUMBER_FIELDS", "OccurrenceCounter", "content_hashes", "run_keys"]

STRING_FIELDS = ("dataset", "algorithm", "protocol", "status", "source", "source_run_id", "error")
NUMBER_FIELDS = ("seed", "fold", "accuracy", "fit_time", "predict_time")

_KEY1 = "metarec-runkey-1"  # hash_array needs 16-character keys
_KEY2 = "metarec-runkey-2"
_PRIME = np.uint64(1099511628211)


def _name_constant(name: str) -> np.uint64:
    digest = hashlib.sha256(name.encode("utf8")).digest()
    return np.uint64(int.from_bytes(digest[:8], "little") | 1)


def _string_values(series) -> np.ndarray:
    values = series.astype(object).to_numpy(dtype=object, na_value="")
    return values.astype(str).astype(object)


def _float_values(series) -> np.ndarray:
    values = series.astype("float64").to_numpy(dtype="float64", na_value=np.nan)
    values = values + 0.0  # -0.0 -> 0.0
    values[np.isnan(values)] = np.nan  # one NaN bit pattern
    return values


def _hash(values: np.ndarray, key: str) -> np.ndarray:
    import pandas as pd

    return pd.util.hash_array(values, hash_key=key, categorize=True)


def content_hashes(frame, metric_columns) -> tuple[np.ndarray, np.ndarray]:
    """Return two uint64 hashes per row of a normalised run frame."""
    n = len(frame)
    strings = [_string_values(frame[field]) for field in STRING_FIELDS]
    numbers = [_float_values(frame[field]) for field in NUMBER_FIELDS]
    metrics = [(m, _float_values(frame[m])) for m in sorted(metric_columns)]
    out = []
    for key in (_KEY1, _KEY2):
        h = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for values in strings:
                h = h * _PRIME + _hash(values, key)
            for values in numbers:
                h = h * _PRIME + _hash(values, key)
            for metric, values in metrics:
                present = ~np.isnan(values)
                contribution = _hash(values, key) * _name_constant(metric + key)
                h = h + np.where(present, contribution, np.uint64(0))
        out.append(h)
    return out[0], out[1]


def _hex(values: np.ndarray) -> np.ndarray:
    raw = binascii.hexlify(values.astype(">u8").tobytes())
    return np.frombuffer(raw, dtype="S16").astype(str)


class OccurrenceCounter:
    """Count, across the chunks of one import, how often each content hash was seen."""

    def __init__(self) -> None:
        self._keys = np.empty(0, dtype=np.uint64)
        self._counts = np.empty(0, dtype=np.int64)

    def assign(self, hashes: np.ndarray) -> np.ndarray:
        """Return the 0-based occurrence index of each row and remember the chunk's rows."""
        import pandas as pd

        if len(hashes) == 0:
            return np.empty(0, dtype=np.int64)
        codes, uniques = pd.factorize(hashes)
        uniques = np.asarray(uniques, dtype=np.uint64)
        within = pd.Series(codes).groupby(codes).cumcount().to_numpy()
        idx = np.minimum(np.searchsorted(self._keys, uniques), max(len(self._keys) - 1, 0))
        found = self._keys[idx] == uniques if len(self._keys) else np.zeros(len(uniques), bool)
        prior = np.zeros(len(uniques), dtype=np.int64)
        prior[found] = self._counts[idx[found]]
        occurrence = prior[codes] + within
        chunk_counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
        self._counts[idx[found]] += chunk_counts[found]
        fresh = ~found
        # merge the new hashes into the sorted arrays in place of a full re-sort
        order = np.argsort(uniques[fresh])
        new_keys, new_counts = uniques[fresh][order], chunk_counts[fresh][order]
        at = np.searchsorted(self._keys, new_keys)
        self._keys = np.insert(self._keys, at, new_keys)
        self._counts = np.insert(self._counts, at, new_counts)
        return occurrence


def run_keys(frame, metric_columns, counter: OccurrenceCounter) -> np.ndarray:
    """Return the ``run_key`` of every row of a normalised run frame (object array of str)."""
    n = len(frame)
    keys = np.empty(n, dtype=object)
    source = frame["source"].astype(object).to_numpy(dtype=object, na_value="").astype(str)
    run_id = frame["source_run_id"].astype(object).to_numpy(dtype=object, na_value="").astype(str)
    named = (np.char.str_len(source) > 0) & (np.char.str_len(run_id) > 0)
    if named.any():
        keys[named] = np.char.add(np.char.add(source[named], ":"), run_id[named])
    hashed = ~named
    if hashed.any():
        sub = frame.loc[hashed]
        h1, h2 = content_hashes(sub, metric_columns)
        occurrence = counter.assign(h1).astype(str)
        text = np.char.add(np.char.add("h:", _hex(h1)), _hex(h2))
        keys[hashed] = np.char.add(np.char.add(text, ":"), occurrence)
    return keys
