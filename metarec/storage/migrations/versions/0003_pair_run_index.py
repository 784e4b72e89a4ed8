"""One run index for pair look-ups and idempotent imports; a partial index for named runs.

``uq_runs_run_key`` (every run's key, unique) and ``ix_runs_dataset_algorithm`` become
``uq_runs_pair_key`` (dataset_id, algorithm_id, run_key), unique, and ``uq_runs_named_key``
(run_key, unique, over the rows with a ``source_run_id``); see :mod:`metarec.storage._models`.
The keys themselves do not change.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_NAMED_RUN = "source_run_id IS NOT NULL"


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint("uq_runs_run_key", type_="unique")
        batch.drop_index("ix_runs_dataset_algorithm")
        batch.create_unique_constraint(
            "uq_runs_pair_key", ["dataset_id", "algorithm_id", "run_key"]
        )
    op.create_index(
        "uq_runs_named_key",
        "runs",
        ["run_key"],
        unique=True,
        sqlite_where=sa.text(_NAMED_RUN),
        postgresql_where=sa.text(_NAMED_RUN),
    )


def downgrade() -> None:
    op.drop_index("uq_runs_named_key", table_name="runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint("uq_runs_pair_key", type_="unique")
        batch.create_index("ix_runs_dataset_algorithm", ["dataset_id", "algorithm_id"])
        batch.create_unique_constraint("uq_runs_run_key", ["run_key"])
