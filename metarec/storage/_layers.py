"""The built-in part of a knowledge base, read where it is installed, and its merge rule.

metarec ships a knowledge base (the default portfolios benchmarked on PMLB, regression and
large datasets) as four zstd Parquet files in ``metarec/_resources/``.  They are read as
they are, into DataFrames, once per process (:func:`builtin_part`); nothing is copied into
a database.  A knowledge base that *builds on the built-in one* (``KnowledgeBase.builds_on``
is ``"builtin"``: every knowledge base ``metarec run`` creates) holds only what its user
added, and every read of it sees both parts through :class:`LayeredReads`.

The merge rule (what a read of a layered knowledge base returns)
------------------------------------------------------------------
* **Datasets.** The user's record of a name wins.  The built-in dataset of that name stays
  visible (its runs and metafeatures) only when both records carry the same content
  ``fingerprint``; a user's dataset of another content, or of an unknown one, hides the
  built-in one of its name entirely (its results were measured on other data).
* **Algorithms.** Likewise by name, with the same canonical ``parameters`` (compared as JSON)
  instead of the fingerprint: another configuration under a built-in name hides the built-in
  runs of that name.
* **Runs.** The user's runs, and the built-in runs of the visible datasets and algorithms
  except those of a fold the user has measured too: a user's row for the same ``(dataset,
  algorithm, protocol, seed, fold)`` wins over the built-in one (the same fold of the same
  split; a newer measurement, on this machine).  So nothing is counted twice.
* **Metafeatures.** A dataset's metafeatures are the user's when the user stored any for
  it, else the built-in ones.
* **Aggregates** (the performance matrix) are those of the merged runs: a pair only one
  part has keeps that part's aggregate, a pair both have is aggregated from the merged runs.

A new metarec version replaces the resource files and so the built-in part, without touching
a row of the user's.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from metarec.exceptions import KnowledgeBaseError

__all__ = [
    "BUILTIN",
    "BUILTIN_TABLES",
    "BuiltinPart",
    "LayeredReads",
    "builtin_part",
    "hidden_names",
    "read_part",
    "resource_files",
    "same_fingerprint",
    "same_parameters",
]

#: The value of ``KnowledgeBase.builds_on`` of a knowledge base layered on the built-in one.
BUILTIN = "builtin"
BUILTIN_TABLES = ("datasets", "algorithms", "runs", "metafeatures")
#: The key of a fold: a user's run of the same key replaces the built-in one.
FOLD_KEY = ("dataset", "algorithm", "protocol", "seed", "fold")


def _resources() -> Path:
    return Path(__file__).resolve().parent.parent / "_resources"


def resource_files() -> dict[str, Path]:
    """The built-in resource files by table, or raise when this installation has none.

    Returns
    -------
    dict of str to Path
        ``builtin_<table>.parquet`` for each of :data:`BUILTIN_TABLES`.

    Raises
    ------
    KnowledgeBaseError
        A file is missing.
    """
    files = {name: _resources() / f"builtin_{name}.parquet" for name in BUILTIN_TABLES}
    missing = [str(p.name) for p in files.values() if not p.is_file()]
    if missing:
        raise KnowledgeBaseError(
            "this installation of metarec carries no built-in knowledge base "
            f"(missing {', '.join(missing)}); give a knowledge base with --db or METAREC_DB"
        )
    return files


class BuiltinPart:
    """The built-in knowledge base as DataFrames (the shapes ``KnowledgeBase`` reads return).

    The runs, the largest table by far, are read from their file when first asked for, and
    aggregated when the performance matrix is first asked for: a call that needs neither
    (``recommend`` with the shipped recommender fitted) never holds them in memory.

    Parameters
    ----------
    version : str
        A digest of the resource files (16 hex digits): it names this content.
    datasets, algorithms, metafeatures : DataFrame
        As :meth:`KnowledgeBase.datasets`, ``algorithms`` and ``metafeatures`` return them.
    read_runs : callable
        A function of no argument that reads the runs, as ``runs(aggregate=False)`` returns
        them (times and metrics as float64).
    n_runs : int
        How many runs there are (known without reading them).

    Attributes
    ----------
    runs : DataFrame
        Read on first access.
    performance : DataFrame
        ``runs`` aggregated (:func:`aggregate_runs`), on first access.
    n_runs : int
    """

    def __init__(self, version, datasets, algorithms, read_runs, metafeatures, n_runs):
        self.version = version
        self.datasets = datasets
        self.algorithms = algorithms
        self.metafeatures = metafeatures
        self._read_runs = read_runs
        self.n_runs = int(n_runs)
        self._lock = threading.RLock()
        self._runs = self._performance = None

    @property
    def runs(self):
        with self._lock:
            if self._runs is None:
                self._runs = self._read_runs()
            return self._runs

    @property
    def performance(self):
        from metarec.storage._performance import aggregate_runs

        runs = self.runs
        with self._lock:
            if self._performance is None:
                self._performance = aggregate_runs(runs)
            return self._performance


def _digest(files: dict[str, Path]) -> str:
    h = hashlib.sha256()
    for name in BUILTIN_TABLES:
        h.update(files[name].read_bytes())
    return h.hexdigest()[:16]


def builtin_part() -> BuiltinPart:
    """The built-in knowledge base of this installation, read once per process.

    Returns
    -------
    BuiltinPart

    Raises
    ------
    KnowledgeBaseError
        This installation carries no built-in knowledge base.
    """
    files = resource_files()
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files.values())
    return _load(stamp)


@lru_cache(maxsize=2)
def _load(stamp: tuple) -> BuiltinPart:
    files = {name: Path(path) for name, (path, _, _) in zip(BUILTIN_TABLES, stamp, strict=True)}
    return read_part(files)


def read_part(files: dict[str, Path]) -> BuiltinPart:
    """Read four built-in resource files (as :func:`metarec.benchmark.export_builtin`
    writes them) as a :class:`BuiltinPart`.

    Parameters
    ----------
    files : dict of str to Path
        The file of each of :data:`BUILTIN_TABLES`.

    Returns
    -------
    BuiltinPart
    """
    import pandas as pd
    import pyarrow.parquet as pq

    from metarec.storage._queries import ALGORITHM_COLUMNS, DATASET_COLUMNS

    datasets = pd.read_parquet(files["datasets"])
    datasets = datasets.reindex(columns=list(DATASET_COLUMNS)).sort_values("name")
    for column in ("n_instances", "n_features"):
        datasets[column] = datasets[column].astype("Int64")
    algorithms = pd.read_parquet(files["algorithms"]).reindex(columns=list(ALGORITHM_COLUMNS))
    algorithms = algorithms.sort_values("name")
    metafeatures = pd.read_parquet(files["metafeatures"])
    return BuiltinPart(
        version=_digest(files),
        datasets=datasets.reset_index(drop=True),
        algorithms=algorithms.reset_index(drop=True),
        read_runs=lambda: _read_runs(files["runs"]),
        metafeatures=metafeatures.reset_index(drop=True),
        n_runs=int(pq.ParquetFile(files["runs"]).metadata.num_rows),
    )


def _read_runs(path: Path):
    """The runs of a resource file, as ``runs(aggregate=False)`` returns them."""
    import numpy as np
    import pandas as pd

    from metarec.storage._models import RUN_COLUMNS

    runs = _machine_split(pd.read_parquet(path))
    metrics = [c for c in runs.columns if c not in RUN_COLUMNS]
    runs = runs.reindex(columns=[*RUN_COLUMNS, *sorted(metrics)])
    for column in runs.columns:
        if runs[column].dtype == np.float32:
            runs[column] = runs[column].astype(np.float64)
    for column in ("seed", "fold"):
        runs[column] = runs[column].astype("Int64")
    return runs


def _machine_split(runs):
    """Files written before revision 0006 hold a benchmark run's machine in its
    ``source_run_id`` after ``" | "``: moved to ``machine``, as an import does."""
    import pandas as pd

    from metarec.storage._runkeys import MACHINE_SEPARATOR

    if "machine" not in runs.columns:
        runs = runs.assign(machine=pd.Series(pd.NA, index=runs.index, dtype=object))
    run_id = runs["source_run_id"].astype("string")
    joined = (
        (runs["source"].astype("string") == "benchmark")
        & runs["machine"].isna()
        & run_id.str.contains(MACHINE_SEPARATOR, regex=False)
    ).fillna(False)
    if joined.any():
        parts = run_id[joined].str.split(MACHINE_SEPARATOR, n=1, regex=False)
        runs = runs.copy()
        runs.loc[joined, "source_run_id"] = parts.str[0]
        runs.loc[joined, "machine"] = parts.str[1]
    return runs


def same_parameters(mine, theirs) -> bool:
    """Whether two stored ``parameters`` texts are the same configuration.

    Equal as JSON (keys in any order, any spacing), else as text; a missing one is an
    unknown configuration, the same as none.
    """
    if not isinstance(mine, str) or not isinstance(theirs, str):
        return False
    try:
        return json.loads(mine) == json.loads(theirs)
    except ValueError:
        return mine == theirs


def hidden_names(own, theirs, column: str, same) -> set[str]:
    """Names of ``theirs`` that ``own`` records as something else (see the merge rule)."""
    if not len(own):
        return set()
    mine = dict(zip(own["name"].astype(str), own[column], strict=True))
    pairs = zip(theirs["name"].astype(str), theirs[column], strict=True)
    return {name for name, value in pairs if name in mine and not same(mine[name], value)}


def same_fingerprint(mine, theirs) -> bool:
    """Whether two stored fingerprints name the same content (a missing one: unknown)."""
    return isinstance(mine, str) and isinstance(theirs, str) and mine == theirs


class LayeredReads:
    """The reads of a knowledge base that builds on the built-in one (see the merge rule).

    Parameters
    ----------
    own : Reads
        The reads of the user's database.
    part : BuiltinPart
        The built-in knowledge base.
    """

    def __init__(self, own, part: BuiltinPart) -> None:
        self.own = own
        self.part = part

    # -------------------------------------------------------------- what is visible
    def _visible(self, own_datasets=None, own_algorithms=None):
        """The built-in datasets and algorithms the user's records leave visible, and the
        user's records (read when not given)."""
        own_datasets = self.own.datasets() if own_datasets is None else own_datasets
        own_algorithms = self.own.algorithms() if own_algorithms is None else own_algorithms
        part = self.part
        hidden_d = hidden_names(own_datasets, part.datasets, "fingerprint", same_fingerprint)
        hidden_a = hidden_names(own_algorithms, part.algorithms, "parameters", same_parameters)
        datasets = set(part.datasets["name"].astype(str)) - hidden_d
        algorithms = set(part.algorithms["name"].astype(str)) - hidden_a
        return datasets, algorithms, own_datasets, own_algorithms

    @staticmethod
    def _wanted(frame, datasets, algorithms):
        """Rows of ``frame`` of the wanted datasets and algorithms (None: all)."""
        keep = frame["dataset"].isin(list(datasets)) if datasets is not None else None
        if algorithms is not None:
            by_algorithm = frame["algorithm"].isin(list(algorithms))
            keep = by_algorithm if keep is None else keep & by_algorithm
        return frame if keep is None else frame[keep.to_numpy()]

    # -------------------------------------------------------------- the read methods
    def snapshot(self):
        """See :meth:`Reads.snapshot` (the built-in part never changes)."""
        return self.own.snapshot()

    def source_run_ids(self, source: str, ids: Iterable[str]) -> list[str]:
        """See :meth:`KnowledgeBase.source_run_ids` (the user's part: where ingests write)."""
        return self.own.source_run_ids(source, ids)

    def own_is_empty(self) -> bool:
        """Whether the user's part holds no dataset, algorithm or run."""
        return not self.own.has_runs() and not any(
            self.own.count(table) for table in ("datasets", "algorithms")
        )

    def data_version(self) -> str:
        """``builtin-<version>`` while the user's part is empty (the same for every such
        knowledge base: a fitted recommender is shared), else the user's data version joined
        with it."""
        mine = "" if self.own_is_empty() else f"{self.own.data_version()}+"
        return f"{mine}{BUILTIN}-{self.part.version}"

    def part_count(self, table: str) -> int:
        """Rows of ``table`` in the built-in part (0 for the derived tables)."""
        if table == "metafeatures":
            wide = self.part.metafeatures
            return int(wide.drop(columns="dataset").notna().to_numpy().sum())
        if table == "runs":
            return self.part.n_runs
        frame = getattr(self.part, table, None)
        return len(frame) if table in BUILTIN_TABLES else 0

    def has_runs(self) -> bool:
        """Whether either part holds a run."""
        return self.part.n_runs > 0 or self.own.has_runs()

    def count(self, table: str) -> int:
        """Rows of ``table`` in the merged view (the derived tables: the user's part)."""
        if table == "datasets":
            return len(self.datasets())
        if table == "algorithms":
            return len(self.algorithms())
        if table == "runs":
            return len(self.runs(aggregate=False, metrics=[]))
        if table == "metafeatures":
            wide = self.metafeatures()
            return int(wide.drop(columns="dataset").notna().to_numpy().sum())
        return self.own.count(table)

    @staticmethod
    def _union(own, theirs):
        """The user's records, and the built-in ones of the names the user has none of
        (a user's record of a name wins, see the rule), sorted by name, with ``origin``."""
        import pandas as pd

        theirs = theirs[~theirs["name"].isin(list(own["name"].astype(str))).to_numpy()]
        frame = pd.concat(
            [own.assign(origin="user"), theirs.assign(origin=BUILTIN)], ignore_index=True
        )
        return frame.sort_values("name", kind="stable").reset_index(drop=True)

    def datasets(self):
        """The user's datasets and the visible built-in ones, sorted by name, with ``origin``."""
        return self._union(self.own.datasets(), self.part.datasets)

    def algorithms(self):
        """The user's algorithms and the visible built-in ones, sorted by name, with ``origin``."""
        return self._union(self.own.algorithms(), self.part.algorithms)

    def metafeatures(
        self, *, datasets: Iterable[str] | None = None, names: Iterable[str] | None = None
    ):
        """The user's metafeatures of a dataset, else the built-in ones (see the rule)."""
        import pandas as pd

        datasets = None if datasets is None else [str(d) for d in datasets]
        own = self.own.metafeatures(datasets=datasets, names=names)
        visible, _, _, _ = self._visible()
        described = set(own["dataset"].astype(str)) if len(own) else set()
        theirs = self.part.metafeatures
        wanted = visible - described
        if datasets is not None:
            wanted &= set(datasets)
        theirs = theirs[theirs["dataset"].isin(list(wanted)).to_numpy()]
        if names is not None:
            keep = [c for c in theirs.columns if c == "dataset" or c in set(names)]
            theirs = theirs[keep]
        if not len(theirs):
            return own
        if not len(own):
            frame = theirs
        else:
            frame = pd.concat([own, theirs], ignore_index=True)
        columns = sorted(c for c in frame.columns if c != "dataset")
        frame = frame.reindex(columns=["dataset", *columns])
        return frame.sort_values("dataset", kind="stable").reset_index(drop=True)

    def _builtin_runs(self, datasets, algorithms, metrics, own_runs):
        """The built-in runs that the merge keeps (visible, no user run of their fold)."""
        import pandas as pd

        visible_d, visible_a, _, _ = self._visible()
        theirs = self.part.runs
        keep = theirs["dataset"].isin(list(visible_d)) & theirs["algorithm"].isin(list(visible_a))
        theirs = self._wanted(theirs[keep.to_numpy()], datasets, algorithms)
        if len(own_runs) and len(theirs):
            key = list(FOLD_KEY)
            mine = pd.MultiIndex.from_frame(own_runs[key].astype(str))
            replaced = pd.MultiIndex.from_frame(theirs[key].astype(str)).isin(mine)
            theirs = theirs[~replaced]
        if metrics is not None:
            from metarec.storage._models import RUN_COLUMNS

            wanted = set(metrics)
            theirs = theirs[[c for c in theirs.columns if c in RUN_COLUMNS or c in wanted]]
        return theirs

    def runs(
        self,
        *,
        aggregate: bool = True,
        datasets: Iterable[str] | None = None,
        algorithms: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ):
        """The merged runs (see the rule), one row per run with ``origin``, or aggregated."""
        import pandas as pd

        datasets = None if datasets is None else [str(d) for d in datasets]
        algorithms = None if algorithms is None else [str(a) for a in algorithms]
        metrics = None if metrics is None else list(metrics)
        if aggregate:
            return self._aggregated(datasets, algorithms, metrics)
        own = self.own.runs(
            aggregate=False, datasets=datasets, algorithms=algorithms, metrics=metrics
        )
        theirs = self._builtin_runs(datasets, algorithms, metrics, own)
        if not len(theirs):
            return own.assign(origin="user")
        if not len(own):
            return theirs.assign(origin=BUILTIN).reset_index(drop=True)
        frame = pd.concat(
            [own.assign(origin="user"), theirs.assign(origin=BUILTIN)], ignore_index=True
        )
        return frame

    def _aggregated(self, datasets, algorithms, metrics):
        """The performance matrix of the merged runs (see the rule's last point)."""
        import pandas as pd

        from metarec.storage._performance import aggregate_runs

        own = self.own.runs(
            aggregate=True, datasets=datasets, algorithms=algorithms, metrics=metrics
        )
        visible_d, visible_a, _, _ = self._visible()
        theirs = self.part.performance
        keep = theirs["dataset"].isin(list(visible_d)) & theirs["algorithm"].isin(list(visible_a))
        theirs = self._wanted(theirs[keep.to_numpy()], datasets, algorithms)
        if metrics is not None:
            fixed = ("dataset", "algorithm", "status", "accuracy", "fit_time", "predict_time",
                     "n_runs", "n_failed")  # fmt: skip
            theirs = theirs[[c for c in theirs.columns if c in fixed or c in set(metrics)]]
        if not len(own):
            return theirs.reset_index(drop=True)
        if not len(theirs):
            return own
        pairs = ["dataset", "algorithm"]
        own_pairs = pd.MultiIndex.from_frame(own[pairs].astype(str))
        their_pairs = pd.MultiIndex.from_frame(theirs[pairs].astype(str))
        both = their_pairs.isin(own_pairs)
        parts = [own[~own_pairs.isin(their_pairs)], theirs[~both]]
        if both.any():
            shared = theirs[both]
            long = self.runs(
                aggregate=False,
                datasets=sorted(set(shared["dataset"].astype(str))),
                algorithms=sorted(set(shared["algorithm"].astype(str))),
                metrics=metrics,
            ).drop(columns="origin")
            merged = aggregate_runs(long)
            merged_pairs = pd.MultiIndex.from_frame(merged[pairs].astype(str))
            parts.append(merged[merged_pairs.isin(their_pairs[both])])
        frame = pd.concat([p for p in parts if len(p)], ignore_index=True)
        frame = frame.sort_values(pairs, kind="stable").reset_index(drop=True)
        columns = [c for c in own.columns if c in frame.columns]
        return frame[columns + [c for c in frame.columns if c not in columns]]
