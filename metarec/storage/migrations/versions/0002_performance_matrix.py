"""The performance matrix (per dataset x algorithm aggregates of the runs), the data version,
and 16-byte run keys (the text keys of 0001 are converted, see metarec.storage._runkeys).

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


def _compact_run_keys() -> None:
    from metarec.storage.migrations.frozen.runkeys_0005 import key_from_text

    conn = op.get_bind()
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("run_key16", sa.LargeBinary(16)))
    last = 0
    while True:
        rows = conn.execute(
            sa.text("SELECT id, run_key FROM runs WHERE id > :last ORDER BY id LIMIT 50000"),
            {"last": last},
        ).all()
        if not rows:
            break
        conn.execute(
            sa.text("UPDATE runs SET run_key16 = :k WHERE id = :i"),
            [{"k": key_from_text(key), "i": run_id} for run_id, key in rows],
        )
        last = rows[-1][0]
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint("uq_runs_run_key", type_="unique")
        batch.drop_column("run_key")
    with op.batch_alter_table("runs") as batch:
        batch.alter_column(
            "run_key16",
            new_column_name="run_key",
            existing_type=sa.LargeBinary(16),
            nullable=False,
        )
    with op.batch_alter_table("runs") as batch:
        batch.create_unique_constraint("uq_runs_run_key", ["run_key"])


def upgrade() -> None:
    from metarec.storage.migrations.frozen.performance_0002 import rebuild_performance

    _compact_run_keys()

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
