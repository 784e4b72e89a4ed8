"""The name a dataset is stored under in a knowledge base: one name, one content, one task."""

from __future__ import annotations

from pathlib import Path

from metarec.data import task_family
from metarec.exceptions import BenchmarkError

__all__ = ["stored_name"]


def stored_name(ds, stored, *, own: str | None = None) -> tuple[str, str | None]:
    """The name ``ds`` is stored under, and a note when it is not the data's own.

    ``stored`` is ``kb.datasets()``; ``own`` the data's own name (default ``ds.name``).
    The same content is the same dataset: when the knowledge base holds this content (its
    fingerprint) for the same task under some name, that name, so that its stored folds are
    found whatever the file is called (and a frame given to the Python API and the same
    table given as a file share them).  Otherwise the data's own name, unless the knowledge
    base holds another dataset under it: the same file, changed since its runs were stored,
    is refused (its old results would be taken for the new content's); a different origin
    (the built-in knowledge base's ``iris`` and a user's ``iris.csv``, an OpenML import) or
    the other task gets the name followed by the first 8 hex digits of the fingerprint, the
    same on every run of the same content.

    Parameters
    ----------
    ds : Dataset
        The loaded dataset (its ``name``, ``fingerprint``, ``task``, ``source`` and
        ``source_id`` are read).
    stored : DataFrame
        The knowledge base's datasets, ``kb.datasets()``: a ``name`` column, and the
        ``fingerprint``, ``task``, ``source`` and ``source_id`` columns where present.
    own : str, optional
        The data's own name; None means ``ds.name``.

    Returns
    -------
    name : str
        The name to store ``ds`` under.
    note : str or None
        Why ``name`` is not ``own``, for the user; None when it is, and when it is the
        suffixed name an earlier run of the same content already chose.

    Raises
    ------
    BenchmarkError
        The file ``ds`` was read from is stored with other content, or both ``own`` and the
        suffixed name hold other datasets.
    """
    own = ds.name if own is None else own
    if "fingerprint" in stored.columns:
        same = stored.loc[stored["fingerprint"] == ds.fingerprint, "name"].astype(str)
        same = [n for n in same if _clash(stored, n, ds) is None]
        if same and own not in same:
            if same[0] == f"{own}-{ds.fingerprint[:8]}":  # as named on an earlier run
                return same[0], None
            return same[0], f"the knowledge base holds this data as {same[0]!r}: stored under it"
    why = _clash(stored, own, ds)
    if why is None:
        return own, None
    if why == "other content" and _same_source(stored, own, ds):
        raise BenchmarkError(
            f"the knowledge base holds {own!r} from {ds.source_id} with other content (the "
            "file changed since it was run); rename the file or use another --db"
        )
    other = f"{own}-{ds.fingerprint[:8]}"
    if _clash(stored, other, ds) is not None:  # 8 hex digits alike: all but impossible
        raise BenchmarkError(f"the knowledge base holds other datasets named {own!r} and {other!r}")
    kind = why if why == "other content" else f"a {task_family(ds.task)} target now"
    return other, f"the knowledge base holds another {own!r} ({kind}): stored as {other!r}"


def _clash(stored, name: str, ds) -> str | None:
    """Why ``ds`` cannot be stored under ``name``: ``"other content"``, the stored task
    family, or None (a name not stored, or stored with this content and task)."""
    rows = stored.loc[stored["name"] == name]
    if not len(rows):
        return None
    task = rows["task"].iloc[0] if "task" in rows.columns else None
    if isinstance(task, str) and task_family(task) != task_family(ds.task):
        return f"a {task_family(task)} dataset"
    fingerprint = rows["fingerprint"].iloc[0] if "fingerprint" in rows.columns else None
    if isinstance(fingerprint, str) and fingerprint and fingerprint != ds.fingerprint:
        return "other content"
    return None


def _same_source(stored, name: str, ds) -> bool:
    """Whether ``name`` was stored from the file ``ds`` was read from."""
    rows = stored.loc[stored["name"] == name]
    if ds.source != "file" or "source_id" not in rows.columns:
        return False
    was = rows["source_id"].iloc[0]
    if not isinstance(was, str) or rows["source"].iloc[0] != "file":
        return False
    return was == ds.source_id or Path(was).resolve() == Path(str(ds.source_id)).resolve()
