"""Initial knowledge-base schema: datasets, algorithms, metafeatures, runs, run_metrics.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "datasets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("source", sa.String(64)),
        sa.Column("source_id", sa.String(1024)),
        sa.Column("task", sa.String(32)),
        sa.Column("n_instances", sa.Integer()),
        sa.Column("n_features", sa.Integer()),
        sa.Column("fingerprint", sa.String(128)),
        sa.UniqueConstraint("name", name="uq_datasets_name"),
    )
    op.create_table(
        "algorithms",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("family", sa.String(128)),
        sa.Column("library", sa.String(128)),
        sa.Column("parameters", sa.Text()),
        sa.UniqueConstraint("name", name="uq_algorithms_name"),
    )
    op.create_table(
        "metafeatures",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "dataset_id",
            sa.Integer(),
            sa.ForeignKey("datasets.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("value", sa.Float()),
        sa.UniqueConstraint("dataset_id", "name", name="uq_metafeatures_dataset_name"),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_key", sa.String(512), nullable=False),
        sa.Column(
            "dataset_id",
            sa.Integer(),
            sa.ForeignKey("datasets.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "algorithm_id",
            sa.Integer(),
            sa.ForeignKey("algorithms.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("protocol", sa.String(64)),
        sa.Column("seed", sa.Integer()),
        sa.Column("fold", sa.Integer()),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("accuracy", sa.Float()),
        sa.Column("fit_time", sa.Float()),
        sa.Column("predict_time", sa.Float()),
        sa.Column("source", sa.String(64)),
        sa.Column("source_run_id", sa.String(255)),
        sa.Column("error", sa.Text()),
        sa.UniqueConstraint("run_key", name="uq_runs_run_key"),
    )
    op.create_index("ix_runs_dataset_algorithm", "runs", ["dataset_id", "algorithm_id"])
    op.create_table(
        "run_metrics",
        sa.Column(
            "run_id",
            sa.Integer(),
            sa.ForeignKey("runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("metric", sa.String(128), primary_key=True),
        sa.Column("value", sa.Float()),
    )


def downgrade() -> None:
    op.drop_table("run_metrics")
    op.drop_index("ix_runs_dataset_algorithm", table_name="runs")
    op.drop_table("runs")
    op.drop_table("metafeatures")
    op.drop_table("algorithms")
    op.drop_table("datasets")
