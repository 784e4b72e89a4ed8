"""Integer run keys: each 16-byte key of 0002-0003 becomes the XOR of its two 64-bit halves.

The two unique indexes keep their names and columns (``uq_runs_pair_key`` on
(dataset_id, algorithm_id, run_key), ``uq_runs_named_key`` on run_key over the named runs);
see :mod:`metarec.storage._runkeys` for the rule, which the importer applies to new rows, so a
migrated knowledge base keeps recognising its runs.  The fold cannot be undone: downgrading
is refused.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_NAMED_RUN = "source_run_id IS NOT NULL"


def upgrade() -> None:
    from metarec.storage.migrations.frozen.runkeys_0005 import fold_many

    conn = op.get_bind()
    op.drop_index("uq_runs_named_key", table_name="runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_constraint("uq_runs_pair_key", type_="unique")
        batch.add_column(sa.Column("run_key64", sa.BigInteger()))
    last = 0
    while True:
        rows = conn.execute(
            sa.text("SELECT id, run_key FROM runs WHERE id > :last ORDER BY id LIMIT 50000"),
            {"last": last},
        ).all()
        if not rows:
            break
        keys = fold_many([bytes(key) for _, key in rows])
        conn.execute(
            sa.text("UPDATE runs SET run_key64 = :k WHERE id = :i"),
            [{"k": key, "i": run_id} for (run_id, _), key in zip(rows, keys, strict=True)],
        )
        last = rows[-1][0]
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("run_key")
    with op.batch_alter_table("runs") as batch:
        batch.alter_column(
            "run_key64", new_column_name="run_key", existing_type=sa.BigInteger(), nullable=False
        )
    with op.batch_alter_table("runs") as batch:
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
    raise NotImplementedError(
        "revision 0004 folded the 16-byte run keys into 64-bit integers, which cannot be "
        "undone: restore a copy of the knowledge base made before the upgrade"
    )
