"""Runs named by their origin, stored or repeated with other values: conflicts to decide.

See the "Conflicts" section of :mod:`metarec.storage._importers`.  A run named by its origin
(``source:source_run_id``) keeps its key whatever its values, so a second row under the same
key with *other* values is a decision to take (``on_conflict``), never silently dropped.

Every step works on whole chunks (numpy arrays, one set of SQL look-ups per chunk); only the
rows with a problem or a replacement note have their messages built one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metarec.storage._models import STORED_RUN_COLUMNS
from metarec.storage._readers import ChunkSource
from metarec.storage._runkeys import (
    NUMBER_FIELDS,
    STRING_FIELDS,
    content_hashes,
    named_key,
    run_names,
)
from metarec.storage._runrows import _variable_limit
from metarec.storage._validation import _plain

__all__ = ["CONFLICT_CHOICES", "Examined", "replace_runs"]

#: What an import does with a run stored (or repeated) under the same key with other values.
CONFLICT_CHOICES = ("error", "keep", "replace")
#: At most this many replacements are noted one by one.
MAX_NOTES = 1000
#: Run keys bound per look-up statement of stored runs.
LOOKUP_BATCH = 5000


_COMPARED = (
    "dataset", "algorithm", "protocol", "seed", "fold", "status", "accuracy", "fit_time",
    "predict_time", "error",
)  # fmt: skip
#: The columns of ``runs`` read for a stored named run.
_FETCHED = (
    "id", "run_key", "dataset_id", "algorithm_id", "protocol", "seed", "fold", "status",
    "accuracy", "fit_time", "predict_time", "source", "source_run_id", "error", "machine",
)  # fmt: skip
#: The columns of a stored named run compared with a row of the input.
_STORED_NAMES = (
    "id", "run_key", "dataset_id", "algorithm_id", "dataset", "algorithm", "protocol",
    "seed", "fold", "status", "accuracy", "fit_time", "predict_time", "source",
    "source_run_id", "error", "machine",
)  # fmt: skip


@dataclass
class Examined:
    """What :meth:`_Conflicts.examine` decided for the rows of one chunk.

    Attributes
    ----------
    drop : ndarray of bool
        Rows not to insert (kept or superseded on a conflict, or replacing a stored run:
        those are written by :func:`replace_runs`).
    replace : list of tuple
        Stored runs to overwrite, in row order: ``(row position, stored id, stored
        dataset_id, stored algorithm_id)``.
    present : ndarray of bool
        Named rows identical to the run stored under their key: nothing to write.
    codes : ndarray of int64
        The integer run key of every row with a ``source`` and a ``source_run_id``
        (:func:`metarec.storage._runkeys.named_key` of its name,
        :func:`metarec.storage._runkeys.run_names`; 0 elsewhere), for
        :func:`metarec.storage._runkeys.run_keys`.
    """

    drop: np.ndarray
    replace: list
    present: np.ndarray
    codes: np.ndarray


class _Seen:
    """The named runs met so far in one import, by integer key.

    For each key: the name (``source:source_run_id`` text) of the first row met under it,
    and the content hashes and 0-based input position of the row that stands for the key
    now.  Kept as a few sorted levels of numpy arrays, a level merged into the one before
    it as soon as it is at least half its size (as
    :class:`metarec.storage._runkeys.OccurrenceCounter`): a chunk costs one sorted search
    per level, and about 40 bytes plus the name's text per key.
    """

    _FIELDS = ("name", "h1", "h2", "at")

    def __init__(self) -> None:
        self._levels: list[dict[str, np.ndarray]] = []

    def find(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(level, index)`` of each key (``level`` -1 where the key is new)."""
        level = np.full(len(codes), -1, dtype=np.int64)
        index = np.zeros(len(codes), dtype=np.int64)
        for number, stored in enumerate(self._levels):
            keys = stored["code"]
            at = np.minimum(np.searchsorted(keys, codes), len(keys) - 1)
            hit = keys[at] == codes  # a key is in one level only
            level[hit] = number
            index[hit] = at[hit]
        return level, index

    def get(self, field: str, level: np.ndarray, index: np.ndarray, fill) -> np.ndarray:
        """The ``field`` of each found key; ``fill`` where ``level`` is -1."""
        dtype = object if field == "name" else (np.int64 if field == "at" else np.uint64)
        out = np.full(len(level), fill, dtype=dtype)
        for number, stored in enumerate(self._levels):
            mine = level == number
            out[mine] = stored[field][index[mine]]
        return out

    def set(self, level: np.ndarray, index: np.ndarray, **fields: np.ndarray) -> None:
        """Overwrite fields of found keys (every ``level`` must be >= 0)."""
        for number, stored in enumerate(self._levels):
            mine = level == number
            for field, values in fields.items():
                stored[field][index[mine]] = values[mine]

    def add(self, codes: np.ndarray, **fields: np.ndarray) -> None:
        """Remember new, distinct keys (none of them met before) with all their fields."""
        if not len(codes):
            return
        order = np.argsort(codes)
        self._levels.append(
            {"code": codes[order], **{f: np.asarray(fields[f])[order] for f in self._FIELDS}}
        )
        while len(self._levels) > 1 and 2 * len(self._levels[-1]["code"]) >= len(
            self._levels[-2]["code"]
        ):
            newer, older = self._levels.pop(), self._levels.pop()
            both = {f: np.concatenate([older[f], newer[f]]) for f in older}
            order = np.argsort(both["code"])
            self._levels.append({f: values[order] for f, values in both.items()})


class _Conflicts:
    """Finds runs whose key (``source:source_run_id``) is repeated or stored with other values.

    A run named by its origin keeps its key whatever its values, so a second row under the
    same key with *other* values is a decision to take (``on_conflict``), never silently
    dropped.  The content of every named row is hashed as run keys are
    (:mod:`metarec.storage._runkeys`); two rows are the same run when their 128-bit content
    hashes are equal.  Names behind equal 64-bit keys are compared as text: a second name
    under a key is an invalid row (a hash coincidence), never taken for the first.

    The rows of a chunk are decided as if read one after the other: the first row of a key
    sets its name and stands for the key; a later row with other values is an invalid row
    (``"error"``: naming the row that stands for the key), left out (``"keep"``), or takes
    its place, the row it supersedes being left out if it is in the same chunk
    (``"replace"``).  The rows left are then compared with the runs stored under their keys
    (:meth:`_stored`).
    """

    def __init__(self, conn, tables, mode: str, reader: ChunkSource, metrics) -> None:
        self.conn, self.tables, self.mode, self.reader = conn, tables, mode, reader
        self.metrics = list(metrics)
        self.seen = _Seen()
        self.notes: list[str] = []
        self.kept = 0

    def examine(self, start: int, frame, checks) -> Examined:
        """Decide the named rows of one normalised chunk (rows starting at ``start``).

        Parameters
        ----------
        start : int
            0-based input position of the chunk's first row.
        frame : DataFrame
            The normalised chunk.
        checks : _Checks
            The chunk's failures: rows already invalid are left alone; a conflict (with
            ``"error"``) or a key coincidence fails its row here.

        Returns
        -------
        Examined
            Rows to drop, stored runs to replace, rows already stored, and the named keys.
        """
        import pandas as pd

        n = len(frame)
        out = Examined(
            np.zeros(n, dtype=bool), [], np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
        )
        source = frame["source"].to_numpy(dtype=object)
        run_id = frame["source_run_id"].to_numpy(dtype=object)
        named = ~pd.isna(source) & ~pd.isna(run_id) & ~checks.bad
        if not named.any():
            return out
        rows = np.flatnonzero(named)
        keys = run_names(source[rows], run_id[rows], frame["machine"].to_numpy(dtype=object)[rows])
        # one hash per name: hashlib has no batch form
        codes = np.fromiter((named_key(k) for k in keys), dtype=np.int64, count=len(keys))
        out.codes[rows] = codes
        h1, h2 = content_hashes(frame if len(rows) == n else frame.iloc[rows], self.metrics)
        level, index = self.seen.find(codes)
        met = level >= 0
        # rows of one key next to each other, in row order
        order = np.argsort(codes, kind="stable")
        head = np.ones(len(order), dtype=bool)
        head[1:] = codes[order][1:] != codes[order][:-1]
        first = np.empty(len(order), dtype=np.int64)
        first[order] = order[np.flatnonzero(head)][np.cumsum(head) - 1]
        # the name of each key: its first row's, in an earlier chunk or in this one
        owner = np.where(met, self.seen.get("name", level, index, None), keys[first])
        clash = keys != owner
        if clash.any():
            self._fail(checks, n, rows[clash], _collision, keys[clash], owner[clash])
        ok = np.flatnonzero(~clash)  # the first row of a new key is never a clash
        self._repeats(start, out.drop, checks, n, rows, ok, keys, codes, h1, h2, level, index)
        live = ~out.drop[rows] & ~checks.bad[rows]
        self._stored(start, frame, out, checks, rows[live], keys[live])
        return out

    def _repeats(self, start, drop, checks, n, rows, ok, keys, codes, h1, h2, level, index):
        """Compare the rows ``ok`` (positions in ``rows``) with the row standing for their key."""
        order = ok[np.argsort(codes[ok], kind="stable")]  # keys together, rows in order
        if not len(order):
            return
        key = codes[order]
        head = np.ones(len(order), dtype=bool)
        head[1:] = key[1:] != key[:-1]
        group = np.cumsum(head) - 1
        heads = np.flatnonzero(head)
        met = level[order] >= 0
        a, b = h1[order], h2[order]
        prior_a = self.seen.get("h1", level[order], index[order], 0)
        prior_b = self.seen.get("h2", level[order], index[order], 0)
        prior_at = self.seen.get("at", level[order], index[order], -1)
        here = start + rows[order]  # input positions
        new_heads = heads[~met[heads]]
        if self.mode != "replace":
            # the row standing for a key never changes: the first one met
            ref_a = np.where(met, prior_a, a[heads][group])
            ref_b = np.where(met, prior_b, b[heads][group])
            ref_at = np.where(met, prior_at, here[heads][group])
            other = ((a != ref_a) | (b != ref_b)) & ~(head & ~met)
            if self.mode == "error" and other.any():
                where, at = self.reader.where, ref_at[other]
                self._fail(
                    checks,
                    n,
                    rows[order[other]],
                    lambda k, first: (
                        f"run {k!r} appears again with other values (first at "
                        f"{where(int(first))}); choose with --on-conflict keep|replace"
                    ),
                    keys[order[other]],
                    at,
                )
            elif other.any():
                drop[rows[order[other]]] = True
                self.kept += int(other.sum())
        else:
            # each row with other values than the row before it (of its key) takes the
            # key's place; the row it supersedes is left out when it is in this chunk
            before_a = np.empty_like(a)
            before_b = np.empty_like(b)
            before_a[1:], before_b[1:] = a[:-1], b[:-1]
            before_a[head] = np.where(met[head], prior_a[head], a[head])
            before_b[head] = np.where(met[head], prior_b[head], b[head])
            change = (a != before_a) | (b != before_b)
            standing = change | (head & ~met)  # rows that stand for their key when met
            marker = np.where(change | head, np.arange(len(order)), -1)
            latest = np.maximum.accumulate(marker)  # the last such row up to each row
            superseded = latest[:-1][change[1:] & ~head[1:]]
            superseded = superseded[standing[superseded]]
            drop[rows[order[superseded]]] = True
            last = np.append(heads[1:], len(order)) - 1  # each key's last row
            final = latest[last]
            moved = met[heads] & change[final]
            if moved.any():
                f = final[moved]
                self.seen.set(level[order[f]], index[order[f]], h1=a[f], h2=b[f], at=here[f])
            new_heads = final[~met[heads]]
            self.seen.add(
                key[new_heads],
                name=keys[order[heads[~met[heads]]]],
                h1=a[new_heads],
                h2=b[new_heads],
                at=here[new_heads],
            )
            return
        self.seen.add(
            key[new_heads],
            name=keys[order[new_heads]],
            h1=a[new_heads],
            h2=b[new_heads],
            at=here[new_heads],
        )

    def _stored(self, start, frame, out: Examined, checks, rows, keys) -> None:
        """Compare ``rows`` with the runs stored under the same keys; fill ``out``.

        A run stored under a row's key with another name is a key coincidence (the row
        fails); with the same name and the same content (:func:`_same_content`) the row is
        present; with other content it is a conflict, decided by the mode.
        """
        if not len(rows):
            return
        codes = out.codes[rows]
        stored = self._fetch(np.unique(codes))
        if stored.empty:
            return
        stored_codes = stored["run_key"].to_numpy(dtype=np.int64)
        by_code = np.argsort(stored_codes)  # one stored named run per key (uq_runs_named_key)
        at = np.minimum(np.searchsorted(stored_codes[by_code], codes), len(by_code) - 1)
        which = by_code[at]
        hit = stored_codes[which] == codes
        rows, keys, which = rows[hit], keys[hit], which[hit]
        names = run_names(
            stored["source"].to_numpy(dtype=object),
            stored["source_run_id"].to_numpy(dtype=object),
            stored["machine"].to_numpy(dtype=object),
        )
        owner = names[which]
        clash = keys != owner  # another named run under the same 64-bit key
        if clash.any():
            self._fail(checks, len(frame), rows[clash], _collision, keys[clash], owner[clash])
        same = ~clash & _same_content(stored, which, frame, rows, self.metrics)
        out.present[rows[same & _nonempty(frame, rows)]] = True
        other = ~clash & ~same
        if not other.any():
            return
        rows, keys, which = rows[other], keys[other], which[other]
        metrics = self.metrics

        def change(row: int, i: int) -> str:
            return _differences(stored.iloc[i], frame.iloc[row], metrics)

        if self.mode == "error":
            sources = stored["source"].to_numpy(dtype=object)[which]
            self._fail(
                checks,
                len(frame),
                rows,
                lambda key, row, i, source: (
                    f"run {key!r} is already stored from source {_plain(source)} with other "
                    f"values ({change(int(row), int(i))}); choose with --on-conflict "
                    "keep|replace"
                ),
                keys,
                rows,
                which,
                sources,
            )
            return
        out.drop[rows] = True
        if self.mode == "keep":
            self.kept += len(rows)
            return
        ids = stored[["id", "dataset_id", "algorithm_id"]].to_numpy(dtype=np.int64)[which]
        out.replace.extend(zip(rows.tolist(), *ids.T.tolist(), strict=True))
        noted = max(0, MAX_NOTES - len(self.notes))
        for row, key, i in zip(rows[:noted], keys[:noted], which[:noted], strict=True):
            where = self.reader.where(start + int(row))
            self.notes.append(f"replaced run {key!r} ({where}): {change(int(row), int(i))}")

    def _fetch(self, codes: np.ndarray):
        """The stored named runs under the sorted, distinct ``codes``.

        Returns
        -------
        DataFrame
            One row per run found: the columns :data:`_STORED_NAMES` (numbers as float64,
            NaN where missing; texts as objects, ``None`` where missing), then one column per
            metric of the import (NaN where the run has no value).
        """
        import pandas as pd

        from metarec.storage._models import NAMED_RUN

        # the ids from the partial index alone, then the runs in id (table) order
        pairs = self._select("runs", ("id",), "run_key", codes.tolist(), NAMED_RUN)
        ids = np.sort(np.array([i for (i,) in pairs], dtype=np.int64))
        found = self._select("runs", _FETCHED, "id", ids.tolist())
        columns = list(zip(*found, strict=True)) if found else [()] * len(_FETCHED)
        data: dict[str, np.ndarray] = {}
        for name, values in zip(_FETCHED, columns, strict=True):
            if name in ("id", "run_key", "dataset_id", "algorithm_id"):
                data[name] = np.array(values, dtype=np.int64)
            elif name in ("seed", "fold", "accuracy", "fit_time", "predict_time"):
                data[name] = np.array(values, dtype=np.float64)  # None -> NaN
            else:
                data[name] = np.array(values, dtype=object)
        for table, name in (("datasets", "dataset"), ("algorithms", "algorithm")):
            # each distinct name once
            distinct, positions = np.unique(data[f"{name}_id"], return_inverse=True)
            known = dict(self._select(table, ("id", "name"), "id", distinct.tolist()))
            names = np.array([known[i] for i in distinct.tolist()] + [None], dtype=object)
            data[name] = names[:-1][positions]
        stored = pd.DataFrame({n: data[n] for n in _STORED_NAMES}, copy=False)
        values = {m: np.full(len(stored), np.nan) for m in self.metrics}
        if self.metrics and len(stored):
            ids = data["id"]  # sorted
            found = self._select(
                "run_metrics",
                ("run_id", "metric", "value"),
                "run_id",
                ids.tolist(),
                metrics=self.metrics,
            )
            if found:
                run, metric, value = zip(*found, strict=True)
                position = np.searchsorted(ids, np.array(run, dtype=np.int64))
                metric, value = np.array(metric, dtype=object), np.array(value, dtype=float)
                for name in self.metrics:
                    mine = metric == name
                    values[name][position[mine]] = value[mine]
        for name in self.metrics:
            stored[name] = values[name]
        return stored

    def _select(self, table: str, columns, key: str, values: list, *where, metrics=()) -> list:
        """Rows of ``SELECT columns FROM table WHERE [where AND] [metric IN metrics AND]
        key IN values`` as tuples; ``values`` bound in batches of :data:`LOOKUP_BATCH`
        (fewer when SQLite's limit on bound values needs).  On SQLite through the driver
        (plain tuples, no per-row result objects)."""
        found: list = []
        if not values:
            return found
        if self.conn.dialect.name == "sqlite":
            driver = self.conn.connection.driver_connection
            per = max(1, min(LOOKUP_BATCH, _variable_limit(driver) - len(metrics)))
            conditions = [*where]
            if metrics:
                conditions.append(f"metric IN ({', '.join(['?'] * len(metrics))})")
            head = f"SELECT {', '.join(columns)} FROM {table} WHERE "
            head += "".join(f"{c} AND " for c in conditions) + f"{key} IN "
            for first in range(0, len(values), per):
                part = values[first : first + per]
                cursor = driver.execute(
                    f"{head}({', '.join(['?'] * len(part))})", [*metrics, *part]
                )
                found.extend(cursor.fetchall())
                cursor.close()
            return found
        from sqlalchemy import select, text

        t = self.tables[table]
        conditions = [text(w) for w in where]
        if metrics:
            conditions.append(t.c.metric.in_(list(metrics)))
        for first in range(0, len(values), LOOKUP_BATCH):
            part = values[first : first + LOOKUP_BATCH]
            query = select(*(t.c[c] for c in columns)).where(*conditions, t.c[key].in_(part))
            found.extend(tuple(row) for row in self.conn.execute(query))
        return found

    @staticmethod
    def _fail(checks, n: int, positions: np.ndarray, message, *columns) -> None:
        """Fail the rows at ``positions``, each with ``message(*its values of columns)``."""
        slot = np.full(n, -1, dtype=np.int64)
        slot[positions] = np.arange(len(positions))
        mask = slot >= 0
        checks.fail(
            mask,
            "source_run_id",
            lambda i: message(*(column[slot[i]] for column in columns)),
        )


def _same_content(stored, which: np.ndarray, frame, rows: np.ndarray, metrics) -> np.ndarray:
    """Whether each stored run ``stored.iloc[which]`` has the content of ``frame.iloc[rows]``.

    The content is what a run key hashes (:func:`metarec.storage._runkeys.content_hashes`),
    compared field by field: texts as ``str`` with a missing one equal to ``""``; numbers as
    float64 with missing equal to missing; each metric of ``metrics`` missing in both or
    equal in both.
    """
    import pandas as pd

    same = np.ones(len(rows), dtype=bool)
    for name in STRING_FIELDS:
        old = _as_texts(stored[name].to_numpy(dtype=object)[which])
        new = _as_texts(frame[name].to_numpy(dtype=object)[rows])
        same &= old == new
    for name in (*NUMBER_FIELDS, *metrics):
        old = stored[name].to_numpy(dtype=np.float64)[which]
        new = pd.to_numeric(frame[name]).to_numpy(dtype=np.float64, na_value=np.nan)[rows]
        same &= (old == new) | (np.isnan(old) & np.isnan(new))
    return same


def _as_texts(values: np.ndarray) -> np.ndarray:
    """Objects as ``str`` (missing: ``""``), as a run's content hash takes them."""
    import pandas as pd

    out = values.copy()
    out[pd.isna(values)] = ""
    if pd.api.types.infer_dtype(out, skipna=False) not in ("string", "empty"):
        out = np.array([str(v) for v in out] + [None], dtype=object)[:-1]  # not only texts
    return out


def _nonempty(frame, rows: np.ndarray) -> np.ndarray:
    """Whether the ``source`` and ``source_run_id`` of ``rows`` are non-empty texts (the rows
    :func:`metarec.storage._runkeys.run_keys` keys by their name)."""
    source = frame["source"].to_numpy(dtype=object)[rows].astype(str)
    run_id = frame["source_run_id"].to_numpy(dtype=object)[rows].astype(str)
    return (np.char.str_len(source) > 0) & (np.char.str_len(run_id) > 0)


def _collision(key: str, other: str) -> str:
    """The message of a named run whose 64-bit key equals another's (see _runkeys)."""
    return (
        f"run {key!r} has the same 64-bit run key as run {other!r} (a hash coincidence); "
        "it cannot be stored beside it: give it another source_run_id"
    )


def _differences(old, new, metrics) -> str:
    """``accuracy 0.9 -> 0.8, fit_time 1 -> 2``: the compared fields that differ."""
    import pandas as pd

    parts = []
    for name in (*_COMPARED, *metrics):
        a, b = old.get(name), new.get(name)
        a = None if a is None or (not isinstance(a, str) and pd.isna(a)) else a
        b = None if b is None or (not isinstance(b, str) and pd.isna(b)) else b
        if a is None and b is None:
            continue
        if isinstance(a, str) or isinstance(b, str):
            same = a == b
        else:
            same = a is not None and b is not None and float(a) == float(b)
        if not same:
            parts.append(f"{name} {_plain(a)} -> {_plain(b)}")
    return ", ".join(parts) or "other values"


def replace_runs(conn, runs, run_metrics, rows, is_replacement, replaced_rows) -> None:
    """Overwrite stored runs (and drop their metrics, re-inserted by the caller)."""
    from sqlalchemy import bindparam, delete, update

    values = [row for row, r in zip(rows, is_replacement.tolist(), strict=True) if r]
    names = [c for c in STORED_RUN_COLUMNS if c != "run_key"]
    statement = (
        update(runs)
        .where(runs.c.id == bindparam("r_id"))
        .values({c: bindparam(f"r_{c}") for c in names})
    )
    params = []
    for row, (run_id, _, _) in zip(values, replaced_rows, strict=True):
        params.append(
            {"r_id": run_id, **{f"r_{c}": v for c, v in zip(names, row[1:], strict=True)}}
        )
    conn.execute(statement, params)
    ids = [run_id for run_id, _, _ in replaced_rows]
    for first in range(0, len(ids), 5000):
        conn.execute(delete(run_metrics).where(run_metrics.c.run_id.in_(ids[first : first + 5000])))
