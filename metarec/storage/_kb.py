"""The :class:`KnowledgeBase`: metarec's store of datasets, metafeatures, algorithms and runs.

Everything else in metarec reads and writes the knowledge base (KB) through this class, whose
reading methods return pandas DataFrames; nobody else writes SQL.  See
:mod:`metarec.storage._models` for the tables and the natural keys that make imports
idempotent, :mod:`metarec.storage._importers` for the import rules, and
:mod:`metarec.storage._engine` for the SQLite settings (WAL, foreign keys, busy timeout).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from metarec._config import redact_url, resolve_db_url
from metarec.exceptions import KnowledgeBaseError
from metarec.storage._check import Check
from metarec.storage._engine import (
    database_errors,
    make_engine,
    sqlite_path,
    sqlite_read_only_mode,
    write_transaction,
)
from metarec.storage._layers import BUILTIN
from metarec.storage._migrate import HEAD, SchemaState, UpgradeReport, schema_state
from metarec.storage._migrate import upgrade as upgrade_schema
from metarec.storage._models import ALL_TABLES, RUN_COLUMNS, TABLES, metadata
from metarec.storage._opening import (
    NoKnowledgeBaseError,
    missing_file_error,
    peek_state,
    refusal,
    refuse_data_file,
)
from metarec.storage._performance import aggregate_runs, set_builds_on
from metarec.storage._queries import Reads
from metarec.storage._writes import Writes

__all__ = ["KnowledgeBase", "NoKnowledgeBaseError", "RUN_COLUMNS", "aggregate_runs"]

EXPORT_FORMATS = ("csv", "parquet")


class KnowledgeBase(Writes):
    """A knowledge base of algorithm results on datasets, in any SQLAlchemy database.

    Parameters
    ----------
    url : str or path-like, optional
        An SQLAlchemy URL (``sqlite:///kb.sqlite``, ``postgresql+psycopg://user@host/db``) or
        the path of a SQLite file.  ``None``: the ``METAREC_DB`` environment variable, else
        ``kb.sqlite`` in metarec's data directory (see :mod:`metarec._config`).
    create : bool, default=True
        Create the database (a SQLite file and its folder) and the schema when missing.
        With ``False`` a SQLite file that does not exist raises
        :class:`NoKnowledgeBaseError` and an empty database
        :class:`~metarec.exceptions.KnowledgeBaseError`.
    upgrade : bool, default=False
        Migrate an older schema to this version's instead of refusing it
        (:meth:`open_for_upgrade`, ``metarec db upgrade``).
    read_only : bool or None, default=False
        Open a SQLite file read-only (writes fail).  ``None``: read-only exactly when the
        file or its folder is not writable by this process (a shared or mounted KB), with
        ``immutable=1`` when the folder is not writable (see :mod:`metarec.storage._engine`).
    backup : bool or path-like, default=True
        With ``upgrade=True``: before migrating an older SQLite file, copy it (to this path,
        or beside it with ``True``; see :func:`metarec.storage._migrate.backup_sqlite`).
        The copy's path is in :attr:`last_upgrade`.

    Attributes
    ----------
    last_upgrade : UpgradeReport or None
        What opening did to the schema: created, migrated (with the backup's path and the
        rows kept) or nothing (``None`` when the schema was already current).

    Raises
    ------
    NoKnowledgeBaseError
        ``create=False`` and the SQLite file does not exist.
    KnowledgeBaseError
        The database is unreachable, is not a metarec knowledge base, is corrupt, or was made
        by a newer metarec.  An older schema asks for ``metarec db upgrade``.

    Notes
    -----
    With ``create=False`` the database is only read until it is known to be a current
    knowledge base: an empty, foreign, older or newer database is refused without a byte of
    it changed (the schema check reads a SQLite file through a read-only connection).

    Examples
    --------
    >>> kb = KnowledgeBase("sqlite:///:memory:")
    >>> report = kb.import_runs(frame)          # doctest: +SKIP
    >>> kb.runs().head()                        # doctest: +SKIP
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        create: bool = True,
        upgrade: bool = False,
        read_only: bool | None = False,
        backup: bool | str | os.PathLike[str] = True,
    ) -> None:
        self._url = resolve_db_url(url)
        self.url = redact_url(self._url)
        self.is_builtin = False
        #: How the built-in knowledge base is opened again when unpickled (set by
        #: :func:`~metarec.storage.open_builtin`: this installation's copy, not the path)
        self.reopen_builtin = None
        path = sqlite_path(self._url)
        if not create and path is not None and not path.exists():
            raise missing_file_error(path, url, self.url)
        refuse_data_file(path, create=create or upgrade)
        mode: str | bool = bool(read_only)
        if path is not None and read_only is not False:
            mode = sqlite_read_only_mode(path) or bool(read_only)
        self.read_only = bool(mode)
        if self.read_only and (upgrade or create):
            create = upgrade = False
        self.last_upgrade: UpgradeReport | None = None
        self._tables = {name: metadata.tables[name] for name in ALL_TABLES}
        if path is not None and not (create or upgrade):
            # through a look that writes nothing, and creates nothing beside the file
            self._refuse_unless_current(path)
        self.engine = make_engine(self._url, create_dirs=create, read_only=mode)
        self._reads = Reads(self.engine, self._tables, self.url)
        try:
            self.revision = self._open(create=create, upgrade=upgrade, backup=backup)
            self.builds_on = self._reads.builds_on()
            self._view = self._layered() if self.builds_on == BUILTIN else self._reads
        except BaseException:
            self.engine.dispose()
            raise

    def _layered(self):
        from metarec.storage._layers import LayeredReads, builtin_part

        return LayeredReads(self._reads, builtin_part())

    def build_on_builtin(self) -> None:
        """Read the built-in knowledge base beside this one's rows from now on (stored).

        Nothing is copied: the built-in knowledge base is read where metarec is installed,
        and this knowledge base keeps only what is added to it (see
        :mod:`metarec.storage._layers` for what a read then returns).  Does nothing when it
        already builds on it.

        Raises
        ------
        KnowledgeBaseError
            The knowledge base is read-only, or this installation has no built-in one.
        """
        if self.builds_on == BUILTIN:
            return
        view = self._layered()  # refuses an installation without the built-in files
        if self.read_only:
            raise KnowledgeBaseError(f"knowledge base {self.url} is read-only")
        with database_errors(self.url, "write"), write_transaction(self.engine) as conn:
            set_builds_on(conn, BUILTIN)
        self.builds_on, self._view = BUILTIN, view

    def absorb_builtin_copy(self) -> dict[str, int]:
        """Remove the rows an earlier metarec copied from the built-in knowledge base.

        A knowledge base that ``metarec run`` created before revision 0007 started as a
        copy of the built-in one.  Its rows equal to the built-in knowledge base of this
        installation (runs of the same dataset content, algorithm configuration and natural
        key; then the datasets, metafeatures and algorithms left without a run of their own
        and recorded as the built-in ones are) are removed, and the knowledge base then
        builds on the built-in one (:meth:`build_on_builtin`), so that every read sees the
        same rows as before, each once.  A row that differs from the built-in one in any
        way (a run measured again, a dataset of other content) is the user's and is kept.

        Returns
        -------
        dict of str to int
            Rows removed from ``runs``, ``datasets``, ``algorithms`` and ``metafeatures``
            (all 0 when the knowledge base holds no copy; it is then left as it is).
        """
        from metarec.storage._absorb import absorb_builtin_copy

        if self.builds_on == BUILTIN:  # it never held a copy
            return {"runs": 0, "datasets": 0, "algorithms": 0, "metafeatures": 0}
        removed = absorb_builtin_copy(self)
        if any(removed.values()):
            self.build_on_builtin()
        return removed

    # ----------------------------------------------------------------------- opening
    def _open(self, *, create: bool, upgrade: bool, backup) -> str | None:
        with database_errors(self.url, "open"):
            with self.engine.connect() as conn:
                state = schema_state(conn, self.url)
            refusal = self._refusal(state, create=create, upgrade=upgrade)
            if refusal is not None:
                raise refusal
            if state.kind == "current":
                return state.revision
            self.last_upgrade = upgrade_schema(self.engine, self.url, backup=backup)
            return self.last_upgrade.to_revision

    def _refusal(
        self, state: SchemaState, *, create: bool, upgrade: bool
    ) -> KnowledgeBaseError | None:
        """The error opening a database in ``state`` must raise, or ``None``."""
        return refusal(state, self._url, self.url, create=create, upgrade=upgrade)

    def _refuse_unless_current(self, path: Path) -> None:
        """Raise what :meth:`_open` would for a database that is not current, writing nothing
        (see :func:`metarec.storage._opening.peek_state`)."""
        error = self._refusal(peek_state(self._url, self.url), create=False, upgrade=False)
        if error is not None:
            raise error

    @classmethod
    def open_for_upgrade(
        cls,
        url: str | os.PathLike[str] | None = None,
        *,
        backup: bool | str | os.PathLike[str] = True,
    ) -> KnowledgeBase:
        """Open a knowledge base of any known schema revision and migrate it to the newest.

        An older SQLite file is first copied (``backup``, see :class:`KnowledgeBase`); what
        was done is in :attr:`last_upgrade`.  A migration keeps every row or is rolled back
        (see :mod:`metarec.storage._migrate`).
        """
        return cls(url, upgrade=True, backup=backup)

    def upgrade(self, *, backup: bool | str | os.PathLike[str] = True) -> str:
        """Migrate the schema to the newest revision; return it (see :meth:`open_for_upgrade`).

        Parameters
        ----------
        backup : bool or path-like, default=True
            Before migrating an older SQLite file, copy it (to this path, or beside it with
            ``True``; ignored for other databases and when there is nothing to migrate).  What
            was done, the copy's path included, is in :attr:`last_upgrade`.

        Returns
        -------
        str
            The schema revision now (the newest).
        """
        with database_errors(self.url, "upgrade"):
            self.last_upgrade = upgrade_schema(self.engine, self.url, backup=backup)
            self.revision = self.last_upgrade.to_revision
        return self.revision

    @staticmethod
    def revision_of(url: str | os.PathLike[str] | None = None) -> str | None:
        """The schema revision of the database at ``url`` (``None``: empty), changing nothing.

        Raises
        ------
        NoKnowledgeBaseError
            A SQLite file that does not exist.
        KnowledgeBaseError
            Not a metarec knowledge base, or made by a newer metarec.
        """
        resolved = resolve_db_url(url)
        path = sqlite_path(resolved)
        if path is not None and not path.exists():
            raise missing_file_error(path, url, redact_url(resolved))
        return peek_state(resolved, redact_url(resolved)).revision

    def check(self) -> list[Check]:
        """Check the knowledge base's health (``metarec db check``); nothing is written.

        Returns
        -------
        list of Check
            Integrity, schema, references, performance matrix, data version and row counts
            of this database (see :mod:`metarec.storage._check`), and of a knowledge base
            that builds on the built-in one, what its built-in part holds.
        """
        from metarec.storage._check import check_knowledge_base

        with database_errors(self.url, "check"), self.engine.connect() as conn:
            checks = check_knowledge_base(conn, revision=self.revision, head=HEAD)
        if self._view is not self._reads:  # the built-in part, read from the package
            part = self._view.part
            checks.append(
                Check(
                    "built-in part",
                    True,
                    f"{len(part.datasets):,} datasets, {len(part.algorithms):,} algorithms, "
                    f"{len(part.runs):,} runs read from the package (version {part.version})",
                )
            )
        return checks

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.url!r})"

    def __deepcopy__(self, memo) -> KnowledgeBase:
        """The same object: a handle to a database is shared, not copied.

        ``sklearn.base.clone`` deep-copies an estimator's parameters; an estimator given
        ``kb=KnowledgeBase(...)`` and its clones then read and write the same database.
        """
        return self

    def __reduce__(self):
        """Pickled as the database's address: unpickling opens that database again.

        What travels is the full URL (a password in it included), whether it was opened
        read-only, and whether it is the built-in knowledge base (opened from the
        unpickling installation's copy).  An in-memory database lives only in this process
        and cannot be pickled.
        """
        if self.is_builtin and self.reopen_builtin is not None:
            return self.reopen_builtin, ()
        if _in_memory(self._url):
            raise KnowledgeBaseError(
                f"knowledge base {self.url}: an in-memory database cannot be pickled (its rows "
                "live in this process only); use a file or a database server"
            )
        return _reopen, (self._url, self.read_only)

    # ----------------------------------------------------------------------- reading
    def info(self) -> dict[str, Any]:
        """URL (password hidden), dialect, schema revision and the row count of every table.

        Also the datasets by task: ``classification_datasets`` (binary, multiclass, or no
        recorded task) and ``regression_datasets``.  The counts are those every read sees:
        of a knowledge base that builds on the built-in one, both parts.

        Returns
        -------
        dict of str to Any
            ``url``, ``dialect``, ``revision``, ``builtin`` (whether it is the built-in
            knowledge base alone), ``builds_on`` (``"builtin"`` or ``None``), ``datasets``,
            ``classification_datasets``, ``regression_datasets``, the row count of every
            other table (``algorithms`` counts every named algorithm, configurations
            included), ``configurations`` (algorithms named as a configuration of another,
            ``lightgbm_c07``), ``base_algorithms`` (the others), ``subsamples`` (datasets
            named as a sample of another, ``movielens_liked@4000``),
            ``sources`` (the datasets that are not a sample of another),
            ``configuration_datasets`` (the datasets holding a run of a configuration),
            ``configuration_sources`` (the sources holding one on themselves or on a sample
            of theirs) and ``configuration_rows`` (the most rows among the datasets holding
            one; 0 without any); with
            ``builds_on``, also
            ``own_<table>`` (the rows stored in this database) and ``builtin_version``.
        """
        from metarec._names import configuration_base, sample_base

        counts = {table: self.count(table) for table in TABLES}
        datasets = self.datasets()
        tasks = datasets["task"]
        regression = int((tasks == "regression").sum())
        names = set(self.algorithms()["name"].astype(str))
        configurations = {n for n in names if configuration_base(n) is not None}
        out = {
            "url": self.url,
            "dialect": self.engine.dialect.name,
            "revision": self.revision,
            "builtin": self.is_builtin,
            "builds_on": self.builds_on,
            "datasets": counts.pop("datasets"),
            "classification_datasets": len(tasks) - regression,
            "regression_datasets": regression,
            **counts,
            "configurations": len(configurations),
            "base_algorithms": len(names - configurations),
            "subsamples": int(sum(sample_base(n) != n for n in datasets["name"].astype(str))),
            "sources": len({sample_base(n) for n in datasets["name"].astype(str)}),
            "configuration_datasets": 0,
            "configuration_sources": 0,
            "configuration_rows": 0,
        }
        if configurations:
            held = set(self.runs(algorithms=sorted(configurations))["dataset"].astype(str))
            sizes = datasets.loc[datasets["name"].astype(str).isin(held), "n_instances"]
            out["configuration_datasets"] = len(held)
            out["configuration_sources"] = len({sample_base(n) for n in held})
            out["configuration_rows"] = int(sizes.max()) if sizes.notna().any() else 0
        if self.builds_on is not None:
            out.update({f"own_{table}": self.count(table, part="own") for table in TABLES})
            out["builtin_version"] = self._view.part.version
        return out

    def source_run_ids(self, source: str, ids: Iterable[str]) -> list[str]:
        """Which of ``ids`` are stored as ``source_run_id`` of runs from ``source``.

        One indexed look-up per 5,000 ids (the integer run keys of named runs), without
        reading any run: what an ingester asks before downloading runs again.

        Parameters
        ----------
        source : str
            The runs' ``source`` (``"openml"``...).
        ids : iterable of str
            Run identifiers at that source (compared as text).

        Returns
        -------
        list of str
            The stored ones among ``ids``, each once.
        """
        return self._view.source_run_ids(source, ids)

    def builtin_version(self) -> str | None:
        """The data version of the built-in part this knowledge base reads (None: none).

        Returns
        -------
        str or None
            ``builtin-<digest of the resource files>``, what :meth:`data_version` is while
            nothing beyond the built-in knowledge base is stored.
        """
        if self._view is self._reads:
            return None
        return f"{BUILTIN}-{self._view.part.version}"

    def data_version(self) -> str:
        """A token that changes whenever datasets, algorithms, runs or metafeatures change.

        Every write transaction that changes the data stores a new random token (an import
        that adds nothing keeps it), so two reads that see the same token see the same data:
        a cache key (the fitted recommender is cached under it).

        Returns
        -------
        str
            The current token (``""`` when none has been stored yet).
        """
        return self._view.data_version()

    def count(self, table: str, *, part: str | None = None) -> int:
        """Number of rows of one table (``"runs"``, ``"datasets"``...).

        Parameters
        ----------
        table : str
            A table of the knowledge base: ``"datasets"``, ``"algorithms"``,
            ``"metafeatures"``, ``"runs"``, ``"run_metrics"``...
        part : {None, "own", "builtin"}, default=None
            ``None``: the rows every read sees (of a knowledge base that builds on the
            built-in one, both parts); ``"own"``: the rows stored in this database;
            ``"builtin"``: the built-in part's (0 when the knowledge base does not build on
            it).

        Returns
        -------
        int
        """
        if part == "own" or (part is None and self._view is self._reads):
            return self._reads.count(table)
        if part == "builtin":
            return 0 if self._view is self._reads else self._view.part_count(table)
        if part is not None:
            raise KnowledgeBaseError(f"unknown part {part!r}; choose 'own' or 'builtin'")
        return self._view.count(table)

    def has_runs(self) -> bool:
        """Whether any run is stored (looks up one row; ``count`` would scan an index).

        Returns
        -------
        bool
        """
        return self._view.has_runs()

    def datasets(self):
        """All datasets: name, source, source_id, task, n_instances, n_features, fingerprint.

        Returns
        -------
        DataFrame
            One row per dataset, sorted by name, with those columns (the sizes as nullable
            ``Int64``; a field never recorded is missing).
        """
        return self._view.datasets()

    def algorithms(self):
        """All algorithms: name, family, library, parameters (canonical JSON text).

        Returns
        -------
        DataFrame
            One row per algorithm, sorted by name, with those columns.
        """
        return self._view.algorithms()

    def metafeatures(
        self, *, datasets: Iterable[str] | None = None, names: Iterable[str] | None = None
    ):
        """Metafeatures, wide: one row per dataset, a ``dataset`` column and one per metafeature.

        Parameters
        ----------
        datasets : iterable of str, optional
            Only these datasets.
        names : iterable of str, optional
            Only these metafeatures.

        Returns
        -------
        DataFrame
            One row per dataset with at least one value, a ``dataset`` column and one float
            column per metafeature in name order (NaN where a dataset has no value).
        """
        return self._view.metafeatures(datasets=datasets, names=names)

    def runs(
        self,
        *,
        aggregate: bool = True,
        datasets: Iterable[str] | None = None,
        algorithms: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ):
        """Stored runs as a DataFrame.

        Parameters
        ----------
        aggregate : bool, default=True
            ``False``: one row per stored run (fold, seed) with the columns of
            :data:`RUN_COLUMNS` and one column per per-run metric.  ``True``: one row per
            (dataset, algorithm): ``accuracy`` and every metric are means over the ``ok`` runs,
            ``fit_time`` and ``predict_time`` means over all runs that recorded one (a failed
            run used its time too), ``n_runs``, ``n_failed``, and ``status`` (``ok`` when any
            run is ok, else the first failure's status).
        datasets, algorithms : iterable of str, optional
            Only these.
        metrics : iterable of str, optional
            Only these per-run metrics (``[]``: none); all by default.

        Returns
        -------
        DataFrame
            The runs, or their aggregates, with the columns described under ``aggregate``.
        """
        return self._view.runs(
            aggregate=aggregate, datasets=datasets, algorithms=algorithms, metrics=metrics
        )

    def export(
        self, directory: str | os.PathLike[str], *, format: str = "parquet"
    ) -> dict[str, Path]:
        """Write the whole knowledge base as four files that the ``import_*`` methods read back.

        ``runs`` (long, one row per run, metrics as columns), ``metafeatures`` (wide),
        ``datasets`` and ``algorithms``, as ``<directory>/<table>.<format>``;
        :meth:`import_datasets`, :meth:`import_algorithms`, :meth:`import_runs` and
        :meth:`import_metafeatures`, in that order, rebuild the knowledge base from them.
        The four are read in one transaction: written while other processes write, they
        hold one moment's contents, so that they import back.  They are written beside
        their places first and put in place together at the end, so that an interrupted or
        failed export leaves an earlier export in ``directory`` whole, never a mix of two
        moments.

        Parameters
        ----------
        directory : str or path-like
            The folder of the four files (created when missing; files of the same names in
            it are replaced).
        format : {"parquet", "csv"}, default="parquet"
            The files' format, also their extension.

        Returns
        -------
        dict of str to Path
            The files written, by table (``datasets``, ``algorithms``, ``runs``,
            ``metafeatures``).
        """
        if format not in EXPORT_FORMATS:
            raise KnowledgeBaseError(
                f"unknown export format {format!r}; choose one of {', '.join(EXPORT_FORMATS)}"
            )
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        with self._reads.snapshot():  # the four tables of one moment, writers or not
            frames = {
                "datasets": self.datasets(),
                "algorithms": self.algorithms(),
                "runs": self.runs(aggregate=False),
                "metafeatures": self.metafeatures(),
            }
        # what a read sees, both parts of a layered one; the files import back
        frames = {name: f.drop(columns="origin", errors="ignore") for name, f in frames.items()}
        written = {name: directory / f"{name}.{format}" for name in frames}
        taken = [str(path) for path in written.values() if path.is_dir()]
        if taken:
            raise KnowledgeBaseError(
                f"cannot export to {directory}: {', '.join(taken)} is a folder, not a file"
            )
        from contextlib import ExitStack

        from metarec._files import atomic_path

        # every file beside its place first; all four put in place when all are written
        with ExitStack() as stack:
            partial = {
                name: stack.enter_context(atomic_path(path)) for name, path in written.items()
            }
            for name, frame in frames.items():
                if format == "csv":
                    frame.to_csv(partial[name], index=False)
                else:
                    frame.to_parquet(partial[name], index=False)
        return written


def _in_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    database = parsed.database or ""
    return parsed.get_backend_name() == "sqlite" and (
        database in ("", ":memory:") or "mode=memory" in database
    )


def _reopen(url: str, read_only: bool) -> KnowledgeBase:
    """A pickled :class:`KnowledgeBase`, opened again (see ``KnowledgeBase.__reduce__``)."""
    return KnowledgeBase(url, read_only=read_only)
