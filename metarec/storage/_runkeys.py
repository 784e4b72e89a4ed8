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
keys).  The occurrence index counts earlier identical rows of the same import; the counter
keeps 16 bytes per distinct row (a few sorted numpy arrays), the only per-row state an
import holds across chunks.

The stored key is one signed 64-bit integer (``BIGINT``; since schema revision 0004):

* a hashed run (revision 0005): ``mix(h1 XOR mix(h2 + k * M))`` (modulo ``2**64``; ``k`` the
  occurrence index, ``M`` an odd constant, so the occurrences of one content get distinct
  keys; ``mix`` the 64-bit finaliser of MurmurHash3, a bijection that spreads every input
  bit over the output);
* a named run: the two halves of ``blake2b("n:<name>", 16 bytes)`` XORed, where the name is
  ``<source>:<source_run_id>`` followed by `` | <machine>`` when the run names the machine that
  measured it (:func:`run_names`).

Why the key is mixed and why it is one integer: the design notes of the documentation
(*Run keys*).

The keys of the earlier revisions (the text keys of 0001, the 16-byte keys of 0002, the
folded integers of 0004) are converted by the migrations with the frozen copy of this
module of revision 0005 (:mod:`metarec.storage.migrations.frozen.runkeys_0005`); migration
0005 then recomputes every hashed key from the stored run (:func:`run_keys`), so a
migrated knowledge base recognises its runs.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = [
    "MACHINE_SEPARATOR",
    "STRING_FIELDS",
    "NUMBER_FIELDS",
    "OccurrenceCounter",
    "content_hashes",
    "run_keys",
    "named_key",
    "run_names",
    "fold",
]

#: What joins a named run's ``<source>:<source_run_id>`` and its machine in the run's name.
MACHINE_SEPARATOR = " | "
STRING_FIELDS = ("dataset", "algorithm", "protocol", "status", "source", "source_run_id", "error")
NUMBER_FIELDS = ("seed", "fold", "accuracy", "fit_time", "predict_time")

_KEY1 = "metarec-runkey-1"  # hash_array needs 16-character keys
_KEY2 = "metarec-runkey-2"
_PRIME = np.uint64(1099511628211)
#: Multiplier of the occurrence index in the second half of a hashed key (odd, 64-bit).
_OCCURRENCE = np.uint64(0x9E3779B97F4A7C15)


def _name_constant(name: str) -> np.uint64:
    digest = hashlib.sha256(name.encode("utf8")).digest()
    return np.uint64(int.from_bytes(digest[:8], "little") | 1)


def _string_hashes(series, keys) -> list[np.ndarray]:
    """``[_hash(values as text, missing as "", key) for key in keys]``, hashing each distinct
    string once (the same values: ``hash_array`` hashes every string on its own)."""
    import pandas as pd

    values = series.astype(object).to_numpy(dtype=object)
    if len(values) and values.tolist().count(None) == len(values):  # an absent column
        return [np.full(len(values), _hash(np.array([""], dtype=object), key)[0]) for key in keys]
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    distinct = np.empty(len(uniques) + 1, dtype=object)
    distinct[:-1] = np.asarray(uniques, dtype=object).astype(str)
    distinct[-1] = ""  # a missing string hashes as the empty one (code -1 takes it)
    return [_hash(distinct, key)[codes] for key in keys]


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
    by_field = [_string_hashes(frame[f], (_KEY1, _KEY2)) for f in STRING_FIELDS]
    strings = {_KEY1: [h[0] for h in by_field], _KEY2: [h[1] for h in by_field]}
    numbers = [_float_values(frame[field]) for field in NUMBER_FIELDS]
    metrics = [(m, _float_values(frame[m])) for m in sorted(metric_columns)]
    out = []
    for key in (_KEY1, _KEY2):
        h = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for hashed in strings[key]:
                h = h * _PRIME + hashed
            for values in numbers:
                h = h * _PRIME + _hash(values, key)
            for metric, values in metrics:
                present = ~np.isnan(values)
                contribution = _hash(values, key) * _name_constant(metric + key)
                h = h + np.where(present, contribution, np.uint64(0))
        out.append(h)
    return out[0], out[1]


def named_key(text: str) -> int:
    """The key of a run named ``text`` (see :func:`run_names`)."""
    return fold(_named_bytes(text))


def run_names(source, source_run_id, machine=None) -> np.ndarray:
    """The names of named runs: ``<source>:<source_run_id>``, then `` | <machine>`` if any.

    Parameters
    ----------
    source, source_run_id : array-like of str
        The runs' origin and their id there (both non-empty).
    machine : array-like of str or None, optional
        The machine that measured each run; missing or empty: none.

    Returns
    -------
    ndarray of object
        One name per run.

    Notes
    -----
    Benchmark runs stored before schema revision 0006 held their machine in
    ``source_run_id`` after :data:`MACHINE_SEPARATOR`, and their key is the key of that
    text; the machine's own column keeps the same name, so a run keeps its key across the
    upgrade and two measurements of one fold on two machines stay two runs.
    """
    import pandas as pd

    names = np.array(
        [f"{s}:{r}" for s, r in zip(source, source_run_id, strict=True)] + [None], dtype=object
    )[:-1]
    if machine is None:
        return names
    machine = np.asarray(machine, dtype=object)
    has = ~pd.isna(machine)
    if has.any():
        has[has] = np.char.str_len(machine[has].astype(str)) > 0
        names[has] = names[has] + MACHINE_SEPARATOR + machine[has].astype(str)
    return names


def fold(key: bytes) -> int:
    """The integer key of a 16-byte key: its two big-endian 64-bit halves XORed, as a signed
    64-bit integer (SQL ``BIGINT``)."""
    value = int.from_bytes(key[:8], "big") ^ int.from_bytes(key[8:16], "big")
    return value - (1 << 64) if value >= 1 << 63 else value


def _mix(values: np.ndarray) -> np.ndarray:
    """The 64-bit finaliser of MurmurHash3 (``fmix64``), element-wise on uint64 (a bijection).

    References
    ----------
    Appleby, A. (2011). MurmurHash3 (``fmix64``). https://github.com/aappleby/smhasher
    """
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xFF51AFD7ED558CCD)
    values = values ^ (values >> np.uint64(33))
    values = values * np.uint64(0xC4CEB9FE1A85EC53)
    return values ^ (values >> np.uint64(33))


def _hashed_keys(h1: np.ndarray, h2: np.ndarray, occurrence: np.ndarray) -> list[int]:
    """The integer keys of hashed runs (revision 0005, see the module docstring)."""
    with np.errstate(over="ignore"):
        low = _mix(h2 + occurrence.astype(np.uint64) * _OCCURRENCE)
        return _mix(h1 ^ low).view(np.int64).tolist()


def _named_bytes(text: str) -> bytes:
    return hashlib.blake2b(f"n:{text}".encode(), digest_size=16).digest()


class OccurrenceCounter:
    """Count, across the chunks of one import, how often each content hash was seen.

    The hashes seen are kept as a few sorted levels of (hash, count) arrays, a level merged
    into the one before it as soon as it is at least half its size (as in a log-structured
    merge tree): each chunk is one sorted search per level (at most ``log2`` of the chunks
    seen) and every hash is merged ``O(log n)`` times, so counting 10,000,000 rows stays
    ``O(n log n)``; a single sorted array grown by ``np.insert`` copied the whole array
    for every chunk, ``O(n**2 / chunk)``.
    """

    def __init__(self) -> None:
        self._levels: list[tuple[np.ndarray, np.ndarray]] = []

    def assign(self, hashes: np.ndarray) -> np.ndarray:
        """Return the 0-based occurrence index of each row and remember the chunk's rows."""
        hashes = np.asarray(hashes, dtype=np.uint64)
        if len(hashes) == 0:
            return np.empty(0, dtype=np.int64)
        order = np.argsort(hashes)  # numpy's default sort; only ties are reordered below
        ordered = hashes[order]
        first = np.concatenate([[True], ordered[1:] != ordered[:-1]])
        starts = np.flatnonzero(first)
        uniques = ordered[starts]
        group = np.cumsum(first) - 1
        if len(uniques) < len(hashes):  # equal hashes (few): their rows in row order
            sizes = np.diff(np.append(starts, len(ordered)))
            tied = np.flatnonzero(sizes[group] > 1)
            order[tied] = order[tied][np.lexsort((order[tied], group[tied]))]
        prior = np.zeros(len(uniques), dtype=np.int64)
        for keys, counts in self._levels:
            at = np.minimum(np.searchsorted(keys, uniques), len(keys) - 1)
            hit = keys[at] == uniques
            prior[hit] += counts[at[hit]]
        occurrence = np.empty(len(hashes), dtype=np.int64)
        occurrence[order] = prior[group] + (np.arange(len(ordered)) - starts[group])
        self._levels.append((uniques, np.diff(np.append(starts, len(ordered)))))
        while len(self._levels) > 1 and 2 * len(self._levels[-1][0]) >= len(self._levels[-2][0]):
            (k1, c1), (k2, c2) = self._levels.pop(-2), self._levels.pop()
            keys, counts = np.concatenate([k1, k2]), np.concatenate([c1, c2])
            merged = np.argsort(keys, kind="stable")
            keys, counts = keys[merged], counts[merged]
            head = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
            self._levels.append((keys[head], np.add.reduceat(counts, head)))
        return occurrence


def run_keys(
    frame, metric_columns, counter: OccurrenceCounter, *, named_keys: np.ndarray | None = None
) -> np.ndarray:
    """Return the integer ``run_key`` of every row of a normalised run frame (object array).

    Parameters
    ----------
    frame : DataFrame
        Normalised run rows.
    metric_columns : sequence of str
        The metric columns of the rows.
    counter : OccurrenceCounter
        The occurrences of the hashed rows met so far by the import; updated.
    named_keys : ndarray of int64, optional
        :func:`named_key` of the :func:`run_names` of each row, already computed; read only
        where the row is named (a non-empty ``source`` and ``source_run_id``).
        Without it the named keys are computed here.

    Returns
    -------
    ndarray of object
        One Python ``int`` per row.
    """
    n = len(frame)
    keys = np.empty(n, dtype=object)
    import pandas as pd

    source = frame["source"].astype(object).to_numpy(dtype=object)
    run_id = frame["source_run_id"].astype(object).to_numpy(dtype=object)
    named = ~pd.isna(source) & ~pd.isna(run_id)
    if named.any():  # a run named by its origin: both texts non-empty
        source = np.where(named, source, "").astype(str)
        run_id = np.where(named, run_id, "").astype(str)
        named = (np.char.str_len(source) > 0) & (np.char.str_len(run_id) > 0)
    if named.any() and named_keys is not None:
        keys[named] = np.asarray(named_keys, dtype=np.int64)[named].tolist()
    elif named.any():
        machine = frame["machine"].to_numpy(dtype=object) if "machine" in frame else None
        names = run_names(source[named], run_id[named], None if machine is None else machine[named])
        keys[named] = [named_key(name) for name in names]
    hashed = ~named
    if hashed.any():
        sub = frame if hashed.all() else frame.loc[hashed]
        h1, h2 = content_hashes(sub, metric_columns)
        occurrence = counter.assign(h1)
        keys[hashed] = _hashed_keys(h1, h2, occurrence)
    return keys
