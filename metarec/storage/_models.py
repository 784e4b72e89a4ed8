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
    transaction that changes datasets, algorithms, runs or metafeatures (a cache key).

The natural key of a run
------------------------
Every import must be idempotent, so every run carries a unique ``run_key`` (stored as 16
bytes since revision 0002, see :mod:`metarec.storage._runkeys`), derived from:

* a run that names its origin (a non-empty ``source`` *and* ``source_run_id``, e.g. an
  OpenML run) is keyed ``"<source>:<source_run_id>"`` (``"openml:10437"``): importing the
  same OpenML run twice, from any file, stores it once;
* any other run is keyed by a 128-bit hash of its normalised content (dataset, algorithm,
  protocol, seed, fold, status, accuracy, times, source, error and every non-missing metric
  with its name) followed by its occurrence index among identical rows of the same import:
  ``"h:<32 hex digits>:<k>"``.  Re-importing the same file (or the same rows in another
  format, or an export of them) gives the same keys and adds nothing, while several
  identical-looking rows in one file (folds without a ``fold`` column) are all kept.

The schema is created and changed only through the alembic migrations shipped in
``metarec/storage/migrations``; :data:`metadata` is what they build.
"""

from __future__ import annotations

from sqlalchemy import (
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "Dataset",
    "Algorithm",
    "Metafeature",
    "Run",
    "RunMetric",
    "Performance",
    "PerformanceMetric",
    "KBState",
    "metadata",
]


class Base(DeclarativeBase):
    """Declarative base of the knowledge-base models."""


class Dataset(Base):
    """A dataset the knowledge base knows about."""

    __tablename__ = "datasets"
    __table_args__ = (UniqueConstraint("name", name="uq_datasets_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    source: Mapped[str | None] = mapped_column(String(64))
    source_id: Mapped[str | None] = mapped_column(String(1024))
    task: Mapped[str | None] = mapped_column(String(32))
    n_instances: Mapped[int | None] = mapped_column(Integer)
    n_features: Mapped[int | None] = mapped_column(Integer)
    fingerprint: Mapped[str | None] = mapped_column(String(128))


class Algorithm(Base):
    """An algorithm configuration (name, family, library, canonical parameters)."""

    __tablename__ = "algorithms"
    __table_args__ = (UniqueConstraint("name", name="uq_algorithms_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    family: Mapped[str | None] = mapped_column(String(128))
    library: Mapped[str | None] = mapped_column(String(128))
    parameters: Mapped[str | None] = mapped_column(Text)


class Metafeature(Base):
    """One metafeature value of one dataset."""

    __tablename__ = "metafeatures"
    __table_args__ = (UniqueConstraint("dataset_id", "name", name="uq_metafeatures_dataset_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    value: Mapped[float | None] = mapped_column(Float)


class Run(Base):
    """One evaluation of one algorithm on one dataset (one fold of one seed)."""

    __tablename__ = "runs"
    __table_args__ = (
        UniqueConstraint("run_key", name="uq_runs_run_key"),
        Index("ix_runs_dataset_algorithm", "dataset_id", "algorithm_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_key: Mapped[bytes] = mapped_column(LargeBinary(16), nullable=False)
    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False
    )
    algorithm_id: Mapped[int] = mapped_column(
        ForeignKey("algorithms.id", ondelete="CASCADE"), nullable=False
    )
    protocol: Mapped[str | None] = mapped_column(String(64))
    seed: Mapped[int | None] = mapped_column(Integer)
    fold: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    accuracy: Mapped[float | None] = mapped_column(Float)
    fit_time: Mapped[float | None] = mapped_column(Float)
    predict_time: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str | None] = mapped_column(String(64))
    source_run_id: Mapped[str | None] = mapped_column(String(255))
    error: Mapped[str | None] = mapped_column(Text)


class RunMetric(Base):
    """A further measure of one run (``balanced_accuracy``, ``roc_auc``, ...)."""

    __tablename__ = "run_metrics"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    metric: Mapped[str] = mapped_column(String(128), primary_key=True)
    value: Mapped[float | None] = mapped_column(Float)


class Performance(Base):
    """Aggregates of the runs of one algorithm on one dataset (the performance matrix)."""

    __tablename__ = "performance"

    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    algorithm_id: Mapped[int] = mapped_column(
        ForeignKey("algorithms.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    accuracy: Mapped[float | None] = mapped_column(Float)
    fit_time: Mapped[float | None] = mapped_column(Float)
    predict_time: Mapped[float | None] = mapped_column(Float)
    n_runs: Mapped[int] = mapped_column(Integer, nullable=False)
    n_failed: Mapped[int] = mapped_column(Integer, nullable=False)


class PerformanceMetric(Base):
    """Mean of one per-run metric over the ok runs of one algorithm on one dataset."""

    __tablename__ = "performance_metrics"

    dataset_id: Mapped[int] = mapped_column(
        ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    algorithm_id: Mapped[int] = mapped_column(
        ForeignKey("algorithms.id", ondelete="CASCADE"), primary_key=True
    )
    metric: Mapped[str] = mapped_column(String(128), primary_key=True)
    value: Mapped[float | None] = mapped_column(Float)


class KBState(Base):
    """The knowledge base's data version (one row, ``id = 1``)."""

    __tablename__ = "kb_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data_version: Mapped[str] = mapped_column(String(64), nullable=False)


metadata = Base.metadata

#: Tables of a metarec knowledge base, in dependency order (``info`` counts their rows).
TABLES = ("datasets", "algorithms", "metafeatures", "runs", "run_metrics")
#: Every table of the schema, derived ones included.
ALL_TABLES = (*TABLES, "performance", "performance_metrics", "kb_state")
