"""The performance matrix (per dataset x algorithm aggregates of the runs) and the data version.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _pair_columns():
    return [
        sa.Column(
            "dataset_id",
            sa.Integer(),
            sa.ForeignKey("datasets.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "algorithm_id",
            sa.Integer(),
            sa.ForeignKey("algorithms.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    ]


def upgrade() -> None:
    from metarec.storage._performance import rebuild_performance

    op.create_table(
        "performance",
        *_pair_columns(),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("accuracy", sa.Float()),
        sa.Column("fit_time", sa.Float()),
        sa.Column("predict_time", sa.Float()),
        sa.Column("n_runs", sa.Integer(), nullable=False),
        sa.Column("n_failed", sa.Integer(), nullable=False),
    )
    op.create_table(
        "performance_metrics",
        *_pair_columns(),
        sa.Column("metric", sa.String(128), primary_key=True),
        sa.Column("value", sa.Float()),
    )
    op.create_table(
        "kb_state",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("data_version", sa.String(64), nullable=False),
    )
    conn = op.get_bind()
    rebuild_performance(conn)
    conn.execute(
        sa.text("INSERT INTO kb_state (id, data_version) VALUES (1, :v)"),
        {"v": uuid.uuid4().hex},
    )


def downgrade() -> None:
    op.drop_table("kb_state")
    op.drop_table("performance_metrics")
    op.drop_table("performance")
