"""The tables of a metarec knowledge base (SQLAlchemy 2.x declarative models).

Five tables hold everything metarec knows:

``datasets``
    One row per dataset, identified by its unique ``name`` (``"openml:61"``, a file stem...),
    with where it came from (``source`` such as ``openml`` / ``file`` / ``benchmark``,
    ``source_id``), its ``task`` type, its size and a content ``fingerprint``.
``algorithms``
    One row per algorithm configuration, unique ``name``, with ``family``, ``library`` and
    its canonical hyper-parameters (``parameters``: JSON text with sorted keys).
``metafeatures``
    ``(dataset, name) -> value``, unique per dataset and metafeature name.
``runs``
    One row per evaluation of an algorithm on a dataset (one fold of one seed of one
    protocol), with its status, accuracy, fit / predict times and provenance.
``run_metrics``
    Further per-run measures ``(run, metric) -> value`` (``balanced_accuracy``, ``roc_auc``,
    ``log_loss``...), so that a new metric needs no schema change.

Three more tables are derived from those and kept current by every write (revision 0002):

``performance``
    The performance matrix: one row per (dataset, algorithm) with the aggregates the
    recommender reads (``accuracy`` mean over the ``ok`` runs, ``fit_time`` and
    ``predict_time`` means over every run that recorded one, ``n_runs``, ``n_failed`` and
    ``status``), computed by SQL ``GROUP BY`` over ``runs``
    (:mod:`metarec.storage._performance`).
``performance_metrics``
    The same for every per-run metric: ``(dataset, algorithm, metric) -> mean over ok runs``.
``kb_state``
    One row holding the knowledge base's ``data_version``: a random token replaced by every
    transaction that changes datasets, algorithms, runs or metafeatures (a cache key); and
    since revision 0007 ``builds_on``: ``"builtin"`` when the knowledge base reads the
    built-in one of the installed package beside its own rows (see
    :mod:`metarec.storage._layers`), else NULL.

The natural key of a run
------------------------
Every import must be idempotent, so every run carries a unique ``run_key`` (a 64-bit integer
since revision 0004, see :mod:`metarec.storage._runkeys`), derived from:

* a run that names its origin (a non-empty ``source`` *and* ``source_run_id``, e.g. an
  OpenML run) is keyed ``"<source>:<source_run_id>"`` (``"openml:10437"``), followed by
  ``" | <machine>"`` when the run names the machine that measured its times (a benchmark run:
  the same fold measured on two machines is two runs): importing the same OpenML run twice,
  from any file, stores it once;
* any other run is keyed by a hash of its normalised content (dataset, algorithm,
  protocol, seed, fold, status, accuracy, times, source, error and every non-missing metric
  with its name) and its occurrence index among identical rows of the same import.
  Re-importing the same file (or the same rows in another format, or an export of them)
  gives the same keys and adds nothing, while several identical-looking rows in one file
  (folds without a ``fold`` column) are all kept.

Since revision 0003 one unique index ``(dataset_id, algorithm_id, run_key)`` both finds a
pair's runs and makes imports idempotent: a hashed key covers the dataset and algorithm
names, so it is unique within its pair exactly when it is unique at all, and the runs of
one pair sit together in the index, so an import (whose rows usually come grouped by dataset)
inserts near the rows it inserted last instead of at a random place in a key index of every
run (one index instead of two; SQLite's own work to insert 1 M runs fell by about half).  A named
run keeps a key of its own whatever its pair, so a partial unique index on ``run_key``
over the rows with a ``source_run_id`` (:data:`NAMED_RUN`) keeps it unique across pairs.
Revision 0004 made the key an integer (the cheapest key to index), revision 0005 mixed the
halves of a hashed key (see :mod:`metarec.storage._runkeys` for the rule and what 64 bits
cost), revision 0006 moved the machine of a benchmark run out of ``source_run_id`` (where it
followed ``" | "``) into its own ``machine`` column, keeping every key.

A new knowledge base is created from :data:`metadata`; an existing one is changed only
through the alembic migrations shipped in ``metarec/storage/migrations``, and a test keeps
the schema they build identical to :data:`metadata`.  The tables are
SQLAlchemy Core ``Table`` objects (metarec writes and reads through Core and the driver, so
the ORM is never imported: it would cost every command that opens a KB a tenth of a second).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

__all__ = ["metadata", "TABLES", "ALL_TABLES", "NAMED_RUN", "RUN_COLUMNS", "STORED_RUN_COLUMNS"]

metadata = MetaData()


def _pair_columns() -> list[Column]:
    return [
        Column(
            "dataset_id", Integer, ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
        ),
        Column(
            "algorithm_id",
            Integer,
            ForeignKey("algorithms.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    ]


#: A dataset the knowledge base knows about.
datasets = Table(
    "datasets",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(255), nullable=False),
    Column("source", String(64)),
    Column("source_id", String(1024)),
    Column("task", String(32)),
    Column("n_instances", Integer),
    Column("n_features", Integer),
    Column("fingerprint", String(128)),
    UniqueConstraint("name", name="uq_datasets_name"),
)

#: An algorithm configuration (name, family, library, canonical parameters).
algorithms = Table(
    "algorithms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(255), nullable=False),
    Column("family", String(128)),
    Column("library", String(128)),
    Column("parameters", Text),
    UniqueConstraint("name", name="uq_algorithms_name"),
)

#: One metafeature value of one dataset.
metafeatures = Table(
    "metafeatures",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("dataset_id", Integer, ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(255), nullable=False),
    Column("value", Float),
    UniqueConstraint("dataset_id", "name", name="uq_metafeatures_dataset_name"),
)

#: The rows the partial unique index ``uq_runs_named_key`` covers: every run that names its
#: origin (and any other run with a ``source_run_id``, whose hashed key is unique anyway).
NAMED_RUN = "source_run_id IS NOT NULL"

#: One evaluation of one algorithm on one dataset (one fold of one seed).
runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("dataset_id", Integer, ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False),
    Column(
        "algorithm_id", Integer, ForeignKey("algorithms.id", ondelete="CASCADE"), nullable=False
    ),
    Column("protocol", String(64)),
    Column("seed", Integer),
    Column("fold", Integer),
    Column("status", String(16), nullable=False),
    Column("accuracy", Float),
    Column("fit_time", Float),
    Column("predict_time", Float),
    Column("source", String(64)),
    Column("source_run_id", String(255)),
    Column("error", Text),
    Column("run_key", BigInteger, nullable=False),
    # the machine that measured the times (benchmark runs; revision 0006)
    Column("machine", String(255)),
    # one index does both jobs: the runs of a (dataset, algorithm) pair, and idempotent
    # imports (a hashed key is unique within its pair, see "The natural key of a run")
    UniqueConstraint("dataset_id", "algorithm_id", "run_key", name="uq_runs_pair_key"),
    # a named run is unique whatever its pair (SQL of NAMED_RUN: where the partial index is
    # used, a query must repeat it)
    Index(
        "uq_runs_named_key",
        "run_key",
        unique=True,
        sqlite_where=text(NAMED_RUN),
        postgresql_where=text(NAMED_RUN),
    ),
)

#: The columns of ``runs`` an import writes, in the order its rows hold them.
STORED_RUN_COLUMNS = (
    "run_key", "dataset_id", "algorithm_id", "protocol", "seed", "fold", "status", "accuracy",
    "fit_time", "predict_time", "source", "source_run_id", "error", "machine",
)  # fmt: skip

#: Columns of ``KnowledgeBase.runs(aggregate=False)`` before the per-run metric columns.
RUN_COLUMNS = (
    "dataset", "algorithm", "protocol", "seed", "fold", "status", "accuracy", "fit_time",
    "predict_time", "source", "source_run_id", "error", "machine",
)  # fmt: skip

#: A further measure of one run (``balanced_accuracy``, ``roc_auc``, ...).
run_metrics = Table(
    "run_metrics",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("metric", String(128), primary_key=True),
    Column("value", Float),
)

#: Aggregates of the runs of one algorithm on one dataset (the performance matrix).
performance = Table(
    "performance",
    metadata,
    *_pair_columns(),
    Column("status", String(16), nullable=False),
    Column("accuracy", Float),
    Column("fit_time", Float),
    Column("predict_time", Float),
    Column("n_runs", Integer, nullable=False),
    Column("n_failed", Integer, nullable=False),
)

#: Mean of one per-run metric over the ok runs of one algorithm on one dataset.
performance_metrics = Table(
    "performance_metrics",
    metadata,
    *_pair_columns(),
    Column("metric", String(128), primary_key=True),
    Column("value", Float),
)

#: The knowledge base's data version (one row, ``id = 1``).
kb_state = Table(
    "kb_state",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("data_version", String(64), nullable=False),
    # what the knowledge base builds on (revision 0007): "builtin" reads the built-in
    # knowledge base of the installed package beside its own rows; NULL: nothing
    Column("builds_on", String(64)),
)

#: Tables of a metarec knowledge base, in dependency order (``info`` counts their rows).
TABLES = ("datasets", "algorithms", "metafeatures", "runs", "run_metrics")
#: Every table of the schema, derived ones included.
ALL_TABLES = (*TABLES, "performance", "performance_metrics", "kb_state")
