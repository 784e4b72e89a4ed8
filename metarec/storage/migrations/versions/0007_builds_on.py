"""What a knowledge base builds on: ``kb_state.builds_on``.

A knowledge base that ``metarec run`` filled used to start as a copy of the built-in one;
from this revision on, the built-in knowledge base is read where metarec is installed and a
knowledge base that builds on it says so in ``kb_state.builds_on`` (``"builtin"``), holding
only its user's rows (see :mod:`metarec.storage._layers`).  The column is added empty: an
older knowledge base keeps every row and reads nothing else until ``metarec db upgrade``
finds the built-in rows an earlier version copied into it, which it then removes and marks
the knowledge base as building on the built-in one (``KnowledgeBase.absorb_builtin_copy``,
outside this migration, which keeps every row).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("kb_state") as batch:
        batch.add_column(sa.Column("builds_on", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("kb_state") as batch:
        batch.drop_column("builds_on")
