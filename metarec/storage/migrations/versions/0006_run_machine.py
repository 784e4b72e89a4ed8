"""The machine of a benchmark run in its own column.

Benchmark runs (source ``benchmark``) held the machine that measured their times in
``source_run_id``, after ``" | "`` (``"sklearn:iris/knn/cv5/0/3 | AMD EPYC; 2 cores; ..."``).
This revision adds ``runs.machine`` and moves that text there, leaving the fold's own id in
``source_run_id``.  The keys do not change: a named run's name is ``<source>:<source_run_id>``
followed by ``" | <machine>"`` when it has a machine (see :mod:`metarec.storage._runkeys`),
which is the text the key was computed from.  Only runs of source ``benchmark`` are split
(the only writer of that form); a run of any other source keeps its ``source_run_id`` as it
is.  Downgrading joins the two columns again.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_SEPARATOR = " | "


def _position(dialect: str) -> str:
    """SQL of the 1-based position of the separator in ``source_run_id`` (0: absent)."""
    if dialect == "postgresql":
        return f"strpos(source_run_id, '{_SEPARATOR}')"
    return f"instr(source_run_id, '{_SEPARATOR}')"  # SQLite, MySQL


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("machine", sa.String(255)))
    at = _position(op.get_bind().dialect.name)
    # every SET expression reads the row's old values
    op.execute(
        f"UPDATE runs SET machine = substr(source_run_id, {at} + {len(_SEPARATOR)}), "
        f"source_run_id = substr(source_run_id, 1, {at} - 1) "
        f"WHERE source = 'benchmark' AND {at} > 1"
    )


def downgrade() -> None:
    op.execute(
        f"UPDATE runs SET source_run_id = source_run_id || '{_SEPARATOR}' || machine "
        "WHERE machine IS NOT NULL AND source_run_id IS NOT NULL"
    )
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("machine")
